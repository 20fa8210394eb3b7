import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { listOpenSessions } from '../../src/modules/time-tracking/queries/status.js';
import { parseDatabaseUrl } from '../../src/platform/config.js';
import { createDatabase, type Database as AppDatabase } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { type TestDatabase, testDialects } from '../support/databases.js';

/*
 * Who is clocked in (GET /time-clock/status) in a large company (issue 36, hours of traffic):
 * bench/soak.mjs found a page of 100 open sessions reading every employee of a company of 14,000 and
 * sorting the open sessions (29 ms a page on SQLite, most of the server's CPU, growing as people
 * clocked in). Migration 0016's index walks the company's open sessions in the page's order.
 */
const EMPLOYEES = 3000;
const OPEN = 2000;
const CLOSED_PER_EMPLOYEE = 4;
const NOW = '2026-11-27T10:00:00.000Z';

describe.each(testDialects())('who is clocked in, in a large company ($name)', (dialect) => {
  let testDatabase: TestDatabase;
  let database: AppDatabase;

  beforeAll(async () => {
    testDatabase = await dialect.create();
    // One connection: every statement on one PostgreSQL backend, whose statistics the test reads.
    database = createDatabase(parseDatabaseUrl(testDatabase.url), { poolSize: 1 });
    await migrateToLatest(database.db);
    await database.transaction(async (tx) => {
      await sql`insert into companies (id, name, time_zone, time_tracking, api_access, created_at, updated_at)
        values ('company', 'Large', 'Europe/Berlin', 1, 1, ${NOW}, ${NOW})`.execute(tx);
      await sql`insert into workplaces (id, company_id, name, time_zone, created_at)
        values ('wp', 'company', 'Plant', 'Europe/Berlin', ${NOW})`.execute(tx);
      const employees = Array.from({ length: EMPLOYEES }, (_, n) => `e${String(n).padStart(5, '0')}`);
      for (let i = 0; i < employees.length; i += 200)
        await tx
          .insertInto('employees')
          .values(
            employees.slice(i, i + 200).map((id) => ({
              id,
              company_id: 'company',
              email: `${id}@example.com`,
              status: 'active',
              workplace_id: 'wp',
              created_at: NOW,
              updated_at: NOW,
            })),
          )
          .execute();
      const entry = (employee: string, n: number, open: boolean) => {
        // Open sessions started in reverse order of employee, so the page's order is not the employees'.
        const start = new Date(Date.parse('2026-11-20T06:00:00Z') + (open ? EMPLOYEES - n : n) * 60_000);
        return {
          id: `${employee}-${open ? 'open' : n}`,
          company_id: 'company',
          employee_id: employee,
          work_date: start.toISOString().slice(0, 10),
          start_at: start.toISOString(),
          end_at: open ? null : new Date(start.getTime() + 3_600_000).toISOString(),
          start_time: '07:00',
          end_time: open ? null : '08:00',
          status: open ? 'open' : 'closed',
          source: 'api',
          time_zone: 'Europe/Berlin',
          created_by_type: 'api_key',
          created_at: NOW,
          updated_at: NOW,
        };
      };
      const rows = employees.flatMap((employee, n) => [
        ...Array.from({ length: CLOSED_PER_EMPLOYEE }, (_, k) => entry(employee, n * 10 + k, false)),
        ...(n < OPEN ? [entry(employee, n, true)] : []),
      ]);
      for (let i = 0; i < rows.length; i += 200)
        await tx
          .insertInto('time_entries')
          .values(rows.slice(i, i + 200) as never)
          .execute();
    });
    if (dialect.name === 'postgres') await sql`analyze`.execute(database.db);
  }, 120_000);
  afterAll(async () => {
    await database?.close();
    await testDatabase?.drop();
  });

  const page = () =>
    listOpenSessions(database.db, {
      companyId: 'company',
      filter: { workplaceId: 'wp' },
      after: null,
      limit: 100,
    });

  // First: SQLite's statement cache would keep the page's statement from being prepared again.
  it.runIf(dialect.name === 'sqlite')(
    'walks the open sessions in order, without a sort (SQLite plan)',
    async () => {
      const prepared: { connection: Database.Database; source: string }[] = [];
      const original = Database.prototype.prepare;
      const spy = vi.spyOn(Database.prototype, 'prepare').mockImplementation(function (
        this: Database.Database,
        source: string,
      ) {
        prepared.push({ connection: this, source });
        return original.call(this, source);
      });
      try {
        await page();
      } finally {
        spy.mockRestore();
      }
      const statement = prepared.find((p) => p.source.includes('time_entry_breaks'));
      expect(statement).toBeDefined();
      const parameters = statement!.source.split('?').length - 1;
      const plan = (
        statement!.connection
          .prepare(`explain query plan ${statement!.source}`)
          .all(...Array.from({ length: parameters }, () => null)) as { detail: string }[]
      ).map((row) => row.detail);
      expect(plan.join('\n')).toContain('USING INDEX time_entries_company_open_start_idx');
      expect(plan.join('\n')).not.toContain('TEMP B-TREE');
    },
  );

  it('answers the oldest open sessions first', async () => {
    const rows = await page();
    expect(rows).toHaveLength(100);
    expect(rows[0]!.employee_id).toBe(`e${String(OPEN - 1).padStart(5, '0')}`);
    expect(rows.map((r) => r.start_at)).toEqual(rows.map((r) => r.start_at).sort());
  });

  it.runIf(dialect.name === 'postgres')(
    'time_entries is analysed after a hundredth of it changed',
    async () => {
      const { rows } = await sql<{ options: string[] }>`select reloptions as options from pg_class
      where relname = 'time_entries'`.execute(database.db);
      expect(rows[0]!.options).toEqual(
        expect.arrayContaining(['autovacuum_analyze_scale_factor=0.01', 'autovacuum_analyze_threshold=1000']),
      );
    },
  );

  it.runIf(dialect.name === 'postgres')('reads about a page of rows (PostgreSQL statistics)', async () => {
    const read = async (table: string) => {
      await sql`select pg_stat_force_next_flush()`.execute(database.db);
      await sql`select pg_stat_clear_snapshot()`.execute(database.db);
      const { rows } = await sql<{
        n: string;
      }>`select coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) as n
        from pg_stat_user_tables where relname = ${table}`.execute(database.db);
      return Number(rows[0]!.n);
    };
    const before = { entries: await read('time_entries'), employees: await read('employees') };
    await page();
    // Without the index: every open session (2,000) or every entry (14,000), and every employee (3,000).
    expect((await read('time_entries')) - before.entries).toBeLessThan(300);
    expect((await read('employees')) - before.employees).toBeLessThan(300);
  });
});
