import { type Executor, rowLocks, type Tx } from '../../platform/db/database.js';
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
      'e.status',
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
  'r.time_entry_version',
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
  filter: {
    companyId: string;
    employeeId?: string;
    status?: string;
    /** The last row of the previous page (newest first): rows after it. */
    after?: { createdAt: string; id: string };
    limit: number;
  },
): Promise<CorrectionRequestWithEmployee[]> {
  let query = requests(db).where('r.company_id', '=', filter.companyId);
  if (filter.employeeId !== undefined) query = query.where('r.employee_id', '=', filter.employeeId);
  if (filter.status !== undefined) query = query.where('r.status', '=', filter.status);
  const after = filter.after;
  if (after !== undefined)
    query = query.where((eb) =>
      eb.or([
        eb('r.created_at', '<', after.createdAt),
        eb.and([eb('r.created_at', '=', after.createdAt), eb('r.id', '<', after.id)]),
      ]),
    );
  return query.orderBy('r.created_at', 'desc').orderBy('r.id', 'desc').limit(filter.limit).execute();
}

/** The waiting requests of an entry, or of an employee. */
export function waitingRequestsOf(
  db: Executor,
  of: { entryId: string } | { employeeId: string },
): Promise<CorrectionRequestWithEmployee[]> {
  const query = requests(db).where('r.status', '=', 'requested');
  return (
    'entryId' in of
      ? query.where('r.time_entry_id', '=', of.entryId)
      : query.where('r.employee_id', '=', of.employeeId)
  )
    .orderBy('r.created_at')
    .orderBy('r.id')
    .execute();
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

/** Whether a request for a missing entry of the employee on `date` is waiting (the index has the last word). */
export async function openMissingRequest(
  db: Executor,
  employeeId: string,
  date: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('correction_requests')
    .select('id')
    .where('employee_id', '=', employeeId)
    .where('date', '=', date)
    .where('time_entry_id', 'is', null)
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

/** The statuses of employees who work (and may be invited to self-service and write there). */
export const INVITABLE_STATUSES = ['active', 'on_leave'] as const;

/**
 * Employees of the company (optionally of one workplace), active or on leave, with an email and no
 * person linked yet, by name. Any linked person counts, a deactivated one too: inviting everyone never gives back access
 * someone took away.
 */
/**
 * Locks the company's row for the rest of the transaction on PostgreSQL (SQLite's write transactions
 * run one at a time): two "invite everyone" of one company run one after the other, so the second
 * sees the persons the first created and creates no second person for an employee.
 */
export async function lockCompanyForInvites(tx: Tx, companyId: string): Promise<void> {
  await tx
    .selectFrom('companies')
    .select('id')
    .where('id', '=', companyId)
    .$if(rowLocks(tx), (q) => q.forUpdate())
    .execute();
}

export async function employeesWithoutPerson(db: Executor, companyId: string, workplaceId: string | null) {
  let query = db
    .selectFrom('employees as e')
    .select(['e.id', 'e.email', 'e.last_name', 'e.first_name'])
    .where('e.company_id', '=', companyId)
    .where('e.deleted_at', 'is', null)
    .where('e.email', '<>', '')
    .where('e.status', 'in', [...INVITABLE_STATUSES])
    .where((eb) =>
      eb.not(eb.exists(eb.selectFrom('users as u').select('u.id').whereRef('u.employee_id', '=', 'e.id'))),
    );
  if (workplaceId !== null) query = query.where('e.workplace_id', '=', workplaceId);
  // Sorted here, not in SQL: the database's collation decides ORDER BY (PostgreSQL's may be
  // linguistic, SQLite's is binary), so the same employees came in another order (review 2, #6).
  // A missing name sorts first, as ''; then by code unit, the same on both databases.
  const rows = await query.execute();
  const key = (row: (typeof rows)[number]) => [row.last_name ?? '', row.first_name ?? '', row.id];
  const compare = (a: string[], b: string[]) => {
    for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
    return 0;
  };
  return rows.sort((a, b) => compare(key(a), key(b)));
}
