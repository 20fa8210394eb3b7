import { ApiError, type FieldError, validationError } from '../../domain/errors.js';
import { localizeInstant, type ParsedInstant, parseInstantWithOffset } from '../../domain/time-zone.js';
import type { Tx } from '../../platform/db/database.js';
import type { Principal } from '../auth/service.js';
import type { EmployeeSelector } from '../employees/service.js';
import { findShiftContext } from './queries/context.js';
import { evaluateShift } from './punch-rules.js';
import { ENTRY_SOURCES, entryResult, newEntry, timeEntryListItem, type WriteOutcome } from './results.js';
import {
  applyPunchEffects,
  assertBusinessRules,
  assertDaysOpen,
  dayBefore,
  loadEmployeeContext,
  type PunchEffect,
} from './writes.js';
import { recordedRevisionOf } from '../corrections/hooks.js';
import { KEY_REPLAYED, type KeyInWrite } from '../idempotency/service.js';

export interface ShiftInput {
  employee: EmployeeSelector;
  clockIn: string;
  clockOut: string;
  breakMinutes?: number | null;
  note?: string | null;
}

/** Both instants of a shift, each an RFC 3339 date-time with offset (one 422 naming every bad field). */
function parseShiftInstants(input: ShiftInput): [ParsedInstant, ParsedInstant] {
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
  return [parsedIn!, parsedOut!];
}

/** How a shift is recorded (see createShift). */
export interface ShiftOptions {
  dryRun: boolean;
  revisionReason?: string;
  /** The request's Idempotency-Key, claimed in the shift's own statements (see KeyInWrite, issue 32). */
  key?: KeyInWrite;
}

/**
 * POST /time-entries: a completed shift, pending approval, in the caller's transaction. Like a punch
 * (clock-event.ts), a keyed shift is 5 round trips on PostgreSQL: the key's and the employee's locks,
 * the key's record with the context, every write and the stored outcome in one statement.
 */
export async function createShift(
  tx: Tx,
  now: number,
  principal: Principal,
  input: ShiftInput,
  options: ShiftOptions & { key?: undefined },
): Promise<WriteOutcome>;
export async function createShift(
  tx: Tx,
  now: number,
  principal: Principal,
  input: ShiftInput,
  options: ShiftOptions,
): Promise<WriteOutcome | typeof KEY_REPLAYED>;
export async function createShift(
  tx: Tx,
  now: number,
  principal: Principal,
  input: ShiftInput,
  options: ShiftOptions,
): Promise<WriteOutcome | typeof KEY_REPLAYED> {
  const key = options.key;
  // A dry run stores nothing, under a key or not: idempotentWrite gives it none.
  if (key && options.dryRun) throw new Error('a dry run was given an Idempotency-Key to store under');
  const [parsedIn, parsedOut] = parseShiftInstants(input);
  const at = new Date(now).toISOString();
  // The employee's lock, and a keyed shift's key lock in the same statement.
  const { employee, zone } = await loadEmployeeContext(
    tx,
    principal,
    input.employee,
    key && { name: key.lockName, busy: key.busy },
  );
  const clockIn = localizeInstant(parsedIn, zone);
  const clockOut = localizeInstant(parsedOut, zone);
  const shift = evaluateShift({ clockIn, clockOut, breakMinutes: input.breakMinutes ?? null, nowMs: now });
  if (!shift.ok) throw validationError(shift.errors);
  // The schedule, the day locks and an overlapping entry, in one statement.
  const context = await findShiftContext(tx, {
    employeeId: employee.id,
    workDate: shift.workDate,
    endDate: clockOut.workDate,
    from: clockIn.utcIso,
    to: clockOut.utcIso,
    startedAfter: dayBefore(clockIn.utcIso),
    companyId: principal.companyId,
    workplaceId: employee.workplace_id ?? '',
    keyOwnerId: key?.ownerId ?? '',
    key: key?.key ?? '',
  });
  // The key's record, read with the context: a retry replays its stored answer, writing nothing.
  if (key && !key.admit(context.keyRecord)) return KEY_REPLAYED;
  assertBusinessRules(employee, context.scheduleId, shift.workDate);
  assertDaysOpen(context.dayLocked, [shift.workDate, clockOut.workDate], context.closedPeriod);
  if (context.overlappingId !== null)
    throw new ApiError('overlaps_existing_entry', `the shift overlaps entry ${context.overlappingId}`);
  const entry = newEntry(principal, employee, at, {
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
    closed_by_id: principal.id,
  });
  if (options.dryRun)
    return { status: 200, body: entryResult(entry, employee, 'shift', clockIn, true, null) };
  const outcome = {
    status: 201,
    body: entryResult(entry, employee, 'shift', clockIn, false, entry.id),
  } as const;
  // The entry, its revision, audit row and event (and a key's outcome): one statement on PostgreSQL.
  const effects = shiftEffects(principal, at, entry, employee, [clockIn.utcIso, clockOut.utcIso], options);
  await applyPunchEffects(tx, principal, effects, key && ((plan) => key.store(plan, outcome)));
  return outcome;
}

/** What a shift writes: the entry, its revision (`recorded`), its audit row and event. */
function shiftEffects(
  principal: Principal,
  at: string,
  entry: ReturnType<typeof newEntry>,
  employee: Parameters<typeof timeEntryListItem>[1],
  [clockIn, clockOut]: [string, string],
  options: { revisionReason?: string },
): PunchEffect[] {
  return [
    { kind: 'insertEntry', entry },
    { kind: 'revision', revision: recordedRevisionOf(principal, at, entry.id, options.revisionReason) },
    {
      kind: 'change',
      at,
      change: {
        action: 'time_entry.create_shift',
        entryId: entry.id,
        details: { employeeId: employee.id, clockIn, clockOut },
        event: { type: 'time_entry.completed', data: timeEntryListItem(entry, employee) },
      },
    },
  ];
}
