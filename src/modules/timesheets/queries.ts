import { type Executor } from '../../platform/db/database.js';

/*
 * The reads of a timesheet report, a fixed number per batch of employees whatever its size: the
 * batch of employees (one page, by id), their entries over the range and its lookback, the punched
 * breaks of those entries, and their schedules. Entries are read from the (employee_id, work_date, id)
 * index; breaks from the (time_entry_id, start_at) index, for the entries the same filter selects.
 */

export interface TimesheetSettingsRow {
  workweek_start: string;
  daily_overtime_after_seconds: number | null;
  working_time_rules: string;
  rounding: string;
  rounding_minutes: number;
}

export async function findTimesheetSettings(
  db: Executor,
  companyId: string,
): Promise<TimesheetSettingsRow | undefined> {
  return db
    .selectFrom('companies')
    .select([
      'workweek_start',
      'daily_overtime_after_seconds',
      'working_time_rules',
      'rounding',
      'rounding_minutes',
    ])
    .where('id', '=', companyId)
    .executeTakeFirst();
}

export type EmployeeFilter = { employeeId: string } | { workplaceId: string } | null;

export interface ReportEmployeeRow {
  id: string;
  external_id: string | null;
  first_name: string | null;
  last_name: string | null;
}

/** A page of the company's (undeleted) employees after `afterId`, ordered by id. */
export async function listReportEmployees(
  db: Executor,
  input: { companyId: string; filter: EmployeeFilter; afterId: string | null; limit: number },
): Promise<ReportEmployeeRow[]> {
  const { filter } = input;
  let query = db
    .selectFrom('employees')
    .select(['id', 'external_id', 'first_name', 'last_name'])
    .where('company_id', '=', input.companyId)
    .where('deleted_at', 'is', null);
  if (filter !== null && 'employeeId' in filter) query = query.where('id', '=', filter.employeeId);
  if (filter !== null && 'workplaceId' in filter)
    query = query.where('workplace_id', '=', filter.workplaceId);
  if (input.afterId !== null) query = query.where('id', '>', input.afterId);
  return query.orderBy('id').limit(input.limit).execute();
}

export interface ReportEntryRow {
  id: string;
  employee_id: string;
  work_date: string;
  start_at: string;
  end_at: string | null;
  start_time: string;
  end_time: string | null;
  net_seconds: number | null;
  break_minutes: number | null;
  status: string;
}

interface ReportEntriesInput {
  companyId: string;
  employeeIds: readonly string[];
  from: string;
  to: string;
}

function reportEntriesQuery(db: Executor, input: ReportEntriesInput) {
  return db
    .selectFrom('time_entries')
    .where('employee_id', 'in', input.employeeIds)
    .where('company_id', '=', input.companyId)
    .where('work_date', '>=', input.from)
    .where('work_date', '<=', input.to);
}

/** The entries of `employeeIds` (of the company) dated `from`..`to`, by employee, date and start. */
export async function listReportEntries(db: Executor, input: ReportEntriesInput): Promise<ReportEntryRow[]> {
  if (input.employeeIds.length === 0) return [];
  return reportEntriesQuery(db, input)
    .select([
      'id',
      'employee_id',
      'work_date',
      'start_at',
      'end_at',
      'start_time',
      'end_time',
      'net_seconds',
      'break_minutes',
      'status',
    ])
    .orderBy('employee_id')
    .orderBy('work_date')
    .orderBy('start_at')
    .execute();
}

export interface ReportBreakRow {
  time_entry_id: string;
  start_at: string;
  end_at: string | null;
}

/**
 * The punched breaks of the entries `listReportEntries` returns for the same input, in one statement
 * (the entries are selected by a subquery with the same filter, so the statement's size does not grow
 * with their number), by entry and start. Only completed entries with break minutes can have breaks
 * that matter to the rules, so only theirs are read.
 */
export async function listReportBreaks(db: Executor, input: ReportEntriesInput): Promise<ReportBreakRow[]> {
  if (input.employeeIds.length === 0) return [];
  return db
    .selectFrom('time_entry_breaks')
    .select(['time_entry_id', 'start_at', 'end_at'])
    .where('company_id', '=', input.companyId)
    .where(
      'time_entry_id',
      'in',
      reportEntriesQuery(db, input)
        .select('id')
        .where('end_at', 'is not', null)
        .where('break_minutes', '>', 0),
    )
    .orderBy('time_entry_id')
    .orderBy('start_at')
    .execute();
}

export interface ReportScheduleRow {
  employee_id: string;
  effective_from: string;
  weekly_hours: number | null;
}

/** Every schedule assignment of `employeeIds` on or before `to`, with its weekly hours, oldest first. */
export async function listReportSchedules(
  db: Executor,
  input: { employeeIds: readonly string[]; to: string },
): Promise<ReportScheduleRow[]> {
  if (input.employeeIds.length === 0) return [];
  return db
    .selectFrom('employee_schedules as es')
    .innerJoin('schedules as s', 's.id', 'es.schedule_id')
    .select(['es.employee_id', 'es.effective_from', 's.weekly_hours'])
    .where('es.employee_id', 'in', input.employeeIds)
    .where('es.effective_from', '<=', input.to)
    .orderBy('es.employee_id')
    .orderBy('es.effective_from')
    .orderBy('es.created_at')
    .execute();
}
