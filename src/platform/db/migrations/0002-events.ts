import type { Kysely } from 'kysely';

/*
 * The event log (every change to a company's time and attendance data, written in the change's own
 * transaction) and each company's event sequence. `seq` numbers a company's events 1, 2, 3, … in
 * commit order: the sequence row is updated (and so locked until commit) by the transaction that
 * appends, so a second writer of the same company waits for the first to commit before it takes the
 * next number. `pruned_through`: events up to this number were removed by retention.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('event_sequences')
    .addColumn('company_id', 'text', (c) => c.primaryKey())
    .addColumn('last_seq', 'integer', (c) => c.notNull())
    .addColumn('pruned_through', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('events')
    .addColumn('company_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('events_pkey', ['company_id', 'seq'])
    .execute();
  // Retention: the oldest events of every company, by time.
  await db.schema.createIndex('events_occurred_at_idx').on('events').column('occurred_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('events').execute();
  await db.schema.dropTable('event_sequences').execute();
}
