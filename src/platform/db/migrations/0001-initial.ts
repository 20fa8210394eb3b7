import { type Kysely, sql } from 'kysely';

// Types are kept to those both dialects read the same way (see schema.ts).
/** Companies, workplaces, schedules, employees. */
async function createOrganisationTables(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('companies')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('time_zone', 'text')
    .addColumn('time_tracking', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('api_access', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('workplaces')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('time_zone', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('workplaces_company_idx').on('workplaces').column('company_id').execute();

  await db.schema
    .createTable('schedules')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('weekly_hours', sql`double precision`)
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('schedules_company_idx').on('schedules').column('company_id').execute();

  await db.schema
    .createTable('employees')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('first_name', 'text')
    .addColumn('last_name', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('external_id', 'text')
    .addColumn('department_id', 'text')
    .addColumn('position_id', 'text')
    .addColumn('workplace_id', 'text', (c) => c.references('workplaces.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text')
    .execute();
  // Page walks: WHERE company_id = ? [AND status = ?] AND id > ? ORDER BY id.
  await db.schema
    .createIndex('employees_company_id_idx')
    .on('employees')
    .columns(['company_id', 'id'])
    .execute();
  // External ids are unique per company among employees that still exist, compared exactly (case-sensitive).
}

/** The rest of the employees' indexes, employee schedules, users, API keys, signing keys. */
async function createAccessTables(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('employees_company_external_id_key')
    .on('employees')
    .columns(['company_id', 'external_id'])
    .unique()
    .where(sql.ref('deleted_at'), 'is', null)
    .execute();

  await db.schema
    .createTable('employee_schedules')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('employee_id', 'text', (c) => c.notNull().references('employees.id'))
    .addColumn('schedule_id', 'text', (c) => c.notNull().references('schedules.id'))
    .addColumn('effective_from', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('employee_schedules_employee_from_key', ['employee_id', 'effective_from'])
    .execute();

  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('permissions', 'text', (c) => c.notNull())
    .addColumn('super_admin', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('employee_id', 'text', (c) => c.references('employees.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('deactivated_at', 'text')
    .execute();
  await db.schema.createIndex('users_company_idx').on('users').column('company_id').execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('client_id', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('previous_secret_hash', 'text')
    .addColumn('previous_secret_valid_until', 'text')
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('allowed_ips', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .addColumn('last_used_at', 'text')
    .execute();
  await db.schema.createIndex('api_keys_company_idx').on('api_keys').column('company_id').execute();

  await db.schema
    .createTable('signing_keys')
    .addColumn('kid', 'text', (c) => c.primaryKey())
    .addColumn('algorithm', 'text', (c) => c.notNull())
    .addColumn('private_jwk', 'text', (c) => c.notNull())
    .addColumn('public_jwk', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}

/** Time entries with their indexes, and confirmed days. */
async function createTimeTables(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('time_entries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('employee_id', 'text', (c) => c.notNull().references('employees.id'))
    .addColumn('work_date', 'text', (c) => c.notNull())
    .addColumn('start_at', 'text', (c) => c.notNull())
    .addColumn('end_at', 'text')
    .addColumn('start_time', 'text', (c) => c.notNull())
    .addColumn('end_time', 'text')
    .addColumn('ends_next_day', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('break_minutes', 'integer')
    .addColumn('net_seconds', 'integer')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('time_zone', 'text', (c) => c.notNull())
    .addColumn('notes', 'text')
    .addColumn('note', 'text')
    .addColumn('clock_in_event', 'text')
    .addColumn('clock_out_event', 'text')
    .addColumn('created_by_type', 'text', (c) => c.notNull())
    .addColumn('created_by_id', 'text')
    .addColumn('closed_by_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('approved_at', 'text')
    .execute();
  // Spec, States: at most one open session per employee, enforced by the database itself.
  await db.schema
    .createIndex('time_entries_one_open_session_key')
    .on('time_entries')
    .column('employee_id')
    .unique()
    .where(sql.ref('status'), '=', 'open')
    .execute();
  // Listing by work date then id, and overlap checks by instant.
  await db.schema
    .createIndex('time_entries_employee_date_idx')
    .on('time_entries')
    .columns(['employee_id', 'work_date', 'id'])
    .execute();
  await db.schema
    .createIndex('time_entries_employee_start_idx')
    .on('time_entries')
    .columns(['employee_id', 'start_at'])
    .execute();

  await db.schema
    .createTable('confirmed_days')
    .addColumn('employee_id', 'text', (c) => c.notNull().references('employees.id'))
    .addColumn('work_date', 'text', (c) => c.notNull())
    .addColumn('confirmed_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('confirmed_days_pkey', ['employee_id', 'work_date'])
    .execute();
}

/** Idempotency records, the audit log, app secrets. */
async function createBookkeepingTables(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('idempotency_records')
    .addColumn('company_id', 'text', (c) => c.notNull())
    .addColumn('api_key_id', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_records_pkey', ['company_id', 'api_key_id', 'idempotency_key'])
    .execute();
  await db.schema
    .createIndex('idempotency_records_expires_idx')
    .on('idempotency_records')
    .column('expires_at')
    .execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text')
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text')
    .addColumn('target_id', 'text')
    .addColumn('details', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('audit_log_company_created_idx')
    .on('audit_log')
    .columns(['company_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('app_secrets')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await createOrganisationTables(db);
  await createAccessTables(db);
  await createTimeTables(db);
  await createBookkeepingTables(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'app_secrets',
    'audit_log',
    'idempotency_records',
    'confirmed_days',
    'time_entries',
    'signing_keys',
    'api_keys',
    'users',
    'employee_schedules',
    'employees',
    'schedules',
    'workplaces',
    'companies',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
