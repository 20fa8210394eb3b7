import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type TestDialect, testDialects } from '../support/databases.js';
import { type Fleet, startFleet } from '../support/fleet.js';
import { startTestServer, type TestServer } from '../support/server.js';
import {
  createTenant,
  entryRows,
  iso,
  MINUTE,
  type Reply,
  type Tenant,
  tenantFor,
} from '../support/time-tracking.js';

const T0 = Date.parse('2026-11-10T12:00:00Z');
const ENV = {
  RATE_LIMIT_PER_MINUTE: '100000',
  TOKEN_RATE_LIMIT_PER_MINUTE: '100000',
  OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
};

const statuses = (replies: Reply[]) =>
  replies.map((r) =>
    `${r.status}${r.headers.get('idempotent-replayed') ? ' replayed' : ''} ${r.body.error ?? ''}`.trim(),
  );

function count(replies: Reply[], predicate: (r: Reply) => boolean): number {
  return replies.filter(predicate).length;
}

/**
 * The guarantees under concurrent requests. `clients(i)` says which tenant (and so which server
 * instance) sends request number i.
 */
function concurrencyCases(
  setup: () => { clients: (i: number) => Tenant; primary: () => Tenant; server: () => TestServer },
) {
  it('20 concurrent clock_ins for one employee: exactly one 201, the rest 409, one open row', async () => {
    const { clients, primary, server } = setup();
    const employee = { id: primary().employeeId };
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        // Two minutes apart: no two punches fall in the header-less duplicate window.
        clients(i).clock({ employee, type: 'clock_in', occurredAt: iso(T0 - (i + 1) * 2 * MINUTE) }),
      ),
    );
    expect(
      count(replies, (r) => r.status === 201),
      statuses(replies).join(', '),
    ).toBe(1);
    expect(
      count(replies, (r) => r.status === 409 && r.body.error === 'already_clocked_in'),
      statuses(replies).join(', '),
    ).toBe(19);
    const rows = await entryRows(server().database, employee.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.status).toBe('open');
    expect(rows[0]!.id).toBe(replies.find((r) => r.status === 201)!.body.timeEntryId);
  });

  it('10 concurrent overlapping shifts: exactly one is stored', async () => {
    const { clients, primary, server } = setup();
    const employee = { id: primary().employeeId };
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        clients(i).shift({
          employee,
          clockIn: iso(Date.parse('2026-11-10T07:00:00Z') + i * MINUTE),
          clockOut: iso(Date.parse('2026-11-10T09:00:00Z') + i * MINUTE),
        }),
      ),
    );
    expect(
      count(replies, (r) => r.status === 201),
      statuses(replies).join(', '),
    ).toBe(1);
    expect(
      count(replies, (r) => r.status === 409 && r.body.error === 'overlaps_existing_entry'),
      statuses(replies).join(', '),
    ).toBe(9);
    expect(await entryRows(server().database, employee.id)).toHaveLength(1);
  });

  it('10 concurrent identical requests with one Idempotency-Key: the write happens once', async () => {
    const { clients, primary, server } = setup();
    const employee = { id: primary().employeeId };
    const body = { employee, type: 'clock_in', occurredAt: '2026-11-10T08:00:00Z' };
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, i) => clients(i).clock(body, { 'idempotency-key': 'same-key' })),
    );
    const original = replies.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null);
    expect(original, statuses(replies).join(', ')).toHaveLength(1);
    for (const reply of replies) {
      if (reply === original[0]) continue;
      if (reply.status === 201) {
        expect(reply.headers.get('idempotent-replayed')).toBe('true');
        expect(reply.text).toBe(original[0]!.text);
      } else {
        expect(reply.status, statuses(replies).join(', ')).toBe(409);
        expect(reply.body.error).toBe('idempotency_in_flight');
      }
    }
    expect(await entryRows(server().database, employee.id)).toHaveLength(1);
    const audit = await server()
      .database.db.selectFrom('audit_log')
      .select('id')
      .where('action', '=', 'time_entry.clock_in')
      .where('target_id', '=', original[0]!.body.timeEntryId!)
      .execute();
    expect(audit).toHaveLength(1);
    // Once settled, every retry is a replay.
    const late = await clients(1).clock(body, { 'idempotency-key': 'same-key' });
    expect(late.headers.get('idempotent-replayed')).toBe('true');
    expect(late.text).toBe(original[0]!.text);
  });

  it('10 concurrent header-less identical clock_ins: one 201, the others 200 with the same entry', async () => {
    const { clients, primary, server } = setup();
    const employee = { id: primary().employeeId };
    const body = { employee, type: 'clock_in', occurredAt: '2026-11-10T08:00:00Z' };
    // The duplicate rule is per caller: every client uses the same API key.
    const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => clients(i).clock(body)));
    const created = replies.filter((r) => r.status === 201);
    expect(created, statuses(replies).join(', ')).toHaveLength(1);
    for (const reply of replies.filter((r) => r !== created[0])) {
      expect(reply.status, statuses(replies).join(', ')).toBe(200);
      expect(reply.body.timeEntryId).toBe(created[0]!.body.timeEntryId);
    }
    expect(await entryRows(server().database, employee.id)).toHaveLength(1);
  });

  it('concurrent toggles never leave two open sessions or overlapping entries', async () => {
    const { clients, primary, server } = setup();
    const employee = { id: primary().employeeId };
    const replies = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        clients(i).clock({ employee, type: 'toggle', occurredAt: iso(T0 - (12 - i) * 5 * MINUTE) }),
      ),
    );
    for (const reply of replies)
      expect([200, 201, 409], statuses(replies).join(', ')).toContain(reply.status);
    const rows = await entryRows(server().database, employee.id);
    expect(rows.filter((r) => r.status === 'open').length).toBeLessThanOrEqual(1);
    const opened = count(replies, (r) => r.status === 201 && r.body.type === 'clock_in');
    const closed = count(replies, (r) => r.status === 201 && r.body.type === 'clock_out');
    expect(rows).toHaveLength(opened);
    expect(rows.filter((r) => r.status === 'pending_approval')).toHaveLength(closed);
    // Completed entries never overlap; an open session may start before a completed entry (a late
    // clock-in is not inside it) but never inside one.
    const spans = rows
      .filter((r) => r.end_at !== null)
      .map((r) => [Date.parse(r.start_at), Date.parse(r.end_at!)] as const)
      .sort((x, y) => x[0] - y[0]);
    for (let i = 1; i < spans.length; i++) expect(spans[i]![0]).toBeGreaterThanOrEqual(spans[i - 1]![1]);
    for (const open of rows.filter((r) => r.end_at === null)) {
      const start = Date.parse(open.start_at);
      expect(spans.some(([from, to]) => from <= start && start < to)).toBe(false);
    }
  });

  it('punches for different employees run side by side', async () => {
    const { clients, primary, server } = setup();
    const employees = primary().fixture.employees;
    const replies = await Promise.all(
      employees.map((e, i) =>
        clients(i).clock({ employee: { id: e.id }, type: 'clock_in', occurredAt: '2026-11-10T08:00:00Z' }),
      ),
    );
    expect(replies.map((r) => r.status)).toEqual(employees.map(() => 201));
    for (const e of employees) expect(await entryRows(server().database, e.id)).toHaveLength(1);
  });
}

describe.each(testDialects().map((d) => [d.name, d] as const))('concurrency on %s', (_name, dialect) => {
  let server: TestServer;
  let tenant: Tenant;
  let t = T0;

  beforeAll(async () => {
    server = await startTestServer(dialect, { now: () => t, env: ENV });
  });
  afterAll(async () => server?.stop());
  beforeEach(async () => {
    t = T0;
    tenant = await createTenant(server, { timeZone: 'Europe/Berlin', employeeCount: 6 });
  });

  concurrencyCases(() => ({ clients: () => tenant, primary: () => tenant, server: () => server }));
});

const postgres = testDialects().find((d): d is TestDialect => d.name === 'postgres');

describe.runIf(postgres !== undefined)(
  'concurrency across two server instances on one PostgreSQL database',
  () => {
    let fleet: Fleet;
    let a: TestServer;
    let b: TestServer;
    let onA: Tenant;
    let onB: Tenant;
    let t = T0;
    const now = () => t;

    beforeAll(async () => {
      fleet = await startFleet(postgres!, { now, env: ENV });
      ({ first: a, second: b } = fleet);
    });
    afterAll(async () => fleet?.stop());
    beforeEach(async () => {
      t = T0;
      onA = await createTenant(a, { timeZone: 'Europe/Berlin', employeeCount: 6 });
      // Same key, token from the other instance: keys and signing keys live in the shared database.
      onB = await tenantFor(b, onA.fixture, onA.fixture.key);
    });

    it('a token from one instance works on the other', async () => {
      const me = await b.request('/api/public/v1/me', { token: onA.token });
      expect(me.status).toBe(200);
      const me2 = await a.request('/api/public/v1/me', { token: onB.token });
      expect(me2.status).toBe(200);
    });

    concurrencyCases(() => ({
      clients: (i) => (i % 2 === 0 ? onA : onB),
      primary: () => onA,
      server: () => a,
    }));
  },
);
