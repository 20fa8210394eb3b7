import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/modules/context.js';
import { pruneEvents } from '../../src/modules/events/service.js';
import { secondKey } from '../support/api.js';
import { testDialects } from '../support/databases.js';
import { createCompanyFixture, fetchToken, startTestServer, type TestServer } from '../support/server.js';
import { confirmDay, decideEntry } from '../../src/modules/time-tracking/approval.js';
import { createEmployee, deleteEmployee, updateEmployee } from '../../src/modules/employees/changes.js';

/*
 * Issue "every change, once": each path that changes data writes its event in the change's
 * transaction; GET /changes hands them out in causal order, filtered by the token's scopes, never
 * another company's.
 */
const CHANGES = '/api/public/v1/changes';
interface Feed {
  items: { id: string; type: string; occurredAt: string; data: Record<string, unknown> }[];
  nextCursor: string | null;
  hasMore: boolean;
  resumeCursor: string;
}

describe.each(testDialects().map((d) => [d.name, d] as const))('change feed on %s', (_name, dialect) => {
  let server: TestServer;
  let now = Date.parse('2026-11-10T12:00:00Z');
  beforeAll(async () => {
    server = await startTestServer(dialect, { now: () => now });
  });
  afterAll(async () => {
    await server.stop();
  });

  async function feed(token: string, query: Record<string, string> = {}) {
    const response = await server.request(`${CHANGES}?${new URLSearchParams(query).toString()}`, { token });
    return { status: response.status, body: (await response.json()) as Feed & { error?: string } };
  }

  /** A company, a token, and the feed's position after the fixture's own events (its employees created). */
  async function tenant(scopes = 'attendance.record,attendance.read,employees.read') {
    const fixture = await createCompanyFixture(server.ctx, { timeZone: 'Europe/Berlin', scopes });
    const token = await fetchToken(server, fixture.key.clientId, fixture.key.secret);
    const setup = (await feed(token, { limit: '100' })).body;
    expect(setup.items.map((e) => e.type)).toEqual(fixture.employees.map(() => 'employee.created'));
    return { fixture, token, since: setup.resumeCursor };
  }

  const post = (token: string, path: string, json: unknown, headers: Record<string, string> = {}) =>
    server.request(`/api/public/v1${path}`, { method: 'POST', token, json, headers });

  it('every path writes its event once: API punches, shifts and external ids, admin decisions, days and employees', async () => {
    const { fixture, token, since } = await tenant();
    const [first, second] = fixture.employees;
    const clockIn = { employee: { id: first!.id }, type: 'clock_in', occurredAt: '2026-11-10T07:00:00Z' };
    expect((await post(token, '/time-clock/events', clockIn, { 'idempotency-key': 'in-1' })).status).toBe(
      201,
    );
    // A replay and a dry run write nothing; nor does a header-less duplicate.
    expect((await post(token, '/time-clock/events', clockIn, { 'idempotency-key': 'in-1' })).status).toBe(
      201,
    );
    const dry = { ...clockIn, employee: { id: second!.id } };
    expect((await post(token, '/time-clock/events', dry, { 'x-service-dry-run': 'true' })).status).toBe(200);
    const out = { employee: { id: first!.id }, type: 'clock_out', occurredAt: '2026-11-10T11:00:00Z' };
    const closed = await post(token, '/time-clock/events', out);
    expect(closed.status).toBe(201);
    expect((await post(token, '/time-clock/events', out)).status).toBe(200);
    const shift = await post(token, '/time-entries', {
      employee: { id: second!.id },
      clockIn: '2026-11-09T07:00:00Z',
      clockOut: '2026-11-09T15:00:00Z',
      breakMinutes: 30,
    });
    expect(shift.status).toBe(201);
    const shiftId = ((await shift.json()) as { timeEntryId: string }).timeEntryId;
    const punchedId = ((await closed.json()) as { timeEntryId: string }).timeEntryId;
    const renamed = await server.request(`/api/public/v1/employees/${first!.id}/external-id`, {
      method: 'PUT',
      token,
      json: { externalId: 'BADGE-9' },
    });
    expect(renamed.status).toBe(200);
    // The CLI's operations.
    await inTransaction(server.ctx, (tx, at) => decideEntry(tx, at, punchedId, 'approved'));
    await inTransaction(server.ctx, (tx, at) => decideEntry(tx, at, shiftId, 'rejected'));
    await inTransaction(server.ctx, (tx, at) =>
      confirmDay(tx, at, { employeeId: first!.id, date: '2026-11-10' }),
    );
    await inTransaction(server.ctx, (tx, at) =>
      confirmDay(tx, at, { employeeId: first!.id, date: '2026-11-10' }),
    );
    const hired = await inTransaction(server.ctx, (tx, at) =>
      createEmployee(tx, at, fixture.companyId, { email: 'new@acme.example', externalId: 'NEW-1' }),
    );
    await inTransaction(server.ctx, (tx, at) => updateEmployee(tx, at, hired!.id, { firstName: 'Nina' }));
    await inTransaction(server.ctx, (tx, at) => deleteEmployee(tx, at, hired!.id));

    const { status, body } = await feed(token, { limit: '100', cursor: since });
    expect(status).toBe(200);
    expect(body.items.map((e) => e.type)).toEqual([
      'time_entry.opened',
      'time_entry.completed',
      'time_entry.completed',
      'employee.updated',
      'time_entry.approved',
      'time_entry.rejected',
      'day.confirmed',
      'employee.created',
      'employee.updated',
      'employee.deleted',
    ]);
    const [opened, completed, shifted, external, approved, , day, created, updated, deleted] = body.items;
    expect(opened!.data).toMatchObject({
      id: punchedId,
      status: 'open',
      employee: { id: first!.id },
      workDate: '2026-11-10',
    });
    expect(completed!.data).toMatchObject({
      id: punchedId,
      status: 'pending_approval',
      totalHours: 4,
      endTime: '12:00:00',
    });
    expect(shifted!.data).toMatchObject({ id: shiftId, breakMinutes: 30, source: 'api_shift' });
    expect(external!.data).toMatchObject({ id: first!.id, externalId: 'BADGE-9' });
    expect(approved!.data).toMatchObject({ id: punchedId, status: 'approved' });
    expect(day!.data).toEqual({ employee: { id: first!.id, externalId: 'BADGE-9' }, date: '2026-11-10' });
    expect(created!.data).toMatchObject({ id: hired!.id, externalId: 'NEW-1', email: 'new@acme.example' });
    expect(updated!.data).toMatchObject({ id: hired!.id, firstName: 'Nina' });
    expect(deleted!.data).toEqual({ id: hired!.id, externalId: 'NEW-1' });
    expect(new Set(body.items.map((e) => e.id)).size).toBe(body.items.length);
    expect(body.hasMore).toBe(false);
    expect(body.nextCursor).toBeNull();
  });

  it('pages with nextCursor; resumeCursor at the head returns only newer events; start=now begins at the head', async () => {
    const { fixture, token, since } = await tenant();
    const employee = fixture.employees[0]!.id;
    for (const [i, type] of (['clock_in', 'clock_out', 'clock_in'] as const).entries())
      expect(
        (
          await post(token, '/time-clock/events', {
            employee: { id: employee },
            type,
            occurredAt: new Date(Date.parse('2026-11-10T06:00:00Z') + i * 3_600_000).toISOString(),
          })
        ).status,
      ).toBe(201);
    const firstPage = await feed(token, { limit: '2', cursor: since });
    expect(firstPage.body.items).toHaveLength(2);
    expect(firstPage.body.hasMore).toBe(true);
    const secondPage = await feed(token, { limit: '2', cursor: firstPage.body.nextCursor! });
    expect(secondPage.body.items.map((e) => e.type)).toEqual(['time_entry.opened']);
    expect(secondPage.body.hasMore).toBe(false);
    const head = secondPage.body.resumeCursor;
    expect((await feed(token, { cursor: head })).body.items).toEqual([]);
    const fromNow = (await feed(token, { start: 'now' })).body;
    expect(fromNow.items).toEqual([]);
    expect(
      (
        await post(token, '/time-clock/events', {
          employee: { id: employee },
          type: 'clock_out',
          occurredAt: '2026-11-10T10:00:00Z',
        })
      ).status,
    ).toBe(201);
    for (const cursor of [head, fromNow.resumeCursor]) {
      const newer = (await feed(token, { cursor })).body;
      expect(newer.items.map((e) => e.type)).toEqual(['time_entry.completed']);
    }
  });

  it('shows each token only the families its scopes allow, and 403 without a read scope', async () => {
    const { fixture, token, since } = await tenant();
    await post(token, '/time-clock/events', {
      employee: { id: fixture.employees[0]!.id },
      type: 'clock_in',
      occurredAt: '2026-11-10T07:00:00Z',
    });
    await inTransaction(server.ctx, (tx, at) =>
      updateEmployee(tx, at, fixture.employees[1]!.id, { firstName: 'Eve' }),
    );
    const readers = {
      attendance: await secondKey(server.ctx, fixture, { scopes: 'attendance.read' }),
      employees: await secondKey(server.ctx, fixture, { scopes: 'employees.read' }),
      neither: await secondKey(server.ctx, fixture, { scopes: 'attendance.record' }),
    };
    const as = async (key: { clientId: string; secret: string }, query: Record<string, string> = {}) =>
      feed(await fetchToken(server, key.clientId, key.secret), { cursor: since, ...query });
    expect((await as(readers.attendance)).body.items.map((e) => e.type)).toEqual(['time_entry.opened']);
    expect((await as(readers.employees)).body.items.map((e) => e.type)).toEqual(['employee.updated']);
    expect((await as(readers.employees, { types: 'time_entry.opened' })).body.items).toEqual([]);
    const refused = await as(readers.neither);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('insufficient_scope');
    const filtered = await feed(token, { types: 'employee.updated', cursor: since });
    expect(filtered.body.items.map((e) => e.type)).toEqual(['employee.updated']);
  });

  it("never shows another company's events; a foreign, tampered or malformed cursor is 422; an expired one 410", async () => {
    const a = await tenant();
    const b = await tenant();
    await post(b.token, '/time-clock/events', {
      employee: { id: b.fixture.employees[0]!.id },
      type: 'clock_in',
      occurredAt: '2026-11-10T07:00:00Z',
    });
    expect((await feed(a.token, { cursor: a.since })).body.items).toEqual([]);
    const bCursor = (await feed(b.token)).body.resumeCursor;
    for (const cursor of [bCursor, `${bCursor}x`, 'not-a-cursor']) {
      const refused = await feed(a.token, { cursor });
      expect(refused.status).toBe(422);
      expect(refused.body.error).toBe('validation_failed');
    }
    expect((await feed(a.token, { types: 'Not A Type' })).status).toBe(422);
    await post(b.token, '/time-clock/events', {
      employee: { id: b.fixture.employees[0]!.id },
      type: 'clock_out',
      occurredAt: '2026-11-10T09:00:00Z',
    });
    const firstPage = (await feed(b.token, { limit: '1' })).body;
    expect(firstPage.hasMore).toBe(true);
    const head = (await feed(b.token)).body.resumeCursor;
    // Forty days later both events are past retention and removed: a cursor into them is expired.
    now += 40 * 86_400_000;
    try {
      expect(await pruneEvents(server.ctx, 30)).toBeGreaterThanOrEqual(2);
      const fresh = await fetchToken(server, b.fixture.key.clientId, b.fixture.key.secret);
      const expired = await feed(fresh, { cursor: firstPage.nextCursor! });
      expect(expired.status).toBe(410);
      expect(expired.body.error).toBe('cursor_expired');
      const restart = await feed(fresh, { start: 'oldest' });
      expect(restart.status).toBe(200);
      expect(restart.body.items).toEqual([]);
      // The head cursor of before the removal is still good: nothing after it was removed.
      expect((await feed(fresh, { cursor: head })).status).toBe(200);
    } finally {
      now -= 40 * 86_400_000;
    }
  });
});
