import type { Executor } from '../../../platform/db/database.js';
import type { ExceptionListRow } from './exceptions.js';
import type { ShiftListRow } from './shifts.js';

/* The console's reads of the Roster and Now screens (issue 33). */

export async function workplaceOfCompany(
  db: Executor,
  companyId: string,
  id: string,
): Promise<{ id: string; name: string; time_zone: string | null } | undefined> {
  return db
    .selectFrom('workplaces')
    .select(['id', 'name', 'time_zone'])
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function workplacesOfCompany(db: Executor, companyId: string) {
  return db
    .selectFrom('workplaces')
    .select(['id', 'name', 'time_zone'])
    .where('company_id', '=', companyId)
    .orderBy('name')
    .execute();
}

export interface NamedEmployeeRow {
  id: string;
  external_id: string | null;
  first_name: string | null;
  last_name: string | null;
  email: string;
}

/** The workplace's undeleted employees and the employees among `ids`, by name. */
export async function rosterEmployees(
  db: Executor,
  companyId: string,
  workplaceId: string,
  ids: readonly string[],
): Promise<NamedEmployeeRow[]> {
  return db
    .selectFrom('employees')
    .select(['id', 'external_id', 'first_name', 'last_name', 'email'])
    .where('company_id', '=', companyId)
    .where('deleted_at', 'is', null)
    .where((eb) =>
      eb.or([eb('workplace_id', '=', workplaceId), ...(ids.length > 0 ? [eb('id', 'in', ids)] : [])]),
    )
    .orderBy('last_name')
    .orderBy('first_name')
    .orderBy('email')
    .execute();
}

/** The employees among `ids`, with their names. */
export async function employeesByIds(db: Executor, companyId: string, ids: readonly string[]) {
  if (ids.length === 0) return [];
  return db
    .selectFrom('employees')
    .select(['id', 'external_id', 'first_name', 'last_name', 'email'])
    .where('company_id', '=', companyId)
    .where('id', 'in', ids)
    .execute();
}

/** The workplace's shifts dated from..to, by start. */
export async function shiftsOfWorkplace(
  db: Executor,
  input: { companyId: string; workplaceId: string; from: string; to: string; publishedOnly?: boolean },
): Promise<ShiftListRow[]> {
  return db
    .selectFrom('planned_shifts as s')
    .innerJoin('employees as e', 'e.id', 's.employee_id')
    .selectAll('s')
    .select('e.external_id as employee_external_id')
    .where('s.company_id', '=', input.companyId)
    .where('s.workplace_id', '=', input.workplaceId)
    .where('s.date', '>=', input.from)
    .where('s.date', '<=', input.to)
    .$if(input.publishedOnly === true, (q) => q.where('s.status', '=', 'published'))
    .orderBy('s.start_at')
    .orderBy('s.id')
    .execute();
}

/** The workplace's exceptions dated from..to. */
export async function exceptionsOfWorkplace(
  db: Executor,
  input: { companyId: string; workplaceId: string; from: string; to: string },
): Promise<ExceptionListRow[]> {
  return db
    .selectFrom('attendance_exceptions as x')
    .innerJoin('employees as e', 'e.id', 'x.employee_id')
    .selectAll('x')
    .select('e.external_id as employee_external_id')
    .where('x.company_id', '=', input.companyId)
    .where('x.workplace_id', '=', input.workplaceId)
    .where('x.date', '>=', input.from)
    .where('x.date', '<=', input.to)
    .orderBy('x.date')
    .orderBy('x.id')
    .execute();
}

/** Published shifts (of one workplace) running or starting between from and to. */
export async function publishedShiftsAround(
  db: Executor,
  input: { companyId: string; workplaceId: string | null; from: string; to: string },
) {
  return db
    .selectFrom('planned_shifts')
    .select(['id', 'version', 'employee_id', 'workplace_id', 'date', 'start_at', 'end_at', 'time_zone'])
    .where('company_id', '=', input.companyId)
    .where('status', '=', 'published')
    .where('start_at', '>=', input.from)
    .where('start_at', '<=', input.to)
    .$if(input.workplaceId !== null, (q) => q.where('workplace_id', '=', input.workplaceId!))
    .orderBy('start_at')
    .execute();
}

/** Worked entries (open ones included) of `employeeIds` started since `from`. */
export async function entriesOfEmployeesSince(db: Executor, employeeIds: readonly string[], from: string) {
  if (employeeIds.length === 0) return [];
  return db
    .selectFrom('time_entries')
    .select(['id', 'employee_id', 'work_date', 'start_at', 'end_at'])
    .where('employee_id', 'in', employeeIds)
    .where('start_at', '>=', from)
    .where('status', 'in', ['open', 'pending_approval', 'approved'])
    .execute();
}
