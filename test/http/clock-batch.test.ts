import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IN_FLIGHT_WAIT } from '../../src/http/plugins/idempotency.js';
import {
  claimKey,
  type IdempotencyScope,
  requestFingerprint,
  storeOutcome,
} from '../../src/modules/idempotency/service.js';
import { parseDatabaseUrl } from '../../src/platform/config.js';
import { createDatabase, type Database } from '../../src/platform/db/database.js';
import { testDialects } from '../support/databases.js';
import {
  call,
  createTenant,
  DAY,
  EVENTS,
  expectReplay,
  HOUR,
  iso,
  MINUTE,
  type Reply,
  T0,
  type Tenant,
  timeTrackingSuite,
} from '../support/time-tracking.js';

/* POST /time-clock/events/batch (issue 20): a terminal's backlog in one request. */
const BATCH = '/api/public/v1/time-clock/events/batch';

type Json = Record<string, unknown>;
interface Result {
  index: number;
  status: number;
  body: Json & { error?: string; errors?: { field: string }[] | null; timeEntryId?: string | null };
}

const results = (reply: Reply) => (reply.body as unknown as { results: Result[] }).results;

/** Ids, correlation ids and instants of creation differ between two tenants; the rest must not. */
function normalised(text: string): unknown {
  return JSON.parse(
    text
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>')
      .replace(/"correlationId":"[^"]*"/g, '"correlationId":"<c>"'),
  ) as unknown;
}

describe.each(testDialects().map((d) => [d.name, d] as const))(
  'clock event batches on %s',
  (_name, dialect) => {
    const suite = timeTrackingSuite(dialect, { start: T0 + 3 * DAY });
    const { berlin } = suite;
    const batch = (tenant: Tenant, body: unknown, headers: Record<string, string> = {}) =>
      call(suite.server, tenant.token, 'POST', BATCH, body, headers);
    const ev = (externalId: string, type: string, at: number | string, extra: Json = {}) => ({
      employee: { externalId },
      type,
      occurredAt: typeof at === 'number' ? iso(at) : at,
      ...extra,
    });
    const allRows = (tenant: Tenant) =>
      suite.server.database.db
        .selectFrom('time_entries')
        .selectAll()
        .where('company_id', '=', tenant.fixture.companyId)
        .execute();

    it('a wrong shape is one 422 naming events[i].field, and nothing runs', async () => {
      const tenant = await berlin();
      const good = ev('EXT-0', 'clock_in', T0);
      const cases: [unknown, string[]][] = [
        [{}, ['events']],
        [{ events: [] }, ['events']],
        [{ events: Array.from({ length: 101 }, () => good) }, ['events']],
        [{ events: [good], extra: 1 }, ['extra']],
        [[good], ['body']],
        [{ events: [good, { type: 'clock_in', occurredAt: iso(T0) }] }, ['events[1].employee']],
        [{ events: [good, { ...good, occurredAt: 12 }] }, ['events[1].occurredAt']],
        [{ events: [good, good, { ...good, colour: 'red' }] }, ['events[2].colour']],
        [{ events: [{ ...good, employee: { id: 5 } }] }, ['events[0].employee.id']],
        [{ events: [{ ...good, idempotencyKey: 7 }, 'x'] }, ['events[0].idempotencyKey', 'events[1]']],
      ];
      for (const [body, fields] of cases) {
        const reply = await batch(tenant, body);
        expect(reply.status, JSON.stringify(body).slice(0, 80)).toBe(422);
        expect(reply.body.error).toBe('validation_failed');
        expect(reply.body.errors!.map((e) => e.field)).toEqual(fields);
      }
      expect(await allRows(tenant)).toEqual([]);
    });

    it('a full batch with long notes is more than 64 KiB and is accepted; more than 512 KiB is 413', async () => {
      const tenant = await berlin();
      const events = Array.from({ length: 100 }, (_, i) =>
        ev('EXT-0', 'toggle', T0 - 100 * HOUR + i * HOUR, {
          note: 'n'.repeat(500),
          deviceId: 'd'.repeat(64),
        }),
      );
      expect(JSON.stringify({ events }).length).toBeGreaterThan(64 * 1024);
      const reply = await batch(tenant, { events }, { 'x-service-dry-run': 'true' });
      expect(reply.status).toBe(200);
      expect(results(reply)).toHaveLength(100);
      const huge = await batch(tenant, { events: [{ ...events[0], note: 'x'.repeat(600 * 1024) }] });
      expect(huge.status).toBe(413);
      expect(huge.body).toMatchObject({
        error: 'payload_too_large',
        detail: expect.stringContaining('524288'),
      });
    });

    it("each event's status and body are the single endpoint's, in order; one failure stops nothing", async () => {
      // The same events, one by one on one company and as a batch on another (same external ids).
      const single = await berlin({ employeeCount: 3 });
      const batched = await berlin({ employeeCount: 3 });
      const events: Json[] = [
        ev('EXT-0', 'clock_in', T0 - 8 * HOUR, { deviceId: 'T-1' }),
        ev('EXT-1', 'clock_in', T0 - 8 * HOUR),
        ev('EXT-0', 'break_start', T0 - 6 * HOUR),
        ev('EXT-0', 'break_start', T0 - 5 * HOUR), // already on a break
        ev('EXT-9', 'clock_in', T0 - 8 * HOUR), // unknown employee
        ev('EXT-1', 'clock_in', '2026-11-13T08:00:00'), // no offset
        ev('EXT-1', 'clock_in', T0 - 40 * DAY), // too far in the past
        ev('EXT-1', 'clock_in', T0 + 3 * DAY + HOUR), // too far in the future
        ev('EXT-1', 'lunch', T0), // not a type
        ev('EXT-1', 'clock_out', T0 - 2 * HOUR, { deviceId: 'x'.repeat(65) }), // too long
        ev('EXT-0', 'break_end', T0 - 5 * HOUR - 30 * MINUTE),
        ev('EXT-0', 'break_end', T0 - 5 * HOUR), // not on a break
        ev('EXT-2', 'break_start', T0 - 5 * HOUR), // no session
        ev('EXT-0', 'toggle', T0 - HOUR),
        ev('EXT-1', 'clock_out', T0 - 9 * HOUR), // before the clock-in
        ev('EXT-1', 'toggle', T0 - HOUR),
      ];
      const one: Reply[] = [];
      for (const event of events) one.push(await single.clock(event));
      const reply = await batch(batched, { events });
      expect(reply.status).toBe(200);
      expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
      const got = results(reply);
      expect(got.map((r) => r.index)).toEqual(events.map((_, i) => i));
      expect(got.map((r) => r.status)).toEqual(one.map((r) => r.status));
      expect(got.map((r) => r.status)).toEqual([
        201, 201, 201, 409, 404, 422, 422, 422, 422, 422, 201, 409, 409, 201, 409, 201,
      ]);
      for (const [i, r] of got.entries()) {
        expect(normalised(JSON.stringify(r.body)), `event ${i}`).toEqual(normalised(one[i]!.text));
      }
      expect(got[3]!.body).toMatchObject({ error: 'already_on_break', code: 2912, instance: EVENTS });
      expect(got[5]!.body.errors).toMatchObject([{ field: 'occurredAt' }]);
      expect(got[13]!.body).toMatchObject({ type: 'clock_out', totalHours: 6.5 });
      const rows = await allRows(batched);
      expect(rows).toHaveLength(2);
      expect(rows.every((r) => r.status === 'pending_approval')).toBe(true);
    });

    it('a 3-day offline backlog in batches, retried: each punch stored once, replayed with the same bodies', async () => {
      const tenant = await berlin({ employeeCount: 4 });
      const backlog: Json[] = [];
      for (let day = 3; day >= 1; day--)
        for (let e = 0; e < 4; e++) {
          const base = T0 - day * DAY - 4 * HOUR; // 09:00 Berlin, three, two and one day ago
          const id = `EXT-${e}`;
          const key = (n: number) => `term-1/${day}/${e}/${n}`;
          backlog.push(
            ev(id, 'clock_in', base, { idempotencyKey: key(1), deviceId: 'TERM-1' }),
            ev(id, 'break_start', base + 3 * HOUR, { idempotencyKey: key(2) }),
            ev(id, 'break_end', base + 3 * HOUR + 30 * MINUTE, { idempotencyKey: key(3) }),
            ev(id, 'clock_out', base + 8 * HOUR + 30 * MINUTE, { idempotencyKey: key(4) }),
          );
        }
      expect(backlog).toHaveLength(48);
      const first = await batch(tenant, { events: backlog.slice(0, 30) });
      const second = await batch(tenant, { events: backlog.slice(30) });
      expect(results(first).every((r) => r.status === 201)).toBe(true);
      expect(results(second).every((r) => r.status === 201)).toBe(true);
      // The terminal did not see the answers and sends everything again, in one batch.
      const retried = await batch(tenant, { events: backlog });
      expect(results(retried).map((r) => r.status)).toEqual(backlog.map(() => 201));
      expect(results(retried).map((r) => r.body)).toEqual(
        [...results(first), ...results(second)].map((r) => r.body),
      );
      const rows = await allRows(tenant);
      expect(rows).toHaveLength(12);
      for (const row of rows)
        expect(row).toMatchObject({ break_minutes: 30, net_seconds: 8 * 3600, status: 'pending_approval' });
      const breaks = await suite.server.database.db
        .selectFrom('time_entry_breaks')
        .select('id')
        .where('company_id', '=', tenant.fixture.companyId)
        .execute();
      expect(breaks).toHaveLength(12);
      // Without keys, a retry is answered by the 60-second duplicate rule: 200 with the same entries.
      const other = await berlin();
      const plain = [ev('EXT-0', 'clock_in', T0 - 5 * HOUR), ev('EXT-0', 'break_start', T0 - 4 * HOUR)];
      const once = results(await batch(other, { events: plain }));
      const twice = results(await batch(other, { events: plain }));
      expect(once.map((r) => r.status)).toEqual([201, 201]);
      expect(twice.map((r) => r.status)).toEqual([200, 200]);
      expect(twice.map((r) => r.body.timeEntryId)).toEqual(once.map((r) => r.body.timeEntryId));
      expect(await allRows(other)).toHaveLength(1);
    });

    it("an event's idempotencyKey is the single endpoint's Idempotency-Key", async () => {
      const tenant = await berlin();
      const event = ev('EXT-0', 'clock_in', T0 - 3 * HOUR);
      const alone = await tenant.clock(event, { 'idempotency-key': 'k-1' });
      expect(alone.status).toBe(201);
      const reply = await batch(tenant, {
        events: [
          { ...event, idempotencyKey: 'k-1' }, // replayed
          { ...event, occurredAt: iso(T0 - 2 * HOUR), idempotencyKey: 'k-1' }, // reused with another punch
          { ...ev('EXT-0', 'clock_out', T0 - HOUR), idempotencyKey: 'k-2' },
          { ...ev('EXT-0', 'clock_in', T0 - 30 * MINUTE), idempotencyKey: 'bad key' }, // not a key
          { ...ev('EXT-0', 'break_start', T0 - 20 * MINUTE), idempotencyKey: 'k-3' }, // refused, stored
        ],
      });
      const got = results(reply);
      expect(got.map((r) => r.status)).toEqual([201, 422, 201, 422, 409]);
      expect(JSON.stringify(got[0]!.body)).toBe(alone.text);
      expect(got[1]!.body.error).toBe('idempotency_key_reused');
      expect(got[3]!.body.errors).toMatchObject([{ field: 'idempotencyKey' }]);
      expect(got[4]!.body.error).toBe('no_open_session');
      // The single endpoint replays what the batch stored, byte for byte.
      const out = await tenant.clock(ev('EXT-0', 'clock_out', T0 - HOUR), { 'idempotency-key': 'k-2' });
      expect(out.headers.get('idempotent-replayed')).toBe('true');
      expect(out.text).toBe(JSON.stringify(got[2]!.body));
      const refusal = await tenant.clock(ev('EXT-0', 'break_start', T0 - 20 * MINUTE), {
        'idempotency-key': 'k-3',
      });
      expect(refusal.status).toBe(409);
      expect(refusal.text).toBe(JSON.stringify(got[4]!.body));
      // Two events of one batch with one key: the second replays the first.
      const twice = results(
        await batch(tenant, {
          events: [
            { ...ev('EXT-1', 'clock_in', T0 - HOUR), idempotencyKey: 'k-4' },
            { ...ev('EXT-1', 'clock_in', T0 - HOUR), idempotencyKey: 'k-4' },
          ],
        }),
      );
      expect(twice.map((r) => r.status)).toEqual([201, 201]);
      expect(twice[1]!.body).toEqual(twice[0]!.body);
      expect(await suite.rows(tenant.fixture.employees[1]!.id)).toHaveLength(1);
    });

    it("the request's own Idempotency-Key replays the whole answer; a dry run stores nothing; one rate-limit unit", async () => {
      const tenant = await berlin({ employeeCount: 2 });
      const events = [ev('EXT-0', 'clock_in', T0 - 2 * HOUR), ev('EXT-1', 'clock_out', T0 - HOUR)];
      const dry = await batch(tenant, { events }, { 'x-service-dry-run': 'true' });
      expect(dry.status).toBe(200);
      expect(results(dry).map((r) => [r.status, r.body.dryRun ?? r.body.error])).toEqual([
        [200, true],
        [409, 'no_open_session'],
      ]);
      expect(await allRows(tenant)).toEqual([]);

      const first = await batch(tenant, { events }, { 'idempotency-key': 'upload-1' });
      expect(first.status).toBe(200);
      expect(results(first).map((r) => r.status)).toEqual([201, 409]);
      expectReplay(await batch(tenant, { events }, { 'idempotency-key': '"upload-1"' }), first, 200);
      const reused = await batch(tenant, { events: events.slice(0, 1) }, { 'idempotency-key': 'upload-1' });
      expect(reused.status).toBe(422);
      expect(reused.body.error).toBe('idempotency_key_reused');
      expect(await allRows(tenant)).toHaveLength(1);

      // A batch of 60 events costs one request of the quota.
      const before = await tenant.list({ employeeId: tenant.employeeId });
      const big = await batch(tenant, {
        events: Array.from({ length: 60 }, (_, i) => ev('EXT-1', 'toggle', T0 - 3 * DAY + i * 10 * MINUTE)),
      });
      expect(big.status).toBe(200);
      const remaining = (r: Reply) => Number(r.headers.get('x-ratelimit-remaining'));
      expect(remaining(before) - remaining(big)).toBe(1);
    });

    it("another company's employee is 404 and a missing scope 403, as on the single endpoint", async () => {
      const tenant = await berlin();
      const stranger = await createTenant(suite.server, { timeZone: 'Europe/Berlin' });
      const reply = await batch(stranger, {
        events: [{ ...ev('EXT-0', 'clock_in', T0), employee: { id: tenant.employeeId } }],
      });
      expect(results(reply)[0]).toMatchObject({ status: 404, body: { error: 'employee_not_found' } });
      expect(await suite.rows(tenant.employeeId)).toEqual([]);
      const reader = await createTenant(suite.server, {
        timeZone: 'Europe/Berlin',
        scopes: 'attendance.read',
      });
      const refused = await batch(reader, { events: [ev('EXT-0', 'clock_in', T0)] });
      expect(refused.status).toBe(403);
      expect(refused.body.error).toBe('insufficient_scope');
    });
  },
);

const postgres = testDialects().find((d) => d.name === 'postgres');

/*
 * An event whose key is held by a request still running (another instance's transaction, here a
 * second connection holding the key's lock as a write would): the event waits for that outcome and
 * replays it; a key that never settles within the wait is that event's 409 idempotency_in_flight.
 */
describe.runIf(postgres !== undefined)('a batch event whose key is held by a running request', () => {
  const suite = timeTrackingSuite(postgres!, { start: T0 });
  let other: Database;
  beforeAll(() => {
    other = createDatabase(parseDatabaseUrl(suite.server.testDatabase.url), { poolSize: 2 });
  });
  afterAll(async () => other?.close());

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const batch = (tenant: Tenant, body: unknown) => call(suite.server, tenant.token, 'POST', BATCH, body);

  async function holdKey(
    tenant: Tenant,
    key: string,
    event: Json,
    ms: number,
    outcome?: { status: number; body: string },
  ) {
    const scope: IdempotencyScope = {
      companyId: tenant.fixture.companyId,
      apiKeyId: tenant.fixture.key.id,
      key,
      requestHash: requestFingerprint('POST', EVENTS, event),
    };
    let held!: () => void;
    const taken = new Promise<void>((resolve) => (held = resolve));
    const done = other.transaction(async (tx) => {
      const claim = await claimKey(tx, scope, T0);
      expect(claim.kind === 'refused' ? claim.error.message : claim.kind).toBe('claimed');
      held();
      await sleep(ms);
      if (outcome) await storeOutcome(tx, scope, outcome, T0);
    });
    await taken;
    // Not the promise itself: awaiting this object must not wait for the transaction's end.
    return { done };
  }

  it('waits for the outcome and replays it, then goes on in order', async () => {
    const tenant = await suite.berlin();
    const event = { employee: { id: tenant.employeeId }, type: 'clock_in', occurredAt: iso(T0 - 2 * HOUR) };
    // What the other request will have answered: a real write result (of another punch).
    const real = await tenant.clock({ ...event, occurredAt: iso(T0 - 5 * HOUR) });
    expect((await tenant.clock({ ...event, type: 'clock_out', occurredAt: iso(T0 - 4 * HOUR) })).status).toBe(
      201,
    );
    const holding = await holdKey(tenant, 'held-1', event, 600, { status: 201, body: real.text });
    const began = Date.now();
    const reply = await batch(tenant, {
      events: [
        { ...event, idempotencyKey: 'held-1' },
        { ...event, type: 'break_start', occurredAt: iso(T0 - HOUR) },
      ],
    });
    await holding.done;
    expect(Date.now() - began).toBeGreaterThanOrEqual(500);
    const got = results(reply);
    expect(got[0]!.status).toBe(201);
    expect(JSON.stringify(got[0]!.body)).toBe(real.text);
    // The replayed punch was not run again: there is no open session for the break.
    expect(got[1]!.body.error).toBe('no_open_session');
    expect(await suite.rows(tenant.employeeId)).toHaveLength(1);
  });

  it('a key that never settles within the wait is 409 idempotency_in_flight for that event only', async () => {
    const tenant = await suite.berlin();
    const event = { employee: { id: tenant.employeeId }, type: 'clock_in', occurredAt: iso(T0 - 2 * HOUR) };
    const wait = IN_FLIGHT_WAIT.maxMs;
    IN_FLIGHT_WAIT.maxMs = 300;
    try {
      const holding = await holdKey(tenant, 'held-2', event, 1500);
      const reply = await batch(tenant, {
        events: [
          { ...event, idempotencyKey: 'held-2' },
          { ...event, occurredAt: iso(T0 - HOUR), idempotencyKey: 'free-2' },
        ],
      });
      await holding.done;
      const got = results(reply);
      expect(got.map((r) => [r.status, r.body.error ?? r.body.type])).toEqual([
        [409, 'idempotency_in_flight'],
        [201, 'clock_in'],
      ]);
    } finally {
      IN_FLIGHT_WAIT.maxMs = wait;
    }
  });
});
