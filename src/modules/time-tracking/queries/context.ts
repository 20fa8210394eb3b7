import { type JoinBuilder, sql } from 'kysely';
import { jsonArrayFrom as postgresJsonArrayFrom } from 'kysely/helpers/postgres';
import { jsonArrayFrom as sqliteJsonArrayFrom } from 'kysely/helpers/sqlite';
import { BREAK_COLUMNS, type BreakRow } from './breaks.js';
import { OPEN } from './entries.js';
import { type Executor, isPostgres } from '../../../platform/db/database.js';
import { ONE_ROW, prepareQuery } from '../../../platform/db/prepared.js';
import { type IdempotencyRecordRow, type Schema, type TimeEntryRow } from '../../../platform/db/schema.js';

/*
 * What a punch or a shift is decided on, read in one statement each: the schedule in force, the open
 * session, the day locks, a covering or overlapping entry (the lookback bound: see duplicates.ts).
 */

/*
 * The columns of an open session a punch reads (to close it, or to report it): no more, since every
 * column read costs on every punch (on PostgreSQL pg describes, parses and builds each one anew).
 */
export const OPEN_SESSION_COLUMNS = [
  'id',
  'work_date',
  'start_at',
  'start_time',
  'notes',
  'note',
  // For the event a clock-out records (the completed entry as a list item).
  'break_minutes',
  'source',
  'approved_at',
  'created_at',
  // Corrections (issue 30): the version a punch's revision follows, and the list item's marks.
  'version',
  'edited',
  'auto_closed',
  // The flags a clock-out's event reports (with its own: offline_punch, device_clock_skew).
  'review_flags',
] as const;

export type OpenSession = Pick<TimeEntryRow, (typeof OPEN_SESSION_COLUMNS)[number]>;

/** What a punch needs to know besides the employee, read in one statement. */
export interface PunchContext {
  /** The employee's open session, if any. */
  open: OpenSession | undefined;
  /** The schedule in force on the punch's work date. */
  scheduleId: string | null;
  /** Whether the punch's work date is confirmed (locked). */
  punchDayLocked: boolean;
  /** Whether the open session's work date is confirmed (locked). */
  openDayLocked: boolean;
  /** A completed entry that covers the punch's instant: started at or before it, ended after it. */
  coveringId: string | null;
  /**
   * A completed entry that closing the open session at the punch's instant would overlap: it ends
   * after the session started and starts before the instant. Null without an open session.
   */
  swallowedId: string | null;
  /** Whether the open session has breaks (then the punch reads them: findEntryBreaks). */
  openHasBreaks: boolean;
  /** A closed period (issue 30) holding the punch's work date, if any (as closedPeriodHolding says it). */
  punchClosedPeriod: string | null;
  /** A closed period holding the open session's work date, if any. */
  openClosedPeriod: string | null;
}

/**
 * What the single endpoint's context statement reads besides (issue 32, item 3: a keyed punch in five
 * round trips): the open session's breaks, and the record of the request's Idempotency-Key, if any.
 */
export interface PunchContextRead extends PunchContext {
  /** The open session's breaks, oldest first (none without an open session). */
  openBreaks: BreakRow[];
  /** The key's stored record (see idempotency/service.ts, judgeRecord); undefined without one. */
  keyRecord: IdempotencyRecordRow | undefined;
}

const KEY_COLUMNS = [
  'request_hash',
  'state',
  'response_status',
  'response_body',
  'created_at',
  'expires_at',
] as const satisfies readonly (keyof IdempotencyRecordRow)[];

type PunchContextRow = { [K in keyof OpenSession]: OpenSession[K] | null } & {
  [K in (typeof KEY_COLUMNS)[number] as `key_${K}`]: IdempotencyRecordRow[K] | null;
} & {
  open_breaks: BreakRow[] | string;
  effective_schedule_id: string | null;
  punch_day_locked: unknown;
  open_day_locked: unknown;
  covering_id: string | null;
  swallowed_id: string | null;
  open_has_breaks: unknown;
  punch_closed_period: string | null;
  open_closed_period: string | null;
};

/*
 * A keyed write's Idempotency-Key record, read with its context (issue 32, item 3): a left join on
 * its primary key ('' names none: a key is never empty), its columns as `key_…`.
 */
function keyRecordOn<J extends JoinBuilder<Schema & { r: Schema['idempotency_records'] }, 'r'>>(
  join: J,
  p: { companyId: string; keyOwnerId: string; key: string },
) {
  return join
    .on('r.company_id', '=', p.companyId)
    .on('r.api_key_id', '=', p.keyOwnerId)
    .on('r.idempotency_key', '=', p.key);
}

const KEY_SELECTION = KEY_COLUMNS.map((column) => `r.${column} as key_${column}` as const);

type KeyRow = { [K in (typeof KEY_COLUMNS)[number] as `key_${K}`]: IdempotencyRecordRow[K] | null };

/** The key's record from a context row's `key_…` columns; undefined without one. */
function keyRecordOf(
  row: KeyRow,
  p: { companyId: string; keyOwnerId: string; key: string },
): IdempotencyRecordRow | undefined {
  if (row.key_request_hash === null) return undefined;
  return {
    company_id: p.companyId,
    api_key_id: p.keyOwnerId,
    idempotency_key: p.key,
    request_hash: row.key_request_hash,
    state: row.key_state!,
    response_status: row.key_response_status,
    response_body: row.key_response_body,
    created_at: row.key_created_at!,
    expires_at: row.key_expires_at!,
  };
}

/** The schedule in force on `workDate`: the latest that took effect on or before it (a subquery). */
function scheduleInForce(db: Executor, employeeId: string, workDate: string) {
  return db
    .selectFrom('employee_schedules')
    .select('schedule_id')
    .where('employee_id', '=', employeeId)
    .where('effective_from', '<=', workDate)
    .orderBy('effective_from', 'desc')
    .limit(ONE_ROW)
    .as('effective_schedule_id');
}

/*
 * A closed period (issue 30) of the company, or of the employee's workplace, holding a day from
 * `from` to `to` (a subquery): one read of the index (company_id, to_date). It is said as the refusal
 * says it (`2026-11-01 to 2026-11-30 is closed (locked period …)`), so a refused write reads nothing
 * more; `||` concatenates text on both databases.
 */
function closedPeriodHolding(
  db: Executor,
  scope: { companyId: string; workplaceId: string },
  from: string | RawDay,
  to: string | RawDay,
) {
  return (
    db
      .selectFrom('locked_periods as lp')
      .select(
        sql<string>`lp.from_date || ' to ' || lp.to_date || ' is closed (locked period ' || lp.id || ')'`.as(
          'closed',
        ),
      )
      .where('lp.company_id', '=', scope.companyId)
      .where('lp.reopened_at', 'is', null)
      .where('lp.to_date', '>=', from)
      .where('lp.from_date', '<=', to)
      .where((eb) =>
        eb.or([eb('lp.workplace_id', 'is', null), eb('lp.workplace_id', '=', scope.workplaceId)]),
      )
      // Of overlapping periods, the one ending first (then by id), as the batch's set form names it (batch-set.ts).
      .orderBy('lp.to_date')
      .orderBy('lp.id')
      .limit(ONE_ROW)
  );
}

/** The open session's work date, as a closed period's bound. */
type RawDay = ReturnType<typeof openSessionDay>;
const openSessionDay = () => sql<string>`t.work_date`;

function punchContext(db: Executor, p: PunchContextInput) {
  const { employeeId, workDate, instant, startedAfter, sessionStartedAfter } = p;
  const scope = { companyId: p.companyId, workplaceId: p.workplaceId };
  const jsonArrayFrom = isPostgres(db) ? postgresJsonArrayFrom : sqliteJsonArrayFrom;
  return db
    .selectFrom(sql<{ one: number }>`(select 1 as one)`.as('x'))
    .leftJoin('time_entries as t', (join) =>
      join.on('t.employee_id', '=', employeeId).on('t.status', '=', OPEN),
    )
    .leftJoin('idempotency_records as r', (join) => keyRecordOn(join, p))
    .select(OPEN_SESSION_COLUMNS.map((column) => `t.${column}` as const))
    .select(KEY_SELECTION)
    .select((eb) => [
      jsonArrayFrom(
        eb
          .selectFrom('time_entry_breaks as b')
          .select(BREAK_COLUMNS.map((column) => `b.${column}` as const))
          .whereRef('b.time_entry_id', '=', 't.id')
          .orderBy('b.start_at')
          .orderBy('b.id'),
      ).as('open_breaks'),
      scheduleInForce(db, employeeId, workDate),
      eb
        .exists(
          eb
            .selectFrom('confirmed_days')
            .select('work_date')
            .where('employee_id', '=', employeeId)
            .where('work_date', '=', workDate),
        )
        .as('punch_day_locked'),
      eb
        .exists(
          eb
            .selectFrom('confirmed_days as d')
            .select('d.work_date')
            .where('d.employee_id', '=', employeeId)
            .whereRef('d.work_date', '=', 't.work_date'),
        )
        .as('open_day_locked'),
      eb
        .selectFrom('time_entries as c')
        .select('c.id')
        .where('c.employee_id', '=', employeeId)
        .where('c.start_at', '>', startedAfter)
        .where('c.start_at', '<=', instant)
        .where('c.status', '!=', OPEN)
        .where('c.end_at', '>', instant)
        .limit(ONE_ROW)
        .as('covering_id'),
      // Like the covering entry: an entry with an end. The open session is the employee's only
      // one without (partial unique index).
      eb
        .selectFrom('time_entries as s')
        .select('s.id')
        .where('s.employee_id', '=', employeeId)
        .where('s.start_at', '>', sessionStartedAfter)
        .where('s.start_at', '<', instant)
        .whereRef('s.end_at', '>', 't.start_at')
        .whereRef('s.id', '!=', 't.id')
        .limit(ONE_ROW)
        .as('swallowed_id'),
      eb
        .exists(
          eb.selectFrom('time_entry_breaks as b').select('b.id').whereRef('b.time_entry_id', '=', 't.id'),
        )
        .as('open_has_breaks'),
      closedPeriodHolding(db, scope, workDate, workDate).as('punch_closed_period'),
      closedPeriodHolding(db, scope, openSessionDay(), openSessionDay()).as('open_closed_period'),
    ]);
}

/**
 * In one round trip: the open session, the schedule in force on `workDate`, whether `workDate` and
 * the open session's date are confirmed, a completed entry covering `instant` (bounded by
 * `startedAfter`, see above), and a completed entry the open session would swallow if it closed at
 * `instant`. Run after the employee is locked, like the separate lookups it replaces.
 *
 * `sessionStartedAfter` (`instant` minus two days) bounds the last lookup: it is only consulted for
 * a session that started less than a day before `instant` (a longer one cannot be closed), and an
 * entry that ends after such a session started began less than a day before that.
 */
interface PunchContextInput {
  employeeId: string;
  workDate: string;
  instant: string;
  startedAfter: string;
  sessionStartedAfter: string;
  /** The company and the employee's workplace ('' for none), whose closed periods count. */
  companyId: string;
  workplaceId: string;
  /** A keyed write: who sent the key (the API key, device or person), and the key; '' and '' for none. */
  keyOwnerId: string;
  key: string;
}

const punchContextQuery = prepareQuery((db, p: PunchContextInput) => punchContext(db, p));

export async function findPunchContext(db: Executor, input: PunchContextInput): Promise<PunchContextRead> {
  const row = (await punchContextQuery.executeTakeFirst(db, input)) as PunchContextRow | undefined;
  if (!row) throw new Error('punch context query returned no row');
  const {
    key_request_hash,
    key_state,
    key_response_status,
    key_response_body,
    key_created_at,
    key_expires_at,
    open_breaks,
    effective_schedule_id,
    punch_day_locked,
    open_day_locked,
    covering_id,
    swallowed_id,
    open_has_breaks,
    punch_closed_period,
    open_closed_period,
    ...open
  } = row;
  return {
    open: open.id === null ? undefined : (open as OpenSession),
    scheduleId: effective_schedule_id,
    punchDayLocked: truthy(punch_day_locked),
    openDayLocked: open.id !== null && truthy(open_day_locked),
    coveringId: covering_id,
    swallowedId: open.id === null ? null : swallowed_id,
    openHasBreaks: open.id !== null && truthy(open_has_breaks),
    punchClosedPeriod: punch_closed_period,
    openClosedPeriod: open.id === null ? null : open_closed_period,
    // SQLite answers JSON as text, PostgreSQL (pg) parsed.
    openBreaks:
      open.id === null ? [] : typeof open_breaks === 'string' ? JSON.parse(open_breaks) : open_breaks,
    keyRecord: keyRecordOf(
      { key_request_hash, key_state, key_response_status, key_response_body, key_created_at, key_expires_at },
      input,
    ),
  };
}

/** What a completed shift needs to know besides the employee, read in one statement. */
export interface ShiftContext {
  scheduleId: string | null;
  /** Whether the start day or the end day is confirmed (locked). */
  dayLocked: boolean;
  /** An entry the shift would overlap: a completed one that meets its span, or the open session. */
  overlappingId: string | null;
  /** A closed period (issue 30) holding the start day or the end day, if any (as closedPeriodHolding says it). */
  closedPeriod: string | null;
  /** The record of the request's Idempotency-Key (a keyed write, issue 32); undefined without one. */
  keyRecord: IdempotencyRecordRow | undefined;
}

function shiftContext(db: Executor, p: ShiftContextInput) {
  const { employeeId, workDate, endDate, from, to, startedAfter } = p;
  return db
    .selectFrom(sql<{ one: number }>`(select 1 as one)`.as('x'))
    .leftJoin('idempotency_records as r', (join) => keyRecordOn(join, p))
    .select(KEY_SELECTION)
    .select((eb) => [
      scheduleInForce(db, employeeId, workDate),
      eb
        .exists(
          eb
            .selectFrom('confirmed_days')
            .select('work_date')
            .where('employee_id', '=', employeeId)
            .where('work_date', 'in', [workDate, endDate]),
        )
        .as('day_locked'),
      eb
        .selectFrom('time_entries')
        .select('id')
        .where('employee_id', '=', employeeId)
        .where('start_at', '>', startedAfter)
        .where('start_at', '<', to)
        .where('end_at', '>', from)
        .limit(ONE_ROW)
        .as('overlapping_closed_id'),
      /*
       * The open session, when it started before `to`. The start is tested in the CASE rather than
       * in WHERE: with `start_at < ?` in WHERE, SQLite walked the employee's (employee_id, start_at)
       * index through their whole history (32 µs at 261 entries, growing with every day worked)
       * instead of reading the one row of the partial index on open sessions (2.5 µs).
       */
      eb
        .selectFrom('time_entries')
        .select((inner) =>
          inner
            .case()
            .when(inner.and([inner('start_at', '<', to), inner('end_at', 'is', null)]))
            .then(inner.ref('id'))
            .end()
            .as('id'),
        )
        .where('employee_id', '=', employeeId)
        .where('status', '=', OPEN)
        .limit(ONE_ROW)
        .as('overlapping_open_id'),
      closedPeriodHolding(db, p, workDate, endDate).as('closed_period'),
    ]);
}

/**
 * In one round trip: the schedule in force on `workDate`, whether `workDate` or `endDate` is
 * confirmed, and an entry overlapping [from, to): a completed entry that meets it (bounded by
 * `startedAfter`, see above) or the open session, if it started before `to`.
 */
interface ShiftContextInput {
  employeeId: string;
  workDate: string;
  endDate: string;
  from: string;
  to: string;
  startedAfter: string;
  /** The company and the employee's workplace ('' for none), whose closed periods count. */
  companyId: string;
  workplaceId: string;
  /** A keyed write: who sent the key, and the key; '' and '' for none. */
  keyOwnerId: string;
  key: string;
}

const shiftContextQuery = prepareQuery((db, p: ShiftContextInput) => shiftContext(db, p));

export async function findShiftContext(db: Executor, input: ShiftContextInput): Promise<ShiftContext> {
  const row = await shiftContextQuery.executeTakeFirst(db, input);
  if (!row) throw new Error('shift context query returned no row');
  return {
    scheduleId: row.effective_schedule_id,
    dayLocked: truthy(row.day_locked),
    overlappingId: row.overlapping_closed_id ?? row.overlapping_open_id,
    closedPeriod: row.closed_period,
    keyRecord: keyRecordOf(row as unknown as KeyRow, input),
  };
}

/** EXISTS is 0/1 on SQLite and a boolean on PostgreSQL. */
function truthy(value: unknown): boolean {
  return value === true || value === 1 || value === '1' || value === 't';
}
