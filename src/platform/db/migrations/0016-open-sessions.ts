import { type Kysely, PostgresAdapter, sql } from 'kysely';

/*
 * Hours of traffic (issue 36): who is clocked in (GET /time-clock/status, the kiosk's and the console's
 * views of it) lists a company's open sessions oldest first. The only index of open sessions was by
 * employee (one open session each), so the list read every employee of the company or every open
 * session, and sorted them, to answer a page of 100: 29 ms on SQLite for a company of 14,000 people with
 * 5,000 of them in (bench/soak.mjs; 10% of its requests, most of the server's CPU, growing as people
 * clocked in). This index walks the company's open sessions in the page's order and stops at the page.
 *
 * PostgreSQL chooses it only when its statistics know there are open sessions: with statistics taken
 * while nobody was in (after a bulk load, or a night), it estimates one open session and walks the
 * per-employee index of open sessions instead, sorting all of them (measured: 29 ms, against 0.2 ms
 * once analysed). Autovacuum analyses a table after a tenth of it changed by default, which for a
 * table of a few hundred thousand entries takes most of a day's punches; time_entries is analysed
 * after a hundredth of it changed (and at least 1,000 rows).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('time_entries_company_open_start_idx')
    .on('time_entries')
    .columns(['company_id', 'start_at', 'id'])
    .where(sql.ref('status'), '=', 'open')
    .execute();
  if (db.getExecutor().adapter instanceof PostgresAdapter)
    await sql`alter table time_entries set (autovacuum_analyze_scale_factor = 0.01, autovacuum_analyze_threshold = 1000)`.execute(
      db,
    );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter)
    await sql`alter table time_entries reset (autovacuum_analyze_scale_factor, autovacuum_analyze_threshold)`.execute(
      db,
    );
  await db.schema.dropIndex('time_entries_company_open_start_idx').execute();
}
