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

/** How many exceptions of each kind `employeeIds` have dated from..to. */
export async function countReportExceptions(
  db: Executor,
  input: { companyId: string; employeeIds: readonly string[]; from: string; to: string },
): Promise<{ employee_id: string; kind: string; n: number | string }[]> {
  if (input.employeeIds.length === 0) return [];
  return db
    .selectFrom('attendance_exceptions')
    .select(['employee_id', 'kind', (eb) => eb.fn.countAll<number | string>().as('n')])
    .where('company_id', '=', input.companyId)
    .where('employee_id', 'in', input.employeeIds)
    .where('date', '>=', input.from)
    .where('date', '<=', input.to)
    .groupBy(['employee_id', 'kind'])
    .execute();
}
