import type { CompanyRow, EmployeeRow, TimeEntryBreakRow, TimeEntryRow } from '../platform/db/schema.js';
import { breakMinutes } from './time-tracking/break-rules.js';
import { totalHours } from './time-tracking/punch-rules.js';

export function companyView(row: CompanyRow) {
  return {
    id: row.id,
    name: row.name,
    timeZone: row.time_zone,
    timeTracking: row.time_tracking === 1 ? 'on' : 'off',
    apiAccess: row.api_access === 1 ? 'on' : 'off',
    // Timesheet settings (issue 21).
    workweekStart: row.workweek_start,
    dailyOvertimeAfter:
      row.daily_overtime_after_seconds === null ? null : row.daily_overtime_after_seconds / 3600,
    workingTimeRules: row.working_time_rules,
  };
}

export function employeeListItem(
  row: Pick<
    EmployeeRow,
    'id' | 'external_id' | 'first_name' | 'last_name' | 'email' | 'status' | 'department_id' | 'position_id'
  >,
) {
  return {
    id: row.id,
    externalId: row.external_id,
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    status: row.status,
    departmentId: row.department_id,
    positionId: row.position_id,
  };
}

export function employeeRef(row: { id: string; external_id: string | null }) {
  return { id: row.id, externalId: row.external_id };
}

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
