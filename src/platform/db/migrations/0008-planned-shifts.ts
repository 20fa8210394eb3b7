import { type Kysely, sql } from 'kysely';

/*
 * Planned shifts and attendance exceptions (issue 33).
 *
 * `planned_shifts`: the plan, one row per shift of one employee at one workplace: its instants
 * (`start_at`, `end_at`, UTC), the day it belongs to (`date`, the start's day in `time_zone`, the
 * workplace's zone when the shift was written) and the scheduler's own id (`external_id`), unique per
 * company, by which imports upsert. `version` counts the changes. Two shifts of one employee may not
 * overlap: checked under the employee's row lock (an overlap cannot be a portable unique index).
 *
 * `attendance_exceptions`: what the once-a-minute job found comparing published shifts with the
 * punches. `dedupe_key` (`late_in:<shift>:<version>`, `unplanned:<employee>:<date>`, …) is unique per
 * company: the database's last word that each exception is detected once, whatever the number of
 * instances running the job.
 *
 * Company settings: the grace and no-show margins of the exceptions, and a rounding policy that
 * applies to reports only (raw punches never change).
 */
async function createPlannedShifts(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('planned_shifts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('employee_id', 'text', (c) => c.notNull().references('employees.id'))
    .addColumn('workplace_id', 'text', (c) => c.notNull().references('workplaces.id'))
    .addColumn('external_id', 'text')
    .addColumn('date', 'text', (c) => c.notNull())
    .addColumn('start_at', 'text', (c) => c.notNull())
    .addColumn('end_at', 'text', (c) => c.notNull())
    .addColumn('time_zone', 'text', (c) => c.notNull())
    .addColumn('break_minutes', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('note', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('planned_shifts_company_external_id_key')
    .on('planned_shifts')
    .columns(['company_id', 'external_id'])
    .unique()
    .where(sql.ref('external_id'), 'is not', null)
    .execute();
  // Overlap checks and an employee's plan by instant.
  await db.schema
    .createIndex('planned_shifts_employee_start_idx')
    .on('planned_shifts')
    .columns(['employee_id', 'start_at'])
    .execute();
  // Lists by day (a company's, a workplace's) and the job's look at recent shifts.
  await db.schema
    .createIndex('planned_shifts_company_date_idx')
    .on('planned_shifts')
    .columns(['company_id', 'date', 'start_at'])
    .execute();
  await db.schema
    .createIndex('planned_shifts_start_idx')
    .on('planned_shifts')
    .columns(['start_at', 'company_id'])
    .execute();
}

async function createAttendanceExceptions(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('attendance_exceptions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('employee_id', 'text', (c) => c.notNull().references('employees.id'))
    .addColumn('workplace_id', 'text')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('planned_shift_id', 'text')
    .addColumn('shift_version', 'integer')
    .addColumn('time_entry_id', 'text')
    .addColumn('date', 'text', (c) => c.notNull())
    .addColumn('minutes', 'integer', (c) => c.notNull())
    .addColumn('dedupe_key', 'text', (c) => c.notNull())
    .addColumn('detected_at', 'text', (c) => c.notNull())
    .addColumn('resolved_at', 'text')
    .execute();
  await db.schema
    .createIndex('attendance_exceptions_once_key')
    .on('attendance_exceptions')
    .columns(['company_id', 'dedupe_key'])
    .unique()
    .execute();
  await db.schema
    .createIndex('attendance_exceptions_company_date_idx')
    .on('attendance_exceptions')
    .columns(['company_id', 'date', 'id'])
    .execute();
  // The job's look, every minute, for companies with exceptions still open.
  await db.schema
    .createIndex('attendance_exceptions_open_idx')
    .on('attendance_exceptions')
    .columns(['date', 'company_id'])
    .where(sql.ref('resolved_at'), 'is', null)
    .execute();
  await db.schema
    .createIndex('attendance_exceptions_employee_date_idx')
    .on('attendance_exceptions')
    .columns(['employee_id', 'date'])
    .execute();
}

async function addCompanySettings(db: Kysely<unknown>): Promise<void> {
  // One column per statement: SQLite's ALTER TABLE adds one at a time.
  await db.schema
    .alterTable('companies')
    .addColumn('late_grace_minutes', 'integer', (c) => c.notNull().defaultTo(5))
    .execute();
  await db.schema
    .alterTable('companies')
    .addColumn('no_show_after_minutes', 'integer', (c) => c.notNull().defaultTo(30))
    .execute();
  await db.schema
    .alterTable('companies')
    .addColumn('rounding', 'text', (c) => c.notNull().defaultTo('none'))
    .execute();
  await db.schema
    .alterTable('companies')
    .addColumn('rounding_minutes', 'integer', (c) => c.notNull().defaultTo(15))
    .execute();
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await createPlannedShifts(db);
  await createAttendanceExceptions(db);
  await addCompanySettings(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('companies').dropColumn('rounding_minutes').execute();
  await db.schema.alterTable('companies').dropColumn('rounding').execute();
  await db.schema.alterTable('companies').dropColumn('no_show_after_minutes').execute();
  await db.schema.alterTable('companies').dropColumn('late_grace_minutes').execute();
  await db.schema.dropTable('attendance_exceptions').execute();
  await db.schema.dropTable('planned_shifts').execute();
}
