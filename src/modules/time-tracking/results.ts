import { employeeRef } from '../employees/views.js';
import { breakMinutes } from './break-rules.js';
import { totalHours } from './punch-rules.js';
import { type TimeEntryBreakRow, type TimeEntryRow } from '../../platform/db/schema.js';
/* What time tracking answers: a time entry as the lists and events show it, with its breaks. */

/** The columns a time-entry list item is made of (lists select only these). */
export type TimeEntryListRow = Pick<
  TimeEntryRow,
  | 'id'
  | 'work_date'
  | 'start_time'
  | 'end_time'
  | 'ends_next_day'
  | 'net_seconds'
  | 'break_minutes'
  | 'status'
  | 'source'
  | 'approved_at'
  | 'created_at'
>;

/** A break of a clocked entry (issue 20): wall clocks in the entry's zone, the instants, whole minutes. */
export function breakView(row: Pick<TimeEntryBreakRow, 'start_at' | 'end_at' | 'start_time' | 'end_time'>) {
  return {
    startTime: row.start_time,
    endTime: row.end_time,
    startedAt: row.start_at,
    endedAt: row.end_at,
    minutes: row.end_at === null ? null : breakMinutes(Date.parse(row.start_at), Date.parse(row.end_at)),
  };
}

/**
 * Spec, Time entry (list item). An open session has no end yet: endTime is null and totalHours 0 until it closes.
 * `breaks` (additive, issue 20) is given for entries of the time clock (source `time_clock`), whose breaks
 * are punched; a shift's single `breakMinutes` has no place in the day, so its items have no `breaks`.
 */
export function timeEntryListItem(
  row: TimeEntryListRow,
  employee: { id: string; external_id: string | null },
  breaks?: readonly Pick<TimeEntryBreakRow, 'start_at' | 'end_at' | 'start_time' | 'end_time'>[],
) {
  return {
    id: row.id,
    employee: employeeRef(employee),
    workDate: row.work_date,
    startTime: row.start_time,
    endTime: row.end_time,
    endsNextDay: row.ends_next_day === 1,
    totalHours: row.net_seconds === null ? 0 : totalHours(row.net_seconds),
    breakMinutes: row.break_minutes,
    status: row.status,
    source: row.source,
    approvedAt: row.approved_at,
    createdAt: row.created_at,
    ...(breaks !== undefined ? { breaks: breaks.map(breakView) } : {}),
  };
}
