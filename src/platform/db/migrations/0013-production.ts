import { type Kysely } from 'kysely';

/*
 * Hours of traffic (issue 36): the webhook dispatcher's claim reads, per active endpoint, its oldest due
 * delivery that no instance holds and the number of leases it has in flight. Without an index that
 * starts with the endpoint, both read every pending delivery of the table: with a backlog the claim
 * (made after every finished send) grew with the backlog and took the whole CPU (bench/soak.mjs on
 * SQLite: 91% of the server's time, 9 of 10 requests shed after five minutes at half capacity).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('webhook_deliveries_endpoint_due_idx')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'state', 'next_attempt_at', 'id'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_endpoint_lease_idx')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'state', 'lease_until'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_endpoint_lease_idx').execute();
  await db.schema.dropIndex('webhook_deliveries_endpoint_due_idx').execute();
}
