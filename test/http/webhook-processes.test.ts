import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/app/server.js';
import type { AppContext } from '../../src/modules/context.js';
import { loadConfig, parseDatabaseUrl } from '../../src/platform/config.js';
import { createDatabase } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { testDialects } from '../support/databases.js';
import { createCompanyFixture } from '../support/server.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/*
 * Issue 22, at least once across processes: several instances on one database never send an attempt
 * twice (PostgreSQL: FOR UPDATE SKIP LOCKED + lease; SQLite: the claim's BEGIN IMMEDIATE + lease),
 * and a `kill -9` of the serving process while writes and deliveries run loses no acknowledged write.
 */
const CLI = 'dist/cli/main.js';
const WEBHOOK_ENV = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
  WEBHOOK_POLL_INTERVAL_MS: '100',
  WEBHOOK_RETRY_DELAYS: '0.3,0.3,0.3,0.3,0.3',
  RATE_LIMIT_PER_MINUTE: '100000',
  TOKEN_RATE_LIMIT_PER_MINUTE: '100000',
  // A loaded test machine would trip the overload gate's loop-delay target.
  OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
};
const ALL_SCOPES = 'attendance.record,attendance.read,employees.read,webhooks.manage';

async function tokenFor(base: string, clientId: string, secret: string): Promise<string> {
  const response = await fetch(`${base}/api/public/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: secret,
    }),
  });
  return ((await response.json()) as { access_token: string }).access_token;
}

async function createWebhook(base: string, token: string, url: string, eventTypes: string[]) {
  const response = await fetch(`${base}/api/public/v1/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url, eventTypes }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; secret: string };
}

async function clockIn(base: string, token: string, employeeId: string, at: number) {
  const response = await fetch(`${base}/api/public/v1/time-clock/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      employee: { id: employeeId },
      type: 'clock_in',
      occurredAt: new Date(at).toISOString(),
    }),
  });
  if (response.status !== 201) throw new Error(`clock-in answered ${response.status}`);
  return ((await response.json()) as { timeEntryId: string }).timeEntryId;
}

function serve(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += String(chunk)));
  child.stderr?.on('data', (chunk) => (output += String(chunk)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 20_000);
    const poll = setInterval(() => {
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        clearInterval(poll);
        resolve({ child, url: match[1]! });
      }
    }, 50);
    child.once('exit', (code) => {
      clearTimeout(timer);
      clearInterval(poll);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
}

describe.each(testDialects().map((d) => [d.name, d] as const))(
  'webhook dispatch across processes on %s',
  (_name, dialect) => {
    const cleanups: (() => Promise<unknown>)[] = [];
    afterAll(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
    });

    async function setup(employeeCount: number) {
      const testDatabase = await dialect.create();
      cleanups.push(() => testDatabase.drop());
      const database = createDatabase(parseDatabaseUrl(testDatabase.url));
      cleanups.push(() => database.close());
      await migrateToLatest(database.db);
      const ctx: AppContext = { database, now: Date.now };
      const fixture = await createCompanyFixture(ctx, { employeeCount, scopes: ALL_SCOPES });
      const receiver = await new WebhookReceiver().start();
      cleanups.push(() => receiver.stop());
      return { url: testDatabase.url, database, fixture, receiver };
    }

    it('two instances on one database never send the same attempt twice', async () => {
      const { url, database, fixture, receiver } = await setup(30);
      const config = loadConfig({ DATABASE_URL: url, PORT: '0', LOG_LEVEL: 'silent', ...WEBHOOK_ENV });
      const one = await startServer(config, { logger: false });
      cleanups.push(() => one.close());
      const two = await startServer(config, { logger: false });
      cleanups.push(() => two.close());
      const token = await tokenFor(one.listenUrl, fixture.key.clientId, fixture.key.secret);
      const secrets: string[] = [];
      for (const path of ['a', 'b', 'c'])
        secrets.push(
          (await createWebhook(one.listenUrl, token, `${receiver.url}/${path}`, ['time_entry.opened']))
            .secret,
        );
      receiver.secrets = secrets;
      const now = Date.now();
      const ids = await Promise.all(
        fixture.employees.map((e, i) =>
          clockIn(i % 2 === 0 ? one.listenUrl : two.listenUrl, token, e.id, now - 60_000),
        ),
      );
      await receiver.waitFor((got) => got.length >= ids.length * 3, 30_000);
      await new Promise((resolve) => setTimeout(resolve, 800));
      expect(receiver.received).toHaveLength(ids.length * 3);
      const seen = new Set(receiver.received.map((d) => `${d.path} ${d.id}`));
      expect(seen.size).toBe(ids.length * 3);
      expect(receiver.received.every((d) => d.verifiedWith.length === 1)).toBe(true);
      // The outcomes are recorded after the receiver answered: wait for them (10 s at most).
      const recorded = () =>
        database.db.selectFrom('webhook_deliveries').select(['attempts', 'state']).execute();
      let attempts = await recorded();
      for (let deadline = Date.now() + 10_000; Date.now() < deadline; attempts = await recorded()) {
        if (attempts.every((a) => a.state !== 'pending')) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(attempts).toHaveLength(ids.length * 3);
      expect(attempts.every((a) => Number(a.attempts) === 1 && a.state === 'succeeded')).toBe(true);
    }, 60_000);

    it('kill -9 of the server while writes and deliveries run: every acknowledged write is delivered after a restart', async () => {
      const { url, fixture, receiver } = await setup(40);
      // A slow receiver keeps deliveries in flight when the process dies.
      receiver.delayMs = 300;
      receiver.respond = () => 200;
      const first = await serve({ DATABASE_URL: url, ...WEBHOOK_ENV });
      cleanups.push(async () => first.child.kill('SIGKILL'));
      const token = await tokenFor(first.url, fixture.key.clientId, fixture.key.secret);
      receiver.secrets = [
        (await createWebhook(first.url, token, receiver.url, ['time_entry.opened'])).secret,
      ];
      const acknowledged = new Set<string>();
      const now = Date.now();
      const employees = fixture.employees.map((e) => e.id);
      // Writes keep going one after the other; the process is killed in the middle of them, while
      // deliveries are being sent (the receiver takes 300 ms to answer).
      let killed = false;
      const writes = (async () => {
        for (const id of employees.slice(0, 30)) {
          if (killed) return;
          try {
            acknowledged.add(await clockIn(first.url, token, id, now - 60_000));
          } catch {
            return; // the process died under it: not acknowledged
          }
        }
      })();
      const deadline = Date.now() + 15_000;
      while (!(receiver.inFlight > 0 && acknowledged.size >= 3) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 5));
      expect(receiver.inFlight).toBeGreaterThan(0);
      first.child.kill('SIGKILL');
      killed = true;
      await writes;
      const second = await serve({ DATABASE_URL: url, ...WEBHOOK_ENV });
      cleanups.push(async () => second.child.kill('SIGKILL'));
      const token2 = await tokenFor(second.url, fixture.key.clientId, fixture.key.secret);
      for (const id of employees.slice(30, 36))
        acknowledged.add(await clockIn(second.url, token2, id, now - 60_000));
      expect(acknowledged.size).toBeGreaterThanOrEqual(6);
      const delivered = (entryId: string) =>
        receiver.received.some(
          (d) =>
            (d.payload.data as { id?: string }).id === entryId &&
            d.verifiedWith.length > 0 &&
            d.status === 200,
        );
      await receiver.waitFor(() => [...acknowledged].every(delivered), 90_000);
      // Deliveries cut off by the kill were sent again (after their lease ran out), with the same webhook-id.
      const cutOff = receiver.received.filter((d) => d.status === -1);
      expect(cutOff.length).toBeGreaterThan(0);
      for (const d of cutOff)
        expect(receiver.received.some((again) => again.id === d.id && again.status === 200)).toBe(true);
      second.child.kill('SIGTERM');
    }, 120_000);
  },
);
