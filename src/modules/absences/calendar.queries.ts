import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Executor, Tx } from '../../platform/db/database.js';
import type { AbsenceTypesTable, HolidayOverridesTable } from '../../platform/db/schema.js';

/*
 * The rows the working calendar is made of (issue 31): absence types, workplaces' holiday regions,
 * schedules, holiday overrides. (Absences, entitlements and locks: queries.ts.)
 */

export type AbsenceTypeRow = Selectable<AbsenceTypesTable>;
export type HolidayOverrideRow = Selectable<HolidayOverridesTable>;

// Absence types.

export async function listTypes(db: Executor, companyId: string): Promise<AbsenceTypeRow[]> {
  return db
    .selectFrom('absence_types')
    .selectAll()
    .where('company_id', '=', companyId)
    .orderBy('code')
    .execute();
}

export async function findType(
  db: Executor,
  companyId: string,
  by: { id: string } | { code: string },
): Promise<AbsenceTypeRow | undefined> {
  return db
    .selectFrom('absence_types')
    .selectAll()
    .where('company_id', '=', companyId)
    .$if('id' in by, (q) => q.where('id', '=', (by as { id: string }).id))
    .$if('code' in by, (q) => q.where('code', '=', (by as { code: string }).code))
    .executeTakeFirst();
}

export async function findTypeById(db: Executor, id: string): Promise<AbsenceTypeRow | undefined> {
  return db.selectFrom('absence_types').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertTypes(tx: Tx, rows: Insertable<AbsenceTypesTable>[]): Promise<void> {
  if (rows.length > 0) await tx.insertInto('absence_types').values(rows).execute();
}

export async function updateType(tx: Tx, id: string, patch: Updateable<AbsenceTypesTable>): Promise<void> {
  await tx.updateTable('absence_types').set(patch).where('id', '=', id).execute();
}

// Workplaces, schedules and employees as the calendar reads them.

export async function findWorkplace(db: Executor, companyId: string, workplaceId: string) {
  return db
    .selectFrom('workplaces')
    .select(['id', 'company_id', 'name', 'holiday_region'])
    .where('company_id', '=', companyId)
    .where('id', '=', workplaceId)
    .executeTakeFirst();
}

/** A workplace by id, of `companyId` when given (the CLI names only the id). */
export async function findWorkplaceRow(db: Executor, id: string, companyId: string | null) {
  return db
    .selectFrom('workplaces')
    .selectAll()
    .where('id', '=', id)
    .$if(companyId !== null, (q) => q.where('company_id', '=', companyId!))
    .executeTakeFirst();
}

export async function setWorkplaceRegion(tx: Tx, id: string, region: string | null): Promise<void> {
  await tx.updateTable('workplaces').set({ holiday_region: region }).where('id', '=', id).execute();
}

export async function findSchedule(db: Executor, id: string) {
  return db.selectFrom('schedules').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateScheduleRow(
  tx: Tx,
  id: string,
  patch: { work_days?: string; daily_hours?: number | null },
): Promise<void> {
  await tx.updateTable('schedules').set(patch).where('id', '=', id).execute();
}

export async function workplaceRegions(db: Executor, companyId: string) {
  return db
    .selectFrom('workplaces')
    .select(['id', 'name', 'holiday_region'])
    .where('company_id', '=', companyId)
    .orderBy('name')
    .orderBy('id')
    .execute();
}

export interface ScheduleRow {
  employee_id: string;
  effective_from: string;
  weekly_hours: number | null;
  work_days: string;
  daily_hours: number | null;
}

/** Every schedule assignment of `employeeIds` starting on or before `to`, oldest first per employee. */
export async function listSchedulesOf(
  db: Executor,
  employeeIds: readonly string[],
  to: string,
): Promise<ScheduleRow[]> {
  if (employeeIds.length === 0) return [];
  return db
    .selectFrom('employee_schedules as es')
    .innerJoin('schedules as s', 's.id', 'es.schedule_id')
    .select(['es.employee_id', 'es.effective_from', 's.weekly_hours', 's.work_days', 's.daily_hours'])
    .where('es.employee_id', 'in', employeeIds)
    .where('es.effective_from', '<=', to)
    .orderBy('es.employee_id')
    .orderBy('es.effective_from')
    .orderBy('es.created_at')
    .execute();
}

// Holiday overrides.

export async function listOverrides(
  db: Executor,
  companyId: string,
  range: { from: string; to: string } | null,
): Promise<HolidayOverrideRow[]> {
  return db
    .selectFrom('holiday_overrides')
    .selectAll()
    .where('company_id', '=', companyId)
    .$if(range !== null, (q) => q.where('date', '>=', range!.from).where('date', '<=', range!.to))
    .orderBy('date')
    .orderBy('id')
    .execute();
}

/** The override of one day and scope (the company's, or one workplace's), if any. */
export async function findOverride(
  db: Executor,
  companyId: string,
  workplaceId: string | null,
  date: string,
) {
  return db
    .selectFrom('holiday_overrides')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('date', '=', date)
    .$if(workplaceId === null, (q) => q.where('workplace_id', 'is', null))
    .$if(workplaceId !== null, (q) => q.where('workplace_id', '=', workplaceId))
    .executeTakeFirst();
}

export async function insertOverride(tx: Tx, row: Insertable<HolidayOverridesTable>): Promise<void> {
  await tx.insertInto('holiday_overrides').values(row).execute();
}

export async function deleteOverride(tx: Tx, companyId: string, id: string): Promise<number> {
  const result = await tx
    .deleteFrom('holiday_overrides')
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

// Closed payroll periods that changes to the calendar must not rewrite (review of issue 31).

/** Open (not reopened) closed periods of the company holding a day of [from, to], any workplace's. */
export async function closedPeriodsOfCompany(
  db: Executor,
  companyId: string,
  range: { from: string; to: string },
  workplaceId: string | null = null,
) {
  return db
    .selectFrom('locked_periods')
    .select(['id', 'from_date', 'to_date', 'workplace_id'])
    .where('company_id', '=', companyId)
    .where('to_date', '>=', range.from)
    .where('from_date', '<=', range.to)
    .where('reopened_at', 'is', null)
    .$if(workplaceId !== null, (q) =>
      q.where((eb) => eb.or([eb('workplace_id', 'is', null), eb('workplace_id', '=', workplaceId!)])),
    )
    .orderBy('from_date')
    .execute();
}

/** An approved absence of the type on a day of a closed period of its employee's workplace or company. */
export async function approvedAbsenceInClosedPeriod(db: Executor, typeId: string) {
  return db
    .selectFrom('absences as a')
    .innerJoin('employees as e', 'e.id', 'a.employee_id')
    .innerJoin('locked_periods as lp', (join) =>
      join
        .onRef('lp.company_id', '=', 'a.company_id')
        .onRef('lp.from_date', '<=', 'a.end_date')
        .onRef('lp.to_date', '>=', 'a.start_date'),
    )
    .select(['a.id', 'lp.from_date', 'lp.to_date', 'lp.id as period_id'])
    .where('a.absence_type_id', '=', typeId)
    .where('a.status', '=', 'approved')
    .where('lp.reopened_at', 'is', null)
    .where((eb) =>
      eb.or([eb('lp.workplace_id', 'is', null), eb('lp.workplace_id', '=', eb.ref('e.workplace_id'))]),
    )
    .limit(1)
    .executeTakeFirst();
}

/** A closed period holding a day on which an employee had the schedule (from its first assignment on). */
export async function closedPeriodOfSchedule(db: Executor, scheduleId: string) {
  return db
    .selectFrom('employee_schedules as es')
    .innerJoin('employees as e', 'e.id', 'es.employee_id')
    .innerJoin('locked_periods as lp', (join) =>
      join.onRef('lp.company_id', '=', 'e.company_id').onRef('lp.to_date', '>=', 'es.effective_from'),
    )
    .select(['lp.id', 'lp.from_date', 'lp.to_date'])
    .where('es.schedule_id', '=', scheduleId)
    .where('lp.reopened_at', 'is', null)
    .where((eb) =>
      eb.or([eb('lp.workplace_id', 'is', null), eb('lp.workplace_id', '=', eb.ref('e.workplace_id'))]),
    )
    .limit(1)
    .executeTakeFirst();
}

export async function findOverrideById(db: Executor, companyId: string, id: string) {
  return db
    .selectFrom('holiday_overrides')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .executeTakeFirst();
}
