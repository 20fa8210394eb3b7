import { type Kysely, sql } from 'kysely';

/*
 * Signed webhooks (issue 22). `webhook_endpoints`: an integrator's (or operator's) receiver, its
 * encrypted signing secret(s) and `after_seq`, the position in the company's event log up to which
 * its deliveries have been made (the dispatcher's cursor: events are turned into deliveries from the
 * log, so the write that produced them does nothing more). `webhook_deliveries`: one message to one
 * endpoint (an event, a replay of one, or a ping) with its retry state and its lease: an instance
 * that claims a delivery sets `lease_owner`/`lease_until`, sends, and records the outcome only while
 * it still holds the lease.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('event_types', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('disabled_reason', 'text')
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_until', 'text')
    .addColumn('created_by_key_id', 'text')
    .addColumn('start_seq', 'integer', (c) => c.notNull())
    .addColumn('after_seq', 'integer', (c) => c.notNull())
    .addColumn('failing_since', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_endpoints_company_idx')
    .on('webhook_endpoints')
    .column('company_id')
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('endpoint_id', 'text', (c) => c.notNull())
    .addColumn('company_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('last_status', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('last_duration_ms', 'integer')
    .addColumn('last_attempt_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // The dispatcher's claim: pending deliveries by due time.
  await db.schema
    .createIndex('webhook_deliveries_due_idx')
    .on('webhook_deliveries')
    .columns(['state', 'next_attempt_at'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_endpoint_idx')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'created_at', 'id'])
    .execute();
  // An event reaches an endpoint once from the log (replays and pings are deliveries of their own).
  await db.schema
    .createIndex('webhook_deliveries_event_once_idx')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'event_id'])
    .unique()
    .where(sql.ref('origin'), '=', sql.lit('event'))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhook_endpoints').execute();
}
