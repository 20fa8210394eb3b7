import { afterAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/modules/context.js';
import { parseDatabaseUrl } from '../../src/platform/config.js';
import { createDatabase } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { testDialects } from '../support/databases.js';
import { startPgRelay } from '../support/pg-relay.js';
import { serveProcess } from '../support/serve-process.js';
import { createCompanyFixture } from '../support/server.js';

/*
 * Issue 32, item 3: the round trips of one keyed punch's transaction on PostgreSQL, counted on the wire
 * by a relay between `punchclock serve` and the database, with the background jobs that would run
 * transactions of their own switched off: 5 (BEGIN; the key's lock and the employee's; the key's
 * record, the context and the open session's breaks; every write and the stored outcome in one
 * statement; COMMIT), for every kind of punch, and the event's numbering after the commit in one round
 * trip outside the transaction (it was 11 before: a statement for each); a keyed completed shift
 * likewise. SQLite has no round trips (in-process calls).
 */
const dialects = testDialects().filter((d) => d.name === 'postgres');

describe.skipIf(dialects.length === 0).each(dialects.map((d) => [d.name, d] as const))(
  'round trips of a keyed punch on %s',
  (_name, dialect) => {
    const cleanups: (() => Promise<unknown>)[] = [];
    afterAll(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
    });

    it('every kind of keyed punch: one transaction of 5 round trips, numbering in 1 after it', async () => {
      const testDatabase = await dialect.create();
      cleanups.push(() => testDatabase.drop());
      const database = createDatabase(parseDatabaseUrl(testDatabase.url));
      cleanups.push(() => database.close());
      await migrateToLatest(database.db);
      const ctx: AppContext = { database, now: Date.now };
      const fixture = await createCompanyFixture(ctx, { employeeCount: 1 });
      const target = new URL(testDatabase.url);
      const relay = await startPgRelay({ host: target.hostname, port: Number(target.port || 5432) });
      cleanups.push(() => relay.close());
      const relayed = new URL(testDatabase.url);
      relayed.hostname = '127.0.0.1';
      relayed.port = String(relay.port);
      const server = await serveProcess({
        DATABASE_URL: relayed.toString(),
        LOG_LEVEL: 'warn',
        AUTO_CLOCK_OUT_INTERVAL_MS: '0',
        EXCEPTIONS_JOB: 'false',
        WEBHOOK_POLL_INTERVAL_MS: '3600000',
      });
      cleanups.push(async () => server.child.kill('SIGKILL'));
      const token = (
        (await (
          await fetch(`${server.url}/api/public/v1/oauth/token`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({
              grant_type: 'client_credentials',
              client_id: fixture.key.clientId,
              client_secret: fixture.key.secret,
            }).toString(),
          })
        ).json()) as { access_token: string }
      ).access_token;
      const start = Date.now() - 3_600_000;
      const punch = async (i: number, type = 'toggle') => {
        const response = await fetch(`${server.url}/api/public/v1/time-clock/events`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            'idempotency-key': `rt-${i}`,
          },
          body: JSON.stringify({
            employee: { id: fixture.employees[0]!.id },
            type,
            occurredAt: new Date(start + i * 60_000).toISOString(),
          }),
        });
        expect(response.status).toBe(201);
        return ((await response.json()) as { type: string }).type;
      };
      // Warm-up: the pool's connections opened, every statement prepared once on each.
      for (let i = 0; i < 24; i++) await punch(i);
      const seen: string[] = [];
      // A clock-in, a break, a second break in progress when the clock-out ends it, a toggle each way.
      const types = ['clock_in', 'break_start', 'break_end', 'break_start', 'clock_out', 'toggle', 'toggle'];
      for (let i = 24; i < 24 + types.length; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const done = relay.transactions.length;
        const outsideBefore = relay.outside();
        const began = Date.now();
        seen.push(await punch(i, types[i - 24]));
        await new Promise((r) => setTimeout(r, 50));
        // The sequencer polls once a second: a punch slowed by a loaded machine may see more than one poll.
        const polls = Math.ceil((Date.now() - began) / 1000);
        const ran = relay.transactions.slice(done);
        expect(ran, `punch ${i}`).toHaveLength(1);
        expect(ran[0], `punch ${i}`).toBe(5);
        // The token's principal check, the numbering round, and the sequencer's polls meanwhile.
        expect(relay.outside() - outsideBefore, `punch ${i}`).toBeLessThanOrEqual(2 + polls);
      }
      expect(seen).toEqual([...types.slice(0, 5), 'clock_in', 'clock_out']);
      // A keyed completed shift (POST /time-entries): the same five.
      for (let n = 0; n < 2; n++) {
        await new Promise((r) => setTimeout(r, 100));
        const done = relay.transactions.length;
        const response = await fetch(`${server.url}/api/public/v1/time-entries`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            'idempotency-key': `rt-shift-${n}`,
          },
          body: JSON.stringify({
            employee: { id: fixture.employees[0]!.id },
            clockIn: new Date(start - (n + 2) * 86_400_000).toISOString(),
            clockOut: new Date(start - (n + 2) * 86_400_000 + 3_600_000).toISOString(),
          }),
        });
        expect(response.status).toBe(201);
        await new Promise((r) => setTimeout(r, 50));
        const ran = relay.transactions.slice(done);
        expect(ran, `shift ${n}`).toHaveLength(1);
        expect(ran[0], `shift ${n}`).toBe(5);
      }
    }, 60_000);
  },
);
