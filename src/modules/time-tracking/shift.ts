import { ApiError, type FieldError, validationError } from '../../domain/errors.js';
import { localizeInstant, type ParsedInstant, parseInstantWithOffset } from '../../domain/time-zone.js';
import type { Tx } from '../../platform/db/database.js';
import type { Principal } from '../auth/service.js';
import type { EmployeeSelector } from '../employees/service.js';
import { findShiftContext } from './queries/context.js';
import { insertTimeEntry } from './queries/entries.js';
import { evaluateShift } from './punch-rules.js';
import { ENTRY_SOURCES, entryResult, newEntry, timeEntryListItem, type WriteOutcome } from './results.js';
import {
  assertBusinessRules,
  assertDaysOpen,
  dayBefore,
  loadEmployeeContext,
  recordEntryChange,
} from './writes.js';
import { recordedRevision } from '../corrections/hooks.js';

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

/** POST /time-entries: a completed shift, pending approval, in the caller's transaction. */
export async function createShift(
  tx: Tx,
  now: number,
  principal: Principal,
  input: ShiftInput,
  options: { dryRun: boolean; revisionReason?: string },
): Promise<WriteOutcome> {
  const [parsedIn, parsedOut] = parseShiftInstants(input);
  const at = new Date(now).toISOString();
  const { employee, zone } = await loadEmployeeContext(tx, principal, input.employee);
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
  });
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
  await insertTimeEntry(tx, entry);
  await recordedRevision(tx, principal, at, entry.id, options.revisionReason);
  await recordEntryChange(tx, principal, at, {
    action: 'time_entry.create_shift',
    entryId: entry.id,
    details: { employeeId: employee.id, clockIn: clockIn.utcIso, clockOut: clockOut.utcIso },
    event: { type: 'time_entry.completed', data: timeEntryListItem(entry, employee) },
  });
  return { status: 201, body: entryResult(entry, employee, 'shift', clockIn, false, entry.id) };
}
