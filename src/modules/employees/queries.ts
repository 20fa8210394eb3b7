import { type Executor, rowLocks, type Tx } from '../../platform/db/database.js';
import type { EmployeeRow } from '../../platform/db/schema.js';

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

/** The employee a time-clock write records for, as far as it reads them: who they are and where they work. */
export type EmployeeForWrite = Pick<EmployeeRow, 'id' | 'external_id' | 'workplace_id'>;

/** That employee with the time zone of their workplace (null without a workplace or a zone). */
export type EmployeeWithZone = EmployeeForWrite & { workplace_time_zone: string | null };

/**
 * The employee (by id or external id) with their workplace's zone, row-locked for the rest of the
 * transaction (see `rowLocks`): concurrent writes for one employee, from any instance, queue here.
 */
export async function lockEmployeeWithZone(
  tx: Tx,
  companyId: string,
  by: { id: string } | { externalId: string },
): Promise<EmployeeWithZone | undefined> {
  const query = tx
    .selectFrom('employees as e')
    .leftJoin('workplaces as w', 'w.id', 'e.workplace_id')
    .select(['e.id', 'e.external_id', 'e.workplace_id', 'w.time_zone as workplace_time_zone'])
    .where('e.company_id', '=', companyId)
    .where('deleted_at', 'is', null);
  return ('id' in by ? query.where('e.id', '=', by.id) : query.where('e.external_id', '=', by.externalId))
    .$if(rowLocks(tx), (q) => q.forUpdate('e'))
    .executeTakeFirst();
}

/** The columns of an employee list item (see views.ts): pages read nothing else. */
export const EMPLOYEE_LIST_COLUMNS = [
  'id',
  'external_id',
  'first_name',
  'last_name',
  'email',
  'status',
  'department_id',
  'position_id',
] as const;

export type EmployeeListRow = Pick<EmployeeRow, (typeof EMPLOYEE_LIST_COLUMNS)[number]>;

/** A page of the company's employees ordered by id, after `afterId`, of one status if given. */
export async function listEmployeesPage(
  db: Executor,
  companyId: string,
  options: { status: string | null; afterId: string | null; limit: number },
): Promise<EmployeeListRow[]> {
  const { status, afterId, limit } = options;
  return db
    .selectFrom('employees')
    .select(EMPLOYEE_LIST_COLUMNS)
    .where('company_id', '=', companyId)
    .where('deleted_at', 'is', null)
    .$if(status !== null, (q) => q.where('status', '=', status!))
    .$if(afterId !== null, (q) => q.where('id', '>', afterId!))
    .orderBy('id')
    .limit(limit)
    .execute();
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
