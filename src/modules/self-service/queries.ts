import type { Executor, Tx } from '../../platform/db/database.js';
import type { CorrectionRequestRow, CorrectionRequestsTable } from '../../platform/db/schema.js';

/* Rows of self-service (issue 35): the person's employee, the web clock's settings, correction requests. */

/** The live employee `employeeId` of the company, with their workplace's zone and web-clock ranges. */
export function findSelfEmployee(db: Executor, companyId: string, employeeId: string) {
  return db
    .selectFrom('employees as e')
    .innerJoin('companies as c', 'c.id', 'e.company_id')
    .leftJoin('workplaces as w', 'w.id', 'e.workplace_id')
    .select([
      'e.id',
      'e.external_id',
      'e.first_name',
      'e.last_name',
      'e.workplace_id',
      'c.time_zone as company_time_zone',
      'c.time_tracking',
      'c.web_clock',
      'w.time_zone as workplace_time_zone',
      'w.web_clock_allowed_ips',
    ])
    .where('e.id', '=', employeeId)
    .where('e.company_id', '=', companyId)
    .where('e.deleted_at', 'is', null)
    .executeTakeFirst();
}

export type SelfEmployeeRow = NonNullable<Awaited<ReturnType<typeof findSelfEmployee>>>;

export function findWorkplace(db: Executor, workplaceId: string) {
  return db.selectFrom('workplaces').selectAll().where('id', '=', workplaceId).executeTakeFirst();
}

export async function setAllowedIps(tx: Tx, workplaceId: string, value: string | null): Promise<void> {
  await tx
    .updateTable('workplaces')
    .set({ web_clock_allowed_ips: value })
    .where('id', '=', workplaceId)
    .execute();
}

export async function insertCorrectionRequest(tx: Tx, row: CorrectionRequestsTable): Promise<void> {
  await tx.insertInto('correction_requests').values(row).execute();
}

const REQUEST_COLUMNS = [
  'r.id',
  'r.company_id',
  'r.employee_id',
  'r.time_entry_id',
  'r.date',
  'r.proposed_clock_in',
  'r.proposed_clock_out',
  'r.proposed_break_minutes',
  'r.reason',
  'r.status',
  'r.requested_by',
  'r.decided_by_kind',
  'r.decided_by_id',
  'r.decided_by_name',
  'r.decided_at',
  'r.decision_reason',
  'r.created_at',
  'r.updated_at',
  'e.external_id as employee_external_id',
  'e.first_name',
  'e.last_name',
  'e.email as employee_email',
] as const;

export type CorrectionRequestWithEmployee = CorrectionRequestRow & {
  employee_external_id: string | null;
  first_name: string | null;
  last_name: string | null;
  employee_email: string;
};

function requests(db: Executor) {
  return db
    .selectFrom('correction_requests as r')
    .innerJoin('employees as e', 'e.id', 'r.employee_id')
    .select(REQUEST_COLUMNS);
}

/** A request of the company (and, with `employeeId`, of that employee only), or undefined. */
export function findCorrectionRequest(
  db: Executor,
  companyId: string,
  id: string,
  employeeId: string | null = null,
): Promise<CorrectionRequestWithEmployee | undefined> {
  let query = requests(db).where('r.id', '=', id).where('r.company_id', '=', companyId);
  if (employeeId !== null) query = query.where('r.employee_id', '=', employeeId);
  return query.executeTakeFirst();
}

/** The newest 200 requests of one employee, or of the company (optionally of one status). */
export function listCorrectionRequests(
  db: Executor,
  filter: { companyId: string; employeeId?: string; status?: string },
): Promise<CorrectionRequestWithEmployee[]> {
  let query = requests(db).where('r.company_id', '=', filter.companyId);
  if (filter.employeeId !== undefined) query = query.where('r.employee_id', '=', filter.employeeId);
  if (filter.status !== undefined) query = query.where('r.status', '=', filter.status);
  return query.orderBy('r.created_at', 'desc').orderBy('r.id', 'desc').limit(200).execute();
}

/** Whether a request for this entry is waiting (the partial unique index is the last word). */
export async function openRequestForEntry(db: Executor, entryId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('correction_requests')
    .select('id')
    .where('time_entry_id', '=', entryId)
    .where('status', '=', 'requested')
    .executeTakeFirst();
  return row?.id;
}

/** Moves a request still `requested` to its decision; the number of rows changed (0: decided meanwhile). */
export async function decideCorrectionRequest(
  tx: Tx,
  id: string,
  patch: Pick<
    CorrectionRequestsTable,
    'status' | 'decided_by_kind' | 'decided_by_id' | 'decided_by_name' | 'decided_at' | 'decision_reason'
  >,
): Promise<number> {
  const result = await tx
    .updateTable('correction_requests')
    .set({ ...patch, updated_at: patch.decided_at! })
    .where('id', '=', id)
    .where('status', '=', 'requested')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Employees of the company (optionally of one workplace) with an email and no person yet, by name. */
export function employeesWithoutPerson(db: Executor, companyId: string, workplaceId: string | null) {
  let query = db
    .selectFrom('employees as e')
    .select(['e.id', 'e.email'])
    .where('e.company_id', '=', companyId)
    .where('e.deleted_at', 'is', null)
    .where('e.email', '<>', '')
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('users as u')
            .select('u.id')
            .whereRef('u.employee_id', '=', 'e.id')
            .where('u.active', '=', 1),
        ),
      ),
    );
  if (workplaceId !== null) query = query.where('e.workplace_id', '=', workplaceId);
  return query.orderBy('e.last_name').orderBy('e.first_name').orderBy('e.id').execute();
}

/** Whether an active person of the company already has this email (case-insensitive). */
export async function activePersonWithEmail(
  db: Executor,
  companyId: string,
  email: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('users')
    .select('id')
    .where('company_id', '=', companyId)
    .where('email', '=', email)
    .where('active', '=', 1)
    .executeTakeFirst();
  return row !== undefined;
}
