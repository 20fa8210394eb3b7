import type { Kysely } from 'kysely';

/*
 * Timesheet settings of a company (issue 21): the day its workweek starts, the daily overtime
 * threshold in seconds (null: none) and the working-time rule pack whose flags timesheets show.
 * Existing companies get the defaults: Monday, no daily threshold, no rule pack.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // One column per statement: SQLite's ALTER TABLE adds one at a time.
  await db.schema
    .alterTable('companies')
    .addColumn('workweek_start', 'text', (c) => c.notNull().defaultTo('monday'))
    .execute();
  await db.schema.alterTable('companies').addColumn('daily_overtime_after_seconds', 'integer').execute();
  await db.schema
    .alterTable('companies')
    .addColumn('working_time_rules', 'text', (c) => c.notNull().defaultTo('none'))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('companies').dropColumn('working_time_rules').execute();
  await db.schema.alterTable('companies').dropColumn('daily_overtime_after_seconds').execute();
  await db.schema.alterTable('companies').dropColumn('workweek_start').execute();
}
