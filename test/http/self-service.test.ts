import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliCallerOf } from '../../src/modules/absences/actors.js';
import { setEntitlement } from '../../src/modules/absences/leave.js';
import { updateCompany } from '../../src/modules/companies/service.js';
import { inTransaction } from '../../src/modules/context.js';
import { deleteEmployee } from '../../src/modules/employees/changes.js';
import { setUserPassword } from '../../src/modules/people/service.js';
import { createUser, deactivateUser } from '../../src/modules/people/users.js';
import { setWebClockAllowedIps } from '../../src/modules/self-service/settings.js';
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

  const punch = (c: AdminClient, type: string, occurredAt?: string, key = crypto.randomUUID()) =>
    post(c, '/self/clock', occurredAt === undefined ? { type } : { type, occurredAt }, {
      'idempotency-key': key,
    });

  beforeAll(async () => {
    server = await startTestServer(dialect, { now: () => NOW });
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
    await expectProblem(await punch(self1, 'clock_out', '2026-06-09T23:00:00Z'), 422, 'validation_failed');
    // A person dates their own punches back at most 24 hours (a terminal's 30 days are not theirs).
    const old = await expectProblem(
      await punch(self1, 'clock_out', '2026-06-08T09:59:00Z'),
      422,
      'validation_failed',
    );
    expect(old.errors).toEqual([expect.objectContaining({ field: 'occurredAt', code: 'too_far_in_past' })]);
    await json(punch(self1, 'clock_out', '2026-06-09T09:00:00Z'), 201);
  });

  it("limits the web clock to the workplace's address ranges", async () => {
    const set = (value: string) =>
      inTransaction(server.ctx, (tx, now) => setWebClockAllowedIps(tx, now, a.workplaceId, value, CLI));
    expect(await set('203.0.113.7/24')).toMatchObject({ webClockAllowedIps: ['203.0.113.0/24'] });
    expect((await json(self0.request('/self'), 200)).webClock).toEqual({ enabled: true, allowedHere: false });
    await expectProblem(await punch(self0, 'clock_in', '2026-06-09T09:00:00Z'), 403, 'address_not_allowed');
    await set('203.0.113.0/24,127.0.0.0/8,::1/128');
    expect((await json(self0.request('/self'), 200)).webClock.allowedHere).toBe(true);
    await set('none');
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
    const employee = a.employees[2]!.id;
    const self2 = await linked(a.companyId, employee);
    const boss2 = await linked(a.companyId, employee, '47,91');
    const request = await json(
      post(self2, '/self/correction-requests', {
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
        await createPerson(server.ctx, c.companyId, { email: 'hr@gamma.example', permissions: '92' }),
      );
    await expectProblem(await post(self0, '/employees/invite-all'), 403, 'forbidden');
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
    const gone = await linked(a.companyId, a.employees[2]!.id);
    await json(gone.request('/self'), 200);
    await inTransaction(server.ctx, (tx, now) => deactivateUser(tx, now, gone.userId));
    await expectProblem(await gone.request('/self'), 401, 'session_required');
    const c = await createCompanyFixture(server.ctx, {
      name: 'Delta',
      timeZone: 'Europe/Berlin',
      employeeCount: 1,
    });
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
    expect((await json(manager.request(`/time-entries/${entry.id}`), 200)).endTime).toBe('11:00:00');
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
});
