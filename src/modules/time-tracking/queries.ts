import { sql } from 'kysely';
import { type Executor, type Tx } from '../../platform/db/database.js';
import { ONE_ROW, boundLimit, prepareQuery } from '../../platform/db/prepared.js';
import { type NewTimeEntry, type TimeEntryBreakRow, type TimeEntryRow } from '../../platform/db/schema.js';

/*
 * The status of an open session is written into the SQL as a literal, never bound: a bound value in
 * the term that makes the partial index on open sessions usable made SQLite re-plan the statement
 * on every run (it cannot know the value will never change), and PostgreSQL can only match the
 * partial index's predicate against a literal in a generic plan.
 */
const OPEN = sql.lit('open');

/*
 * The overlap and duplicate checks below look back from an instant. Every entry this service stores
 * lasts less than 24 hours (a longer session or shift is refused), so a completed entry that reaches
 * an instant started less than a day before it: callers pass that bound (`startedAfter`), and the
 * lookup reads the few entries of that day from the (employee_id, start_at) index instead of the
 * employee's whole history, which grew with every day worked.
 */

function duplicateStart(
  db: Executor,
  employeeId: string,
  sentType: string,
  callerId: string,
  from: string,
  to: string,
) {
  return db
    .selectFrom('time_entries')
    .selectAll()
    .where('employee_id', '=', employeeId)
    .where('clock_in_event', '=', sentType)
    .where('created_by_id', '=', callerId)
    .where('start_at', '>=', from)
    .where('start_at', '<=', to)
    .orderBy('start_at', 'desc')
    .limit(ONE_ROW);
}

function duplicateEnd(
  db: Executor,
  employeeId: string,
  sentType: string,
  callerId: string,
  from: string,
  to: string,
  startedAfter: string,
) {
  return db
    .selectFrom('time_entries')
    .selectAll()
    .where('employee_id', '=', employeeId)
    .where('start_at', '>', startedAfter)
    .where('clock_out_event', '=', sentType)
    .where('closed_by_id', '=', callerId)
    .where('end_at', '>=', from)
    .where('end_at', '<=', to)
    .orderBy('end_at', 'desc')
    .limit(ONE_ROW);
}

interface DuplicateInput {
  employeeId: string;
  sentType: string;
  callerId: string;
  from: string;
  to: string;
  startedAfter: string;
}

const duplicateStartQuery = prepareQuery((db, p: DuplicateInput) =>
  duplicateStart(db, p.employeeId, p.sentType, p.callerId, p.from, p.to),
);
const duplicateEndQuery = prepareQuery((db, p: DuplicateInput) =>
  duplicateEnd(db, p.employeeId, p.sentType, p.callerId, p.from, p.to, p.startedAfter),
);

/** Spec, Idempotency rule 6: a punch of the same type, by the same caller, within the window of an existing one. */
export async function findDuplicatePunch(
  db: Executor,
  input: DuplicateInput,
): Promise<{ entry: TimeEntryRow; matched: 'start' | 'end' } | undefined> {
  const started = await duplicateStartQuery.executeTakeFirst(db, input);
  if (started) return { entry: started, matched: 'start' };
  const ended = await duplicateEndQuery.executeTakeFirst(db, input);
  return ended ? { entry: ended, matched: 'end' } : undefined;
}

/*
 * The columns of an open session a punch reads (to close it, or to report it): no more, since every
 * column read costs on every punch (on PostgreSQL pg describes, parses and builds each one anew).
 */
const OPEN_SESSION_COLUMNS = [
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
}

type PunchContextRow = { [K in keyof OpenSession]: OpenSession[K] | null } & {
  effective_schedule_id: string | null;
  punch_day_locked: unknown;
  open_day_locked: unknown;
  covering_id: string | null;
  swallowed_id: string | null;
  open_has_breaks: unknown;
};

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

function punchContext(
  db: Executor,
  employeeId: string,
  workDate: string,
  instant: string,
  startedAfter: string,
  sessionStartedAfter: string,
) {
  return db
    .selectFrom(sql<{ one: number }>`(select 1 as one)`.as('x'))
    .leftJoin('time_entries as t', (join) =>
      join.on('t.employee_id', '=', employeeId).on('t.status', '=', OPEN),
    )
    .select(OPEN_SESSION_COLUMNS.map((column) => `t.${column}` as const))
    .select((eb) => [
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
}

const punchContextQuery = prepareQuery((db, p: PunchContextInput) =>
  punchContext(db, p.employeeId, p.workDate, p.instant, p.startedAfter, p.sessionStartedAfter),
);

export async function findPunchContext(db: Executor, input: PunchContextInput): Promise<PunchContext> {
  const row = (await punchContextQuery.executeTakeFirst(db, input)) as PunchContextRow | undefined;
  if (!row) throw new Error('punch context query returned no row');
  const {
    effective_schedule_id,
    punch_day_locked,
    open_day_locked,
    covering_id,
    swallowed_id,
    open_has_breaks,
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
  };
}

/** What a completed shift needs to know besides the employee, read in one statement. */
export interface ShiftContext {
  scheduleId: string | null;
  /** Whether the start day or the end day is confirmed (locked). */
  dayLocked: boolean;
  /** An entry the shift would overlap: a completed one that meets its span, or the open session. */
  overlappingId: string | null;
}

function shiftContext(
  db: Executor,
  employeeId: string,
  workDate: string,
  endDate: string,
  from: string,
  to: string,
  startedAfter: string,
) {
  return db.selectNoFrom((eb) => [
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
}

const shiftContextQuery = prepareQuery((db, p: ShiftContextInput) =>
  shiftContext(db, p.employeeId, p.workDate, p.endDate, p.from, p.to, p.startedAfter),
);

export async function findShiftContext(db: Executor, input: ShiftContextInput): Promise<ShiftContext> {
  const row = await shiftContextQuery.executeTakeFirst(db, input);
  if (!row) throw new Error('shift context query returned no row');
  return {
    scheduleId: row.effective_schedule_id,
    dayLocked: truthy(row.day_locked),
    overlappingId: row.overlapping_closed_id ?? row.overlapping_open_id,
  };
}

/** EXISTS is 0/1 on SQLite and a boolean on PostgreSQL. */
function truthy(value: unknown): boolean {
  return value === true || value === 1 || value === '1' || value === 't';
}

const ENTRY_COLUMNS = [
  'id',
  'company_id',
  'employee_id',
  'work_date',
  'start_at',
  'end_at',
  'start_time',
  'end_time',
  'ends_next_day',
  'break_minutes',
  'net_seconds',
  'status',
  'source',
  'time_zone',
  'notes',
  'note',
  'clock_in_event',
  'clock_out_event',
  'created_by_type',
  'created_by_id',
  'closed_by_id',
  'created_at',
  'updated_at',
  'approved_at',
] as const satisfies readonly (keyof NewTimeEntry)[];

export type EntryValues = { [K in (typeof ENTRY_COLUMNS)[number]]: string | number | null };

const insertEntryQuery = prepareQuery((db, p: EntryValues) =>
  db
    .insertInto('time_entries')
    .values(Object.fromEntries(ENTRY_COLUMNS.map((c) => [c, p[c]])) as unknown as NewTimeEntry),
);

/** A new entry (an open session, or a completed shift). A second open session fails here (partial unique index). */
export async function insertTimeEntry(tx: Tx, entry: EntryValues): Promise<void> {
  await insertEntryQuery.executeWrite(tx, entry);
}

interface SessionClosing {
  break_minutes: number | null;
  end_at: string;
  end_time: string;
  ends_next_day: number;
  net_seconds: number;
  status: string;
  notes: string | null;
  note: string | null;
  clock_out_event: string;
  closed_by_id: string;
  updated_at: string;
}

const completeSessionQuery = prepareQuery((db, p: SessionClosing & { id: string }) =>
  db
    .updateTable('time_entries')
    .set({
      break_minutes: p.break_minutes,
      end_at: p.end_at,
      end_time: p.end_time,
      ends_next_day: p.ends_next_day,
      net_seconds: p.net_seconds,
      status: p.status,
      notes: p.notes,
      note: p.note,
      clock_out_event: p.clock_out_event,
      closed_by_id: p.closed_by_id,
      updated_at: p.updated_at,
    })
    .where('id', '=', p.id),
);

/** Closes an open session: the fields a clock-out sets. */
export async function completeSession(tx: Tx, id: string, patch: SessionClosing): Promise<void> {
  await completeSessionQuery.executeWrite(tx, { id, ...patch });
}

/** The columns of a time-entry list item (modules/views.ts): pages read nothing else. */
export const LIST_COLUMNS = [
  'id',
  'work_date',
  'start_time',
  'end_time',
  'ends_next_day',
  'net_seconds',
  'break_minutes',
  'status',
  'source',
  'approved_at',
  'created_at',
] as const;

type ListRow = Pick<TimeEntryRow, (typeof LIST_COLUMNS)[number]>;
type PageJoinRow = { [K in keyof ListRow]: ListRow[K] | null } & {
  employee_row_id: string;
  employee_external_id: string | null;
};

const PAGE_COLUMNS = LIST_COLUMNS.map((column) => `p.${column}` as const);

/*
 * An employee (by id or external id, never a deleted one) and one page of their entries, in one
 * statement: the page is a derived table joined to the employee row, so a missing employee yields no
 * row, an employee without entries in the range one row of nulls. The page itself is an indexed read
 * of (employee_id, work_date, id) in the range, after the cursor's position.
 */
function employeePage(by: 'id' | 'externalId', withAfter: boolean) {
  return (
    db: Executor,
    companyId: string,
    selector: string,
    from: string,
    to: string,
    afterDate: string,
    afterId: string,
    limit: number,
  ) =>
    db
      .selectFrom('employees as e')
      .leftJoin(
        (eb) => {
          let page = eb
            .selectFrom('time_entries')
            .select(LIST_COLUMNS)
            .where(
              'employee_id',
              '=',
              by === 'id'
                ? eb.val(selector)
                : eb
                    .selectFrom('employees as s')
                    .select('s.id')
                    .where('s.company_id', '=', companyId)
                    .where('s.external_id', '=', selector)
                    .where('s.deleted_at', 'is', null),
            )
            .where('company_id', '=', companyId)
            .where('work_date', '>=', from)
            .where('work_date', '<=', to);
          if (withAfter)
            page = page.where((w) =>
              w.or([
                w('work_date', '>', afterDate),
                w.and([w('work_date', '=', afterDate), w('id', '>', afterId)]),
              ]),
            );
          return page.orderBy('work_date').orderBy('id').limit(boundLimit(limit)).as('p');
        },
        (join) => join.onTrue(),
      )
      .select(['e.id as employee_row_id', 'e.external_id as employee_external_id', ...PAGE_COLUMNS])
      .where('e.company_id', '=', companyId)
      .where(by === 'id' ? 'e.id' : 'e.external_id', '=', selector)
      .where('e.deleted_at', 'is', null)
      .orderBy('p.work_date')
      .orderBy('p.id');
}

interface PageInput {
  companyId: string;
  selector: string;
  from: string;
  to: string;
  afterDate: string;
  afterId: string;
  limit: number;
}

const pageQuery = (by: 'id' | 'externalId', withAfter: boolean) =>
  prepareQuery((db, p: PageInput) =>
    employeePage(by, withAfter)(db, p.companyId, p.selector, p.from, p.to, p.afterDate, p.afterId, p.limit),
  );

/** One prepared query per shape: by id or external id, first page or after a cursor. */
const PAGE_QUERIES = {
  id: pageQuery('id', false),
  idAfter: pageQuery('id', true),
  externalId: pageQuery('externalId', false),
  externalIdAfter: pageQuery('externalId', true),
};

/**
 * The employee named by `selector` (lower-cased id, or external id) in the company and a page of their
 * entries in [from, to] after `after`, in one round trip; `employee` undefined when there is no such
 * (undeleted) employee.
 */
export async function findEmployeeEntriesPage(
  db: Executor,
  input: {
    companyId: string;
    selector: { id: string } | { externalId: string };
    from: string;
    to: string;
    after: { workDate: string; id: string } | null;
    limit: number;
  },
): Promise<{ employee: { id: string; external_id: string | null } | undefined; rows: ListRow[] }> {
  const { companyId, selector, from, to, after, limit } = input;
  const byId = 'id' in selector;
  const key = byId ? selector.id : selector.externalId;
  const query = PAGE_QUERIES[`${byId ? 'id' : 'externalId'}${after !== null ? 'After' : ''}`];
  const rows = (await query.execute(db, {
    companyId,
    selector: key,
    from,
    to,
    afterDate: after?.workDate ?? '',
    afterId: after?.id ?? '',
    limit,
  })) as PageJoinRow[];
  const first = rows[0];
  if (first === undefined) return { employee: undefined, rows: [] };
  return {
    employee: { id: first.employee_row_id, external_id: first.employee_external_id },
    rows: first.id === null ? [] : (rows as unknown as ListRow[]),
  };
}

interface OpenSessionsInput {
  companyId: string;
  workplaceId: string;
  employeeId: string;
  externalId: string;
  afterStart: string;
  afterId: string;
  limit: number;
}

/** One prepared query per filter and cursor shape (see listOpenSessions). */
const openSessionsQuery = (filter: 'all' | 'workplace' | 'id' | 'externalId', withAfter: boolean) =>
  prepareQuery((db, p: OpenSessionsInput) =>
    db
      .selectFrom('time_entries as t')
      .innerJoin('employees as e', 'e.id', 't.employee_id')
      // The break in progress, if any: at most one per entry (partial unique index).
      .leftJoin('time_entry_breaks as b', (join) =>
        join.onRef('b.time_entry_id', '=', 't.id').on('b.end_at', 'is', null),
      )
      .select([
        't.id',
        't.start_at',
        't.start_time',
        'e.id as employee_id',
        'e.external_id',
        'e.workplace_id',
        'b.start_at as break_since',
      ])
      .where('t.company_id', '=', p.companyId)
      .where('t.status', '=', OPEN)
      .where('e.deleted_at', 'is', null)
      .$if(filter === 'workplace', (q) => q.where('e.workplace_id', '=', p.workplaceId))
      .$if(filter === 'id', (q) => q.where('e.id', '=', p.employeeId))
      .$if(filter === 'externalId', (q) => q.where('e.external_id', '=', p.externalId))
      .$if(withAfter, (q) =>
        q.where((eb) =>
          eb.or([
            eb('t.start_at', '>', p.afterStart),
            eb.and([eb('t.start_at', '=', p.afterStart), eb('t.id', '>', p.afterId)]),
          ]),
        ),
      )
      .orderBy('t.start_at')
      .orderBy('t.id')
      .limit(boundLimit(p.limit)),
  );

const OPEN_SESSION_QUERIES = Object.fromEntries(
  (['all', 'workplace', 'id', 'externalId'] as const).flatMap((filter) => [
    [filter, openSessionsQuery(filter, false)],
    [`${filter}After`, openSessionsQuery(filter, true)],
  ]),
);

/** The company's open sessions (who is clocked in), oldest first, one filter at most. */
export async function listOpenSessions(
  db: Executor,
  input: {
    companyId: string;
    filter: { workplaceId: string } | { employeeId: string } | { externalId: string } | null;
    after: { start: string; id: string } | null;
    limit: number;
  },
) {
  const { filter, after } = input;
  const kind =
    filter === null
      ? 'all'
      : 'workplaceId' in filter
        ? 'workplace'
        : 'employeeId' in filter
          ? 'id'
          : 'externalId';
  return OPEN_SESSION_QUERIES[`${kind}${after ? 'After' : ''}`]!.execute(db, {
    companyId: input.companyId,
    workplaceId: filter && 'workplaceId' in filter ? filter.workplaceId : '',
    employeeId: filter && 'employeeId' in filter ? filter.employeeId : '',
    externalId: filter && 'externalId' in filter ? filter.externalId : '',
    afterStart: after?.start ?? '',
    afterId: after?.id ?? '',
    limit: input.limit,
  });
}

/*
 * Breaks (issue 20): rows of `time_entry_breaks`, each inside its clocked entry; at most one open
 * (no end) per entry, enforced by a partial unique index.
 */

export type BreakRow = TimeEntryBreakRow;

const entryBreaksQuery = prepareQuery((db, p: { entryId: string }) =>
  db
    .selectFrom('time_entry_breaks')
    .selectAll()
    .where('time_entry_id', '=', p.entryId)
    .orderBy('start_at')
    .orderBy('id'),
);

/** An entry's breaks, oldest first. */
export async function findEntryBreaks(db: Executor, entryId: string): Promise<BreakRow[]> {
  return entryBreaksQuery.execute(db, { entryId });
}

/** The breaks of several entries (a page of a list), oldest first, by entry id. */
export async function findBreaksOfEntries(
  db: Executor,
  entryIds: string[],
): Promise<Map<string, BreakRow[]>> {
  const byEntry = new Map<string, BreakRow[]>(entryIds.map((id) => [id, []]));
  if (entryIds.length === 0) return byEntry;
  const rows = await db
    .selectFrom('time_entry_breaks')
    .selectAll()
    .where('time_entry_id', 'in', entryIds)
    .orderBy('time_entry_id')
    .orderBy('start_at')
    .orderBy('id')
    .execute();
  for (const row of rows) byEntry.get(row.time_entry_id)?.push(row);
  return byEntry;
}

const BREAK_COLUMNS = [
  'id',
  'company_id',
  'employee_id',
  'time_entry_id',
  'start_at',
  'end_at',
  'start_time',
  'end_time',
  'start_event',
  'end_event',
  'created_by_id',
  'closed_by_id',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof BreakRow)[];

const insertBreakQuery = prepareQuery((db, p: BreakRow) =>
  db
    .insertInto('time_entry_breaks')
    .values(Object.fromEntries(BREAK_COLUMNS.map((c) => [c, p[c]])) as unknown as BreakRow),
);

/** A new (open) break. A second open break of the entry fails here (partial unique index). */
export async function insertBreak(tx: Tx, row: BreakRow): Promise<void> {
  await insertBreakQuery.executeWrite(tx, row);
}

interface BreakClosing {
  entryId: string;
  end_at: string;
  end_time: string;
  end_event: string;
  closed_by_id: string;
  updated_at: string;
}

const closeBreakQuery = prepareQuery((db, p: BreakClosing) =>
  db
    .updateTable('time_entry_breaks')
    .set({
      end_at: p.end_at,
      end_time: p.end_time,
      end_event: p.end_event,
      closed_by_id: p.closed_by_id,
      updated_at: p.updated_at,
    })
    .where('time_entry_id', '=', p.entryId)
    .where('end_at', 'is', null),
);

/** Ends the entry's open break; the number of breaks ended (0 or 1). */
export async function closeOpenBreak(tx: Tx, closing: BreakClosing): Promise<number> {
  return closeBreakQuery.executeWrite(tx, closing);
}

const openSessionUpdateQuery = prepareQuery(
  (
    db,
    p: {
      id: string;
      breakMinutes: number | null;
      notes: string | null;
      note: string | null;
      updatedAt: string;
    },
  ) =>
    db
      .updateTable('time_entries')
      .set({ break_minutes: p.breakMinutes, notes: p.notes, note: p.note, updated_at: p.updatedAt })
      .where('id', '=', p.id),
);

/** What a break punch changes on its open session: the running sum of its breaks, the device and note. */
export async function updateOpenSession(
  tx: Tx,
  id: string,
  patch: { breakMinutes: number | null; notes: string | null; note: string | null; updatedAt: string },
): Promise<void> {
  await openSessionUpdateQuery.executeWrite(tx, { id, ...patch });
}

const duplicateBreakStartQuery = prepareQuery((db, p: DuplicateInput) =>
  db
    .selectFrom('time_entry_breaks')
    .selectAll()
    .where('employee_id', '=', p.employeeId)
    .where('start_event', '=', p.sentType)
    .where('created_by_id', '=', p.callerId)
    .where('start_at', '>=', p.from)
    .where('start_at', '<=', p.to)
    .orderBy('start_at', 'desc')
    .limit(ONE_ROW),
);

const duplicateBreakEndQuery = prepareQuery((db, p: DuplicateInput) =>
  db
    .selectFrom('time_entry_breaks')
    .selectAll()
    .where('employee_id', '=', p.employeeId)
    .where('start_at', '>', p.startedAfter)
    .where('end_event', '=', p.sentType)
    .where('closed_by_id', '=', p.callerId)
    .where('end_at', '>=', p.from)
    .where('end_at', '<=', p.to)
    .orderBy('end_at', 'desc')
    .limit(ONE_ROW),
);

const entryByIdQuery = prepareQuery((db, p: { id: string }) =>
  db.selectFrom('time_entries').selectAll().where('id', '=', p.id),
);

/**
 * Spec, Idempotency rule 6, for break punches: a `break_start` (`break_end`) by the same caller within
 * the window of an existing break's start (end), with the entry it belongs to.
 */
export async function findDuplicateBreakPunch(
  db: Executor,
  input: DuplicateInput,
): Promise<{ entry: TimeEntryRow; brk: BreakRow; matched: 'start' | 'end' } | undefined> {
  const matched =
    input.sentType === 'break_start'
      ? { brk: await duplicateBreakStartQuery.executeTakeFirst(db, input), matched: 'start' as const }
      : { brk: await duplicateBreakEndQuery.executeTakeFirst(db, input), matched: 'end' as const };
  if (!matched.brk) return undefined;
  const entry = await entryByIdQuery.executeTakeFirst(db, { id: matched.brk.time_entry_id });
  return entry ? { entry, brk: matched.brk, matched: matched.matched } : undefined;
}
