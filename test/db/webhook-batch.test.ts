import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { claimDue } from '../../src/modules/webhooks/dispatch-queries.js';
import { WebhookDispatcher } from '../../src/modules/webhooks/dispatcher.js';
import { type DeliveryRow, type EndpointRow, insertDeliveries } from '../../src/modules/webhooks/queries.js';
import { sealSecret } from '../../src/modules/webhooks/secrets.js';
import { parseDatabaseUrl } from '../../src/platform/config.js';
import { createDatabase, type Database } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { type TestDatabase, testDialects } from '../support/databases.js';

/*
 * Issue 36 (the soak's deliveries fell behind): the dispatcher claims many deliveries per transaction,
 * several per endpoint (WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT), and records the outcomes that finish
 * together in one transaction. Two dispatchers on one database (two instances) never send one delivery
 * twice at once; every outcome of a batch is recorded; a failed one is retried alone.
 */
const KEY = randomBytes(32);
const NOW = new Date().toISOString();

function endpoint(id: string, url: string): EndpointRow {
  return {
    id,
    company_id: 'company',
    url,
    event_types: '["time_entry.opened"]',
    description: null,
    status: 'active',
    disabled_reason: null,
    secret: sealSecret(KEY, `whsec_${randomBytes(24).toString('base64')}`),
    previous_secret: null,
    previous_secret_until: null,
    created_by_key_id: null,
    start_seq: 0,
    after_seq: 0,
    failing_since: null,
    created_at: NOW,
    updated_at: NOW,
  };
}

function delivery(endpointId: string, n: number): DeliveryRow {
  const id = `${endpointId}-${String(n).padStart(4, '0')}`;
  return {
    id,
    endpoint_id: endpointId,
    company_id: 'company',
    event_id: id,
    event_type: 'time_entry.opened',
    origin: 'event',
    payload: '{}',
    state: 'pending',
    attempts: 0,
    next_attempt_at: new Date(Date.now() - 60_000 + n).toISOString(),
    lease_owner: null,
    lease_until: null,
    last_status: null,
    last_error: null,
    last_duration_ms: null,
    last_attempt_at: null,
    created_at: NOW,
  };
}

/** A receiver on loopback: every webhook-id it was sent (duplicates kept), the most requests open at once. */
async function receiver(answer: (id: string, times: number) => number, delayMs = 20) {
  const got: string[] = [];
  let open = 0;
  let mostOpen = 0;
  const server: Server = createServer((request, response) => {
    const id = String(request.headers['webhook-id']);
    got.push(id);
    open++;
    mostOpen = Math.max(mostOpen, open);
    request.resume();
    request.on('end', () =>
      setTimeout(() => {
        open--;
        response.writeHead(answer(id, got.filter((g) => g === id).length)).end();
      }, delayMs),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`,
    got,
    mostOpen: () => mostOpen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.each(testDialects())('webhook batches ($name)', (dialect) => {
  let testDatabase: TestDatabase;
  let database: Database;
  let second: Database;
  const cleanups: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    testDatabase = await dialect.create();
    database = createDatabase(parseDatabaseUrl(testDatabase.url));
    // A second pool on the same database: a second instance. SQLite: the same handle (its driver is
    // synchronous, so a second connection in this process waiting for the write lock would block the
    // holder; two processes on one file take turns at BEGIN IMMEDIATE, as test/http/webhook-resume does).
    second = dialect.name === 'postgres' ? createDatabase(parseDatabaseUrl(testDatabase.url)) : database;
    await migrateToLatest(database.db);
    await sql`insert into companies (id, name, time_zone, time_tracking, api_access, created_at, updated_at)
      values ('company', 'Batches', 'Europe/Berlin', 1, 1, ${NOW}, ${NOW})`.execute(database.db);
  }, 60_000);
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });
  afterAll(async () => {
    if (second !== database) await second?.close();
    await database?.close();
    await testDatabase?.drop();
  });

  async function plant(id: string, url: string, count: number) {
    await database.transaction(async (tx) => {
      await tx.insertInto('webhook_endpoints').values(endpoint(id, url)).execute();
      await insertDeliveries(
        tx,
        Array.from({ length: count }, (_, n) => delivery(id, n)),
      );
    });
  }

  function dispatcher(db: Database, perEndpoint: number) {
    const errors: unknown[] = [];
    const d = new WebhookDispatcher(
      { database: db, now: Date.now },
      {
        key: KEY,
        policy: { allowHttp: true, allowedHosts: ['127.0.0.1'] },
        retryDelaysSeconds: [0.1, 0.1, 0.1],
        pollIntervalMs: 20,
        maxInFlightPerEndpoint: perEndpoint,
        onError: (error) => errors.push(error),
      },
    );
    d.start();
    cleanups.push(() => d.stop());
    return { d, errors };
  }

  async function rows(endpointId: string) {
    return database.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'state', 'attempts', 'last_status', 'lease_owner', 'lease_until'])
      .where('endpoint_id', '=', endpointId)
      .orderBy('id')
      .execute();
  }

  async function settled(endpointId: string, timeoutMs = 30_000) {
    const started = Date.now();
    for (;;) {
      const all = await rows(endpointId);
      if (all.every((r) => r.state !== 'pending')) return all;
      if (Date.now() - started > timeoutMs)
        throw new Error(`${all.filter((r) => r.state === 'pending').length} still pending`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('two claims at once over many endpoints never take one delivery twice, and keep each endpoint within its share', async () => {
    for (const id of ['claim-a', 'claim-b', 'claim-c']) await plant(id, 'https://example.com/', 30);
    const nowIso = new Date().toISOString();
    const lease = new Date(Date.now() + 30_000).toISOString();
    const [one, two] = await Promise.all([
      database.transaction((tx) => claimDue(tx, 'one', nowIso, lease, 32, 8)),
      second.transaction((tx) => claimDue(tx, 'two', nowIso, lease, 32, 8)),
    ]);
    const ids = [...one, ...two].map((d) => d.id);
    expect(new Set(ids).size).toBe(ids.length);
    // One claim takes several deliveries of an endpoint at once (the batch), none beyond its share.
    expect(one.length).toBeGreaterThan(3);
    for (const id of ['claim-a', 'claim-b', 'claim-c']) {
      const leased = (await rows(id)).filter((r) => r.lease_owner !== null);
      expect(leased.length).toBeGreaterThan(1);
      expect(leased.length).toBeLessThanOrEqual(8);
    }
    await database.db.deleteFrom('webhook_deliveries').where('endpoint_id', 'like', 'claim-%').execute();
  });

  it('two dispatchers deliver every delivery once, several in flight per endpoint, each outcome recorded', async () => {
    const r = await receiver(() => 204);
    cleanups.push(r.close);
    await plant('both', r.url, 120);
    dispatcher(database, 6);
    dispatcher(second, 6);
    const all = await settled('both');
    expect(all.every((row) => row.state === 'succeeded' && Number(row.attempts) === 1)).toBe(true);
    expect(all.every((row) => Number(row.last_status) === 204 && row.lease_owner === null)).toBe(true);
    // Every delivery sent once: no lease was taken twice, no outcome lost (a lost one is sent again).
    expect(r.got).toHaveLength(120);
    expect(new Set(r.got).size).toBe(120);
    // More than one at a time, never more than the share across both instances.
    expect(r.mostOpen()).toBeGreaterThan(1);
    expect(r.mostOpen()).toBeLessThanOrEqual(6);
  });

  it('a delivery that fails in a batch is retried alone; the others of its batch succeed once', async () => {
    const failing = 'retry-0003';
    // The failing delivery answers 500 twice, then 204.
    const r = await receiver((id, times) => (id === failing && times <= 2 ? 500 : 204));
    cleanups.push(r.close);
    await plant('retry', r.url, 12);
    dispatcher(database, 12);
    const all = await settled('retry');
    const byId = new Map(all.map((row) => [row.id, row]));
    expect(byId.get(failing)).toMatchObject({ state: 'succeeded' });
    expect(Number(byId.get(failing)!.attempts)).toBe(3);
    for (const row of all.filter((row) => row.id !== failing)) {
      expect(row.state).toBe('succeeded');
      expect(Number(row.attempts)).toBe(1);
    }
    expect(r.got.filter((id) => id === failing)).toHaveLength(3);
    expect(r.got.filter((id) => id !== failing)).toHaveLength(11);
    // It was sent together with others: the batch held several of this endpoint at once.
    expect(r.mostOpen()).toBeGreaterThan(1);
    const state = await database.db
      .selectFrom('webhook_endpoints')
      .select('failing_since')
      .where('id', '=', 'retry')
      .executeTakeFirstOrThrow();
    // Its last attempt succeeded: the failing streak is over.
    expect(state.failing_since).toBeNull();
  });

  it('with WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT=1 an endpoint gets one attempt at a time, oldest due first', async () => {
    const r = await receiver(() => 204, 5);
    cleanups.push(r.close);
    await plant('single', r.url, 15);
    dispatcher(database, 1);
    await settled('single');
    expect(r.mostOpen()).toBe(1);
    expect(r.got).toEqual(Array.from({ length: 15 }, (_, n) => `single-${String(n).padStart(4, '0')}`));
  });
});
