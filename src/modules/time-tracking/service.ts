import { type CursorCodec } from '../../domain/cursor.js';
import { ApiError, type FieldError, validationError } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import {
  type LocalizedInstant,
  type ParsedInstant,
  addDays,
  daysBetween,
  localizeInstant,
  parseInstantWithOffset,
  todayIn,
} from '../../domain/time-zone.js';
import { recordAudit } from '../audit/queries.js';
import { type Principal } from '../auth/service.js';
import { type AppContext } from '../context.js';
import { type EmployeeForWrite } from '../employees/queries.js';
import { type EmployeeSelector, lockEmployeeForWrite, resolveEmployee } from '../employees/service.js';
import { employeeRef } from '../employees/views.js';
import { type NewEvent, appendEvents } from '../events/service.js';
import {
  type BreakSpan,
  breakMinutes,
  evaluateBreakEnd,
  evaluateBreakStart,
  evaluateClockOutAfterBreaks,
  sessionFigures,
} from './break-rules.js';
import {
  DUPLICATE_WINDOW_MS,
  MAX_SESSION_MS,
  checkPunchWindow,
  evaluateClockOut,
  evaluateShift,
  resolveToggle,
  totalHours,
} from './punch-rules.js';
import {
  type BreakRow,
  type EntryValues,
  type OpenSession,
  closeOpenBreak,
  completeSession,
  findBreaksOfEntries,
  findDuplicateBreakPunch,
  findDuplicatePunch,
  findEmployeeEntriesPage,
  findEntryBreaks,
  findPunchContext,
  findShiftContext,
  insertBreak,
  insertTimeEntry,
  listOpenSessions,
  updateOpenSession,
} from './queries.js';
import { timeEntryListItem } from './results.js';
import { type Tx, isUniqueViolation, uniqueViolationTarget } from '../../platform/db/database.js';
import { type TimeEntryRow } from '../../platform/db/schema.js';
import { type Page, invalidCursor } from '../../shared/pages.js';
import { isStorableText } from '../../shared/stored-text.js';

export type ClockEventType = 'clock_in' | 'clock_out' | 'toggle' | 'break_start' | 'break_end';

/** Values of `source` this service writes; an open list (spec: "Allowed values of source: not shown"). */
export const ENTRY_SOURCES = { timeClock: 'time_clock', apiShift: 'api_shift' } as const;
const MAX_RANGE_DAYS = 92;
const DEFAULT_RANGE_DAYS = 30;

export interface WriteOutcome {
  status: 200 | 201;
  body: WriteResult;
}

export interface WriteResult {
  timeEntryId: string | null;
  employee: { id: string; externalId: string | null };
  type: 'clock_in' | 'clock_out' | 'shift' | 'break_start' | 'break_end';
  workDate: string;
  time: string;
  timeZone: string;
  occurredAt: string;
  endsNextDay: boolean;
  status: string;
  dryRun: boolean;
  startTime: string | null;
  endTime: string | null;
  totalHours: number | null;
}

function parseInstantField(value: string, field: string): ParsedInstant {
  const parsed = parseInstantWithOffset(value);
  if (!parsed)
    throw validationError([
      { field, message: 'must be an RFC 3339 date-time with an explicit UTC offset', code: 'format' },
    ]);
  return parsed;
}

/*
 * Every stored entry lasts less than 24 hours (longer sessions and shifts are refused), so an entry
 * that reaches an instant started less than a day before it: the overlap and duplicate lookups read
 * only that day of the employee's history (see queries.ts).
 */
function dayBefore(iso: string): string {
  return new Date(Date.parse(iso) - MAX_SESSION_MS).toISOString();
}

function notes(deviceId: string | null | undefined): string | null {
  return deviceId ? `[device: ${deviceId}]` : null;
}

function appendNotes(existing: string | null, addition: string | null): string | null {
  if (!addition) return existing;
  return existing ? `${existing} ${addition}` : addition;
}

interface EmployeeContext {
  employee: EmployeeForWrite;
  zone: string | null;
}

/**
 * Spec, time-zone rule: the workplace's zone, else the company's, else the offset as sent. Reading the
 * employee also takes their row lock on PostgreSQL (`FOR UPDATE`): concurrent writes for one employee,
 * from any instance, queue here. SQLite's write transaction (BEGIN IMMEDIATE) already serialises them.
 */
async function loadEmployeeContext(
  tx: Tx,
  principal: Principal,
  selector: EmployeeSelector,
): Promise<EmployeeContext> {
  const { workplace_time_zone: zone, ...employee } = await lockEmployeeForWrite(
    tx,
    principal.companyId,
    selector,
  );
  return { employee, zone: zone ?? principal.company.timeZone };
}

function assertBusinessRules(employee: EmployeeForWrite, scheduleId: string | null, workDate: string): void {
  if (employee.workplace_id === null)
    throw new ApiError('business_rule_violation', 'the employee has no workplace');
  if (scheduleId === null)
    throw new ApiError('business_rule_violation', `the employee has no schedule effective on ${workDate}`);
}

function assertDaysOpen(locked: boolean, dates: string[]): void {
  if (locked)
    throw new ApiError(
      'day_locked',
      `the employee has confirmed ${[...new Set(dates)].join(' or ')}; it is locked`,
    );
}

function entryResult(
  entry: Pick<
    TimeEntryRow,
    'id' | 'work_date' | 'status' | 'ends_next_day' | 'start_time' | 'end_time' | 'net_seconds'
  >,
  employee: EmployeeForWrite,
  type: WriteResult['type'],
  punch: LocalizedInstant,
  dryRun: boolean,
  timeEntryId: string | null,
): WriteResult {
  const complete = entry.end_time !== null;
  return {
    timeEntryId,
    employee: employeeRef(employee),
    type,
    workDate: entry.work_date,
    time: punch.time,
    timeZone: punch.timeZone,
    occurredAt: punch.occurredAt,
    endsNextDay: entry.ends_next_day === 1,
    status: entry.status,
    dryRun,
    startTime: complete ? entry.start_time : null,
    endTime: complete ? entry.end_time : null,
    totalHours: complete && entry.net_seconds !== null ? totalHours(entry.net_seconds) : null,
  };
}

const SECONDS_PER_DAY = 86_400;

function secondsOfDay(time: string): number {
  const [h, m, s] = time.split(':').map(Number);
  return h! * 3600 + m! * 60 + s!;
}

/**
 * The punch an existing entry recorded, localised as it was stored, for replaying a duplicate: in
 * the entry's own zone, or, in `offset` mode, with the offset the punch was sent with (recovered from
 * the stored wall clock; the UTC instant alone would give the UTC wall clock instead).
 */
function storedPunch(entry: TimeEntryRow, matched: 'start' | 'end'): LocalizedInstant {
  return matched === 'start'
    ? storedInstant(entry, entry.start_at, null)
    : storedInstant(entry, entry.end_at!, entry.end_time!);
}

/**
 * An instant of `entry` (its start, its end, or a break's) localised as it was stored; `wallTime`
 * is the instant's stored wall clock, null for the entry's start (whose date is stored too).
 */
function storedInstant(entry: TimeEntryRow, iso: string, wallTime: string | null): LocalizedInstant {
  const parsed = parseInstantWithOffset(iso)!;
  if (entry.time_zone !== 'offset') return localizeInstant(parsed, entry.time_zone);
  const utcSeconds = Math.floor(parsed.epochMs / 1000);
  // The start's wall date and time are both stored, so its offset is exact.
  const startOffset =
    Math.floor(Date.parse(`${entry.work_date}T${entry.start_time}Z`) / 1000) -
    Math.floor(Date.parse(entry.start_at) / 1000);
  let offsetSeconds = startOffset;
  if (wallTime !== null) {
    // Only the wall time is stored: its offset is known modulo a day; take the candidate nearest
    // the start's offset.
    const diff =
      (((secondsOfDay(wallTime) - utcSeconds) % SECONDS_PER_DAY) + SECONDS_PER_DAY) % SECONDS_PER_DAY;
    offsetSeconds =
      Math.abs(diff - startOffset) <= Math.abs(diff - SECONDS_PER_DAY - startOffset)
        ? diff
        : diff - SECONDS_PER_DAY;
  }
  const wall = new Date((utcSeconds + offsetSeconds) * 1000).toISOString();
  return localizeInstant(
    {
      ...parsed,
      offsetMinutes: Math.round(offsetSeconds / 60),
      wallDate: wall.slice(0, 10),
      wallTime: wall.slice(11, 19),
    },
    null,
  );
}

/**
 * What every write of this module records with its change, in its transaction: the audit row (who
 * did what) and the change feed's event (what the integrators see).
 */
async function recordEntryChange(
  tx: Tx,
  principal: Principal,
  at: string,
  change: { action: string; entryId: string; details: Record<string, unknown>; event: NewEvent },
): Promise<void> {
  await recordAudit(tx, {
    companyId: principal.companyId,
    actorType: principal.kind,
    actorId: principal.id,
    action: change.action,
    targetType: 'time_entry',
    targetId: change.entryId,
    details: change.details,
    at,
  });
  await appendEvents(tx, principal.companyId, [change.event], at);
}

/** The partial unique index on open sessions is the last word on "one open session per employee". */
async function insertOpenSession(tx: Tx, entry: EntryValues): Promise<void> {
  try {
    await insertTimeEntry(tx, entry);
  } catch (error) {
    if (isUniqueViolation(error) && uniqueViolationTarget(error).includes('time_entries'))
      throw new ApiError('already_clocked_in', 'a session is already open');
    throw error;
  }
}

export async function recordClockEvent(
  tx: Tx,
  now: number,
  principal: Principal,
  input: {
    employee: EmployeeSelector;
    type: ClockEventType;
    occurredAt: string;
    deviceId?: string | null;
    note?: string | null;
  },
  options: { dryRun: boolean; detectDuplicates: boolean },
): Promise<WriteOutcome> {
  const parsed = parseInstantField(input.occurredAt, 'occurredAt');
  const windowError = checkPunchWindow(parsed.epochMs, now);
  if (windowError)
    throw validationError([
      {
        field: 'occurredAt',
        message:
          windowError === 'too_far_in_future'
            ? 'must be at most 5 minutes in the future'
            : 'must be at most 30 days in the past',
        code: windowError,
      },
    ]);
  const at = new Date(now).toISOString();
  // Concurrent punches for one employee (several instances on one PostgreSQL) queue here.
  const { employee, zone } = await loadEmployeeContext(tx, principal, input.employee);
  const punch = localizeInstant(parsed, zone);

  const isBreakPunch = input.type === 'break_start' || input.type === 'break_end';
  if (options.detectDuplicates && isBreakPunch) {
    const duplicate = await findDuplicateBreakPunch(tx, {
      employeeId: employee.id,
      sentType: input.type,
      callerId: principal.id,
      from: new Date(parsed.epochMs - DUPLICATE_WINDOW_MS).toISOString(),
      to: new Date(parsed.epochMs + DUPLICATE_WINDOW_MS).toISOString(),
      startedAfter: new Date(parsed.epochMs - DUPLICATE_WINDOW_MS - MAX_SESSION_MS).toISOString(),
    });
    if (duplicate) {
      const { entry, brk, matched } = duplicate;
      const punched =
        matched === 'start'
          ? storedInstant(entry, brk.start_at, brk.start_time)
          : storedInstant(entry, brk.end_at!, brk.end_time!);
      return {
        status: 200,
        body: entryResult(
          entry,
          employee,
          input.type as 'break_start' | 'break_end',
          punched,
          options.dryRun,
          entry.id,
        ),
      };
    }
  } else if (options.detectDuplicates) {
    const duplicate = await findDuplicatePunch(tx, {
      employeeId: employee.id,
      sentType: input.type,
      callerId: principal.id,
      from: new Date(parsed.epochMs - DUPLICATE_WINDOW_MS).toISOString(),
      to: new Date(parsed.epochMs + DUPLICATE_WINDOW_MS).toISOString(),
      startedAfter: new Date(parsed.epochMs - DUPLICATE_WINDOW_MS - MAX_SESSION_MS).toISOString(),
    });
    if (duplicate) {
      const { entry, matched } = duplicate;
      return {
        status: 200,
        body: entryResult(
          entry,
          employee,
          matched === 'start' ? 'clock_in' : 'clock_out',
          storedPunch(entry, matched),
          // A dry run that meets a duplicate still wrote nothing; it says so like every dry run.
          options.dryRun,
          entry.id,
        ),
      };
    }
  }

  // The schedule, the open session, the day locks and a covering entry, in one statement.
  const context = await findPunchContext(tx, {
    employeeId: employee.id,
    workDate: punch.workDate,
    instant: punch.utcIso,
    startedAfter: dayBefore(punch.utcIso),
    sessionStartedAfter: dayBefore(dayBefore(punch.utcIso)),
  });
  assertBusinessRules(employee, context.scheduleId, punch.workDate);
  const open = context.open;
  const effective =
    input.type === 'toggle' ? resolveToggle(open?.work_date ?? null, punch.workDate) : input.type;
  // The open session's breaks, oldest first (read only when it has any).
  const breaks =
    open && context.openHasBreaks && effective !== 'clock_in' ? await findEntryBreaks(tx, open.id) : [];
  const spans: BreakSpan[] = breaks.map((b) => ({
    startMs: Date.parse(b.start_at),
    endMs: b.end_at === null ? null : Date.parse(b.end_at),
  }));

  if (effective === 'break_start' || effective === 'break_end') {
    if (!open)
      throw effective === 'break_start'
        ? new ApiError('no_open_session', 'the employee has no open session to take a break in')
        : new ApiError('not_on_break', 'the employee has no open session, so no break to end');
    return recordBreakPunch(tx, principal, at, {
      type: effective,
      employee,
      open,
      breaks,
      spans,
      punch,
      dayLocked: context.openDayLocked || context.punchDayLocked,
      deviceId: input.deviceId ?? null,
      note: input.note ?? null,
      dryRun: options.dryRun,
    });
  }

  if (effective === 'clock_in') {
    if (open)
      throw new ApiError('already_clocked_in', `a session is open since ${open.start_at} (entry ${open.id})`);
    assertDaysOpen(context.punchDayLocked, [punch.workDate]);
    if (context.coveringId !== null)
      throw new ApiError('overlaps_existing_entry', `the punch falls inside entry ${context.coveringId}`);
    const entry = {
      id: newId(),
      company_id: principal.companyId,
      employee_id: employee.id,
      work_date: punch.workDate,
      start_at: punch.utcIso,
      end_at: null,
      start_time: punch.time,
      end_time: null,
      ends_next_day: 0,
      break_minutes: null,
      net_seconds: null,
      status: 'open',
      source: ENTRY_SOURCES.timeClock,
      time_zone: punch.timeZone,
      notes: notes(input.deviceId),
      note: input.note ?? null,
      clock_in_event: input.type,
      clock_out_event: null,
      created_by_type: principal.kind,
      created_by_id: principal.id,
      closed_by_id: null,
      created_at: at,
      updated_at: at,
      approved_at: null,
    };
    if (options.dryRun)
      return { status: 200, body: entryResult(entry, employee, 'clock_in', punch, true, null) };
    await insertOpenSession(tx, entry);
    await recordEntryChange(tx, principal, at, {
      action: 'time_entry.clock_in',
      entryId: entry.id,
      details: { employeeId: employee.id, sentType: input.type, occurredAt: punch.utcIso },
      event: { type: 'time_entry.opened', data: timeEntryListItem(entry, employee, []) },
    });
    return { status: 201, body: entryResult(entry, employee, 'clock_in', punch, false, entry.id) };
  }

  if (!open) throw new ApiError('no_open_session', 'the employee has no open session to clock out of');
  const closing = evaluateClockOut(Date.parse(open.start_at), parsed.epochMs);
  if (!closing.ok) {
    throw new ApiError(
      closing.error,
      closing.error === 'session_too_long'
        ? `the session open since ${open.start_at} would last 24 hours or longer; it stays open (record such shifts with POST /time-entries)`
        : `the clock-out is before the session started at ${open.start_at}`,
    );
  }
  const afterBreaks = evaluateClockOutAfterBreaks(spans, parsed.epochMs);
  if (!afterBreaks.ok)
    throw new ApiError(
      afterBreaks.error,
      `the clock-out is before ${spans.at(-1)!.endMs === null ? 'the start of the break in progress' : 'the end of the last break'} (${breaks.at(-1)!.end_at ?? breaks.at(-1)!.start_at})`,
    );
  assertDaysOpen(context.openDayLocked || context.punchDayLocked, [open.work_date, punch.workDate]);
  if (context.swallowedId !== null)
    throw new ApiError(
      'overlaps_existing_entry',
      `closing the session would overlap entry ${context.swallowedId}`,
    );
  // A clock-out during a break ends the break at the clock-out.
  const finalBreaks: BreakRow[] = breaks.map((b) =>
    b.end_at === null
      ? {
          ...b,
          end_at: punch.utcIso,
          end_time: punch.time,
          end_event: input.type,
          closed_by_id: principal.id,
          updated_at: at,
        }
      : b,
  );
  const figures =
    spans.length > 0
      ? sessionFigures(Date.parse(open.start_at), parsed.epochMs, spans)
      : { breakMinutes: open.break_minutes, netSeconds: closing.durationSeconds };
  const completed = {
    ...open,
    break_minutes: figures.breakMinutes,
    end_at: punch.utcIso,
    end_time: punch.time,
    ends_next_day: punch.workDate !== open.work_date ? 1 : 0,
    net_seconds: figures.netSeconds,
    status: 'pending_approval',
    notes: appendNotes(open.notes, notes(input.deviceId)),
    note: input.note ?? open.note,
    clock_out_event: input.type,
    closed_by_id: principal.id,
    updated_at: at,
  };
  if (options.dryRun)
    return { status: 200, body: entryResult(completed, employee, 'clock_out', punch, true, open.id) };
  if (spans.some((b) => b.endMs === null))
    await closeOpenBreak(tx, {
      entryId: open.id,
      end_at: punch.utcIso,
      end_time: punch.time,
      end_event: input.type,
      closed_by_id: principal.id,
      updated_at: at,
    });
  await completeSession(tx, open.id, completed);
  await recordEntryChange(tx, principal, at, {
    action: 'time_entry.clock_out',
    entryId: open.id,
    details: { employeeId: employee.id, sentType: input.type, occurredAt: punch.utcIso },
    event: { type: 'time_entry.completed', data: timeEntryListItem(completed, employee, finalBreaks) },
  });
  return { status: 201, body: entryResult(completed, employee, 'clock_out', punch, false, open.id) };
}

/** The message of a refused break punch. */
function breakRefusal(
  error: 'already_on_break' | 'not_on_break' | 'break_out_of_order' | 'session_too_long',
  open: OpenSession,
  breaks: readonly BreakRow[],
  type: 'break_start' | 'break_end',
): ApiError {
  const last = breaks.at(-1);
  switch (error) {
    case 'already_on_break':
      return new ApiError(error, `a break is in progress since ${last!.start_at}`);
    case 'not_on_break':
      return new ApiError(error, 'the employee has no break in progress to end');
    case 'session_too_long':
      return new ApiError(
        error,
        `the session open since ${open.start_at} would last 24 hours or longer at this punch`,
      );
    case 'break_out_of_order':
      return new ApiError(
        error,
        type === 'break_end'
          ? `the break's end is before its start (${last!.start_at})`
          : last
            ? `the break's start is before the end of the previous break (${last.end_at ?? last.start_at})`
            : `the break's start is before the clock-in (${open.start_at})`,
      );
  }
}

/**
 * `break_start` / `break_end` (issue 20): a break inside the open session, after what it follows (the
 * clock-in, the previous break's end, its own start), on days that are not locked. The partial unique
 * index on open breaks is the last word on "one break in progress".
 */
async function recordBreakPunch(
  tx: Tx,
  principal: Principal,
  at: string,
  input: {
    type: 'break_start' | 'break_end';
    employee: EmployeeForWrite;
    open: OpenSession;
    breaks: BreakRow[];
    spans: BreakSpan[];
    punch: LocalizedInstant;
    dayLocked: boolean;
    deviceId: string | null;
    note: string | null;
    dryRun: boolean;
  },
): Promise<WriteOutcome> {
  const { type, employee, open, breaks, spans, punch } = input;
  const sessionStart = Date.parse(open.start_at);
  const verdict =
    type === 'break_start'
      ? evaluateBreakStart(sessionStart, spans, punch.epochMs)
      : evaluateBreakEnd(sessionStart, spans, punch.epochMs);
  if (!verdict.ok) throw breakRefusal(verdict.error, open, breaks, type);
  assertDaysOpen(input.dayLocked, [open.work_date, punch.workDate]);
  // The device is added to the entry's notes and a note replaces the entry's, as a clock-out does.
  const session = {
    ...open,
    notes: appendNotes(open.notes, notes(input.deviceId)),
    note: input.note ?? open.note,
    end_at: null,
    end_time: null,
    ends_next_day: 0,
    net_seconds: null,
    status: 'open',
  };
  if (type === 'break_start') {
    const row: BreakRow = {
      id: newId(),
      company_id: principal.companyId,
      employee_id: employee.id,
      time_entry_id: open.id,
      start_at: punch.utcIso,
      end_at: null,
      start_time: punch.time,
      end_time: null,
      start_event: type,
      end_event: null,
      created_by_id: principal.id,
      closed_by_id: null,
      created_at: at,
      updated_at: at,
    };
    if (input.dryRun)
      return { status: 200, body: entryResult(session, employee, type, punch, true, open.id) };
    try {
      await insertBreak(tx, row);
    } catch (error) {
      if (isUniqueViolation(error) && uniqueViolationTarget(error).includes('time_entry_breaks'))
        throw new ApiError('already_on_break', 'a break is already in progress');
      throw error;
    }
    if (input.deviceId || input.note !== null)
      await updateOpenSession(tx, open.id, {
        breakMinutes: open.break_minutes,
        notes: session.notes,
        note: session.note,
        updatedAt: at,
      });
    await recordEntryChange(tx, principal, at, {
      action: 'time_entry.break_start',
      entryId: open.id,
      details: {
        employeeId: employee.id,
        breakId: row.id,
        occurredAt: punch.utcIso,
        deviceId: input.deviceId,
      },
      event: {
        type: 'time_entry.break_started',
        data: timeEntryListItem(session, employee, [...breaks, row]),
      },
    });
    return { status: 201, body: entryResult(session, employee, type, punch, false, open.id) };
  }
  const ended = breaks.map((b) =>
    b.end_at === null
      ? { ...b, end_at: punch.utcIso, end_time: punch.time, end_event: type, closed_by_id: principal.id }
      : b,
  );
  const minutes = ended.reduce(
    (sum, b) => sum + breakMinutes(Date.parse(b.start_at), Date.parse(b.end_at!)),
    0,
  );
  const updated = { ...session, break_minutes: minutes };
  if (input.dryRun) return { status: 200, body: entryResult(updated, employee, type, punch, true, open.id) };
  const closed = await closeOpenBreak(tx, {
    entryId: open.id,
    end_at: punch.utcIso,
    end_time: punch.time,
    end_event: type,
    closed_by_id: principal.id,
    updated_at: at,
  });
  if (closed !== 1) throw new ApiError('not_on_break', 'the employee has no break in progress to end');
  await updateOpenSession(tx, open.id, {
    breakMinutes: minutes,
    notes: updated.notes,
    note: updated.note,
    updatedAt: at,
  });
  await recordEntryChange(tx, principal, at, {
    action: 'time_entry.break_end',
    entryId: open.id,
    details: { employeeId: employee.id, occurredAt: punch.utcIso, deviceId: input.deviceId },
    event: { type: 'time_entry.break_ended', data: timeEntryListItem(updated, employee, ended) },
  });
  return { status: 201, body: entryResult(updated, employee, type, punch, false, open.id) };
}

export async function createShift(
  tx: Tx,
  now: number,
  principal: Principal,
  input: {
    employee: EmployeeSelector;
    clockIn: string;
    clockOut: string;
    breakMinutes?: number | null;
    note?: string | null;
  },
  options: { dryRun: boolean },
): Promise<WriteOutcome> {
  const errors: FieldError[] = [];
  const parsedIn = parseInstantWithOffset(input.clockIn);
  const parsedOut = parseInstantWithOffset(input.clockOut);
  for (const [field, value] of [
    ['clockIn', parsedIn],
    ['clockOut', parsedOut],
  ] as const)
    if (!value)
      errors.push({
        field,
        message: 'must be an RFC 3339 date-time with an explicit UTC offset',
        code: 'format',
      });
  if (errors.length > 0) throw validationError(errors);
  const at = new Date(now).toISOString();
  const { employee, zone } = await loadEmployeeContext(tx, principal, input.employee);
  const clockIn = localizeInstant(parsedIn!, zone);
  const clockOut = localizeInstant(parsedOut!, zone);
  const shift = evaluateShift({
    clockIn,
    clockOut,
    breakMinutes: input.breakMinutes ?? null,
    nowMs: now,
  });
  if (!shift.ok) throw validationError(shift.errors);
  // The schedule, the day locks and an overlapping entry, in one statement.
  const context = await findShiftContext(tx, {
    employeeId: employee.id,
    workDate: shift.workDate,
    endDate: clockOut.workDate,
    from: clockIn.utcIso,
    to: clockOut.utcIso,
    startedAfter: dayBefore(clockIn.utcIso),
  });
  assertBusinessRules(employee, context.scheduleId, shift.workDate);
  assertDaysOpen(context.dayLocked, [shift.workDate, clockOut.workDate]);
  if (context.overlappingId !== null)
    throw new ApiError('overlaps_existing_entry', `the shift overlaps entry ${context.overlappingId}`);
  const entry = {
    id: newId(),
    company_id: principal.companyId,
    employee_id: employee.id,
    work_date: shift.workDate,
    start_at: clockIn.utcIso,
    end_at: clockOut.utcIso,
    start_time: shift.startTime,
    end_time: shift.endTime,
    ends_next_day: shift.endsNextDay ? 1 : 0,
    break_minutes: input.breakMinutes ?? null,
    net_seconds: shift.netSeconds,
    status: 'pending_approval',
    source: ENTRY_SOURCES.apiShift,
    time_zone: clockIn.timeZone,
    notes: null,
    note: input.note ?? null,
    clock_in_event: null,
    clock_out_event: null,
    created_by_type: principal.kind,
    created_by_id: principal.id,
    closed_by_id: principal.id,
    created_at: at,
    updated_at: at,
    approved_at: null,
  };
  if (options.dryRun)
    return { status: 200, body: entryResult(entry, employee, 'shift', clockIn, true, null) };
  await insertTimeEntry(tx, entry);
  await recordEntryChange(tx, principal, at, {
    action: 'time_entry.create_shift',
    entryId: entry.id,
    details: { employeeId: employee.id, clockIn: clockIn.utcIso, clockOut: clockOut.utcIso },
    event: { type: 'time_entry.completed', data: timeEntryListItem(entry, employee) },
  });
  return { status: 201, body: entryResult(entry, employee, 'shift', clockIn, false, entry.id) };
}

/**
 * Spec, GET /time-entries: `from`..`to` (work dates, inclusive), by default the last 30 days up to
 * today in the company's zone, at most 92 days. Shared by every read over a range of work dates.
 */
export function workDateRange(
  ctx: AppContext,
  principal: Pick<Principal, 'company'>,
  query: { from?: string; to?: string },
): { from: string; to: string } {
  const to = query.to ?? todayIn(principal.company.timeZone, ctx.now());
  const from = query.from ?? addDays(to, -DEFAULT_RANGE_DAYS);
  if (from > to) throw validationError([{ field: 'from', message: 'must not be after to', code: 'range' }]);
  if (daysBetween(from, to) > MAX_RANGE_DAYS)
    throw validationError([
      { field: 'to', message: `the range spans at most ${MAX_RANGE_DAYS} days`, code: 'range' },
    ]);
  return { from, to };
}

/** A 422 unless at most one of the `names` was sent (filters that exclude each other). */
export function atMostOneOf<K extends string>(query: Partial<Record<K, unknown>>, names: readonly K[]): void {
  const given = names.filter((name) => query[name] !== undefined);
  if (given.length > 1)
    throw validationError([
      {
        field: given[1]!,
        message: `send at most one of ${names.join(', ').replace(/, ([^,]*)$/, ' and $1')}`,
        code: 'one_of',
      },
    ]);
}

export async function listTimeEntries(
  ctx: AppContext,
  cursors: CursorCodec,
  principal: Principal,
  query: {
    employeeId?: string;
    externalId?: string;
    from?: string;
    to?: string;
    cursor?: string;
    limit?: number;
  },
): Promise<Page<ReturnType<typeof timeEntryListItem>>> {
  if ((query.employeeId === undefined) === (query.externalId === undefined))
    throw validationError([
      { field: 'employeeId', message: 'send exactly one of employeeId and externalId', code: 'one_of' },
    ]);
  const { from, to } = workDateRange(ctx, principal, query);
  const limit = query.limit ?? 25;
  const selector = { id: query.employeeId ?? null, externalId: query.externalId ?? null };
  // The cursor's own checks (signature, listing, range) come first; whether it belongs to this
  // employee is known once the employee is read, in the same statement as the page (see below).
  let cursor: Record<string, unknown> | null = null;
  if (query.cursor !== undefined) {
    const p = cursors.decode(query.cursor);
    if (
      p?.k === 'entries' &&
      p.c === principal.companyId &&
      p.f === from &&
      p.t === to &&
      typeof p.e === 'string' &&
      typeof p.w === 'string' &&
      typeof p.a === 'string'
    )
      cursor = p;
    else {
      // Spec order: an unknown employee is 404 before a bad cursor is 422.
      await resolveEmployee(ctx.database.db, principal.companyId, selector);
      throw invalidCursor();
    }
  }
  if (selector.externalId !== null && !isStorableText(selector.externalId))
    throw new ApiError(
      'employee_not_found',
      `no employee with external id ${selector.externalId} in this company`,
    );
  const page = {
    companyId: principal.companyId,
    from,
    to,
    after: cursor ? { workDate: cursor.w as string, id: cursor.a as string } : null,
    limit: limit + 1,
  };
  // The employee and the page in one statement.
  const { employee, rows } = await findEmployeeEntriesPage(ctx.database.db, {
    ...page,
    selector: selector.id !== null ? { id: selector.id.toLowerCase() } : { externalId: selector.externalId! },
  });
  if (!employee)
    throw new ApiError(
      'employee_not_found',
      selector.id !== null
        ? `no employee ${selector.id} in this company`
        : `no employee with external id ${selector.externalId} in this company`,
    );
  if (cursor && cursor.e !== employee.id) throw invalidCursor();
  const hasMore = rows.length > limit;
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  // Entries of the time clock carry their breaks (one more read, only when the page has such entries).
  const clocked = items.filter((row) => row.source === ENTRY_SOURCES.timeClock).map((row) => row.id);
  const breaks = await findBreaksOfEntries(ctx.database.db, clocked);
  return {
    items: items.map((row) => timeEntryListItem(row, employee, breaks.get(row.id))),
    nextCursor:
      hasMore && last
        ? cursors.encode({
            k: 'entries',
            c: principal.companyId,
            e: employee.id,
            f: from,
            t: to,
            w: last.work_date,
            a: last.id,
          })
        : null,
    hasMore,
  };
}

/**
 * Who is clocked in (additive within v1, GET /time-clock/status): every open session however old,
 * oldest first, for the whole company or one workplace or one employee, with the break in progress.
 */
export async function clockStatus(
  ctx: AppContext,
  cursors: CursorCodec,
  principal: Pick<Principal, 'companyId'>,
  query: { workplaceId?: string; employeeId?: string; externalId?: string; cursor?: string; limit?: number },
) {
  atMostOneOf(query, ['workplaceId', 'employeeId', 'externalId']);
  const filter: { workplaceId: string } | { employeeId: string } | { externalId: string } | null =
    query.workplaceId !== undefined
      ? { workplaceId: query.workplaceId.toLowerCase() }
      : query.employeeId !== undefined
        ? { employeeId: query.employeeId.toLowerCase() }
        : query.externalId !== undefined
          ? { externalId: query.externalId }
          : null;
  const filterKey = filter === null ? '' : JSON.stringify(filter);
  let after: { start: string; id: string } | null = null;
  if (query.cursor !== undefined) {
    const p = cursors.decode(query.cursor);
    if (
      p?.k !== 'status' ||
      p.c !== principal.companyId ||
      p.f !== filterKey ||
      typeof p.s !== 'string' ||
      typeof p.a !== 'string'
    )
      throw invalidCursor();
    after = { start: p.s, id: p.a };
  }
  if (filter !== null && 'externalId' in filter && !isStorableText(filter.externalId))
    return { items: [], nextCursor: null, hasMore: false };
  const limit = query.limit ?? 25;
  const rows = await listOpenSessions(ctx.database.db, {
    companyId: principal.companyId,
    filter,
    after,
    limit: limit + 1,
  });
  const hasMore = rows.length > limit;
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return {
    items: items.map((row) => ({
      employee: employeeRef({ id: row.employee_id, external_id: row.external_id }),
      timeEntryId: row.id,
      workplaceId: row.workplace_id,
      since: row.start_at,
      sinceTime: row.start_time,
      onBreak: row.break_since !== null,
      breakSince: row.break_since,
    })),
    nextCursor:
      hasMore && last
        ? cursors.encode({ k: 'status', c: principal.companyId, f: filterKey, s: last.start_at, a: last.id })
        : null,
    hasMore,
  };
}
