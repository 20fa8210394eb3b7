import type { Executor } from '../database.js';
import type { EmployeeRow } from '../schema.js';

export async function findEmployeeById(
  db: Executor,
  companyId: string,
  employeeId: string,
): Promise<EmployeeRow | undefined> {
  return db
    .selectFrom('employees')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('id', '=', employeeId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export async function findEmployeeByExternalId(
  db: Executor,
  companyId: string,
  externalId: string,
): Promise<EmployeeRow | undefined> {
  return db
    .selectFrom('employees')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('external_id', '=', externalId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export async function listEmployeesPage(
  db: Executor,
  companyId: string,
  options: { status: string | null; afterId: string | null; limit: number },
): Promise<EmployeeRow[]> {
  let query = db
    .selectFrom('employees')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('deleted_at', 'is', null);
  if (options.status) query = query.where('status', '=', options.status);
  if (options.afterId) query = query.where('id', '>', options.afterId);
  return query.orderBy('id').limit(options.limit).execute();
}

/** The schedule in force on a work date: the latest assignment whose start is on or before it. */
export async function findEffectiveScheduleId(
  db: Executor,
  employeeId: string,
  workDate: string,
): Promise<string | null> {
  const row = await db
    .selectFrom('employee_schedules')
    .select('schedule_id')
    .where('employee_id', '=', employeeId)
    .where('effective_from', '<=', workDate)
    .orderBy('effective_from', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.schedule_id ?? null;
}

export async function findLatestScheduleId(db: Executor, employeeId: string): Promise<string | null> {
  const row = await db
    .selectFrom('employee_schedules')
    .select('schedule_id')
    .where('employee_id', '=', employeeId)
    .orderBy('effective_from', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.schedule_id ?? null;
}
