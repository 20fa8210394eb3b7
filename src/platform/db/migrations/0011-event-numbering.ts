import { type Kysely, PostgresAdapter } from 'kysely';

/*
 * Issue 32: numbering that does not serialise writers. On PostgreSQL a change no longer takes its
 * company's number with a lock held until its commit: it writes its events here, unnumbered, in its own
 * transaction, and the event sequencer (modules/events/sequencer.ts) moves them into `events` with
 * their numbers right after the commit, one sequencer transaction at a time across instances (an
 * advisory lock). `pos` (a sequence, taken at insert time) orders them: a change that began after
 * another committed has the larger `pos`. SQLite keeps numbering in the writer's own transaction (its
 * writers are serial anyway); the table exists there too, empty, so both schemas are the same.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('pending_events')
    .$call((t) =>
      postgres
        ? t.addColumn('pos', 'bigserial', (c) => c.primaryKey())
        : t.addColumn('pos', 'integer', (c) => c.primaryKey().autoIncrement()),
    )
    .addColumn('company_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('pending_events').execute();
}
