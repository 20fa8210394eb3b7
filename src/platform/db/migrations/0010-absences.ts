import { type Kysely, sql } from 'kysely';
import { newId } from '../../../domain/ids.js';

/*
 * Absences, leave balances and public holidays (issue 31).
 * - schedules: the weekdays worked (`work_days`, weekday names comma-separated, Monday to Friday by
 *   default) and the hours of a work day (`daily_hours`; null: weekly hours ÷ work days);
 * - employees: `hired_on`, `left_on` (dates, null when unknown);
 * - workplaces: `holiday_region` (`DE-BY`, `US-CA`, `FR`; null: no public holidays from a region);
 * - absence_types (per company, unique code), holiday_overrides (a company's added, removed or
 *   half-day holidays, for the whole company or one workplace), leave_entitlements (days per
 *   employee, type and year), absences.
 * Every existing company gets the default types (vacation, sick, unpaid) that new companies get.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await alterExisting(db);
  await createTypes(db);
  await createHolidayOverrides(db);
  await createEntitlements(db);
  await createAbsences(db);
  await seedDefaultTypes(db);
}

async function alterExisting(db: Kysely<unknown>): Promise<void> {
  // One column per statement: SQLite's ALTER TABLE adds one at a time.
  await db.schema
    .alterTable('schedules')
    .addColumn('work_days', 'text', (c) => c.notNull().defaultTo('monday,tuesday,wednesday,thursday,friday'))
    .execute();
  await db.schema
    .alterTable('schedules')
    .addColumn('daily_hours', sql`double precision`)
    .execute();
  await db.schema.alterTable('employees').addColumn('hired_on', 'text').execute();
  await db.schema.alterTable('employees').addColumn('left_on', 'text').execute();
  await db.schema.alterTable('workplaces').addColumn('holiday_region', 'text').execute();
}

async function createTypes(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('absence_types')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('unit', 'text', (c) => c.notNull())
    .addColumn('paid', 'integer', (c) => c.notNull())
    .addColumn('counts_as_work_time', 'integer', (c) => c.notNull())
    .addColumn('requires_approval', 'integer', (c) => c.notNull())
    .addColumn('deducts_from_balance', 'integer', (c) => c.notNull())
    .addColumn('yearly_entitlement_days', sql`double precision`, (c) => c.notNull().defaultTo(0))
    .addColumn('allow_negative', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('carry_over_max_days', sql`double precision`, (c) => c.notNull().defaultTo(0))
    .addColumn('carry_over_expires_on', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('absence_types_company_code_key', ['company_id', 'code'])
    .execute();
}

async function createHolidayOverrides(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('holiday_overrides')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('workplace_id', 'text', (c) => c.references('workplaces.id'))
    .addColumn('date', 'text', (c) => c.notNull())
    // add: a holiday on that day (name, portion); remove: no holiday that day (the region's is dropped).
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('portion', 'text', (c) => c.notNull().defaultTo('full'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // One override per day and scope: the whole company, or one workplace.
  await db.schema
    .createIndex('holiday_overrides_company_date_key')
    .on('holiday_overrides')
    .columns(['company_id', 'date'])
    .unique()
    .where(sql.ref('workplace_id'), 'is', null)
    .execute();
  await db.schema
    .createIndex('holiday_overrides_workplace_date_key')
    .on('holiday_overrides')
    .columns(['workplace_id', 'date'])
    .unique()
    .where(sql.ref('workplace_id'), 'is not', null)
    .execute();
}

async function createEntitlements(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('leave_entitlements')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('employee_id', 'text', (c) => c.notNull().references('employees.id'))
    .addColumn('absence_type_id', 'text', (c) => c.notNull().references('absence_types.id'))
    .addColumn('year', 'integer', (c) => c.notNull())
    .addColumn('days', sql`double precision`, (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('leave_entitlements_employee_type_year_key', [
      'employee_id',
      'absence_type_id',
      'year',
    ])
    .execute();
}

async function createAbsences(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('absences')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('employee_id', 'text', (c) => c.notNull().references('employees.id'))
    .addColumn('absence_type_id', 'text', (c) => c.notNull().references('absence_types.id'))
    .addColumn('start_date', 'text', (c) => c.notNull())
    .addColumn('end_date', 'text', (c) => c.notNull())
    .addColumn('portion', 'text', (c) => c.notNull())
    .addColumn('hours', sql`double precision`)
    .addColumn('days', sql`double precision`, (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('reason', 'text')
    .addColumn('decided_at', 'text')
    .addColumn('decided_by_kind', 'text')
    .addColumn('decided_by_id', 'text')
    .addColumn('decided_by_name', 'text')
    .addColumn('created_by_kind', 'text', (c) => c.notNull())
    .addColumn('created_by_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  // An employee's absences by date (overlaps, balances, timesheets), and a company's by date then id (lists).
  await db.schema
    .createIndex('absences_employee_start_idx')
    .on('absences')
    .columns(['employee_id', 'start_date'])
    .execute();
  await db.schema
    .createIndex('absences_company_start_idx')
    .on('absences')
    .columns(['company_id', 'start_date', 'id'])
    .execute();
}

/** The defaults of issue 31, as `defaultAbsenceTypes` (modules/absences/types.ts) gives new companies. */
const DEFAULT_TYPES = [
  ['vacation', 'Vacation', 'vacation', 1, 1, 1, 1],
  ['sick', 'Sick leave', 'sick', 1, 1, 0, 0],
  ['unpaid', 'Unpaid leave', 'unpaid', 0, 0, 1, 0],
] as const;

async function seedDefaultTypes(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{ id: string }>`select id from companies`.execute(db);
  const at = new Date().toISOString();
  for (const company of rows) {
    for (const [code, name, category, paid, counts, approval, deducts] of DEFAULT_TYPES)
      await sql`insert into absence_types (id, company_id, code, name, category, unit, paid,
        counts_as_work_time, requires_approval, deducts_from_balance, yearly_entitlement_days,
        allow_negative, carry_over_max_days, carry_over_expires_on, created_at, updated_at)
        values (${newId()}, ${company.id}, ${code}, ${name}, ${category}, 'days', ${paid}, ${counts},
        ${approval}, ${deducts}, 0, 0, 0, null, ${at}, ${at})`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['absences', 'leave_entitlements', 'holiday_overrides', 'absence_types'])
    await db.schema.dropTable(table).ifExists().execute();
  await db.schema.alterTable('workplaces').dropColumn('holiday_region').execute();
  await db.schema.alterTable('employees').dropColumn('left_on').execute();
  await db.schema.alterTable('employees').dropColumn('hired_on').execute();
  await db.schema.alterTable('schedules').dropColumn('daily_hours').execute();
  await db.schema.alterTable('schedules').dropColumn('work_days').execute();
}
