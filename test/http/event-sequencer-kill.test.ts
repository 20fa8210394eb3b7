import { afterAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/modules/context.js';
import { parseDatabaseUrl } from '../../src/platform/config.js';
import { createDatabase } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { testDialects } from '../support/databases.js';
import { serveProcess, type ServeProcess } from '../support/serve-process.js';
import { createCompanyFixture } from '../support/server.js';

/*
 * Issue 32, item 1: two `punchclock serve` processes on one database write one company's punches at
 * full tilt; one of them (on PostgreSQL: a numbering sequencer like the other) is killed with SIGKILL
 * under load, and the writes go on through the other. A reader follows `resumeCursor` all along. After:
 * the feed holds every committed entry's event exactly once (nothing skipped, repeated or lost), the
 * company's numbers are 1..n without a gap, nothing is left unnumbered, and the live reader saw the
 * same events in the same order as a full read from the start.
 */
const ENV = {
  RATE_LIMIT_PER_MINUTE: '1000000',
  TOKEN_RATE_LIMIT_PER_MINUTE: '1000000',
  OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
  LOG_LEVEL: 'warn',
};
const EMPLOYEES = 240;
const WORKERS = 24;

async function call(
  url: string,
  path: string,
  init: { token?: string; json?: unknown; form?: Record<string, string> },
) {
  const headers: Record<string, string> = {};
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  let body: string | undefined;
  if (init.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.json);
  }
  if (init.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(init.form).toString();
  }
  const response = await fetch(`${url}${path}`, { method: body ? 'POST' : 'GET', headers, body });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

interface FeedPage {
  items: { id: string; type: string; data: { id: string } }[];
  hasMore: boolean;
  resumeCursor: string;
}

describe.each(testDialects().map((d) => [d.name, d] as const))(
  'the change feed across a kill -9 on %s',
  (_name, dialect) => {
    const cleanups: (() => Promise<unknown>)[] = [];
    afterAll(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
    });

    it('nothing skipped, repeated or lost when an instance dies under load', async () => {
      const testDatabase = await dialect.create();
      cleanups.push(() => testDatabase.drop());
      const database = createDatabase(parseDatabaseUrl(testDatabase.url));
      cleanups.push(() => database.close());
      await migrateToLatest(database.db);
      const ctx: AppContext = { database, now: Date.now };
      const fixture = await createCompanyFixture(ctx, {
        employeeCount: EMPLOYEES,
        scopes: 'attendance.record,attendance.read',
      });
      const env = { ...ENV, DATABASE_URL: testDatabase.url };
      const serve = async () => {
        const server = await serveProcess(env);
        cleanups.push(async () => server.child.kill('SIGKILL'));
        return server;
      };
      const a = await serve();
      const b: ServeProcess = await serve();
      const token = (
        await call(b.url, '/api/public/v1/oauth/token', {
          form: {
            grant_type: 'client_credentials',
            client_id: fixture.key.clientId,
            client_secret: fixture.key.secret,
          },
        })
      ).body.access_token as string;

      const acknowledged = new Set<string>();
      let aDead = false;
      let lost = 0;
      const at = new Date(Date.now() - 3_600_000).toISOString();
      let next = 0;
      const worker = async (w: number) => {
        for (;;) {
          const n = next++;
          if (n >= EMPLOYEES) return;
          if (n === Math.floor(EMPLOYEES / 3) && !aDead) {
            aDead = true;
            a.child.kill('SIGKILL');
          }
          const url = (w + n) % 2 === 0 && !aDead ? a.url : b.url;
          try {
            const response = await call(url, '/api/public/v1/time-clock/events', {
              token,
              json: { employee: { id: fixture.employees[n]!.id }, type: 'clock_in', occurredAt: at },
            });
            expect(response.status).toBe(201);
            acknowledged.add(response.body.timeEntryId as string);
          } catch {
            // The connection to the killed instance broke: committed or not, we cannot know.
            lost++;
          }
        }
      };

      const live: string[] = [];
      let writing = true;
      const reader = (async () => {
        let cursor: string | undefined;
        for (;;) {
          const done = !writing;
          const query =
            cursor === undefined
              ? 'limit=100&start=oldest'
              : `limit=100&cursor=${encodeURIComponent(cursor)}`;
          const page = (await call(b.url, `/api/public/v1/changes?${query}`, { token }))
            .body as unknown as FeedPage;
          live.push(...page.items.map((item) => item.data.id));
          cursor = page.resumeCursor;
          if (done && !page.hasMore) return;
          if (!page.hasMore) await new Promise((r) => setTimeout(r, 10));
        }
      })();
      await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
      await a.exited;
      // Events committed by the killed process and never numbered: the survivor's poll numbers them.
      await new Promise((r) => setTimeout(r, 2_500));
      writing = false;
      await reader;

      const full: string[] = [];
      let cursor: string | undefined;
      for (;;) {
        const query =
          cursor === undefined ? 'limit=100&start=oldest' : `limit=100&cursor=${encodeURIComponent(cursor)}`;
        const page = (await call(b.url, `/api/public/v1/changes?${query}`, { token }))
          .body as unknown as FeedPage;
        full.push(...page.items.map((item) => item.data.id));
        cursor = page.resumeCursor;
        if (!page.hasMore) break;
      }
      const entries = await database.db
        .selectFrom('time_entries')
        .select('id')
        .where('company_id', '=', fixture.companyId)
        .execute();
      const numbers = await database.db
        .selectFrom('events')
        .select(['seq', 'type'])
        .where('company_id', '=', fixture.companyId)
        .orderBy('seq')
        .execute();
      const pending = await database.db.selectFrom('pending_events').select('id').execute();

      expect(acknowledged.size + lost).toBe(EMPLOYEES);
      expect(acknowledged.size).toBeGreaterThan(EMPLOYEES / 2);
      // No repeat, and every committed entry has its one event (nothing lost).
      expect(new Set(full).size).toBe(full.length);
      expect(new Set(full)).toEqual(new Set(entries.map((e) => e.id)));
      for (const id of acknowledged) expect(full).toContain(id);
      // Numbers 1..n (the employees' creation first), nothing left unnumbered.
      expect(numbers.map((r) => Number(r.seq))).toEqual(numbers.map((_, i) => i + 1));
      expect(numbers.filter((r) => r.type === 'time_entry.opened')).toHaveLength(full.length);
      expect(pending).toEqual([]);
      // The reader that followed resumeCursor through the kill saw exactly the same, in the same order.
      expect(live).toEqual(full);
    }, 120_000);
  },
);
