import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../../src/platform/db/database.js';
import { type TestDialect, testDialects } from '../support/databases.js';
import { type Fleet, startFleet } from '../support/fleet.js';
import { startTestServer, type TestServer } from '../support/server.js';
import {
  call,
  createTenant,
  HOUR,
  iso,
  MINUTE,
  type Reply,
  type Tenant,
  tenantFor,
} from '../support/time-tracking.js';

/*
 * Batches under real concurrent requests (issue 20): two terminals sending the same backlog at once,
 * and a batch racing single punches for the same employees; on each database, and with two server
 * instances on one PostgreSQL database.
 */
const BATCH = '/api/public/v1/time-clock/events/batch';
const T0 = Date.parse('2026-11-10T18:00:00Z');
const ENV = {
  RATE_LIMIT_PER_MINUTE: '100000',
  TOKEN_RATE_LIMIT_PER_MINUTE: '100000',
  OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
};

interface Result {
  index: number;
  status: number;
  body: { error?: string; timeEntryId?: string | null; type?: string };
}
const results = (reply: Reply) => (reply.body as unknown as { results: Result[] }).results;

/** A terminal's day for each employee: in, a break, out; optionally with per-event keys. */
function backlog(tenant: Tenant, keys: boolean) {
  return tenant.fixture.employees.flatMap((e, i) => {
    const base = T0 - 10 * HOUR + i * MINUTE;
    const events = [
      { type: 'clock_in', at: base },
      { type: 'break_start', at: base + 3 * HOUR },
      { type: 'break_end', at: base + 3 * HOUR + 20 * MINUTE },
      { type: 'break_start', at: base + 5 * HOUR },
      { type: 'clock_out', at: base + 8 * HOUR },
    ];
    return events.map((ev, n) => ({
      employee: { id: e.id },
      type: ev.type,
      occurredAt: iso(ev.at),
      ...(keys ? { idempotencyKey: `terminal/${e.id}/${n}` } : {}),
    }));
  });
}

/** Every invariant of the time clock, read from the database. */
async function expectInvariants(store: Database, employeeIds: string[]) {
  for (const employeeId of employeeIds) {
    const entries = await store.db
      .selectFrom('time_entries')
      .selectAll()
      .where('employee_id', '=', employeeId)
      .orderBy('start_at')
      .execute();
    expect(entries.filter((e) => e.status === 'open').length).toBeLessThanOrEqual(1);
    const spans = entries
      .filter((e) => e.end_at !== null)
      .map((e) => [Date.parse(e.start_at), Date.parse(e.end_at!)]);
    for (let i = 1; i < spans.length; i++) expect(spans[i]![0]).toBeGreaterThanOrEqual(spans[i - 1]![1]!);
    for (const entry of entries) {
      const breaks = await store.db
        .selectFrom('time_entry_breaks')
        .selectAll()
        .where('time_entry_id', '=', entry.id)
        .orderBy('start_at')
        .execute();
      expect(breaks.filter((b) => b.end_at === null).length).toBeLessThanOrEqual(
        entry.end_at === null ? 1 : 0,
      );
      let previousEnd = Date.parse(entry.start_at);
      for (const b of breaks) {
        expect(Date.parse(b.start_at)).toBeGreaterThanOrEqual(previousEnd);
        if (b.end_at !== null) {
          expect(Date.parse(b.end_at)).toBeGreaterThanOrEqual(Date.parse(b.start_at));
          previousEnd = Date.parse(b.end_at);
        }
        if (entry.end_at !== null)
          expect(Date.parse(b.end_at!)).toBeLessThanOrEqual(Date.parse(entry.end_at));
      }
    }
  }
}

function cases(setup: () => { a: BatchTenant; b: BatchTenant; store: () => Database }) {
  it('the same backlog sent by two terminals at once (with keys): each punch stored once, both answers alike', async () => {
    const { a, b, store } = setup();
    const events = backlog(a, true);
    const [one, two] = await Promise.all([a.batch({ events }), b.batch({ events })]);
    expect(one!.status).toBe(200);
    expect(two!.status).toBe(200);
    const summary = (r: Reply) => results(r).map((x) => `${x.status} ${x.body.error ?? x.body.type}`);
    expect(summary(one!), summary(two!).join(', ')).toEqual(events.map((e) => `201 ${e.type}`));
    expect(results(two!).map((r) => r.body)).toEqual(results(one!).map((r) => r.body));
    const ids = a.fixture.employees.map((e) => e.id);
    for (const id of ids) {
      const rows = await store()
        .db.selectFrom('time_entries')
        .selectAll()
        .where('employee_id', '=', id)
        .execute();
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ status: 'pending_approval', break_minutes: 20 + 3 * 60 });
    }
    const breaks = await store()
      .db.selectFrom('time_entry_breaks')
      .select('id')
      .where('company_id', '=', a.fixture.companyId)
      .execute();
    expect(breaks).toHaveLength(2 * ids.length);
    await expectInvariants(store(), ids);
  });

  it('the same backlog twice at once without keys: the duplicate rule keeps one of each punch', async () => {
    const { a, b, store } = setup();
    const events = backlog(a, false);
    const [one, two] = await Promise.all([a.batch({ events }), b.batch({ events })]);
    for (const [i] of events.entries()) {
      const pair = [results(one!)[i]!, results(two!)[i]!].map((r) => r.status).sort();
      expect(pair, JSON.stringify([results(one!)[i], results(two!)[i]])).toEqual([200, 201]);
    }
    const ids = a.fixture.employees.map((e) => e.id);
    for (const id of ids)
      expect(
        await store().db.selectFrom('time_entries').select('id').where('employee_id', '=', id).execute(),
      ).toHaveLength(1);
    await expectInvariants(store(), ids);
  });

  it('a batch racing single punches for the same employees keeps every invariant', async () => {
    const { a, b, store } = setup();
    const ids = a.fixture.employees.map((e) => e.id);
    const types = ['toggle', 'break_start', 'break_end', 'clock_in', 'break_start', 'clock_out', 'break_end'];
    const batchEvents = ids.flatMap((id, e) =>
      Array.from({ length: 7 }, (_, n) => ({
        employee: { id },
        type: types[(n + e) % types.length]!,
        occurredAt: iso(T0 - 6 * HOUR + n * 40 * MINUTE + e * 1000),
      })),
    );
    const singles = ids.flatMap((id, e) =>
      Array.from({ length: 7 }, (_, n) => ({
        employee: { id },
        type: types[(n + e + 3) % types.length]!,
        occurredAt: iso(T0 - 6 * HOUR + n * 40 * MINUTE + 20 * MINUTE + e * 1000),
      })),
    );
    const replies = await Promise.all([
      a.batch({ events: batchEvents }),
      ...singles.map((body, i) => (i % 2 === 0 ? b : a).clock(body)),
    ]);
    const [batched, ...rest] = replies;
    expect(batched!.status).toBe(200);
    const all = [...results(batched!), ...rest.map((x) => ({ status: x.status, body: x.body }))];
    for (const r of all) expect([200, 201, 409], JSON.stringify(r.body)).toContain(r.status);
    // The race did something: punches were stored by both sides, and some were refused.
    expect(results(batched!).some((r) => r.status === 201)).toBe(true);
    expect(rest.some((r) => r.status === 201)).toBe(true);
    expect(all.some((r) => r.status === 409)).toBe(true);
    await expectInvariants(store(), ids);
  });

  it('two batches with the same request key at once: one runs, the other is told it is in flight or replays', async () => {
    const { a, b, store } = setup();
    const events = backlog(a, false).slice(0, 5);
    const headers = { 'idempotency-key': 'upload-7' };
    const [one, two] = await Promise.all([
      call(a.target, a.token, 'POST', BATCH, { events }, headers),
      call(b.target, b.token, 'POST', BATCH, { events }, headers),
    ]);
    const statuses = [one!, two!].map((r) =>
      `${r.status} ${r.headers.get('idempotent-replayed') ?? ''}${r.body.error ?? ''}`.trim(),
    );
    expect(
      statuses.filter((s) => s === '200'),
      statuses.join(', '),
    ).toHaveLength(1);
    expect(
      statuses.filter((s) => s !== '200').every((s) => s === '200 true' || s === '409 idempotency_in_flight'),
    ).toBe(true);
    expect(
      await store()
        .db.selectFrom('time_entries')
        .select('id')
        .where('employee_id', '=', a.employeeId)
        .execute(),
    ).toHaveLength(1);
  });
}

interface BatchTenant extends Tenant {
  batch(body: unknown): Promise<Reply>;
  target: Pick<TestServer, 'request'>;
}

function withBatch(tenant: Tenant, target: Pick<TestServer, 'request'>): BatchTenant {
  return Object.assign(tenant, {
    target,
    batch: (body: unknown) => call(target, tenant.token, 'POST', BATCH, body),
  });
}

describe.each(testDialects().map((d) => [d.name, d] as const))(
  'batch concurrency on %s',
  (_name, dialect) => {
    let server: TestServer;
    let a: BatchTenant;
    let b: BatchTenant;
    beforeAll(async () => {
      server = await startTestServer(dialect, { now: () => T0, env: ENV });
    });
    afterAll(async () => server?.stop());
    beforeEach(async () => {
      a = withBatch(await createTenant(server, { timeZone: 'Europe/Berlin', employeeCount: 4 }), server);
      // A second terminal with the same API key (its own token).
      b = withBatch(await tenantFor(server, a.fixture, a.fixture.key), server);
    });
    cases(() => ({ a, b, store: () => server.database }));
  },
);

const postgres = testDialects().find((d): d is TestDialect => d.name === 'postgres');

describe.runIf(postgres !== undefined)('batch concurrency across two instances on one PostgreSQL', () => {
  let fleet: Fleet;
  let one: TestServer;
  let two: TestServer;
  let a: BatchTenant;
  let b: BatchTenant;
  beforeAll(async () => {
    fleet = await startFleet(postgres!, { now: () => T0, env: ENV });
    ({ first: one, second: two } = fleet);
  });
  afterAll(async () => fleet?.stop());
  beforeEach(async () => {
    a = withBatch(await createTenant(one, { timeZone: 'Europe/Berlin', employeeCount: 4 }), one);
    b = withBatch(await tenantFor(two, a.fixture, a.fixture.key, two), two);
  });
  cases(() => ({ a, b, store: () => one.database }));
});
