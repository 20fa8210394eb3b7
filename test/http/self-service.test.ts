import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliCallerOf } from '../../src/modules/absences/actors.js';
import { setEntitlement } from '../../src/modules/absences/leave.js';
import { updateCompany } from '../../src/modules/companies/service.js';
import { inTransaction } from '../../src/modules/context.js';
import { deleteEmployee, updateEmployee } from '../../src/modules/employees/changes.js';
import { verifyPassword } from '../../src/modules/people/passwords.js';
import { setUserPassword } from '../../src/modules/people/service.js';
import { createUser, deactivateUser } from '../../src/modules/people/users.js';
import { setWebClockAllowedIps } from '../../src/modules/self-service/settings.js';
import { newId } from '../../src/domain/ids.js';
import { type Json } from '../support/absences.js';
import { expectProblem } from '../support/api.js';
import { AdminClient, createPerson, PASSWORD } from '../support/admin-api.js';
import { testDialects } from '../support/databases.js';
import {
  type CompanyFixture,
  createCompanyFixture,
  fetchToken,
  startTestServer,
  type TestServer,
} from '../support/server.js';

/**
 * Self-service (issue 35, items 1-3) through the real server, every answer held to the admin OpenAPI
 * document: a person linked to an employee sees and changes only that employee's data (every route
 * tried with another employee's ids), the web clock's switch, address ranges, CSRF, Origin and
 * idempotency keys, correction requests from filing to a manager's decision with their events, and
 * "invite everyone".
 */

const NOW = Date.parse('2026-06-09T10:00:00Z'); // a Tuesday, 12:00 in Berlin
const CLI = { type: 'cli' as const, id: null };
const PUBLIC = '/api/public/v1';

describe.each(testDialects().map((d) => [d.name, d] as const))('self-service on %s', (_name, dialect) => {
  let server: TestServer;
  let client: AdminClient;
  let a: CompanyFixture;
  let b: CompanyFixture;
  let token: string;
  let serial = 0;
  let self0: AdminClient & { userId: string };
  let self1: AdminClient & { userId: string };
  let manager: AdminClient;
  /** An entry of employee 1 (another employee than self0's). */
  let otherEntry: string;

  async function linked(companyId: string, employee: string, permissions = '') {
    serial += 1;
    const email = `self${serial}@acme.example`;
    const user = await inTransaction(server.ctx, (tx, now) =>
      createUser(tx, now, { companyId, email, permissions, employee }),
    );
    await setUserPassword(server.ctx, user.id, PASSWORD);
    const c = await client.fresh().signedIn({ id: user.id, email, password: PASSWORD });
    return Object.assign(c, { userId: user.id });
  }

  async function json(response: Promise<Response> | Response, status: number): Promise<Json> {
    const r = await response;
    expect(r.status, await r.clone().text()).toBe(status);
    return (await r.json()) as Json;
  }

  const post = (c: AdminClient, path: string, body: unknown = {}, headers: Record<string, string> = {}) =>
    c.request(path, { method: 'POST', json: body, headers });

  /** The server's clock: NOW, but a punch with an occurredAt is sent live at that moment (serverAt). */
  let clock = NOW;
  async function punch(
    c: AdminClient,
    type: string,
    occurredAt?: string,
    key = crypto.randomUUID(),
    serverAt = occurredAt,
  ) {
    clock = serverAt === undefined ? NOW : Date.parse(serverAt);
    try {
      return await post(c, '/self/clock', occurredAt === undefined ? { type } : { type, occurredAt }, {
        'idempotency-key': key,
      });
    } finally {
      clock = NOW;
    }
  }

  /** A shift of 07:00-15:00 (Berlin) with a 30-minute break for `employeeId` on `date`; its id. */
  async function addEntry(c: CompanyFixture, employeeId: string, date: string): Promise<string> {
    const t = await fetchToken(server, c.key.clientId, c.key.secret);
    const shift = await server.request(`${PUBLIC}/time-entries`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        employee: { id: employeeId },
        clockIn: `${date}T07:00:00+02:00`,
        clockOut: `${date}T15:00:00+02:00`,
        breakMinutes: 30,
      }),
    });
    return ((await json(shift, 201)) as { timeEntryId: string }).timeEntryId;
  }

  beforeAll(async () => {
    server = await startTestServer(dialect, {
      now: () => clock,
      // Many people sign in from one address here, and the clock stands still.
      env: { CONSOLE_SIGN_IN_LIMIT_PER_ADDRESS: '1000' },
    });
    a = await createCompanyFixture(server.ctx, { name: 'Acme', timeZone: 'Europe/Berlin', employeeCount: 3 });
    b = await createCompanyFixture(server.ctx, { name: 'Beta', timeZone: 'Europe/Berlin' });
    await inTransaction(server.ctx, (tx, now) => updateCompany(tx, now, a.companyId, { webClock: 'on' }));
    for (const employee of a.employees) {
      const caller = await cliCallerOf(server.ctx.database.db, { employeeId: employee.id });
      await inTransaction(server.ctx, (tx, now) =>
        setEntitlement(tx, now, caller, {
          employeeId: employee.id,
          typeCode: 'vacation',
          year: 2026,
          days: 25,
        }),
      );
    }
    client = await AdminClient.create(server);
    self0 = await linked(a.companyId, a.employees[0]!.id);
    self1 = await linked(a.companyId, a.employees[1]!.id);
    const boss = await createPerson(server.ctx, a.companyId, {
      email: 'boss@acme.example',
      permissions: '47,91,92',
    });
    manager = await client.fresh().signedIn(boss);
    token = await fetchToken(server, a.key.clientId, a.key.secret);
    const shift = await server.request(`${PUBLIC}/time-entries`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        employee: { id: a.employees[1]!.id },
        clockIn: '2026-06-08T07:00:00+02:00',
        clockOut: '2026-06-08T15:00:00+02:00',
        breakMinutes: 30,
      }),
    });
    otherEntry = ((await json(shift, 201)) as { timeEntryId: string }).timeEntryId;
  });
  afterAll(async () => server?.stop());

  it('refuses self-service to a person linked to no employee, and the web clock while it is off', async () => {
    const plain = await client
      .fresh()
      .signedIn(
        await createPerson(server.ctx, a.companyId, { email: 'plain@acme.example', permissions: '47' }),
      );
    for (const path of ['/self', '/self/correction-requests', '/self/absences'])
      await expectProblem(await plain.request(path), 403, 'not_an_employee');
    await expectProblem(await punch(plain, 'clock_in'), 403, 'not_an_employee');
    // The other company's web clock is off (the default).
    const beta = await linked(b.companyId, b.employees[0]!.id);
    expect((await json(beta.request('/self'), 200)).webClock).toEqual({ enabled: false, allowedHere: true });
    await expectProblem(await punch(beta, 'clock_in'), 403, 'web_clock_disabled');
    // Time tracking off comes first: the web clock is a time clock.
    await inTransaction(server.ctx, (tx, now) =>
      updateCompany(tx, now, b.companyId, { webClock: 'on', timeTracking: 'off' }),
    );
    await expectProblem(await punch(beta, 'clock_in'), 403, 'time_tracking_disabled');
    await inTransaction(server.ctx, (tx, now) => updateCompany(tx, now, b.companyId, { timeTracking: 'on' }));
    expect((await json(beta.request('/self'), 200)).webClock.enabled).toBe(true);
    // Not signed in: no session, no self-service.
    await expectProblem(await client.fresh().request('/self'), 401, 'session_required');
  });

  it('punches in, takes a break and out on the web clock, as the person, with source web_clock', async () => {
    const before = await json(self0.request('/self'), 200);
    expect(before).toMatchObject({
      employee: { id: a.employees[0]!.id, firstName: 'First0' },
      today: '2026-06-09',
      state: { clockedIn: false, onBreak: false, since: null },
      todayHours: 0,
      webClock: { enabled: true, allowedHere: true },
    });
    const clockIn = await json(punch(self0, 'clock_in', '2026-06-09T06:00:00Z'), 201);
    expect(clockIn).toMatchObject({ type: 'clock_in', time: '08:00:00', workDate: '2026-06-09' });
    await expectProblem(await punch(self0, 'clock_in', '2026-06-09T06:05:00Z'), 409, 'already_clocked_in');
    await json(punch(self0, 'break_start', '2026-06-09T08:00:00Z'), 201);
    expect((await json(self0.request('/self'), 200)).state).toMatchObject({ clockedIn: true, onBreak: true });
    await json(punch(self0, 'break_end', '2026-06-09T08:30:00Z'), 201);
    const open = await json(self0.request('/self'), 200);
    expect(open.state).toMatchObject({ clockedIn: true, onBreak: false, since: '2026-06-09T06:00:00.000Z' });
    expect(open.todayHours).toBe(3.5);
    const out = await json(punch(self0, 'clock_out'), 201);
    expect(out).toMatchObject({ type: 'clock_out', totalHours: 3.5 });
    const after = await json(self0.request('/self'), 200);
    expect(after).toMatchObject({ state: { clockedIn: false }, todayHours: 3.5 });
    const entries = await json(self0.request('/self/time-entries?from=2026-06-09&to=2026-06-09'), 200);
    expect(entries.items).toHaveLength(1);
    expect(entries.items[0]).toMatchObject({ source: 'web_clock', totalHours: 3.5, breakMinutes: 30 });
    expect(entries.items[0].breaks).toHaveLength(1);
    const revisions = await json(manager.request(`/time-entries/${entries.items[0].id}/revisions`), 200);
    expect(revisions.items[0].actor).toMatchObject({ kind: 'person', id: self0.userId });
  });

  it('replays a punch sent again with its key, refuses the key with another body, and checks CSRF and Origin', async () => {
    const key = crypto.randomUUID();
    const first = await json(punch(self1, 'clock_in', '2026-06-09T07:00:00Z', key), 201);
    const again = await punch(self1, 'clock_in', '2026-06-09T07:00:00Z', key);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await json(again, 201)).toEqual(first);
    await expectProblem(
      await punch(self1, 'clock_out', '2026-06-09T07:30:00Z', key),
      422,
      'idempotency_key_reused',
    );
    await expectProblem(
      await self1.request('/self/clock', { method: 'POST', json: { type: 'clock_out' }, csrf: null }),
      403,
      'csrf_failed',
    );
    await expectProblem(
      await self1.request('/self/clock', {
        method: 'POST',
        json: { type: 'clock_out' },
        origin: 'https://evil.example',
      }),
      403,
      'csrf_failed',
    );
    // At most 2 minutes ahead of the server's time, at most 12 hours behind it (an offline punch).
    const live = (occurredAt: string) =>
      punch(self1, 'clock_out', occurredAt, undefined, '2026-06-09T09:00:00Z');
    for (const made of ['2026-06-09T23:00:00Z', '2026-06-09T09:02:01Z', '2026-06-08T20:59:59Z']) {
      const late = await expectProblem(await live(made), 422, 'validation_failed');
      expect(late.errors).toEqual([expect.objectContaining({ field: 'occurredAt', code: 'not_live' })]);
    }
    const out = await json(live('2026-06-09T08:58:00Z'), 201);
    // Within 2 minutes: a live punch, no flag.
    const [entry] = (await json(self1.request('/self/time-entries?from=2026-06-09&to=2026-06-09'), 200))
      .items as Json[];
    expect(entry).toMatchObject({ id: out.timeEntryId, reviewFlags: [] });
  });

  it('takes offline punches up to 12 hours old, flags their entry offline_punch, and a browser clock off by more than 2 minutes device_clock_skew', async () => {
    const c = await createCompanyFixture(server.ctx, { name: 'Gamma', timeZone: 'Europe/Berlin' });
    await inTransaction(server.ctx, (tx, now) => updateCompany(tx, now, c.companyId, { webClock: 'on' }));
    const self2 = await linked(c.companyId, c.employees[0]!.id);
    const send = (
      type: string,
      occurredAt: string,
      serverAt: string,
      headers: Record<string, string> = {},
    ) => {
      clock = Date.parse(serverAt);
      return post(
        self2,
        '/self/clock',
        { type, occurredAt },
        { 'idempotency-key': crypto.randomUUID(), ...headers },
      ).finally(() => (clock = NOW));
    };
    // Taken offline just after midnight in Berlin, sent at 10:00 (UTC): 11 h 59 min old, kept with their times.
    const inAt = '2026-06-08T22:01:00Z';
    const clockIn = await json(send('clock_in', inAt, '2026-06-09T10:00:00Z'), 201);
    await json(send('break_start', '2026-06-08T22:30:00Z', '2026-06-09T10:00:00Z'), 201);
    // 12 hours and a second: refused with the reason, nothing stored.
    const old = await expectProblem(
      await send('break_end', '2026-06-08T21:59:59Z', '2026-06-09T10:00:00Z'),
      422,
      'validation_failed',
    );
    expect(old.errors![0]).toMatchObject({ field: 'occurredAt', code: 'not_live' });
    expect(old.errors![0]!.message).toMatch(/more than 12 hours/);
    await json(send('break_end', '2026-06-08T23:00:00Z', '2026-06-09T10:00:00Z'), 201);
    const items = (await json(self2.request('/self/time-entries?from=2026-06-09&to=2026-06-09'), 200))
      .items as Json[];
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      id: clockIn.timeEntryId,
      reviewFlags: ['offline_punch'],
      breaks: [{ startedAt: '2026-06-08T22:30:00.000Z', endedAt: '2026-06-08T23:00:00.000Z' }],
    });
    const stored = await server.database.db
      .selectFrom('time_entries')
      .select(['start_at'])
      .where('id', '=', clockIn.timeEntryId)
      .executeTakeFirstOrThrow();
    expect(new Date(stored.start_at).toISOString()).toBe(new Date(inAt).toISOString());
    // A live clock-out from a browser whose clock is 5 minutes behind (its occurredAt too, judged by the
    // offset as live): device_clock_skew added, offline kept.
    await json(
      send('clock_out', '2026-06-09T09:56:00Z', '2026-06-09T10:01:00Z', {
        'x-device-clock': '2026-06-09T09:56:00Z',
      }),
      201,
    );
    const closed = (await json(self2.request('/self/time-entries?from=2026-06-09&to=2026-06-09'), 200))
      .items as Json[];
    expect(closed[0]!.reviewFlags).toEqual(['offline_punch', 'device_clock_skew']);
    // A browser clock within 2 minutes on a live punch: no flag.
    await json(
      send('clock_in', '2026-06-09T10:05:00Z', '2026-06-09T10:05:00Z', {
        'x-device-clock': '2026-06-09T10:06:30Z',
      }),
      201,
    );
    const later = (await json(self2.request('/self/time-entries?from=2026-06-09&to=2026-06-09'), 200))
      .items as Json[];
    expect(later.find((e) => e.id !== clockIn.timeEntryId)!.reviewFlags).toEqual([]);
    clock = NOW;
  });

  it("limits the web clock to the workplace's address ranges", async () => {
    const set = (value: string) =>
      inTransaction(server.ctx, (tx, now) => setWebClockAllowedIps(tx, now, a.workplaceId, value, CLI));
    expect(await set('203.0.113.7/24')).toMatchObject({ webClockAllowedIps: ['203.0.113.0/24'] });
    expect((await json(self0.request('/self'), 200)).webClock).toEqual({ enabled: true, allowedHere: false });
    await expectProblem(await punch(self0, 'clock_in', '2026-06-09T09:00:00Z'), 403, 'address_not_allowed');
    await set('203.0.113.0/24,127.0.0.0/8,::1/128');
    expect((await json(self0.request('/self'), 200)).webClock.allowedHere).toBe(true);
    // The console's workplace list shows the ranges (null: any address).
    const listed = (await json(manager.request('/workplaces'), 200)).items as Json[];
    expect(listed.find((w) => w.id === a.workplaceId)!.webClockAllowedIps).toEqual([
      '203.0.113.0/24',
      '127.0.0.0/8',
      '::1/128',
    ]);
    await set('none');
    expect(
      ((await json(manager.request('/workplaces'), 200)).items as Json[]).find((w) => w.id === a.workplaceId)!
        .webClockAllowedIps,
    ).toBeNull();
    await expect(set('not-an-address')).rejects.toThrow(/not an address/);
  });

  it("never shows or changes another employee's data, by any URL", async () => {
    const otherAbsence = await json(
      post(self1, '/self/absences', { typeCode: 'vacation', startDate: '2026-07-06', endDate: '2026-07-07' }),
      201,
    );
    const otherRequest = await json(
      post(self1, '/self/correction-requests', {
        timeEntryId: otherEntry,
        proposed: { clockIn: '2026-06-08T06:30:00+02:00' },
        reason: 'I came in earlier',
      }),
      201,
    );
    const other = a.employees[1]!.id;
    // Self-service routes take no employee id: an extra one is refused, ids in paths are looked up
    // within the person's own employee.
    await expectProblem(
      await self0.request(`/self/time-entries?from=2026-06-08&to=2026-06-08&employeeId=${other}`),
      422,
      'validation_failed',
    );
    expect(
      (await json(self0.request('/self/time-entries?from=2026-06-08&to=2026-06-08'), 200)).items,
    ).toEqual([]);
    const sheet = await json(self0.request('/self/timesheet?from=2026-06-08&to=2026-06-14'), 200);
    expect(sheet.items.map((i: Json) => i.employee.id)).toEqual([a.employees[0]!.id]);
    expect((await json(self0.request('/self/absences'), 200)).items).toEqual([]);
    expect((await json(self0.request('/self/correction-requests'), 200)).items).toEqual([]);
    await expectProblem(
      await post(self0, '/self/correction-requests', {
        timeEntryId: otherEntry,
        proposed: { clockIn: '2026-06-08T06:00:00+02:00' },
        reason: 'not mine',
      }),
      404,
      'not_found',
    );
    await expectProblem(
      await post(self0, `/self/correction-requests/${otherRequest.id}/withdraw`),
      404,
      'not_found',
    );
    await expectProblem(await post(self0, `/self/absences/${otherAbsence.id}/withdraw`), 404, 'not_found');
    // The managers' and readers' routes need permissions the person does not have.
    for (const path of [
      `/time-entries?employeeId=${other}&from=2026-06-08&to=2026-06-08`,
      `/time-entries/${otherEntry}`,
      `/time-entries/${otherEntry}/revisions`,
      `/employees/${other}`,
      '/employees',
      `/timesheets?employeeId=${other}&from=2026-06-08&to=2026-06-14`,
      `/leave-balances?employeeId=${other}`,
      '/absences/requests',
      '/absences/calendar?month=2026-06',
      '/correction-requests',
      '/time-clock/status',
    ]) {
      // Every one of them refuses the person: 403 forbidden, never the other employee's data.
      await expectProblem(await self0.request(path), 403, 'forbidden');
    }
    await expectProblem(
      await post(self0, `/correction-requests/${otherRequest.id}/approve`),
      403,
      'forbidden',
    );
    await expectProblem(
      await post(self0, `/correction-requests/${otherRequest.id}/reject`, { reason: 'no' }),
      403,
      'forbidden',
    );
    await expectProblem(
      await self0.request(`/time-entries/${otherEntry}`, {
        method: 'PATCH',
        json: { reason: 'x', note: 'y' },
      }),
      403,
      'forbidden',
    );
    // The other employee's own view still holds them.
    expect((await json(self1.request('/self/correction-requests'), 200)).items[0].id).toBe(otherRequest.id);
    expect(
      (await json(post(self1, `/self/correction-requests/${otherRequest.id}/withdraw`), 200)).status,
    ).toBe('withdrawn');
    expect((await json(post(self1, `/self/absences/${otherAbsence.id}/withdraw`), 200)).status).toBe(
      'cancelled',
    );
  });

  it('requests absences by the rules of POST /absences, and shows the balances', async () => {
    const created = await json(
      post(self0, '/self/absences', { typeCode: 'vacation', startDate: '2026-06-15', endDate: '2026-06-19' }),
      201,
    );
    expect(created).toMatchObject({ status: 'requested', days: 5, employee: { id: a.employees[0]!.id } });
    await expectProblem(
      await post(self0, '/self/absences', {
        typeCode: 'vacation',
        startDate: '2026-06-18',
        endDate: '2026-06-22',
      }),
      409,
      'absence_overlaps',
    );
    await expectProblem(
      await post(self0, '/self/absences', {
        typeCode: 'vacation',
        startDate: '2026-06-22',
        endDate: '2026-06-21',
      }),
      422,
      'validation_failed',
    );
    await expectProblem(
      await post(self0, '/self/absences', {
        typeCode: 'nope',
        startDate: '2026-06-22',
        endDate: '2026-06-22',
      }),
      422,
      'validation_failed',
    );
    await expectProblem(
      await post(self0, '/self/absences', {
        typeCode: 'vacation',
        startDate: '2026-06-22',
        endDate: '2026-06-22',
        employee: { id: a.employees[1]!.id },
      }),
      422,
      'validation_failed',
    );
    const list = await json(self0.request('/self/absences?year=2026'), 200);
    expect(list.items.map((i: Json) => i.id)).toEqual([created.id]);
    const balances = await json(self0.request('/self/leave-balances'), 200);
    expect(balances).toMatchObject({ employee: { id: a.employees[0]!.id }, year: 2026 });
    expect(
      balances.items.find((i: Json) => i.typeCode === 'vacation' || i.type?.code === 'vacation'),
    ).toBeTruthy();
    expect((await json(post(self0, `/self/absences/${created.id}/withdraw`), 200)).status).toBe('cancelled');
    await expectProblem(
      await post(self0, `/self/absences/${created.id}/withdraw`),
      409,
      'invalid_status_transition',
    );
  });

  it('files, withdraws, approves and rejects correction requests, with their events', async () => {
    const today = (await json(self0.request('/self/time-entries?from=2026-06-09&to=2026-06-09'), 200))
      .items[0];
    await expectProblem(
      await post(self0, '/self/correction-requests', { timeEntryId: today.id, proposed: {}, reason: 'x' }),
      422,
      'validation_failed',
    );
    // The rules of a manager's correction, checked at once: here, a missing entry overlapping today's.
    await expectProblem(
      await post(self0, '/self/correction-requests', {
        timeEntryId: null,
        date: '2026-06-09',
        proposed: { clockIn: '2026-06-09T07:00:00Z', clockOut: '2026-06-09T09:00:00Z' },
        reason: 'forgot',
      }),
      409,
      'overlaps_existing_entry',
    );
    await expectProblem(
      await post(self0, '/self/correction-requests', {
        timeEntryId: null,
        proposed: { clockIn: '2026-06-05T06:00:00Z', clockOut: '2026-06-05T14:00:00Z' },
        reason: 'forgot',
      }),
      422,
      'validation_failed',
    );
    const filed = await json(
      post(self0, '/self/correction-requests', {
        timeEntryId: today.id,
        proposed: { clockIn: '2026-06-09T05:45:00Z' },
        reason: 'I forgot to clock in at the door',
      }),
      201,
    );
    expect(filed).toMatchObject({
      timeEntryId: today.id,
      date: '2026-06-09',
      status: 'requested',
      proposed: { clockIn: '2026-06-09T05:45:00Z', clockOut: null, breakMinutes: null },
      decidedBy: null,
    });
    await expectProblem(
      await post(self0, '/self/correction-requests', {
        timeEntryId: today.id,
        proposed: { clockIn: '2026-06-09T05:50:00Z' },
        reason: 'again',
      }),
      409,
      'correction_request_open',
    );
    const waiting = await json(manager.request('/correction-requests'), 200);
    expect(waiting.items.map((i: Json) => i.id)).toContain(filed.id);
    expect(waiting.items.find((i: Json) => i.id === filed.id).employeeName).toBe('First0 Last0');
    const approved = await json(post(manager, `/correction-requests/${filed.id}/approve`), 200);
    expect(approved).toMatchObject({
      status: 'approved',
      decidedBy: { kind: 'person', name: 'boss@acme.example' },
    });
    await expectProblem(
      await post(manager, `/correction-requests/${filed.id}/approve`),
      409,
      'invalid_status_transition',
    );
    await expectProblem(
      await post(self0, `/self/correction-requests/${filed.id}/withdraw`),
      409,
      'invalid_status_transition',
    );
    const entry = await json(manager.request(`/time-entries/${today.id}`), 200);
    expect(entry).toMatchObject({ startTime: '07:45:00', edited: true });
    const revisions = (await json(manager.request(`/time-entries/${today.id}/revisions`), 200)).items;
    expect(revisions.at(-1)).toMatchObject({
      action: 'corrected',
      actor: { kind: 'person', name: 'boss@acme.example' },
    });
    expect(revisions.at(-1).reason).toContain(`correction request ${filed.id}`);

    // A missing entry, approved: the shift is recorded by the manager.
    const missing = await json(
      post(self0, '/self/correction-requests', {
        timeEntryId: null,
        date: '2026-06-05',
        proposed: {
          clockIn: '2026-06-05T08:00:00+02:00',
          clockOut: '2026-06-05T16:00:00+02:00',
          breakMinutes: 30,
        },
        reason: 'I was at the fair all day',
      }),
      201,
    );
    await json(post(manager, `/correction-requests/${missing.id}/approve`), 200);
    const friday = await json(self0.request('/self/time-entries?from=2026-06-05&to=2026-06-05'), 200);
    expect(friday.items).toEqual([expect.objectContaining({ startTime: '08:00:00', totalHours: 7.5 })]);
    // Revision 1 names the request in its reason, by the manager; the entry's note is left alone.
    expect(
      await server.ctx.database.db
        .selectFrom('time_entries')
        .select(['note', 'notes'])
        .where('id', '=', friday.items[0].id)
        .executeTakeFirst(),
    ).toEqual({ note: null, notes: null });
    const recorded = (await json(manager.request(`/time-entries/${friday.items[0].id}/revisions`), 200))
      .items;
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({
      action: 'recorded',
      reason: `correction request ${missing.id}: I was at the fair all day`,
      actor: { kind: 'person' },
    });

    // Rejected with a reason; withdrawn by the employee.
    const toReject = await json(
      post(self0, '/self/correction-requests', {
        timeEntryId: today.id,
        proposed: { breakMinutes: 15 },
        reason: 'the break was shorter',
      }),
      201,
    );
    await expectProblem(
      await post(manager, `/correction-requests/${toReject.id}/reject`, {}),
      422,
      'validation_failed',
    );
    const rejected = await json(
      post(manager, `/correction-requests/${toReject.id}/reject`, { reason: 'it was not' }),
      200,
    );
    expect(rejected).toMatchObject({ status: 'rejected', decisionReason: 'it was not' });
    const toWithdraw = await json(
      post(self0, '/self/correction-requests', {
        timeEntryId: today.id,
        proposed: { clockOut: '2026-06-09T10:00:00Z' },
        reason: 'stayed on',
      }),
      201,
    );
    expect((await json(post(self0, `/self/correction-requests/${toWithdraw.id}/withdraw`), 200)).status).toBe(
      'withdrawn',
    );
    const mine = await json(self0.request('/self/correction-requests'), 200);
    expect(mine.items.map((i: Json) => i.status)).toEqual(['withdrawn', 'rejected', 'approved', 'approved']);

    // The change feed (attendance.read) carries them.
    const feed = await server.request(
      `${PUBLIC}/changes?types=correction.requested,correction.approved,correction.rejected,correction.withdrawn&limit=100`,
      { headers: { authorization: `Bearer ${token}` } },
    );
    const types = ((await json(feed, 200)).items as Json[])
      .filter((e) => [filed.id, missing.id, toReject.id, toWithdraw.id].includes(e.data.id))
      .map((e) => `${e.type}:${e.data.status}`);
    expect(types).toEqual([
      'correction.requested:requested',
      'correction.approved:approved',
      'correction.requested:requested',
      'correction.approved:approved',
      'correction.requested:requested',
      'correction.rejected:rejected',
      'correction.requested:requested',
      'correction.withdrawn:withdrawn',
    ]);
  });

  it("refuses a manager deciding on their own employee's request (own_entry)", async () => {
    // One active person per employee: the manager who is employee 2 files their own request.
    const boss2 = await linked(a.companyId, a.employees[2]!.id, '47,91');
    const request = await json(
      post(boss2, '/self/correction-requests', {
        timeEntryId: null,
        date: '2026-06-04',
        proposed: { clockIn: '2026-06-04T08:00:00+02:00', clockOut: '2026-06-04T12:00:00+02:00' },
        reason: 'missing',
      }),
      201,
    );
    await expectProblem(await post(boss2, `/correction-requests/${request.id}/approve`), 403, 'own_entry');
    await expectProblem(
      await post(boss2, `/correction-requests/${request.id}/reject`, { reason: 'no' }),
      403,
      'own_entry',
    );
    expect(
      (await json(post(manager, `/correction-requests/${request.id}/reject`, { reason: 'no' }), 200)).status,
    ).toBe('rejected');
  });

  it('invites every employee with an email and no person yet, once', async () => {
    const c = await createCompanyFixture(server.ctx, {
      name: 'Gamma',
      timeZone: 'Europe/Berlin',
      employeeCount: 3,
    });
    await linked(c.companyId, c.employees[0]!.id);
    const hr = await client
      .fresh()
      .signedIn(
        await createPerson(server.ctx, c.companyId, { email: 'hr@gamma.example', permissions: '91,92' }),
      );
    await expectProblem(await post(self0, '/employees/invite-all'), 403, 'forbidden');
    // Either permission alone is refused: the links act as every employee (review 2, #8).
    for (const [email, permissions] of [
      ['only92@gamma.example', '92'],
      ['only91@gamma.example', '91'],
    ] as const) {
      const one = await client
        .fresh()
        .signedIn(await createPerson(server.ctx, c.companyId, { email, permissions }));
      await expectProblem(await post(one, '/employees/invite-all', {}), 403, 'forbidden');
    }
    await expectProblem(
      await post(hr, '/employees/invite-all', { workplaceId: a.workplaceId }),
      404,
      'not_found',
    );
    const invited = await json(post(hr, '/employees/invite-all', {}), 200);
    expect(invited.items.map((i: Json) => i.employeeId).sort()).toEqual(
      [c.employees[1]!.id, c.employees[2]!.id].sort(),
    );
    expect(invited.items[0].url).toMatch(/\/console\/#\/invite\/[A-Za-z0-9_-]+$/);
    expect(
      (await json(post(hr, '/employees/invite-all', { workplaceId: c.workplaceId }), 200)).items,
    ).toEqual([]);
    // The link signs the person in to their own self-service, once.
    const fresh = client.fresh();
    const tokenOf = (url: string) => url.split('/invite/')[1]!;
    const person = await json(
      post(fresh, '/invitations/accept', { token: tokenOf(invited.items[0].url), password: PASSWORD }),
      200,
    );
    expect(person).toMatchObject({ permissions: [], employeeId: invited.items[0].employeeId });
    fresh.csrfToken = person.csrfToken;
    expect((await json(fresh.request('/self'), 200)).employee.id).toBe(invited.items[0].employeeId);
    await expectProblem(
      await post(client.fresh(), '/invitations/accept', {
        token: tokenOf(invited.items[0].url),
        password: PASSWORD,
      }),
      410,
      'invitation_invalid',
    );
  });

  it('creates one person per employee when invite everyone runs in parallel, and never a second active person', async () => {
    const c = await createCompanyFixture(server.ctx, {
      name: 'Parallel invites',
      timeZone: 'Europe/Berlin',
      employeeCount: 4,
    });
    const hr = await client
      .fresh()
      .signedIn(
        await createPerson(server.ctx, c.companyId, { email: 'hr@parallel.example', permissions: '91,92' }),
      );
    const answers = await Promise.all(Array.from({ length: 6 }, () => post(hr, '/employees/invite-all', {})));
    const invited: string[] = [];
    for (const r of answers) invited.push(...((await json(r, 200)).items as Json[]).map((i) => i.employeeId));
    expect(invited.sort()).toEqual(c.employees.map((e) => e.id).sort());
    const persons = await server.ctx.database.db
      .selectFrom('users')
      .select('employee_id')
      .where('company_id', '=', c.companyId)
      .where('employee_id', 'is not', null)
      .execute();
    expect(persons.map((p) => p.employee_id).sort()).toEqual(c.employees.map((e) => e.id).sort());
    // The database refuses a second active person of an employee (users_active_employee_key).
    await expect(
      inTransaction(server.ctx, (tx, now) =>
        createUser(tx, now, {
          companyId: c.companyId,
          email: 'second@parallel.example',
          employee: c.employees[0]!.id,
        }),
      ),
    ).rejects.toThrow(/already has an active person/);
  });

  it("ends the unused invitation links of a deleted employee's person", async () => {
    const c = await createCompanyFixture(server.ctx, {
      name: 'Leavers',
      timeZone: 'Europe/Berlin',
      employeeCount: 2,
    });
    const hr = await client
      .fresh()
      .signedIn(
        await createPerson(server.ctx, c.companyId, { email: 'hr@leavers.example', permissions: '91,92' }),
      );
    const invited = (await json(post(hr, '/employees/invite-all', {}), 200)).items as Json[];
    const linkOf = (employeeId: string) =>
      invited.find((i) => i.employeeId === employeeId)!.url.split('/invite/')[1];
    const deleted = await hr.request(`/employees/${c.employees[0]!.id}`, { method: 'DELETE' });
    expect(deleted.status, await deleted.clone().text()).toBeLessThan(300);
    await expectProblem(
      await post(client.fresh(), '/invitations/accept', {
        token: linkOf(c.employees[0]!.id),
        password: PASSWORD,
      }),
      410,
      'invitation_invalid',
    );
    // The other employee's link still works.
    await json(
      post(client.fresh(), '/invitations/accept', { token: linkOf(c.employees[1]!.id), password: PASSWORD }),
      200,
    );
  });

  it('skips an employee whose non-ASCII email an active person already has (email_in_use), on both databases', async () => {
    const c = await createCompanyFixture(server.ctx, {
      name: 'Non-ASCII',
      timeZone: 'Europe/Berlin',
      employeeCount: 2,
    });
    const [taken, free] = c.employees.map((e) => e.id) as [string, string];
    await inTransaction(server.ctx, (tx, now) =>
      updateEmployee(tx, now, taken, { email: '𝒜da.Émile@nonascii.example' }),
    );
    await inTransaction(server.ctx, (tx, now) =>
      updateEmployee(tx, now, free, { email: 'émile@nonascii.example' }),
    );
    await createPerson(server.ctx, c.companyId, { email: '𝒜da.Émile@nonascii.example', permissions: '' });
    const hr = await client
      .fresh()
      .signedIn(
        await createPerson(server.ctx, c.companyId, { email: 'hr@nonascii.example', permissions: '91,92' }),
      );
    const invited = await json(post(hr, '/employees/invite-all', {}), 200);
    // É is not folded (the local part is lower-cased in ASCII only): émile@ is another address.
    expect(invited.items.map((i: Json) => i.employeeId)).toEqual([free]);
    expect(invited.skipped).toEqual([{ employeeId: taken, reason: 'email_in_use' }]);
  });

  it('invites no one whose person was deactivated, and only employees active or on leave', async () => {
    const c = await createCompanyFixture(server.ctx, {
      name: 'Zeta',
      timeZone: 'Europe/Berlin',
      employeeCount: 6,
    });
    const [left, terminated, suspended, inactive, onLeave, active] = c.employees.map((e) => e.id) as [
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    // Access taken away stays away: a deactivated person still counts as the employee's person.
    const gone = await linked(c.companyId, left);
    await inTransaction(server.ctx, (tx, now) => deactivateUser(tx, now, gone.userId));
    for (const [id, status] of [
      [terminated, 'terminated'],
      [suspended, 'suspended'],
      [inactive, 'inactive'],
      [onLeave, 'on_leave'],
    ] as const)
      await inTransaction(server.ctx, (tx, now) => updateEmployee(tx, now, id, { status }));
    const hr = await client
      .fresh()
      .signedIn(
        await createPerson(server.ctx, c.companyId, { email: 'hr@zeta.example', permissions: '91,92' }),
      );
    const invited = await json(post(hr, '/employees/invite-all', {}), 200);
    expect(invited.items.map((i: Json) => i.employeeId).sort()).toEqual([onLeave, active].sort());
  });

  it('lets an employee who does not work read self-service but not punch or request (employee_not_active)', async () => {
    const c = await createCompanyFixture(server.ctx, {
      name: 'Eta',
      timeZone: 'Europe/Berlin',
      employeeCount: 1,
    });
    await inTransaction(server.ctx, (tx, now) => updateCompany(tx, now, c.companyId, { webClock: 'on' }));
    const id = c.employees[0]!.id;
    const worker = await linked(c.companyId, id);
    const absence = await json(
      post(worker, '/self/absences', { typeCode: 'unpaid', startDate: '2026-07-06', endDate: '2026-07-06' }),
      201,
    );
    const request = await json(
      post(worker, '/self/correction-requests', {
        timeEntryId: null,
        date: '2026-06-08',
        proposed: { clockIn: '2026-06-08T07:00:00Z', clockOut: '2026-06-08T11:00:00Z' },
        reason: 'forgot',
      }),
      201,
    );
    for (const status of ['terminated', 'suspended', 'inactive'] as const) {
      await inTransaction(server.ctx, (tx, now) => updateEmployee(tx, now, id, { status }));
      const refused = await expectProblem(await punch(worker, 'clock_in'), 403, 'employee_not_active');
      expect(refused.detail).toContain(status);
      await expectProblem(
        await post(worker, '/self/absences', {
          typeCode: 'unpaid',
          startDate: '2026-07-08',
          endDate: '2026-07-08',
        }),
        403,
        'employee_not_active',
      );
      await expectProblem(
        await post(worker, `/self/absences/${absence.id}/withdraw`),
        403,
        'employee_not_active',
      );
      await expectProblem(
        await post(worker, '/self/correction-requests', {
          timeEntryId: null,
          date: '2026-06-05',
          proposed: { clockIn: '2026-06-05T07:00:00Z', clockOut: '2026-06-05T11:00:00Z' },
          reason: 'forgot',
        }),
        403,
        'employee_not_active',
      );
      await expectProblem(
        await post(worker, `/self/correction-requests/${request.id}/withdraw`),
        403,
        'employee_not_active',
      );
      // Reads stay.
      expect((await json(worker.request('/self'), 200)).employee.id).toBe(id);
      await json(worker.request('/self/absences'), 200);
      await json(worker.request('/self/correction-requests'), 200);
    }
    await inTransaction(server.ctx, (tx, now) => updateEmployee(tx, now, id, { status: 'on_leave' }));
    expect((await json(punch(worker, 'clock_in'), 201)).type).toBe('clock_in');
  });

  it('refuses all but one of parallel correction requests for one entry (correction_request_open)', async () => {
    const c = await createCompanyFixture(server.ctx, {
      name: 'Theta',
      timeZone: 'Europe/Berlin',
      employeeCount: 1,
    });
    const worker = await linked(c.companyId, c.employees[0]!.id);
    const entry = await addEntry(c, c.employees[0]!.id, '2026-06-08');
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        post(worker, '/self/correction-requests', {
          timeEntryId: entry,
          proposed: { breakMinutes: i + 1 },
          reason: `parallel ${i}`,
        }),
      ),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses, JSON.stringify(statuses)).toEqual([201, 409, 409, 409, 409, 409]);
    for (const r of answers.filter((x) => x.status === 409))
      await expectProblem(r, 409, 'correction_request_open');
    expect((await json(worker.request('/self/correction-requests'), 200)).items).toHaveLength(1);
  });

  it('refuses all but one of parallel requests for one missing day (correction_request_open)', async () => {
    const c = await createCompanyFixture(server.ctx, {
      name: 'Missing days',
      timeZone: 'Europe/Berlin',
      employeeCount: 1,
    });
    const worker = await linked(c.companyId, c.employees[0]!.id);
    const missing = (date: string, i: number) =>
      post(worker, '/self/correction-requests', {
        timeEntryId: null,
        date,
        proposed: { clockIn: `${date}T07:00:00Z`, clockOut: `${date}T${10 + (i % 5)}:00:00Z` },
        reason: `forgot ${i}`,
      });
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => missing('2026-06-03', i)));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses, JSON.stringify(statuses)).toEqual([201, 409, 409, 409, 409, 409]);
    for (const r of answers.filter((x) => x.status === 409))
      await expectProblem(r, 409, 'correction_request_open');
    // Filed again later: still refused while one waits; another day is its own request.
    await expectProblem(await missing('2026-06-03', 9), 409, 'correction_request_open');
    await json(missing('2026-06-04', 0), 201);
    expect((await json(worker.request('/self/correction-requests'), 200)).items).toHaveLength(2);
  });

  it("pages the correction requests (mine and the managers' list) with a cursor, 100 a page", async () => {
    const c = await createCompanyFixture(server.ctx, {
      name: 'Many requests',
      timeZone: 'Europe/Berlin',
      employeeCount: 1,
    });
    const worker = await linked(c.companyId, c.employees[0]!.id);
    const boss = await client
      .fresh()
      .signedIn(
        await createPerson(server.ctx, c.companyId, { email: 'boss@many.example', permissions: '47,91' }),
      );
    const at = '2026-06-01T10:00:00.000Z';
    const rows = Array.from({ length: 103 }, (_, i) => {
      const date = new Date(Date.parse('2026-01-01T00:00:00Z') + i * 86_400_000).toISOString().slice(0, 10);
      return {
        id: newId(),
        company_id: c.companyId,
        employee_id: c.employees[0]!.id,
        time_entry_id: null,
        time_entry_version: null,
        date,
        proposed_clock_in: `${date}T07:00:00Z`,
        proposed_clock_out: `${date}T11:00:00Z`,
        proposed_break_minutes: null,
        reason: `forgot ${i}`,
        status: 'requested',
        requested_by: worker.userId,
        decided_by_kind: null,
        decided_by_id: null,
        decided_by_name: null,
        decided_at: null,
        decision_reason: null,
        // Half share one instant: the cursor orders by (created_at, id).
        created_at: i % 2 === 0 ? at : new Date(Date.parse(at) + i * 1000).toISOString(),
        updated_at: at,
      };
    });
    await server.ctx.database.db.insertInto('correction_requests').values(rows).execute();
    for (const [who, path] of [
      [worker, '/self/correction-requests'],
      [boss, '/correction-requests'],
    ] as const) {
      const first = await json(who.request(path), 200);
      expect(first.items).toHaveLength(100);
      expect(typeof first.nextCursor).toBe('string');
      const second = await json(who.request(`${path}?cursor=${encodeURIComponent(first.nextCursor)}`), 200);
      expect(second.items).toHaveLength(3);
      expect(second.nextCursor).toBeNull();
      const ids = [...first.items, ...second.items].map((i: Json) => i.id);
      expect(new Set(ids).size).toBe(103);
      expect(ids.sort()).toEqual(rows.map((r) => r.id).sort());
    }
    // A cursor of one listing is refused by another.
    const mine = await json(worker.request('/self/correction-requests'), 200);
    await expectProblem(
      await boss.request(`/correction-requests?cursor=${encodeURIComponent(mine.nextCursor)}`),
      422,
      'validation_failed',
    );
  });

  it('audits invite everyone as the caller with one summary row, and lists who was skipped and why', async () => {
    const c = await createCompanyFixture(server.ctx, {
      name: 'Iota',
      timeZone: 'Europe/Berlin',
      employeeCount: 4,
    });
    const [elsewhere, sameEmail, first, second] = c.employees.map((e) => e.id) as [
      string,
      string,
      string,
      string,
    ];
    // Another company signs in with its own single sign-on for iota-partner.example.
    const at = new Date(NOW).toISOString();
    await server.ctx.database.db
      .insertInto('sso_configs')
      .values({
        company_id: b.companyId,
        issuer: 'https://idp.beta.example',
        client_id: 'beta',
        client_secret: 'v1.x.x.x.x',
        groups_claim: null,
        group_permissions: '{}',
        create_people: 0,
        require_sso: 0,
        configurer_permissions: null,
        created_at: at,
        updated_at: at,
      })
      .execute();
    await server.ctx.database.db
      .insertInto('sso_domains')
      .values({ domain: 'iota-partner.example', company_id: b.companyId })
      .execute();
    await inTransaction(server.ctx, (tx, now) =>
      updateEmployee(tx, now, elsewhere, { email: 'ext@iota-partner.example' }),
    );
    // An active person already has this email, written otherwise (the canonical form is compared).
    await inTransaction(server.ctx, (tx, now) =>
      updateEmployee(tx, now, sameEmail, { email: 'Ada.Lovelace@IOTA.example' }),
    );
    await createPerson(server.ctx, c.companyId, { email: 'ada.lovelace@iota.example', permissions: '' });
    const hrPerson = await createPerson(server.ctx, c.companyId, {
      email: 'hr@iota.example',
      permissions: '91,92',
    });
    const hr = await client.fresh().signedIn(hrPerson);
    const invited = await json(post(hr, '/employees/invite-all', {}), 200);
    expect(invited.items.map((i: Json) => i.employeeId).sort()).toEqual([first, second].sort());
    expect(invited.skipped).toEqual(
      expect.arrayContaining([
        { employeeId: elsewhere, reason: 'email_domain_signs_in_elsewhere' },
        { employeeId: sameEmail, reason: 'email_in_use' },
      ]),
    );
    expect(invited.skipped).toHaveLength(2);
    // The other company's domain is never named.
    expect(JSON.stringify(invited)).not.toContain('iota-partner');
    const rows = await server.ctx.database.db
      .selectFrom('audit_log')
      .select(['action', 'actor_type', 'actor_id', 'target_id', 'details'])
      .where('company_id', '=', c.companyId)
      .where('action', 'in', ['user.create', 'user.invite', 'employees.invite_all'])
      .execute();
    // Each new person and their invitation name the caller (not `cli`).
    const newPeople: string[] = invited.items.map((i: Json) => i.userId);
    const ofInvitees = rows.filter((r) => newPeople.includes(r.target_id!));
    expect(ofInvitees.map((r) => r.action).sort()).toEqual([
      'user.create',
      'user.create',
      'user.invite',
      'user.invite',
    ]);
    for (const row of ofInvitees) expect(row).toMatchObject({ actor_type: 'user', actor_id: hrPerson.id });
    const summary = rows.filter((r) => r.action === 'employees.invite_all');
    expect(summary).toHaveLength(1);
    expect(summary[0]).toMatchObject({ actor_type: 'user', actor_id: hrPerson.id, target_id: c.companyId });
    expect(JSON.parse(summary[0]!.details!)).toMatchObject({ invited: 2, skipped: 2 });
    // Creating a person checks the canonical form too (one person per email, as sign-in finds them).
    await expect(
      inTransaction(server.ctx, (tx, now) =>
        createUser(tx, now, { companyId: c.companyId, email: 'HR@Iota.Example' }),
      ),
    ).rejects.toThrow(/already exists/);
  });

  it('closes the waiting requests of a deleted entry or employee (withdrawn by the system, with the event)', async () => {
    const c = await createCompanyFixture(server.ctx, {
      name: 'Kappa',
      timeZone: 'Europe/Berlin',
      employeeCount: 2,
    });
    const boss = await client
      .fresh()
      .signedIn(
        await createPerson(server.ctx, c.companyId, { email: 'boss@kappa.example', permissions: '47,91' }),
      );
    const [ofEntry, ofEmployee] = await Promise.all(
      c.employees.map(async (e) => ({ employee: e.id, worker: await linked(c.companyId, e.id) })),
    );
    const entry = await addEntry(c, ofEntry!.employee, '2026-06-08');
    const onEntry = await json(
      post(ofEntry!.worker, '/self/correction-requests', {
        timeEntryId: entry,
        proposed: { breakMinutes: 45 },
        reason: 'longer lunch',
      }),
      201,
    );
    const missing = await json(
      post(ofEmployee!.worker, '/self/correction-requests', {
        timeEntryId: null,
        date: '2026-06-08',
        proposed: { clockIn: '2026-06-08T07:00:00Z', clockOut: '2026-06-08T11:00:00Z' },
        reason: 'forgot',
      }),
      201,
    );
    const deleted = await boss.request(`/time-entries/${entry}`, {
      method: 'DELETE',
      json: { reason: 'duplicate' },
    });
    expect(deleted.status, await deleted.clone().text()).toBe(204);
    await inTransaction(server.ctx, (tx, now) => deleteEmployee(tx, now, ofEmployee!.employee));
    const closed = (await json(boss.request('/correction-requests?status=withdrawn'), 200)).items as Json[];
    expect(closed.map((i) => i.id).sort()).toEqual([onEntry.id, missing.id].sort());
    for (const item of closed) expect(item.decidedBy).toMatchObject({ kind: 'system', id: null });
    expect(closed.find((i) => i.id === onEntry.id)!.decisionReason).toBe('the time entry was deleted');
    expect(closed.find((i) => i.id === missing.id)!.decisionReason).toBe('the employee was deleted');
    expect((await json(boss.request('/correction-requests'), 200)).items).toEqual([]);
    const t = await fetchToken(server, c.key.clientId, c.key.secret);
    const feed = await server.request(`${PUBLIC}/changes?types=correction.withdrawn&limit=100`, {
      headers: { authorization: `Bearer ${t}` },
    });
    const events = (await json(feed, 200)).items as Json[];
    expect(events.map((e) => `${e.data.id}:${e.data.status}:${e.data.decidedBy.kind}`).sort()).toEqual(
      [`${onEntry.id}:withdrawn:system`, `${missing.id}:withdrawn:system`].sort(),
    );
    // The employee sees it closed in their list.
    expect((await json(ofEntry!.worker.request('/self/correction-requests'), 200)).items[0].status).toBe(
      'withdrawn',
    );
  });

  it('approves while the entry or the employee is deleted in parallel without a deadlock (no 500)', async () => {
    const c = await createCompanyFixture(server.ctx, {
      name: 'Deadlock',
      timeZone: 'Europe/Berlin',
      employeeCount: 8,
    });
    const boss = await client.fresh().signedIn(
      await createPerson(server.ctx, c.companyId, {
        email: 'boss@deadlock.example',
        permissions: '47,91,92',
      }),
    );
    const rounds = await Promise.all(
      c.employees.map(async (e, i) => {
        const worker = await linked(c.companyId, e.id);
        const entry = await addEntry(c, e.id, '2026-06-08');
        const onEntry = await json(
          post(worker, '/self/correction-requests', {
            timeEntryId: entry,
            proposed: { breakMinutes: 45 },
            reason: 'longer lunch',
          }),
          201,
        );
        const missing = await json(
          post(worker, '/self/correction-requests', {
            timeEntryId: null,
            date: '2026-06-07',
            proposed: { clockIn: '2026-06-07T07:00:00Z', clockOut: '2026-06-07T11:00:00Z' },
            reason: 'forgot',
          }),
          201,
        );
        return { employee: e.id, entry, onEntry: onEntry.id as string, missing: missing.id as string, i };
      }),
    );
    const answers = await Promise.all(
      rounds.flatMap((r) =>
        r.i % 2 === 0
          ? [
              post(boss, `/correction-requests/${r.onEntry}/approve`),
              boss.request(`/time-entries/${r.entry}`, { method: 'DELETE', json: { reason: 'duplicate' } }),
            ]
          : [
              post(boss, `/correction-requests/${r.missing}/approve`),
              boss.request(`/employees/${r.employee}`, { method: 'DELETE' }),
            ],
      ),
    );
    const statuses = answers.map((r) => r.status);
    // Each pair serialises: approved then deleted, or deleted (the request closed) then refused.
    for (const s of statuses) expect([200, 204, 404, 409, 412, 422], JSON.stringify(statuses)).toContain(s);
    for (let i = 0; i < answers.length; i += 2)
      expect(answers[i + 1]!.status, JSON.stringify(statuses)).toBe(204);
  });

  it('refuses to approve a request over an entry changed since it was filed (version_mismatch)', async () => {
    const c = await createCompanyFixture(server.ctx, {
      name: 'Lambda',
      timeZone: 'Europe/Berlin',
      employeeCount: 1,
    });
    const boss = await client
      .fresh()
      .signedIn(
        await createPerson(server.ctx, c.companyId, { email: 'boss@lambda.example', permissions: '47,91' }),
      );
    const worker = await linked(c.companyId, c.employees[0]!.id);
    const entry = await addEntry(c, c.employees[0]!.id, '2026-06-08');
    const request = await json(
      post(worker, '/self/correction-requests', {
        timeEntryId: entry,
        proposed: { breakMinutes: 45 },
        reason: 'longer lunch',
      }),
      201,
    );
    // A manager corrects the entry meanwhile: the request was about the entry as it was.
    await json(
      boss.request(`/time-entries/${entry}`, {
        method: 'PATCH',
        json: { clockOut: '2026-06-08T16:00:00+02:00', reason: 'left later' },
      }),
      200,
    );
    const refused = await expectProblem(
      await post(boss, `/correction-requests/${request.id}/approve`),
      412,
      'version_mismatch',
    );
    expect(refused.detail).toMatch(/reject the request and ask the employee to file it again/);
    const after = await json(boss.request(`/time-entries/${entry}`), 200);
    expect(after).toMatchObject({ breakMinutes: 30, endTime: '16:00:00' });
    expect((await json(boss.request('/correction-requests'), 200)).items).toEqual([
      expect.objectContaining({ id: request.id, status: 'requested' }),
    ]);
    await json(post(boss, `/correction-requests/${request.id}/reject`, { reason: 'the entry changed' }), 200);
  });

  it('invites in the same order on both databases (no last name first) and finds people by employee through an index', async () => {
    const c = await createCompanyFixture(server.ctx, {
      name: 'Mu',
      timeZone: 'Europe/Berlin',
      employeeCount: 3,
    });
    const [zed, nameless, alpha] = c.employees.map((e) => e.id) as [string, string, string];
    await inTransaction(server.ctx, (tx, now) => updateEmployee(tx, now, zed, { lastName: 'Zed' }));
    await inTransaction(server.ctx, (tx, now) => updateEmployee(tx, now, nameless, { lastName: 'none' }));
    await inTransaction(server.ctx, (tx, now) => updateEmployee(tx, now, alpha, { lastName: 'Alpha' }));
    const hr = await client
      .fresh()
      .signedIn(
        await createPerson(server.ctx, c.companyId, { email: 'hr@mu.example', permissions: '91,92' }),
      );
    const invited = await json(post(hr, '/employees/invite-all', {}), 200);
    expect(invited.items.map((i: Json) => i.employeeId)).toEqual([nameless, alpha, zed]);
    const { sql } = await import('kysely');
    const db = server.ctx.database.db;
    const indexes =
      dialect.name === 'sqlite'
        ? await sql<{
            name: string;
          }>`select name from sqlite_master where type = 'index' and tbl_name = 'users'`.execute(db)
        : await sql<{
            name: string;
          }>`select indexname as name from pg_indexes where tablename = 'users'`.execute(db);
    expect(indexes.rows.map((r) => r.name)).toContain('users_employee_idx');
  });

  it("invites in one order whatever the database's collation (a linguistic one on PostgreSQL)", async () => {
    // A server of its own: the column's collation changes before any statement is prepared.
    const own = await startTestServer(dialect, { now: () => clock });
    try {
      const { sql } = await import('kysely');
      // A database created with a linguistic collation (en_US and the like) sorts adams before Baker.
      if (dialect.name !== 'sqlite')
        await sql`alter table employees alter column last_name type text collate "und-x-icu"`.execute(
          own.ctx.database.db,
        );
      const c = await createCompanyFixture(own.ctx, {
        name: 'Collation',
        timeZone: 'Europe/Berlin',
        employeeCount: 2,
      });
      const [lower, upper] = c.employees.map((e) => e.id) as [string, string];
      await inTransaction(own.ctx, (tx, now) => updateEmployee(tx, now, lower, { lastName: 'adams' }));
      await inTransaction(own.ctx, (tx, now) => updateEmployee(tx, now, upper, { lastName: 'Baker' }));
      const hr = await (
        await AdminClient.create(own)
      )
        .fresh()
        .signedIn(
          await createPerson(own.ctx, c.companyId, { email: 'hr@collation.example', permissions: '91,92' }),
        );
      const invited = await json(post(hr, '/employees/invite-all', {}), 200);
      expect(invited.items.map((i: Json) => i.employeeId)).toEqual([upper, lower]);
    } finally {
      await own.stop();
    }
  });

  it("counts today's hours from midnight: a session open since yesterday, yesterday's night shift", async () => {
    const c = await createCompanyFixture(server.ctx, {
      name: 'Nu',
      timeZone: 'Europe/Berlin',
      employeeCount: 2,
    });
    await inTransaction(server.ctx, (tx, now) => updateCompany(tx, now, c.companyId, { webClock: 'on' }));
    const night = await linked(c.companyId, c.employees[0]!.id);
    // Clocked in yesterday at 22:00 in Berlin, still in at 12:00 today: 12 hours today, not 14.
    await json(punch(night, 'clock_in', '2026-06-08T20:00:00Z'), 201);
    expect(await json(night.request('/self'), 200)).toMatchObject({
      today: '2026-06-09',
      state: { clockedIn: true },
      todayHours: 12,
    });
    // Yesterday's shift 20:00-04:00 (an overnight shift has no break): today's 4 hours.
    const shifter = await linked(c.companyId, c.employees[1]!.id);
    const t = await fetchToken(server, c.key.clientId, c.key.secret);
    const shift = await server.request(`${PUBLIC}/time-entries`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        employee: { id: c.employees[1]!.id },
        clockIn: '2026-06-08T20:00:00+02:00',
        clockOut: '2026-06-09T04:00:00+02:00',
      }),
    });
    await json(shift, 201);
    expect((await json(shifter.request('/self'), 200)).todayHours).toBe(4);
  });

  it('pages my time entries beyond 100 with a cursor', async () => {
    const c = await createCompanyFixture(server.ctx, {
      name: 'Xi',
      timeZone: 'Europe/Berlin',
      employeeCount: 1,
    });
    const worker = await linked(c.companyId, c.employees[0]!.id);
    const t = await fetchToken(server, c.key.clientId, c.key.secret);
    const created: string[] = [];
    for (let day = 0; day < 26; day += 1)
      for (const hour of [1, 3, 5, 7]) {
        const date = new Date(Date.parse('2026-05-12T00:00:00Z') + day * 86_400_000)
          .toISOString()
          .slice(0, 10);
        const pad = (n: number) => String(n).padStart(2, '0');
        const shift = await server.request(`${PUBLIC}/time-entries`, {
          method: 'POST',
          headers: { authorization: `Bearer ${t}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            employee: { id: c.employees[0]!.id },
            clockIn: `${date}T${pad(hour)}:00:00Z`,
            clockOut: `${date}T${pad(hour)}:30:00Z`,
          }),
        });
        created.push(((await json(shift, 201)) as { timeEntryId: string }).timeEntryId);
      }
    const first = await json(worker.request('/self/time-entries?from=2026-05-01&to=2026-06-09'), 200);
    expect(first.items).toHaveLength(100);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await json(
      worker.request(
        `/self/time-entries?from=2026-05-01&to=2026-06-09&cursor=${encodeURIComponent(first.nextCursor)}`,
      ),
      200,
    );
    expect(second.items).toHaveLength(4);
    expect(second.nextCursor ?? null).toBeNull();
    expect([...first.items, ...second.items].map((i: Json) => i.id).sort()).toEqual(created.sort());
    // A forged cursor is refused.
    await expectProblem(
      await worker.request('/self/time-entries?from=2026-05-01&to=2026-06-09&cursor=forged'),
      422,
      'validation_failed',
    );
  });

  it("switches the web clock on the console's Company screen (93 only)", async () => {
    const c = await createCompanyFixture(server.ctx, {
      name: 'Epsilon',
      timeZone: 'Europe/Berlin',
      employeeCount: 1,
    });
    const owner = await client
      .fresh()
      .signedIn(
        await createPerson(server.ctx, c.companyId, { email: 'owner@eps.example', permissions: '93' }),
      );
    const worker = await linked(c.companyId, c.employees[0]!.id);
    expect((await json(owner.request('/company'), 200)).webClock).toBe(false);
    await expectProblem(
      await worker.request('/company', { method: 'PATCH', json: { webClock: true } }),
      403,
      'forbidden',
    );
    expect(
      (await json(owner.request('/company', { method: 'PATCH', json: { webClock: true } }), 200)).webClock,
    ).toBe(true);
    expect((await json(punch(worker, 'clock_in'), 201)).type).toBe('clock_in');
    await json(owner.request('/company', { method: 'PATCH', json: { webClock: false } }), 200);
    await expectProblem(await punch(worker, 'clock_out'), 403, 'web_clock_disabled');
  });

  it('stops at once for a deactivated person or a deleted employee', async () => {
    const c = await createCompanyFixture(server.ctx, {
      name: 'Delta',
      timeZone: 'Europe/Berlin',
      employeeCount: 2,
    });
    const gone = await linked(c.companyId, c.employees[1]!.id);
    await json(gone.request('/self'), 200);
    await inTransaction(server.ctx, (tx, now) => deactivateUser(tx, now, gone.userId));
    await expectProblem(await gone.request('/self'), 401, 'session_required');
    const leaver = await linked(c.companyId, c.employees[0]!.id);
    await json(leaver.request('/self'), 200);
    await inTransaction(server.ctx, (tx, now) => deleteEmployee(tx, now, c.employees[0]!.id));
    await expectProblem(await leaver.request('/self'), 403, 'not_an_employee');
    await expectProblem(await punch(leaver, 'clock_in'), 403, 'not_an_employee');
  });

  it('refuses an approval the corrections room refuses, and the request stays waiting', async () => {
    const entry = (await json(self1.request('/self/time-entries?from=2026-06-09&to=2026-06-09'), 200))
      .items[0];
    const request = await json(
      post(self1, '/self/correction-requests', {
        timeEntryId: entry.id,
        proposed: { clockOut: '2026-06-09T09:30:00Z' },
        reason: 'stayed longer',
      }),
      201,
    );
    await json(post(manager, '/confirmed-days', { employeeId: a.employees[1]!.id, date: '2026-06-09' }), 201);
    await expectProblem(await post(manager, `/correction-requests/${request.id}/approve`), 409, 'day_locked');
    const waiting = (await json(manager.request('/correction-requests'), 200)).items.find(
      (i: Json) => i.id === request.id,
    );
    expect(waiting).toMatchObject({ status: 'requested', decidedBy: null });
    expect((await json(manager.request(`/time-entries/${entry.id}`), 200)).endTime).toBe('10:58:00');
    // A new request on the locked day is refused when filed.
    await json(
      post(manager, `/correction-requests/${request.id}/reject`, { reason: 'the day is confirmed' }),
      200,
    );
    await expectProblem(
      await post(self1, '/self/correction-requests', {
        timeEntryId: entry.id,
        proposed: { clockOut: '2026-06-09T09:30:00Z' },
        reason: 'again',
      }),
      409,
      'day_locked',
    );
  });

  it('lets the person set their own kiosk PIN (session and CSRF, 4 to 8 digits, a slow hash, audited)', async () => {
    const employeeId = a.employees[0]!.id;
    await expectProblem(
      await self0.request('/self/pin', { method: 'PUT', json: { pin: '12a4' } }),
      422,
      'validation_failed',
    );
    await expectProblem(
      await self0.request('/self/pin', { method: 'PUT', json: { pin: '123' } }),
      422,
      'validation_failed',
    );
    await expectProblem(
      await self0.request('/self/pin', { method: 'PUT', json: { pin: '2580' }, csrf: null }),
      403,
      'csrf_failed',
    );
    await expectProblem(
      await client.fresh().request('/self/pin', { method: 'PUT', json: { pin: '2580' } }),
      401,
      'session_required',
    );
    expect(
      await server.database.db
        .selectFrom('employee_pins')
        .select('employee_id')
        .where('employee_id', '=', employeeId)
        .executeTakeFirst(),
    ).toBeUndefined();
    expect(await json(self0.request('/self/pin', { method: 'PUT', json: { pin: '2580' } }), 200)).toEqual({
      id: employeeId,
      pinSet: true,
    });
    const row = await server.database.db
      .selectFrom('employee_pins')
      .select('pin_hash')
      .where('employee_id', '=', employeeId)
      .executeTakeFirstOrThrow();
    expect(row.pin_hash).not.toContain('2580');
    expect(await verifyPassword('2580', row.pin_hash)).toBe(true);
    const audit = await server.database.db
      .selectFrom('audit_log')
      .select(['actor_type', 'actor_id', 'target_id'])
      .where('action', '=', 'employee.set_pin')
      .where('target_id', '=', employeeId)
      .execute();
    expect(audit).toEqual([{ actor_type: 'user', actor_id: self0.userId, target_id: employeeId }]);
    // A person linked to no employee has no PIN to set.
    const plain = await client
      .fresh()
      .signedIn(
        await createPerson(server.ctx, a.companyId, { email: 'nopin@acme.example', permissions: '92' }),
      );
    await expectProblem(
      await plain.request('/self/pin', { method: 'PUT', json: { pin: '2580' } }),
      403,
      'not_an_employee',
    );
  });

  /** A company of its own with the web clock on, and its self-service person. */
  async function clockCompany(name: string) {
    const c = await createCompanyFixture(server.ctx, { name, timeZone: 'Europe/Berlin' });
    await inTransaction(server.ctx, (tx, now) => updateCompany(tx, now, c.companyId, { webClock: 'on' }));
    return { c, person: await linked(c.companyId, c.employees[0]!.id) };
  }

  /** A web-clock punch sent when the server's clock says `serverAt`. */
  async function sendAt(
    c: AdminClient,
    body: Json,
    serverAt: string,
    headers: Record<string, string> = {},
    key = crypto.randomUUID(),
  ) {
    clock = Date.parse(serverAt);
    try {
      return await post(c, '/self/clock', body, { 'idempotency-key': key, ...headers });
    } finally {
      clock = NOW;
    }
  }

  it('puts the review flags into the events: offline_punch on time_entry.opened and time_entry.completed (change feed)', async () => {
    const { c, person } = await clockCompany('Delta');
    const opened = await json(
      sendAt(person, { type: 'clock_in', occurredAt: '2026-06-09T07:00:00Z' }, '2026-06-09T10:00:00Z'),
      201,
    );
    await json(sendAt(person, { type: 'clock_out' }, '2026-06-09T10:00:00Z'), 201);
    const t = await fetchToken(server, c.key.clientId, c.key.secret);
    const feed = await json(
      server.request(`${PUBLIC}/changes?limit=100`, { headers: { authorization: `Bearer ${t}` } }),
      200,
    );
    const event = (type: string) =>
      (feed.items as Json[]).find((e) => e.type === type && (e.data as Json).id === opened.timeEntryId);
    expect((event('time_entry.opened')!.data as Json).reviewFlags).toEqual(['offline_punch']);
    expect((event('time_entry.completed')!.data as Json).reviewFlags).toEqual(['offline_punch']);
  });

  it("judges occurredAt by the browser's measured clock offset (X-Device-Clock), and takes only live punches at a workplace with address ranges", async () => {
    const { c, person } = await clockCompany('Epsilon');
    // A phone 10 minutes behind sends a live punch with its own time: not offline, but device_clock_skew.
    const live = await json(
      sendAt(person, { type: 'clock_in', occurredAt: '2026-06-09T09:50:00Z' }, '2026-06-09T10:00:00Z', {
        'x-device-clock': '2026-06-09T09:50:00Z',
      }),
      201,
    );
    const items = async () =>
      (await json(person.request('/self/time-entries?from=2026-06-08&to=2026-06-09'), 200)).items as Json[];
    expect((await items()).find((e) => e.id === live.timeEntryId)!.reviewFlags).toEqual([
      'device_clock_skew',
    ]);
    // A phone 4 minutes ahead: a live punch with its time is not "ahead of the server".
    await json(
      sendAt(person, { type: 'clock_out', occurredAt: '2026-06-09T10:14:00Z' }, '2026-06-09T10:10:00Z', {
        'x-device-clock': '2026-06-09T10:14:00Z',
      }),
      201,
    );
    // 11 h 55 min old by the phone's clock, which is 10 minutes ahead: 12 h 5 min old, not_live.
    const old = await expectProblem(
      await sendAt(person, { type: 'clock_in', occurredAt: '2026-06-08T22:05:00Z' }, '2026-06-09T10:00:00Z', {
        'x-device-clock': '2026-06-09T10:10:00Z',
      }),
      422,
      'validation_failed',
    );
    expect(old.errors![0]).toMatchObject({ field: 'occurredAt', code: 'not_live' });

    // A workplace with address ranges: only live punches (the range holds at the moment of the punch).
    await inTransaction(server.ctx, (tx, now) =>
      setWebClockAllowedIps(tx, now, c.workplaceId, '127.0.0.0/8,::1/128', CLI),
    );
    const queued = await expectProblem(
      await sendAt(person, { type: 'clock_in', occurredAt: '2026-06-09T07:20:00Z' }, '2026-06-09T10:20:00Z'),
      422,
      'validation_failed',
    );
    expect(queued.errors![0]).toMatchObject({ field: 'occurredAt', code: 'not_live' });
    expect(queued.errors![0]!.message).toMatch(/accepts only live punches/);
    await json(
      sendAt(person, { type: 'clock_in', occurredAt: '2026-06-09T10:19:00Z' }, '2026-06-09T10:20:00Z'),
      201,
    );
    await json(sendAt(person, { type: 'clock_out' }, '2026-06-09T10:25:00Z'), 201);
    // From an address outside the ranges: 403 whatever occurredAt says.
    await inTransaction(server.ctx, (tx, now) =>
      setWebClockAllowedIps(tx, now, c.workplaceId, '203.0.113.0/24', CLI),
    );
    await expectProblem(
      await sendAt(person, { type: 'clock_in', occurredAt: '2026-06-09T10:00:00Z' }, '2026-06-09T10:28:00Z'),
      403,
      'address_not_allowed',
    );
  });

  it('keeps a refused offline punch for the administrator: one audit row time_entry.punch_refused per key', async () => {
    const { c, person } = await clockCompany('Zeta');
    const key = crypto.randomUUID();
    const body = { type: 'clock_out', occurredAt: '2026-06-09T07:00:00Z' };
    await expectProblem(await sendAt(person, body, '2026-06-09T10:00:00Z', {}, key), 409, 'no_open_session');
    await expectProblem(await sendAt(person, body, '2026-06-09T10:00:00Z', {}, key), 409, 'no_open_session');
    // A live punch refused is the person's to see at once: no row.
    await expectProblem(
      await sendAt(person, { type: 'clock_out' }, '2026-06-09T10:00:00Z'),
      409,
      'no_open_session',
    );
    const rows = await server.database.db
      .selectFrom('audit_log')
      .select(['actor_type', 'actor_id', 'target_id', 'details'])
      .where('action', '=', 'time_entry.punch_refused')
      .where('company_id', '=', c.companyId)
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      actor_type: 'user',
      actor_id: person.userId,
      target_id: c.employees[0]!.id,
    });
    expect(JSON.parse(rows[0]!.details!)).toMatchObject({
      personId: person.userId,
      employeeId: c.employees[0]!.id,
      type: 'clock_out',
      occurredAt: '2026-06-09T07:00:00Z',
      error: 'no_open_session',
    });
  });

  it('limits PUT /self/pin to 5 changes per person in 15 minutes (429 rate_limited, Retry-After), before hashing', async () => {
    const { c, person } = await clockCompany('Eta');
    for (let i = 0; i < 5; i += 1)
      await json(person.request('/self/pin', { method: 'PUT', json: { pin: `258${i}` } }), 200);
    const refused = await person.request('/self/pin', { method: 'PUT', json: { pin: '9999' } });
    await expectProblem(refused, 429, 'rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const audits = await server.database.db
      .selectFrom('audit_log')
      .select('id')
      .where('action', '=', 'employee.set_pin')
      .where('target_id', '=', c.employees[0]!.id)
      .execute();
    expect(audits).toHaveLength(5);
    const row = await server.database.db
      .selectFrom('employee_pins')
      .select('pin_hash')
      .where('employee_id', '=', c.employees[0]!.id)
      .executeTakeFirstOrThrow();
    expect(await verifyPassword('2584', row.pin_hash)).toBe(true);
  });
});
