import { type Kysely, sql } from 'kysely';

/*
 * Breaks inside a clocked session (issue 20): one row per break, recorded by `break_start` and
 * closed by `break_end` (or by the clock-out that ends the session during the break). The instants
 * (`start_at`, `end_at`, UTC) and the wall clocks in the entry's zone (`start_time`, `end_time`) are
 * stored like the entry's own. `start_event` / `end_event` keep the type that was sent (`break_start`,
 * `break_end`, `clock_out`, `toggle`) and `created_by_id` / `closed_by_id` the caller: the header-less
 * duplicate rule reads them, as it reads the entry's.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('time_entry_breaks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('employee_id', 'text', (c) => c.notNull().references('employees.id'))
    .addColumn('time_entry_id', 'text', (c) => c.notNull().references('time_entries.id'))
    .addColumn('start_at', 'text', (c) => c.notNull())
    .addColumn('end_at', 'text')
    .addColumn('start_time', 'text', (c) => c.notNull())
    .addColumn('end_time', 'text')
    .addColumn('start_event', 'text', (c) => c.notNull())
    .addColumn('end_event', 'text')
    .addColumn('created_by_id', 'text')
    .addColumn('closed_by_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // At most one open break per entry (and so per employee: one open session each), enforced by the
  // database itself on both dialects.
  await db.schema
    .createIndex('time_entry_breaks_one_open_key')
    .on('time_entry_breaks')
    .column('time_entry_id')
    .unique()
    .where(sql.ref('end_at'), 'is', null)
    .execute();
  // An entry's breaks in order, and the header-less duplicate lookups by employee and instant.
  await db.schema
    .createIndex('time_entry_breaks_entry_start_idx')
    .on('time_entry_breaks')
    .columns(['time_entry_id', 'start_at'])
    .execute();
  await db.schema
    .createIndex('time_entry_breaks_employee_start_idx')
    .on('time_entry_breaks')
    .columns(['employee_id', 'start_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('time_entry_breaks').execute();
}
