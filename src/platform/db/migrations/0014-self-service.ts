import { type Kysely, sql } from 'kysely';

/*
 * Self-service (issue 35, items 1-3):
 * - companies.web_clock (0/1, off by default): whether people linked to employees may punch from their
 *   own browser (the personal web clock);
 * - workplaces.web_clock_allowed_ips (comma-separated CIDR ranges, null: any address);
 * - correction_requests: an employee's request to correct an entry (or to add a missing one), decided
 *   by a manager; `time_entry_version` is the entry's version when it was filed (an approval applies
 *   only over that version). A partial unique index allows one waiting request per entry; a decision is a
 *   conditional update of a row still `requested`, so a request is decided once.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('companies')
    .addColumn('web_clock', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('workplaces').addColumn('web_clock_allowed_ips', 'text').execute();
  await db.schema
    .createTable('correction_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('employee_id', 'text', (c) => c.notNull().references('employees.id'))
    .addColumn('time_entry_id', 'text')
    .addColumn('time_entry_version', 'integer')
    .addColumn('date', 'text', (c) => c.notNull())
    .addColumn('proposed_clock_in', 'text')
    .addColumn('proposed_clock_out', 'text')
    .addColumn('proposed_break_minutes', 'integer')
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('requested_by', 'text', (c) => c.notNull())
    .addColumn('decided_by_kind', 'text')
    .addColumn('decided_by_id', 'text')
    .addColumn('decided_by_name', 'text')
    .addColumn('decided_at', 'text')
    .addColumn('decision_reason', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('correction_requests_company_status_idx')
    .on('correction_requests')
    .columns(['company_id', 'status', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('correction_requests_employee_idx')
    .on('correction_requests')
    .columns(['employee_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('correction_requests_open_entry_key')
    .on('correction_requests')
    .column('time_entry_id')
    .unique()
    .where(sql.ref('status'), '=', sql.lit('requested'))
    .execute();
  // One waiting request for a missing entry per employee and day (the same refusal as for an entry).
  await db.schema
    .createIndex('correction_requests_open_missing_key')
    .on('correction_requests')
    .columns(['employee_id', 'date'])
    .unique()
    .where(sql<boolean>`time_entry_id is null and status = 'requested'`)
    .execute();
  // A self-service person is found by their employee on every request, and "invite everyone" asks
  // whether an employee has a person.
  await db.schema.createIndex('users_employee_idx').on('users').column('employee_id').execute();
  // At most one active person per employee (two "invite everyone" at once created two).
  await db.schema
    .createIndex('users_active_employee_key')
    .on('users')
    .column('employee_id')
    .unique()
    .where(sql.ref('active'), '=', sql.lit(1))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('users_active_employee_key').execute();
  await db.schema.dropIndex('users_employee_idx').execute();
  await db.schema.dropIndex('correction_requests_open_missing_key').execute();
  await db.schema.dropTable('correction_requests').execute();
  await db.schema.alterTable('workplaces').dropColumn('web_clock_allowed_ips').execute();
  await db.schema.alterTable('companies').dropColumn('web_clock').execute();
}
