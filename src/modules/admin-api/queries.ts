import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';

/*
 * Reads of the admin API, always inside one company: a row of another company is simply not found
 * (the caller answers 404, whatever id was sent).
 */

export function findKeyOfCompany(db: Executor, companyId: string, keyId: string) {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('id', '=', keyId)
    .where('company_id', '=', companyId)
    .executeTakeFirst();
}

export function listKeysOfCompany(db: Executor, companyId: string) {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('company_id', '=', companyId)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .execute();
}

export function findEmployeeOfCompany(db: Executor, companyId: string, employeeId: string) {
  return db
    .selectFrom('employees as e')
    .leftJoin('workplaces as w', 'w.id', 'e.workplace_id')
    .innerJoin('companies as c', 'c.id', 'e.company_id')
    .select([
      'e.id',
      'e.external_id',
      'w.time_zone as workplace_time_zone',
      'c.time_zone as company_time_zone',
    ])
    .where('e.id', '=', employeeId)
    .where('e.company_id', '=', companyId)
    .where('e.deleted_at', 'is', null)
    .executeTakeFirst();
}

export function findEntryCompany(db: Executor, entryId: string) {
  return db.selectFrom('time_entries').select(['company_id']).where('id', '=', entryId).executeTakeFirst();
}

/** The employee's entries whose day (the day they started) is in [from, to]. */
export function listEntriesOfEmployee(db: Executor, employeeId: string, from: string, to: string) {
  return db
    .selectFrom('time_entries')
    .select([
      'id',
      'work_date',
      'start_time',
      'end_time',
      'ends_next_day',
      'net_seconds',
      'break_minutes',
      'status',
      'source',
      'approved_at',
      'created_at',
      'start_at',
    ])
    .where('employee_id', '=', employeeId)
    .where('work_date', '>=', from)
    .where('work_date', '<=', to)
    .orderBy('work_date')
    .orderBy('start_at')
    .orderBy('id')
    .execute();
}

export async function listConfirmedDays(db: Executor, employeeId: string, from: string, to: string) {
  const rows = await db
    .selectFrom('confirmed_days')
    .select(['work_date'])
    .where('employee_id', '=', employeeId)
    .where('work_date', '>=', from)
    .where('work_date', '<=', to)
    .orderBy('work_date')
    .execute();
  return rows.map((r) => r.work_date);
}

export function findConfirmedDay(db: Executor, employeeId: string, date: string) {
  return db
    .selectFrom('confirmed_days')
    .select(['confirmed_at'])
    .where('employee_id', '=', employeeId)
    .where('work_date', '=', date)
    .executeTakeFirst();
}

/** A page of the company's employees (never deleted ones) by name, optionally matching `search`. */
export function searchEmployees(
  db: Executor,
  companyId: string,
  options: { search: string | null; offset: number; limit: number },
) {
  let query = db
    .selectFrom('employees')
    .select(['id', 'first_name', 'last_name', 'email', 'external_id', 'status', 'workplace_id'])
    .where('company_id', '=', companyId)
    .where('deleted_at', 'is', null);
  if (options.search !== null) {
    const pattern = `%${options.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    query = query.where((eb) =>
      eb.or(
        ['first_name', 'last_name', 'email', 'external_id'].map(
          (column) => sql<boolean>`lower(coalesce(${sql.ref(column)}, '')) like ${pattern} escape '\\'`,
        ),
      ),
    );
  }
  return query
    .orderBy(sql`lower(coalesce(last_name, ''))`)
    .orderBy(sql`lower(coalesce(first_name, ''))`)
    .orderBy('id')
    .offset(options.offset)
    .limit(options.limit)
    .execute();
}

/** Names and emails of some employees of the company (the "who is in" screen shows people, not ids). */
export function namesOfEmployees(db: Executor, companyId: string, ids: string[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('employees')
    .select(['id', 'first_name', 'last_name', 'email'])
    .where('company_id', '=', companyId)
    .where('id', 'in', ids)
    .execute();
}

/** The company's workplaces by name. */
export function listWorkplacesOfCompany(db: Executor, companyId: string) {
  return db
    .selectFrom('workplaces')
    .select(['id', 'name', 'time_zone'])
    .where('company_id', '=', companyId)
    .orderBy('name')
    .orderBy('id')
    .execute();
}

/** The company's schedules by name. */
export function listSchedulesOfCompany(db: Executor, companyId: string) {
  return db
    .selectFrom('schedules')
    .select(['id', 'name', 'weekly_hours'])
    .where('company_id', '=', companyId)
    .orderBy('name')
    .orderBy('id')
    .execute();
}

export function findWorkplaceOfCompany(db: Executor, companyId: string, id: string) {
  return db
    .selectFrom('workplaces')
    .select(['id'])
    .where('id', '=', id)
    .where('company_id', '=', companyId)
    .executeTakeFirst();
}

export function findScheduleOfCompany(db: Executor, companyId: string, id: string) {
  return db
    .selectFrom('schedules')
    .select(['id'])
    .where('id', '=', id)
    .where('company_id', '=', companyId)
    .executeTakeFirst();
}

/** An employee of the company (never a deleted one) with the schedule assignment that starts last. */
export async function findEmployeeDetail(db: Executor, companyId: string, id: string) {
  const row = await db
    .selectFrom('employees')
    .select(['id', 'first_name', 'last_name', 'email', 'external_id', 'status', 'workplace_id'])
    .where('id', '=', id)
    .where('company_id', '=', companyId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!row) return undefined;
  const schedule = await db
    .selectFrom('employee_schedules')
    .select(['schedule_id', 'effective_from'])
    .where('employee_id', '=', id)
    .orderBy('effective_from', 'desc')
    .limit(1)
    .executeTakeFirst();
  return {
    ...row,
    schedule_id: schedule?.schedule_id ?? null,
    schedule_from: schedule?.effective_from ?? null,
  };
}
