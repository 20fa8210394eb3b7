import type { Executor } from '../../../platform/db/database.js';

/* What the timesheet report reads of issue 33, one statement each per batch of employees. */

export interface ReportShiftRow {
  employee_id: string;
  date: string;
  start_at: string;
  end_at: string;
  break_minutes: number;
}

/** The published shifts of `employeeIds` dated from..to. */
export async function listReportShifts(
  db: Executor,
  input: { companyId: string; employeeIds: readonly string[]; from: string; to: string },
): Promise<ReportShiftRow[]> {
  if (input.employeeIds.length === 0) return [];
  return db
    .selectFrom('planned_shifts')
    .select(['employee_id', 'date', 'start_at', 'end_at', 'break_minutes'])
    .where('company_id', '=', input.companyId)
    .where('employee_id', 'in', input.employeeIds)
    .where('date', '>=', input.from)
    .where('date', '<=', input.to)
    .where('status', '=', 'published')
    .execute();
}

export interface ReportExceptionRow {
  employee_id: string;
  kind: string;
  dedupe_key: string;
  resolved_at: string | null;
  planned_shift_id: string | null;
  time_entry_id: string | null;
  /** The exception's shift as it is now (null: deleted). */
  shift_status: string | null;
  shift_start_at: string | null;
  shift_end_at: string | null;
  /** The status of the exception's entry now (null: deleted). */
  entry_status: string | null;
}

/**
 * The exceptions of `employeeIds` dated from..to, with the present state of their shift and entry
 * (the report counts only those that still stand: report.ts).
 */
export async function listReportExceptions(
  db: Executor,
  input: { companyId: string; employeeIds: readonly string[]; from: string; to: string },
): Promise<ReportExceptionRow[]> {
  if (input.employeeIds.length === 0) return [];
  return db
    .selectFrom('attendance_exceptions as x')
    .leftJoin('planned_shifts as s', 's.id', 'x.planned_shift_id')
    .leftJoin('time_entries as t', 't.id', 'x.time_entry_id')
    .select([
      'x.employee_id',
      'x.kind',
      'x.dedupe_key',
      'x.resolved_at',
      'x.planned_shift_id',
      'x.time_entry_id',
      's.status as shift_status',
      's.start_at as shift_start_at',
      's.end_at as shift_end_at',
      't.status as entry_status',
    ])
    .where('x.company_id', '=', input.companyId)
    .where('x.employee_id', 'in', input.employeeIds)
    .where('x.date', '>=', input.from)
    .where('x.date', '<=', input.to)
    .execute();
}
