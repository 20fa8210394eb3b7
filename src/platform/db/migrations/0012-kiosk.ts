import { type Kysely } from 'kysely';

/*
 * Kiosk devices (issue 35, items 4-6).
 * - devices: a shared tablet of one workplace. Enrolment: a single-use code, stored only as its
 *   SHA-256 (`enrolment_code_hash`, unique), valid until `enrolment_expires_at`; the enrolment sets
 *   `client_id` (unique, `dev_…`) and `secret_hash` and clears the code's hash in one conditional
 *   update, so a code is used once whatever runs at the same moment. `last_seen_at`, `queued` (the
 *   punches waiting in its queue, as it last said) and `clock_offset_ms` (server minus device clock at
 *   its last sync) are what the console shows.
 * - employee_pins: scrypt of an employee's kiosk PIN (4-8 digits); no row when none is set.
 * - workplaces.kiosk_badge_only: 1 when the kiosk offers no list of names (badges only).
 * - time_entries.device_id (the kiosk that recorded it) and review_flags (JSON array, `[]`).
 * - kiosk_pin_failures: wrong PINs (per device and employee), kiosk_pin_locks: a lock-out of one
 *   employee's PIN at a device (employee_id set) or of the whole device (employee_id null), until
 *   `locked_until`. In the database, so every instance sees the same count.
 * - kiosk_badge_failures: unknown badges typed at a device (20 in 15 minutes refuse its badges).
 * - device_refusals: punches a kiosk sent that were refused (for the administrator).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await createDevices(db);
  await alterExisting(db);
  await createPinTables(db);
  await createRefusals(db);
}

async function createDevices(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('devices')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('workplace_id', 'text', (c) => c.notNull().references('workplaces.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('enrolment_code_hash', 'text')
    .addColumn('enrolment_expires_at', 'text', (c) => c.notNull())
    .addColumn('enrolled_at', 'text')
    .addColumn('client_id', 'text')
    .addColumn('secret_hash', 'text')
    .addColumn('revoked_at', 'text')
    .addColumn('last_seen_at', 'text')
    .addColumn('queued', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('clock_offset_ms', 'integer')
    .addColumn('last_sync_at', 'text')
    .execute();
  await db.schema
    .createIndex('devices_code_key')
    .on('devices')
    .column('enrolment_code_hash')
    .unique()
    .execute();
  await db.schema.createIndex('devices_client_key').on('devices').column('client_id').unique().execute();
  await db.schema
    .createIndex('devices_company_idx')
    .on('devices')
    .columns(['company_id', 'created_at'])
    .execute();
}

async function alterExisting(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('employee_pins')
    .addColumn('employee_id', 'text', (c) => c.primaryKey().references('employees.id'))
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('pin_hash', 'text', (c) => c.notNull())
    .addColumn('set_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .alterTable('workplaces')
    .addColumn('kiosk_badge_only', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('time_entries').addColumn('device_id', 'text').execute();
  await db.schema
    .alterTable('time_entries')
    .addColumn('review_flags', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
}

async function createPinTables(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('kiosk_pin_failures')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('device_id', 'text', (c) => c.notNull().references('devices.id'))
    .addColumn('employee_id', 'text', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('kiosk_pin_failures_device_idx')
    .on('kiosk_pin_failures')
    .columns(['device_id', 'at'])
    .execute();
  await db.schema
    .createTable('kiosk_pin_locks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('device_id', 'text', (c) => c.notNull().references('devices.id'))
    .addColumn('employee_id', 'text')
    .addColumn('locked_at', 'text', (c) => c.notNull())
    .addColumn('locked_until', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('kiosk_pin_locks_device_idx')
    .on('kiosk_pin_locks')
    .columns(['device_id', 'locked_until'])
    .execute();
  await db.schema
    .createTable('kiosk_badge_failures')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('device_id', 'text', (c) => c.notNull().references('devices.id'))
    .addColumn('at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('kiosk_badge_failures_device_idx')
    .on('kiosk_badge_failures')
    .columns(['device_id', 'at'])
    .execute();
}

async function createRefusals(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('device_refusals')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('device_id', 'text', (c) => c.notNull().references('devices.id'))
    .addColumn('employee_id', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('error', 'text', (c) => c.notNull())
    .addColumn('detail', 'text')
    .addColumn('idempotency_key', 'text')
    .addColumn('at', 'text', (c) => c.notNull())
    .execute();
  // A batch sent again replays its refusals: each is recorded once.
  await db.schema
    .createIndex('device_refusals_key')
    .on('device_refusals')
    .columns(['device_id', 'idempotency_key'])
    .unique()
    .execute();
  await db.schema
    .createIndex('device_refusals_device_idx')
    .on('device_refusals')
    .columns(['device_id', 'at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('device_refusals').execute();
  await db.schema.dropTable('kiosk_badge_failures').execute();
  await db.schema.dropTable('kiosk_pin_locks').execute();
  await db.schema.dropTable('kiosk_pin_failures').execute();
  await db.schema.alterTable('time_entries').dropColumn('review_flags').execute();
  await db.schema.alterTable('time_entries').dropColumn('device_id').execute();
  await db.schema.alterTable('workplaces').dropColumn('kiosk_badge_only').execute();
  await db.schema.dropTable('employee_pins').execute();
  await db.schema.dropTable('devices').execute();
}
