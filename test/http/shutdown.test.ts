import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { Client } from 'undici';
import type { AppContext } from '../../src/modules/context.js';
import { parseDatabaseUrl } from '../../src/platform/config.js';
import { createDatabase, type Database } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { testDialects } from '../support/databases.js';
import { serveProcess, type ServeProcess } from '../support/serve-process.js';
import { createCompanyFixture, type CompanyFixture } from '../support/server.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/*
 * Issue 36, item 3: SIGTERM drains. The server is a real child process (`punchclock serve`); writers
 * record shifts with an Idempotency-Key each, over keep-alive connections, while webhook deliveries
 * are being sent. A request that failed at the connection (refused, reset) is retried later with
 * its key: a replay then would mean the server did the write but never answered it (a failed
 * in-flight request). No timing is asserted beyond the exit status within the grace period.
 */
const ENV = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
  WEBHOOK_POLL_INTERVAL_MS: '100',
  RATE_LIMIT_PER_MINUTE: '1000000',
  TOKEN_RATE_LIMIT_PER_MINUTE: '1000000',
  OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
  SHUTDOWN_GRACE_SECONDS: '20',
};
const SCOPES = 'attendance.record,attendance.read,employees.read,webhooks.manage';
const MINUTE = 60_000;

async function tokenFor(base: string, fixture: CompanyFixture): Promise<string> {
  const response = await fetch(`${base}/api/public/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: fixture.key.clientId,
      client_secret: fixture.key.secret,
    }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { access_token: string }).access_token;
}

/** One shift to record: its key and body (each writer's shifts follow one another, never overlapping). */
interface Write {
  key: string;
  body: string;
}

type Outcome =
  | { kind: 'answered'; status: number; replayed: boolean; entryId: string | null }
  | { kind: 'failed'; error: string };

/** Sends one write through `client`; a connection failure is an outcome, not an exception. */
async function send(client: Client, token: string, write: Write): Promise<Outcome> {
  try {
    const response = await client.request({
      method: 'POST',
      path: '/api/public/v1/time-entries',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'idempotency-key': write.key,
      },
      body: write.body,
    });
    const text = await response.body.text();
    const entryId =
      response.statusCode === 201
        ? ((JSON.parse(text) as { timeEntryId?: string }).timeEntryId ?? null)
        : null;
    return {
      kind: 'answered',
      status: response.statusCode,
      replayed: response.headers['idempotent-replayed'] === 'true',
      entryId,
    };
  } catch (error) {
    return { kind: 'failed', error: String((error as { code?: string }).code ?? error) };
  }
}

/** Writer `n`'s shifts: 30 minutes each, an hour apart, in the past. */
function shiftsOf(employeeId: string, n: number): () => Write {
  let at = Date.now() - 20 * 86_400_000 + n * 1000;
  return () => {
    const clockIn = new Date(at).toISOString();
    const clockOut = new Date(at + 30 * MINUTE).toISOString();
    at += 60 * MINUTE;
    return { key: randomUUID(), body: JSON.stringify({ employee: { id: employeeId }, clockIn, clockOut }) };
  };
}

/**
 * Writers that keep writing, each on a keep-alive connection to the instance `target()` names when
 * it starts a request; `retry` decides what a connection failure does (stop, or try another
 * instance with the same key). Every answer and every write left unanswered are kept.
 */
function writers(
  fixture: CompanyFixture,
  token: () => string,
  target: () => string | null,
  options: { count: number; retryElsewhere: boolean },
) {
  const answers: (Outcome & { kind: 'answered' })[] = [];
  const unanswered: Write[] = [];
  const acknowledged = new Set<string>();
  let running = true;
  const done = Promise.all(
    Array.from({ length: options.count }, async (_, n) => {
      const next = shiftsOf(fixture.employees[n]!.id, n);
      const clients = new Map<string, Client>();
      const clientOf = (url: string) => {
        let client = clients.get(url);
        if (!client) clients.set(url, (client = new Client(url, { pipelining: 1 })));
        return client;
      };
      let write = next();
      while (running) {
        const url = target();
        if (url === null) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          continue;
        }
        const outcome = await send(clientOf(url), token(), write);
        if (outcome.kind === 'answered') {
          answers.push(outcome);
          if (outcome.status === 201 && outcome.entryId) acknowledged.add(outcome.entryId);
          write = next();
          continue;
        }
        clients
          .get(url)
          ?.destroy()
          .catch(() => {});
        clients.delete(url);
        if (!options.retryElsewhere) {
          unanswered.push(write);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 20)); // then the same write again
      }
      for (const client of clients.values()) await client.close().catch(() => {});
    }),
  );
  return {
    answers,
    unanswered,
    acknowledged,
    async stop() {
      running = false;
      await done;
    },
    done,
  };
}

async function entriesPresent(database: Database, ids: Set<string>): Promise<number> {
  let present = 0;
  const list = [...ids];
  for (let i = 0; i < list.length; i += 200) {
    const rows = await database.db
      .selectFrom('time_entries')
      .select('id')
      .where('id', 'in', list.slice(i, i + 200))
      .execute();
    present += rows.length;
  }
  return present;
}

async function leasesHeld(database: Database): Promise<number> {
  const row = await database.db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('lease_owner', 'is not', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe.each(testDialects().map((d) => [d.name, d] as const))('SIGTERM on %s', (name, dialect) => {
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
    const fixture = await createCompanyFixture(ctx, { employeeCount, scopes: SCOPES });
    const receiver = await new WebhookReceiver().start();
    cleanups.push(() => receiver.stop());
    return { env: { ...ENV, DATABASE_URL: testDatabase.url }, database, fixture, receiver };
  }

  async function serve(env: Record<string, string>): Promise<ServeProcess> {
    const server = await serveProcess(env);
    cleanups.push(async () => server.child.kill('SIGKILL'));
    return server;
  }

  async function subscribe(url: string, token: string, receiver: WebhookReceiver) {
    const response = await fetch(`${url}/api/public/v1/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url, eventTypes: ['time_entry.completed'] }),
    });
    expect(response.status).toBe(201);
    receiver.secrets = [((await response.json()) as { secret: string }).secret];
  }

  it('under steady writes: drains, exits 0, no in-flight request failed, no acknowledged write lost, no lease left', async () => {
    const { env, database, fixture, receiver } = await setup(8);
    receiver.delayMs = 200; // deliveries are in flight when the signal comes
    const first = await serve(env);
    const token = await tokenFor(first.url, fixture);
    await subscribe(first.url, token, receiver);
    let url: string | null = first.url;
    const load = writers(
      fixture,
      () => token,
      () => url,
      { count: 8, retryElsewhere: false },
    );
    const deadline = Date.now() + 20_000;
    while ((load.acknowledged.size < 40 || receiver.inFlight === 0) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(receiver.inFlight).toBeGreaterThan(0);
    first.child.kill('SIGTERM');
    const exit = await first.exited;
    url = null;
    expect(exit, first.output().slice(-2000)).toEqual({ code: 0, signal: null });
    expect(first.output()).toContain('shut down cleanly');
    // Writers saw the instance go: each stopped at a refused or closed connection.
    await load.stop();
    expect(load.answers.filter((a) => a.status >= 500)).toEqual([]);
    expect(load.answers.filter((a) => a.status !== 201)).toEqual([]);
    // Every lease was given back or its outcome recorded.
    expect(await leasesHeld(database)).toBe(0);

    // Restarted, the writes that got no answer are sent again with their keys: none had been done
    // (a replay would be a write done and never answered).
    const second = await serve(env);
    const client = new Client(second.url);
    const token2 = await tokenFor(second.url, fixture);
    for (const write of load.unanswered) {
      const outcome = await send(client, token2, write);
      expect(outcome).toMatchObject({ kind: 'answered', status: 201, replayed: false });
      if (outcome.kind === 'answered' && outcome.entryId) load.acknowledged.add(outcome.entryId);
    }
    await client.close();
    expect(await entriesPresent(database, load.acknowledged)).toBe(load.acknowledged.size);
    // Every write's event reaches the receiver (at least once).
    await receiver.waitFor(
      (got) => new Set(got.filter((d) => d.status === 204).map((d) => d.id)).size >= load.acknowledged.size,
      60_000,
    );
    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
  }, 120_000);

  if (name === 'sqlite')
    it('a second SIGTERM, or the end of SHUTDOWN_GRACE_SECONDS, ends a drain that cannot finish with exit 1', async () => {
      const { env, fixture } = await setup(1);
      // A receiver that never answers: a delivery's send holds the drain for its 10 s deadline.
      const sockets = new Set<Socket>();
      const hanging: Server = createServer(() => {});
      hanging.on('connection', (socket) => sockets.add(socket));
      await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
      cleanups.push(async () => {
        for (const socket of sockets) socket.destroy();
        hanging.close();
      });
      const hangingUrl = `http://127.0.0.1:${(hanging.address() as { port: number }).port}/hooks`;
      const holding = async (server: ServeProcess) => {
        const token = await tokenFor(server.url, fixture);
        const response = await fetch(`${server.url}/api/public/v1/webhooks`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ url: hangingUrl, eventTypes: ['time_entry.completed'] }),
        });
        expect(response.status).toBe(201);
        const { id } = (await response.json()) as { id: string };
        const before = sockets.size;
        const test = await fetch(`${server.url}/api/public/v1/webhooks/${id}/test`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
        });
        expect(test.status).toBeLessThan(300);
        while (sockets.size === before) await new Promise((resolve) => setTimeout(resolve, 20));
        return id;
      };

      const one = await serve({ ...env, SHUTDOWN_GRACE_SECONDS: '60' });
      await holding(one);
      one.child.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 300));
      one.child.kill('SIGTERM');
      expect(await one.exited).toEqual({ code: 1, signal: null });
      expect(one.output()).toContain('second signal while draining');

      const two = await serve({ ...env, SHUTDOWN_GRACE_SECONDS: '1' });
      await holding(two);
      two.child.kill('SIGTERM');
      expect(await two.exited).toEqual({ code: 1, signal: null });
      expect(two.output()).toContain('shutdown grace period over');
    }, 120_000);

  if (name === 'postgres')
    it('two instances on one database, restarted one after the other under a retrying client: nothing lost, no 5xx', async () => {
      const { env, database, fixture, receiver } = await setup(8);
      const live: string[] = [];
      const a = await serve(env);
      const b = await serve(env);
      live.push(a.url, b.url);
      const token = await tokenFor(a.url, fixture);
      await subscribe(a.url, token, receiver);
      let turn = 0;
      // The client spreads its writes over the live instances and, on a refused or closed
      // connection, sends the same write (same key) to the next one.
      const load = writers(
        fixture,
        () => token,
        () => (live.length === 0 ? null : live[turn++ % live.length]!),
        {
          count: 8,
          retryElsewhere: true,
        },
      );
      // The client learns of a restart only from refused or closed connections: an instance stays in
      // its list until it has exited.
      const restart = async (old: ServeProcess) => {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        old.child.kill('SIGTERM');
        expect((await old.exited).code).toBe(0);
        live.splice(live.indexOf(old.url), 1);
        const fresh = await serve(env);
        live.push(fresh.url);
        return fresh;
      };
      const a2 = await restart(a);
      const b2 = await restart(b);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await load.stop();
      expect(load.answers.filter((x) => x.status >= 500)).toEqual([]);
      expect(load.answers.filter((x) => x.status !== 201)).toEqual([]);
      expect(load.acknowledged.size).toBeGreaterThan(20);
      expect(await entriesPresent(database, load.acknowledged)).toBe(load.acknowledged.size);
      await receiver.waitFor(
        (got) => new Set(got.filter((d) => d.status === 204).map((d) => d.id)).size >= load.acknowledged.size,
        60_000,
      );
      for (const server of [a2, b2]) {
        server.child.kill('SIGTERM');
        expect((await server.exited).code).toBe(0);
      }
    }, 180_000);
});
