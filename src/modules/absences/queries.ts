import type { Insertable, Selectable, Updateable } from 'kysely';
import { type Executor, rowLocks, type Tx } from '../../platform/db/database.js';
import type { AbsencesTable, LeaveEntitlementsTable } from '../../platform/db/schema.js';

/* The rows of absences, leave entitlements, the employee's lock and actors (issue 31; calendar.queries.ts: the rest). */

export type AbsenceRow = Selectable<AbsencesTable>;

export interface LeaveEmployeeRow {
  id: string;
  external_id: string | null;
  workplace_id: string | null;
  hired_on: string | null;
  left_on: string | null;
}

/**
 * The employee's row, locked for the rest of the transaction on PostgreSQL (SQLite's write
 * transaction already excludes other writers): writes of one employee's absences queue here, so the
 * overlap and balance checks see every committed absence.
 */
export async function lockEmployee(tx: Tx, companyId: string, employeeId: string) {
  return tx
    .selectFrom('employees')
    .select(['id', 'external_id', 'workplace_id', 'hired_on', 'left_on'])
    .where('company_id', '=', companyId)
    .where('id', '=', employeeId)
    .$if(rowLocks(tx), (q) => q.forUpdate())
    .executeTakeFirst();
}

/** Which company an absence or an employee belongs to (the CLI names only the id). */
export async function companyOfAbsence(db: Executor, id: string): Promise<string | null> {
  const row = await db.selectFrom('absences').select('company_id').where('id', '=', id).executeTakeFirst();
  return row?.company_id ?? null;
}

export async function companyOfEmployee(db: Executor, id: string) {
  return db
    .selectFrom('employees as e')
    .innerJoin('companies as c', 'c.id', 'e.company_id')
    .select(['e.company_id', 'c.time_zone'])
    .where('e.id', '=', id)
    .where('e.deleted_at', 'is', null)
    .executeTakeFirst();
}

export async function companyZone(db: Executor, companyId: string) {
  return db
    .selectFrom('companies')
    .select(['id', 'time_zone'])
    .where('id', '=', companyId)
    .executeTakeFirst();
}

export async function findEmployeeRef(db: Executor, companyId: string, employeeId: string) {
  return db
    .selectFrom('employees')
    .select(['id', 'external_id', 'workplace_id', 'hired_on', 'left_on'])
    .where('company_id', '=', companyId)
    .where('id', '=', employeeId)
    .executeTakeFirst();
}

/** Whether the employee confirmed (locked) any day from `from` to `to`; the first such day. */
export async function firstLockedDay(
  db: Executor,
  employeeId: string,
  from: string,
  to: string,
): Promise<string | null> {
  const row = await db
    .selectFrom('confirmed_days')
    .select('work_date')
    .where('employee_id', '=', employeeId)
    .where('work_date', '>=', from)
    .where('work_date', '<=', to)
    .orderBy('work_date')
    .limit(1)
    .executeTakeFirst();
  return row?.work_date ?? null;
}

// People and keys, as actors.

export async function personOf(db: Executor, userId: string) {
  return db
    .selectFrom('users')
    .select(['id', 'email', 'employee_id'])
    .where('id', '=', userId)
    .executeTakeFirst();
}

export async function keyNameOf(db: Executor, keyId: string): Promise<string | null> {
  const row = await db.selectFrom('api_keys').select('name').where('id', '=', keyId).executeTakeFirst();
  return row?.name ?? null;
}

// Leave entitlements.

export async function listEntitlements(db: Executor, employeeId: string, typeId: string) {
  return db
    .selectFrom('leave_entitlements')
    .select(['year', 'days'])
    .where('employee_id', '=', employeeId)
    .where('absence_type_id', '=', typeId)
    .orderBy('year')
    .execute();
}

export async function upsertEntitlement(tx: Tx, row: Insertable<LeaveEntitlementsTable>): Promise<void> {
  await tx
    .insertInto('leave_entitlements')
    .values(row)
    .onConflict((oc) =>
      oc
        .columns(['employee_id', 'absence_type_id', 'year'])
        .doUpdateSet({ days: row.days, updated_at: row.updated_at }),
    )
    .execute();
}

// Absences.

export async function insertAbsence(tx: Tx, row: Insertable<AbsencesTable>): Promise<void> {
  await tx.insertInto('absences').values(row).execute();
}

export type AbsenceWithType = AbsenceRow & { type_code: string; employee_external_id: string | null };

const withType = (db: Executor) =>
  db
    .selectFrom('absences as a')
    .innerJoin('absence_types as t', 't.id', 'a.absence_type_id')
    .innerJoin('employees as e', 'e.id', 'a.employee_id')
    .selectAll('a')
    .select(['t.code as type_code', 'e.external_id as employee_external_id']);

export async function findAbsence(
  db: Executor,
  companyId: string,
  id: string,
): Promise<AbsenceWithType | undefined> {
  return withType(db).where('a.company_id', '=', companyId).where('a.id', '=', id).executeTakeFirst();
}

/** Changes an absence only at the version it was read at: false when another change came first. */
export async function updateAbsence(
  tx: Tx,
  id: string,
  version: number,
  patch: Updateable<AbsencesTable>,
): Promise<boolean> {
  const result = await tx
    .updateTable('absences')
    .set({ ...patch, version: version + 1 })
    .where('id', '=', id)
    .where('version', '=', version)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The employee's requested and approved absences touching `from`..`to`. */
export async function listLiveAbsences(
  db: Executor,
  employeeId: string,
  from: string,
  to: string,
  typeId: string | null = null,
) {
  return db
    .selectFrom('absences')
    .select(['id', 'absence_type_id', 'start_date', 'end_date', 'portion', 'hours', 'status'])
    .where('employee_id', '=', employeeId)
    .where('status', 'in', ['requested', 'approved'])
    .where('start_date', '<=', to)
    .where('end_date', '>=', from)
    .$if(typeId !== null, (q) => q.where('absence_type_id', '=', typeId!))
    .orderBy('start_date')
    .execute();
}

/** The last day of the employee's live (requested or approved) absences of a type; null when none. */
export async function lastLiveAbsenceEnd(
  db: Executor,
  employeeId: string,
  typeId: string,
): Promise<string | null> {
  const row = await db
    .selectFrom('absences')
    .select((eb) => eb.fn.max('end_date').as('last'))
    .where('employee_id', '=', employeeId)
    .where('absence_type_id', '=', typeId)
    .where('status', 'in', ['requested', 'approved'])
    .executeTakeFirst();
  return (row?.last as string | null | undefined) ?? null;
}

export interface AbsencePageFilter {
  companyId: string;
  employeeId: string | null;
  from: string;
  to: string;
  status: string | null;
  typeCode: string | null;
  after: { startDate: string; id: string } | null;
  limit: number;
}

/** Absences touching `from`..`to`, by start date then id, after the cursor's position. */
export async function listAbsencePage(db: Executor, f: AbsencePageFilter): Promise<AbsenceWithType[]> {
  return withType(db)
    .where('a.company_id', '=', f.companyId)
    .where('a.start_date', '<=', f.to)
    .where('a.end_date', '>=', f.from)
    .$if(f.employeeId !== null, (q) => q.where('a.employee_id', '=', f.employeeId!))
    .$if(f.status !== null, (q) => q.where('a.status', '=', f.status!))
    .$if(f.typeCode !== null, (q) => q.where('t.code', '=', f.typeCode!))
    .$if(f.after !== null, (q) =>
      q.where((eb) =>
        eb.or([
          eb('a.start_date', '>', f.after!.startDate),
          eb.and([eb('a.start_date', '=', f.after!.startDate), eb('a.id', '>', f.after!.id)]),
        ]),
      ),
    )
    .orderBy('a.start_date')
    .orderBy('a.id')
    .limit(f.limit)
    .execute();
}

export interface ApprovedAbsenceRow {
  employee_id: string;
  start_date: string;
  end_date: string;
  portion: string;
  hours: number | null;
  code: string;
  counts_as_work_time: number;
}

/** The approved absences of `employeeIds` (of the company) touching `from`..`to`, with their type's rules. */
export async function listApprovedAbsences(
  db: Executor,
  companyId: string,
  employeeIds: readonly string[],
  from: string,
  to: string,
): Promise<ApprovedAbsenceRow[]> {
  if (employeeIds.length === 0) return [];
  return db
    .selectFrom('absences as a')
    .innerJoin('absence_types as t', 't.id', 'a.absence_type_id')
    .select([
      'a.employee_id',
      'a.start_date',
      'a.end_date',
      'a.portion',
      'a.hours',
      't.code',
      't.counts_as_work_time',
    ])
    .where('a.employee_id', 'in', employeeIds)
    .where('a.company_id', '=', companyId)
    .where('a.status', '=', 'approved')
    .where('a.start_date', '<=', to)
    .where('a.end_date', '>=', from)
    .orderBy('a.employee_id')
    .orderBy('a.start_date')
    .execute();
}

/** The requested and approved absences of `employeeIds` touching `from`..`to` (the team calendar). */
export async function listAbsencesOfEmployees(
  db: Executor,
  companyId: string,
  employeeIds: readonly string[],
  from: string,
  to: string,
): Promise<AbsenceWithType[]> {
  if (employeeIds.length === 0) return [];
  return withType(db)
    .where('a.company_id', '=', companyId)
    .where('a.employee_id', 'in', employeeIds)
    .where('a.status', 'in', ['requested', 'approved'])
    .where('a.start_date', '<=', to)
    .where('a.end_date', '>=', from)
    .orderBy('a.start_date')
    .orderBy('a.id')
    .execute();
}

/** The company's employees (of one workplace, when given) by name, at most `limit`. */
export async function listTeam(db: Executor, companyId: string, workplaceId: string | null, limit: number) {
  return db
    .selectFrom('employees')
    .select(['id', 'external_id', 'first_name', 'last_name', 'email', 'workplace_id'])
    .where('company_id', '=', companyId)
    .where('deleted_at', 'is', null)
    .$if(workplaceId !== null, (q) => q.where('workplace_id', '=', workplaceId!))
    .orderBy('last_name')
    .orderBy('first_name')
    .orderBy('email')
    .orderBy('id')
    .limit(limit)
    .execute();
}

export async function namesOf(db: Executor, companyId: string, ids: readonly string[]) {
  if (ids.length === 0) return [];
  return db
    .selectFrom('employees')
    .select(['id', 'first_name', 'last_name', 'email'])
    .where('company_id', '=', companyId)
    .where('id', 'in', ids)
    .execute();
}
