import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/app/server.js';
import { updateCompany } from '../../src/modules/companies/service.js';
import { type AppContext, inTransaction } from '../../src/modules/context.js';
import { loadConfig, parseDatabaseUrl } from '../../src/platform/config.js';
import { createDatabase } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { testDialects } from '../support/databases.js';
import { contractRequester, createCompanyFixture, fetchToken, type TestServer } from '../support/server.js';

/*
 * Issue 30: the automatic clock-out run by several instances on one database at once (every 20 ms
 * each): every session is closed once, with one `auto_closed` revision and one `time_entry.completed`
 * event, however the instances interleave.
 */
const ENV = {
  RATE_LIMIT_PER_MINUTE: '100000',
  TOKEN_RATE_LIMIT_PER_MINUTE: '100000',
  OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
  AUTO_CLOCK_OUT_INTERVAL_MS: '20',
};
const HOUR = 3_600_000;

describe.each(testDialects().map((d) => [d.name, d] as const))(
  'automatic clock-out across instances on %s',
  (_name, dialect) => {
    const cleanups: (() => Promise<unknown>)[] = [];
    afterAll(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
    });

    it('three instances close 30 sessions, each once', async () => {
      const testDatabase = await dialect.create();
      cleanups.push(() => testDatabase.drop());
      const database = createDatabase(parseDatabaseUrl(testDatabase.url));
      cleanups.push(() => database.close());
      await migrateToLatest(database.db);
      const ctx: AppContext = { database, now: Date.now };
      const fixture = await createCompanyFixture(ctx, { employeeCount: 30, timeZone: 'Europe/Berlin' });
      const config = loadConfig({ DATABASE_URL: testDatabase.url, PORT: '0', LOG_LEVEL: 'silent', ...ENV });
      const instances = [];
      for (let i = 0; i < 3; i++) {
        const server = await startServer(config, { logger: false });
        cleanups.push(() => server.close());
        instances.push({ ...server, request: contractRequester(server) });
      }
      const [one] = instances;
      // fetchToken needs only the server's contract-checking requester.
      const token = await fetchToken(one as unknown as TestServer, fixture.key.clientId, fixture.key.secret);
      // Sessions opened 13 hours ago, while the company has no automatic clock-out.
      const start = Date.now() - 13 * HOUR;
      const ids: string[] = [];
      for (const [i, employee] of fixture.employees.entries()) {
        const response = await instances[i % 3]!.request('/api/public/v1/time-clock/events', {
          method: 'POST',
          token,
          json: {
            employee: { id: employee.id },
            type: 'clock_in',
            occurredAt: new Date(start + i * 1000).toISOString(),
          },
        });
        expect(response.status).toBe(201);
        ids.push(((await response.json()) as { timeEntryId: string }).timeEntryId);
      }
      // Switched on: every instance finds the same 30 sessions due at once.
      await inTransaction(ctx, (tx, now) =>
        updateCompany(tx, now, fixture.companyId, { autoClockOutAfter: '12' }),
      );
      const deadline = Date.now() + 30_000;
      let open = ids.length;
      while (open > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        const rows = await database.db
          .selectFrom('time_entries')
          .select('id')
          .where('status', '=', 'open')
          .execute();
        open = rows.length;
      }
      expect(open).toBe(0);
      const entries = await database.db.selectFrom('time_entries').selectAll().execute();
      for (const entry of entries) {
        expect(entry).toMatchObject({ status: 'pending_approval', auto_closed: 1, version: 2 });
        expect(Date.parse(entry.end_at!) - Date.parse(entry.start_at)).toBe(12 * HOUR);
      }
      const revisions = await database.db
        .selectFrom('time_entry_revisions')
        .selectAll()
        .where('action', '=', 'auto_closed')
        .execute();
      expect(revisions.map((r) => r.time_entry_id).sort()).toEqual([...ids].sort());
      const events = await database.db
        .selectFrom('events')
        .select(['data'])
        .where('type', '=', 'time_entry.completed')
        .execute();
      expect(events.map((e) => (JSON.parse(e.data) as { id: string }).id).sort()).toEqual([...ids].sort());
      const audits = await database.db
        .selectFrom('audit_log')
        .select('target_id')
        .where('action', '=', 'time_entry.auto_close')
        .execute();
      expect(audits).toHaveLength(ids.length);
    }, 90_000);
  },
);
