import { sql, type Kysely } from 'kysely';

/*
 * Hours of traffic (issue 36): who is clocked in (GET /time-clock/status, the kiosk's and the console's
 * views of it) lists a company's open sessions oldest first. The only index of open sessions was by
 * employee (one open session each), so the list read every employee of the company or every open
 * session, and sorted them, to answer a page of 100: 29 ms on SQLite for a company of 14,000 people with
 * 5,000 of them in (bench/soak.mjs; 10% of its requests, most of the server's CPU, growing as people
 * clocked in). This index walks the company's open sessions in the page's order and stops at the page.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('time_entries_company_open_start_idx')
    .on('time_entries')
    .columns(['company_id', 'start_at', 'id'])
    .where(sql.ref('status'), '=', 'open')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('time_entries_company_open_start_idx').execute();
}
