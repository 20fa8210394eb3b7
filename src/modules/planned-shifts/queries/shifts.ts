import { newId } from '../../../domain/ids.js';
import { sql } from 'kysely';
import { type Executor, rowLocks, type Tx } from '../../../platform/db/database.js';
import type { PlannedShiftRow } from '../../../platform/db/schema.js';

/*
 * The rows of planned shifts (issue 33). Writes that must not overlap run under the employees' row
 * locks (PostgreSQL: FOR UPDATE, taken in id order so that two batches never wait for each other in a
 * circle; SQLite: the write transaction already excludes other writers). A shift itself is changed
 * only at the version it was read at (optimistic), and a batch writes its changes in id order.
 */

export interface EmployeeOfPlan {
  id: string;
  external_id: string | null;
  workplace_id: string | null;
  workplace_time_zone: string | null;
}

/** Rows per multi-row insert: a whole batch (16 columns: 8,000 parameters, inside both databases' limits). */
const INSERT_CHUNK = 500;

/**
 * The company's (undeleted) employees named by `ids` or `externalIds`, with their workplace's zone,
 * row-locked in id order until the transaction ends.
 */
export async function lockEmployeesOfPlan(
  tx: Tx,
  companyId: string,
  ids: readonly string[],
  externalIds: readonly string[],
): Promise<EmployeeOfPlan[]> {
  if (ids.length === 0 && externalIds.length === 0) return [];
  return tx
    .selectFrom('employees as e')
    .leftJoin('workplaces as w', 'w.id', 'e.workplace_id')
    .select(['e.id', 'e.external_id', 'e.workplace_id', 'w.time_zone as workplace_time_zone'])
    .where('e.company_id', '=', companyId)
    .where('e.deleted_at', 'is', null)
    .where((eb) =>
      eb.or([
        ...(ids.length > 0 ? [eb('e.id', 'in', ids)] : []),
        ...(externalIds.length > 0 ? [eb('e.external_id', 'in', externalIds)] : []),
      ]),
    )
    .orderBy('e.id')
    .$if(rowLocks(tx), (q) => q.forUpdate('e'))
    .execute();
}

/** The company's workplaces among `ids`, with their zones. */
export async function findWorkplaces(
  db: Executor,
  companyId: string,
  ids: readonly string[],
): Promise<{ id: string; time_zone: string | null }[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('workplaces')
    .select(['id', 'time_zone'])
    .where('company_id', '=', companyId)
    .where('id', 'in', ids)
    .execute();
}

/**
 * The company's shifts with these scheduler ids. Not locked: a change is written only while the shift
 * is still at the version read (updateShift), and changes are written in id order.
 *
 * A join with the ids as a VALUES list rather than `external_id IN (…500 parameters…)`: PostgreSQL
 * runs a named statement with a generic plan, which tests an IN list of parameters against every row
 * of the company one value after another (0.2-0.3 s for 500 ids among 22,000 shifts until the table's
 * statistics caught up with a bulk import); joined, either plan it picks is cheap.
 */
export async function findShiftsByExternalIds(
  db: Executor,
  companyId: string,
  externalIds: readonly string[],
): Promise<PlannedShiftRow[]> {
  if (externalIds.length === 0) return [];
  const wanted = sql.join(externalIds.map((id) => sql`(${id})`));
  const { rows } = await sql<PlannedShiftRow>`
    with wanted(external_id) as (values ${wanted})
    select s.* from planned_shifts s join wanted w on w.external_id = s.external_id
    where s.company_id = ${companyId}`.execute(db);
  return rows;
}

/** The company's shifts with these ids (the console's edits; not locked either, see above). */
export async function findShiftsByIds(
  db: Executor,
  companyId: string,
  ids: readonly string[],
): Promise<PlannedShiftRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('planned_shifts')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('id', 'in', ids)
    .execute();
}

/** One shift of the company, row-locked. */
export async function lockShift(tx: Tx, companyId: string, id: string): Promise<PlannedShiftRow | undefined> {
  return tx
    .selectFrom('planned_shifts')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .$if(rowLocks(tx), (q) => q.forUpdate())
    .executeTakeFirst();
}

/**
 * The shifts of `employeeIds` starting in [from, to): with `from` a day before the earliest start
 * asked about, every shift that could overlap one in the window (a shift lasts under 24 hours).
 */
export async function shiftsOfEmployeesBetween(
  db: Executor,
  employeeIds: readonly string[],
  from: string,
  to: string,
): Promise<PlannedShiftRow[]> {
  if (employeeIds.length === 0) return [];
  return db
    .selectFrom('planned_shifts')
    .selectAll()
    .where('employee_id', 'in', employeeIds)
    .where('start_at', '>', from)
    .where('start_at', '<', to)
    .orderBy('start_at')
    .execute();
}

/**
 * Inserts new shifts; a row whose scheduler id another transaction took meanwhile is skipped (the
 * unique index decides). Returns the ids inserted.
 */
export async function insertShifts(tx: Tx, rows: readonly PlannedShiftRow[]): Promise<Set<string>> {
  const inserted = new Set<string>();
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    const done = await tx
      .insertInto('planned_shifts')
      .values(rows.slice(i, i + INSERT_CHUNK))
      .onConflict((oc) => oc.doNothing())
      .returning('id')
      .execute();
    for (const row of done) inserted.add(row.id);
  }
  return inserted;
}

/** Writes a changed shift, when it is still at `version` (true) or not (false). */
export async function updateShift(tx: Tx, row: PlannedShiftRow, version: number): Promise<boolean> {
  const { id, company_id: companyId, created_at: _created, ...changes } = row;
  const result = await tx
    .updateTable('planned_shifts')
    .set(changes)
    .where('id', '=', id)
    .where('company_id', '=', companyId)
    .where('version', '=', version)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteShiftRow(tx: Tx, id: string): Promise<void> {
  await tx.deleteFrom('planned_shifts').where('id', '=', id).execute();
}

/** Publishes the drafts dated from..to (of one workplace): their number. */
export async function publishDrafts(
  tx: Tx,
  input: { companyId: string; from: string; to: string; workplaceId: string | null; at: string },
): Promise<number> {
  const result = await tx
    .updateTable('planned_shifts')
    .set((eb) => ({ status: 'published', version: eb('version', '+', 1), updated_at: input.at }))
    .where('company_id', '=', input.companyId)
    .where('date', '>=', input.from)
    .where('date', '<=', input.to)
    .where('status', '=', 'draft')
    .$if(input.workplaceId !== null, (q) => q.where('workplace_id', '=', input.workplaceId!))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** How many drafts `publishDrafts` would publish (a dry run). */
export async function countDrafts(
  db: Executor,
  input: { companyId: string; from: string; to: string; workplaceId: string | null },
): Promise<number> {
  const row = await db
    .selectFrom('planned_shifts')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('company_id', '=', input.companyId)
    .where('date', '>=', input.from)
    .where('date', '<=', input.to)
    .where('status', '=', 'draft')
    .$if(input.workplaceId !== null, (q) => q.where('workplace_id', '=', input.workplaceId!))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export type ShiftFilter =
  | { employeeId: string }
  | { externalId: string }
  | { workplaceId: string }
  | { shiftExternalId: string }
  | null;

export type ShiftListRow = PlannedShiftRow & { employee_external_id: string | null };

/** A page of the company's shifts dated from..to, by start then id, after `after`. */
export async function listShiftsPage(
  db: Executor,
  input: {
    companyId: string;
    from: string;
    to: string;
    filter: ShiftFilter;
    after: { start: string; id: string } | null;
    limit: number;
  },
): Promise<ShiftListRow[]> {
  const { filter, after } = input;
  let query = db
    .selectFrom('planned_shifts as s')
    .innerJoin('employees as e', 'e.id', 's.employee_id')
    .selectAll('s')
    .select('e.external_id as employee_external_id')
    .where('s.company_id', '=', input.companyId)
    .where('s.date', '>=', input.from)
    .where('s.date', '<=', input.to);
  if (filter && 'employeeId' in filter) query = query.where('s.employee_id', '=', filter.employeeId);
  if (filter && 'externalId' in filter) query = query.where('e.external_id', '=', filter.externalId);
  if (filter && 'workplaceId' in filter) query = query.where('s.workplace_id', '=', filter.workplaceId);
  if (filter && 'shiftExternalId' in filter)
    query = query.where('s.external_id', '=', filter.shiftExternalId);
  if (after)
    query = query.where((eb) =>
      eb.or([
        eb('s.start_at', '>', after.start),
        eb.and([eb('s.start_at', '=', after.start), eb('s.id', '>', after.id)]),
      ]),
    );
  return query.orderBy('s.start_at').orderBy('s.id').limit(input.limit).execute();
}

/** One shift of the company with its employee's external id. */
export async function findShift(
  db: Executor,
  companyId: string,
  id: string,
): Promise<ShiftListRow | undefined> {
  return db
    .selectFrom('planned_shifts as s')
    .innerJoin('employees as e', 'e.id', 's.employee_id')
    .selectAll('s')
    .select('e.external_id as employee_external_id')
    .where('s.company_id', '=', companyId)
    .where('s.id', '=', id)
    .executeTakeFirst();
}

export interface AuditValues {
  companyId: string;
  actorType: string;
  actorId: string | null;
  action: string;
  targetId: string;
  details: Record<string, unknown>;
  at: string;
}

/** The audit rows of a batch, in multi-row inserts (the audit log's own columns, as recordAudit writes them). */
export async function insertAuditRows(tx: Tx, entries: readonly AuditValues[]): Promise<void> {
  const rows = entries.map((entry) => ({
    id: newId(),
    company_id: entry.companyId,
    actor_type: entry.actorType,
    actor_id: entry.actorId,
    action: entry.action,
    target_type: 'planned_shift',
    target_id: entry.targetId,
    details: JSON.stringify(entry.details),
    created_at: entry.at,
  }));
  for (let i = 0; i < rows.length; i += INSERT_CHUNK)
    await tx
      .insertInto('audit_log')
      .values(rows.slice(i, i + INSERT_CHUNK))
      .execute();
}

/** A company's zone and exception and rounding settings. */
export async function findCompanySettings(db: Executor, companyId: string) {
  return db
    .selectFrom('companies')
    .select(['time_zone', 'late_grace_minutes', 'no_show_after_minutes', 'rounding', 'rounding_minutes'])
    .where('id', '=', companyId)
    .executeTakeFirst();
}

/** The company of a planned shift. */
export async function companyOfShift(db: Executor, id: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('planned_shifts')
    .select('company_id')
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.company_id;
}

/** The company of an employee (undeleted), for the CLI's `shift create --employee`. */
export async function companyOfEmployee(db: Executor, employeeId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('employees')
    .select('company_id')
    .where('id', '=', employeeId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return row?.company_id;
}

/** Whether the company has the employee a list filters by (its id or external id). */
export async function hasEmployee(
  db: Executor,
  companyId: string,
  selector: { employeeId: string } | { externalId: string },
): Promise<boolean> {
  const row = await db
    .selectFrom('employees')
    .select('id')
    .where('company_id', '=', companyId)
    .where(
      'employeeId' in selector ? 'id' : 'external_id',
      '=',
      'employeeId' in selector ? selector.employeeId : selector.externalId,
    )
    .executeTakeFirst();
  return row !== undefined;
}
