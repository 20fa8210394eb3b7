import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirmDay } from '../../src/modules/time-tracking/approval.js';
import { createUser, issueUserToken } from '../../src/modules/people/users.js';
import { CLI_ACTOR, inTransaction } from '../../src/modules/context.js';
import { managerOfAdmin } from '../../src/modules/corrections/entry-access.js';
import { closePeriod } from '../../src/modules/corrections/periods.js';
import {
  approvedAbsence,
  type Json,
  LEAVE_SCOPES,
  leaveTenant,
  type LeaveTenant,
  requestAbsence,
  V1,
} from '../support/absences.js';
import { secondKey } from '../support/api.js';
import { testDialects } from '../support/databases.js';
import { createCompanyFixture, fetchToken, startTestServer, type TestServer } from '../support/server.js';
import { call, timeTrackingSuite } from '../support/time-tracking.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/*
 * Issue 31 from outside, on both databases: absence types, requests and the status machine, every
 * refusal (overlap, balance, one-day portions, dates, no working day, locked day, own absence, status,
 * version, another company's id, scopes), dry runs and idempotency, lists with cursors, the change
 * feed (leave.read) and webhooks.
 */

describe.each(testDialects().map((d) => [d.name, d] as const))('absences on %s', (_name, dialect) => {
  // Monday 8 June 2026, 10:00 in Berlin.
  const suite = timeTrackingSuite(dialect, { start: Date.parse('2026-06-08T08:00:00Z') });

  async function tenant(): Promise<LeaveTenant> {
    const t = await leaveTenant(suite);
    await t.vacation({ yearlyEntitlementDays: 25 });
    return t;
  }

  const refused = async (
    reply: Promise<{ status: number; json: Json; text: string }>,
    status: number,
    error: string,
    field?: string,
  ) => {
    const r = await reply;
    expect(r.status, r.text).toBe(status);
    expect(r.json.error).toBe(error);
    if (field !== undefined) expect(r.json.errors?.map((e: Json) => e.field)).toContain(field);
    return r.json;
  };

  it('gives a company the default absence types', async () => {
    const t = await tenant();
    const types = await t.api('GET', '/absence-types');
    expect(types.status).toBe(200);
    expect(
      types.json.items.map((ty: Json) => [
        ty.code,
        ty.countsAsWorkTime,
        ty.requiresApproval,
        ty.deductsFromBalance,
        ty.paid,
      ]),
    ).toEqual([
      ['sick', true, false, false, true],
      ['unpaid', false, true, false, false],
      ['vacation', true, true, true, true],
    ]);
    expect(types.json.items.find((ty: Json) => ty.code === 'vacation')).toMatchObject({
      category: 'vacation',
      unit: 'days',
      yearlyEntitlementDays: 25,
      allowNegative: false,
      carryOverMaxDays: 0,
      carryOverExpiresOn: null,
    });
  });

  it('requests, approves, rejects and cancels by the status machine; a type without approval is approved at once', async () => {
    const t = await tenant();
    const [a, b] = t.employees as [string, string];
    const created = await requestAbsence(t, a, 'vacation', '2026-06-15', '2026-06-19', { note: 'Lake' });
    expect(created.status, created.text).toBe(201);
    expect(created.headers.get('etag')).toBe('"1"');
    expect(created.json).toMatchObject({
      employee: { id: a, externalId: 'EXT-0' },
      type: { code: 'vacation' },
      portion: 'full',
      hours: null,
      days: 5,
      status: 'requested',
      note: 'Lake',
      reason: null,
      decidedAt: null,
      decidedBy: null,
      version: 1,
      dryRun: false,
      balanceAfter: 20,
    });
    const id = created.json.id as string;
    const read = await t.api('GET', `/absences/${id}`);
    expect(read.headers.get('etag')).toBe('"1"');
    const approved = await t.api('POST', `/absences/${id}/approve`);
    expect(approved.status, approved.text).toBe(200);
    expect(approved.json).toMatchObject({
      status: 'approved',
      version: 2,
      decidedBy: { kind: 'api_key', id: t.fixture.key.id, name: 'test key' },
    });
    await refused(t.api('POST', `/absences/${id}/approve`), 409, 'invalid_status_transition');
    await refused(
      t.api('POST', `/absences/${id}/reject`, { reason: 'no' }),
      409,
      'invalid_status_transition',
    );
    const cancelled = await t.api('POST', `/absences/${id}/cancel`, { reason: 'Plans changed' });
    expect(cancelled.json).toMatchObject({ status: 'cancelled', reason: 'Plans changed', version: 3 });
    await refused(
      t.api('POST', `/absences/${id}/cancel`, { reason: 'again' }),
      409,
      'invalid_status_transition',
    );

    const second = await requestAbsence(t, a, 'vacation', '2026-06-15', '2026-06-16');
    expect(second.status).toBe(201);
    const rejected = await t.api('POST', `/absences/${second.json.id}/reject`, { reason: 'Team offsite' });
    expect(rejected.json).toMatchObject({ status: 'rejected', reason: 'Team offsite' });
    await refused(
      t.api('POST', `/absences/${second.json.id}/reject`, {}),
      422,
      'validation_failed',
      'reason',
    );

    const sick = await requestAbsence(t, b, 'sick', '2026-06-08', '2026-06-09');
    expect(sick.json).toMatchObject({
      status: 'approved',
      decidedBy: { kind: 'system', id: null, name: 'automatic approval' },
      balanceAfter: null,
    });
    const withdrawn = await t.api(
      'POST',
      `/absences/${(await requestAbsence(t, b, 'unpaid', '2026-07-01', '2026-07-01')).json.id}/cancel`,
      { reason: 'not needed' },
    );
    expect(withdrawn.json.status).toBe('cancelled');
  });

  it('refuses overlaps, too much leave, one-day portions over more days, bad ranges, days without work and locked days', async () => {
    const t = await tenant();
    const [a] = t.employees as [string];
    expect((await requestAbsence(t, a, 'vacation', '2026-06-15', '2026-06-17')).status).toBe(201);
    await refused(requestAbsence(t, a, 'sick', '2026-06-17', '2026-06-18'), 409, 'absence_overlaps');
    expect(
      (await requestAbsence(t, a, 'vacation', '2026-06-22', '2026-06-22', { portion: 'first_half' })).status,
    ).toBe(201);
    expect(
      (await requestAbsence(t, a, 'unpaid', '2026-06-22', '2026-06-22', { portion: 'second_half' })).status,
    ).toBe(201);
    await refused(
      requestAbsence(t, a, 'unpaid', '2026-06-22', '2026-06-22', { portion: 'first_half' }),
      409,
      'absence_overlaps',
    );
    // 25 days a year, 3.5 requested: six weeks are too many.
    const tooMuch = await refused(
      requestAbsence(t, a, 'vacation', '2026-08-03', '2026-09-11'),
      409,
      'insufficient_balance',
    );
    expect(tooMuch.detail).toMatch(/-/);
    await refused(
      requestAbsence(t, a, 'vacation', '2026-07-06', '2026-07-07', { portion: 'first_half' }),
      422,
      'validation_failed',
      'portion',
    );
    await refused(
      requestAbsence(t, a, 'sick', '2026-07-06', '2026-07-07', { portion: 'hours', hours: 2 }),
      422,
      'validation_failed',
      'portion',
    );
    await refused(
      requestAbsence(t, a, 'sick', '2026-07-06', '2026-07-06', { portion: 'hours' }),
      422,
      'validation_failed',
      'hours',
    );
    await refused(
      requestAbsence(t, a, 'sick', '2026-07-06', '2026-07-06', { hours: 2 }),
      422,
      'validation_failed',
      'hours',
    );
    await refused(
      requestAbsence(t, a, 'vacation', '2026-07-07', '2026-07-06'),
      422,
      'validation_failed',
      'endDate',
    );
    await refused(
      requestAbsence(t, a, 'vacation', '2026-07-11', '2026-07-12'),
      422,
      'validation_failed',
      'startDate',
    );
    await refused(
      requestAbsence(t, a, 'vacation', '2026-06-04', '2026-06-04'),
      422,
      'validation_failed',
      'startDate',
    );
    await refused(
      requestAbsence(t, a, 'parental', '2026-07-06', '2026-07-06'),
      422,
      'validation_failed',
      'typeCode',
    );
    await refused(
      requestAbsence(t, '00000000-0000-4000-8000-000000000000', 'sick', '2026-07-06', '2026-07-06'),
      404,
      'employee_not_found',
    );
    await refused(
      t.api('POST', '/absences', { employee: { id: a }, typeCode: 'sick', startDate: '2026-07-06' }),
      422,
      'validation_failed',
      'endDate',
    );

    const waiting = await requestAbsence(t, a, 'vacation', '2026-07-13', '2026-07-14');
    await inTransaction(suite.server.ctx, async (tx, now) => {
      await confirmDay(tx, now, { employeeId: a, date: '2026-07-14' });
      await confirmDay(tx, now, { employeeId: a, date: '2026-07-20' });
    });
    await refused(requestAbsence(t, a, 'sick', '2026-07-20', '2026-07-21'), 409, 'day_locked');
    await refused(t.api('POST', `/absences/${waiting.json.id}/approve`), 409, 'day_locked');
    // Rejecting changes no day's figures: allowed.
    expect((await t.api('POST', `/absences/${waiting.json.id}/reject`, { reason: 'locked' })).status).toBe(
      200,
    );
  });

  it("refuses days of a closed payroll period (issue 30), the company's or the workplace's, as locked", async () => {
    const t = await tenant();
    const [a, b] = t.employees as [string, string];
    const waiting = await requestAbsence(t, a, 'vacation', '2026-07-27', '2026-07-28');
    const approved = await approvedAbsence(t, b, 'vacation', '2026-07-29', '2026-07-30');
    const companyId = t.fixture.companyId;
    const manager = { ...managerOfAdmin(CLI_ACTOR, companyId), companyId };
    await inTransaction(suite.server.ctx, (tx, now) =>
      closePeriod(
        tx,
        now,
        manager,
        { from: '2026-07-27', to: '2026-07-31', workplaceId: t.fixture.workplaceId },
        { dryRun: false },
      ),
    );
    const locked = await refused(requestAbsence(t, a, 'sick', '2026-07-31', '2026-08-03'), 409, 'day_locked');
    expect(locked.detail).toMatch(/period 2026-07-27 to 2026-07-31 is closed/);
    await refused(t.api('POST', `/absences/${waiting.json.id}/approve`), 409, 'day_locked');
    await refused(t.api('POST', `/absences/${approved.id}/cancel`, { reason: 'closed' }), 409, 'day_locked');
    // Withdrawing a request changes no day's figures: allowed; days after the period are open.
    expect((await t.api('POST', `/absences/${waiting.json.id}/cancel`, { reason: 'moved' })).status).toBe(
      200,
    );
    expect((await requestAbsence(t, a, 'sick', '2026-08-03', '2026-08-03')).status).toBe(201);
  });

  it('answers If-Match, dry runs and Idempotency-Key as for entries', async () => {
    const t = await tenant();
    const [a] = t.employees as [string];
    const body = {
      employee: { id: a },
      typeCode: 'vacation',
      startDate: '2026-06-15',
      endDate: '2026-06-15',
    };
    const first = await t.api('POST', '/absences', body, { 'idempotency-key': 'leave-1' });
    const again = await t.api('POST', '/absences', body, { 'idempotency-key': 'leave-1' });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    await refused(
      t.api('POST', '/absences', { ...body, endDate: '2026-06-16' }, { 'idempotency-key': 'leave-1' }),
      422,
      'idempotency_key_reused',
    );

    const id = first.json.id as string;
    const dry = await t.api('POST', `/absences/${id}/approve`, undefined, { 'x-service-dry-run': 'true' });
    expect(dry.json).toMatchObject({ id, status: 'approved', dryRun: true, version: 1 });
    expect((await t.api('GET', `/absences/${id}`)).json.status).toBe('requested');
    await refused(
      t.api('POST', `/absences/${id}/approve`, undefined, { 'if-match': '"7"' }),
      412,
      'version_mismatch',
    );
    await refused(
      t.api('POST', `/absences/${id}/approve`, undefined, { 'if-match': 'seven' }),
      422,
      'validation_failed',
      'If-Match',
    );
    const approved = await t.api('POST', `/absences/${id}/approve`, undefined, { 'if-match': '"1"' });
    expect(approved.status).toBe(200);
    expect(approved.headers.get('etag')).toBe('"2"');
    await refused(
      t.api('POST', `/absences/${id}/cancel`, { reason: 'x' }, { 'if-match': '1' }),
      412,
      'version_mismatch',
    );
    const dryCreate = await t.api(
      'POST',
      '/absences',
      { ...body, startDate: '2026-06-16', endDate: '2026-06-16' },
      { 'x-service-dry-run': 'true' },
    );
    expect(dryCreate.json).toMatchObject({ id: null, dryRun: true, status: 'requested', balanceAfter: 23 });
    expect((await t.api('GET', `/absences?employeeId=${a}`)).json.items).toHaveLength(1);
  });

  it("lets a person's own token (permission 96) request for themselves but not decide on their own absences", async () => {
    const t = await tenant();
    const [self, other] = t.employees as [string, string];
    const person = await inTransaction(suite.server.ctx, (tx, now) =>
      createUser(tx, now, {
        companyId: t.fixture.companyId,
        email: 'lead@acme.example',
        permissions: '72,96',
        employee: self,
      }),
    );
    const { access_token: token } = await inTransaction(suite.server.ctx, (tx) =>
      issueUserToken(tx, suite.server.tokens, person.id),
    );
    const as = (method: 'GET' | 'POST', path: string, json?: unknown) =>
      call(suite.server, token, method, `${V1}${path}`, json).then((r) => ({ ...r, json: r.body as Json }));
    const me = await as('GET', '/me');
    expect(me.json.scopes.map((s: Json) => s.id).sort()).toEqual(['leave.manage', 'leave.read']);
    const own = await as('POST', '/absences', {
      employee: { id: self },
      typeCode: 'vacation',
      startDate: '2026-06-15',
      endDate: '2026-06-16',
    });
    expect(own.status, own.text).toBe(201);
    await refused(as('POST', `/absences/${own.json.id}/approve`), 403, 'own_entry');
    await refused(as('POST', `/absences/${own.json.id}/reject`, { reason: 'mine' }), 403, 'own_entry');
    // Approved by someone else, their own approved absence is not theirs to cancel; a request is theirs to withdraw.
    expect((await t.api('POST', `/absences/${own.json.id}/approve`)).status).toBe(200);
    await refused(as('POST', `/absences/${own.json.id}/cancel`, { reason: 'mine' }), 403, 'own_entry');
    const request = await as('POST', '/absences', {
      employee: { id: self },
      typeCode: 'vacation',
      startDate: '2026-06-22',
      endDate: '2026-06-22',
    });
    expect(
      (await as('POST', `/absences/${request.json.id}/cancel`, { reason: 'withdrawn' })).json.status,
    ).toBe('cancelled');
    const others = await requestAbsence(t, other, 'vacation', '2026-06-15', '2026-06-15');
    const decided = await as('POST', `/absences/${others.json.id}/approve`);
    expect(decided.json.decidedBy).toEqual({ kind: 'person', id: person.id, name: 'lead@acme.example' });
  });

  it("keeps companies apart and asks for the scopes: another company's id is 404", async () => {
    const t = await tenant();
    const other = await tenant();
    const [a] = t.employees as [string];
    const absence = await requestAbsence(t, a, 'vacation', '2026-06-15', '2026-06-15');
    await refused(other.api('GET', `/absences/${absence.json.id}`), 404, 'not_found');
    await refused(other.api('POST', `/absences/${absence.json.id}/approve`), 404, 'not_found');
    await refused(
      other.api('POST', '/absences', {
        employee: { id: a },
        typeCode: 'vacation',
        startDate: '2026-06-15',
        endDate: '2026-06-15',
      }),
      404,
      'employee_not_found',
    );
    expect((await other.api('GET', '/absences')).json.items).toEqual([]);
    const reader = await secondKey(suite.server.ctx, t.fixture, { scopes: 'leave.read' });
    const readToken = await fetchToken(suite.server, reader.clientId, reader.secret);
    expect((await call(suite.server, readToken, 'GET', `${V1}/absences`)).status).toBe(200);
    const write = await call(suite.server, readToken, 'POST', `${V1}/absences/${absence.json.id}/approve`);
    expect(write.status).toBe(403);
    expect(write.body.error).toBe('insufficient_scope');
    const clerk = await secondKey(suite.server.ctx, t.fixture, { scopes: 'attendance.read' });
    const clerkToken = await fetchToken(suite.server, clerk.clientId, clerk.secret);
    expect((await call(suite.server, clerkToken, 'GET', `${V1}/leave-balances?employeeId=${a}`)).status).toBe(
      403,
    );
  });

  it('lists absences by start date then id, filtered, in cursor pages; by default this calendar year', async () => {
    const t = await tenant();
    const [a, b] = t.employees as [string, string];
    await approvedAbsence(t, a, 'vacation', '2026-06-15', '2026-06-16');
    await requestAbsence(t, b, 'vacation', '2026-06-15', '2026-06-15');
    await approvedAbsence(t, a, 'sick', '2026-03-02', '2026-03-03');
    await requestAbsence(t, a, 'vacation', '2027-01-04', '2027-01-05');
    const all = await t.api('GET', '/absences');
    expect(all.json.items.map((x: Json) => x.startDate)).toEqual(['2026-03-02', '2026-06-15', '2026-06-15']);
    const byStatus = await t.api(
      'GET',
      `/absences?status=requested&typeCode=vacation&from=2026-06-01&to=2027-01-31`,
    );
    expect(byStatus.json.items.map((x: Json) => [x.employee.id, x.startDate])).toEqual([
      [b, '2026-06-15'],
      [a, '2027-01-04'],
    ]);
    expect((await t.api('GET', `/absences?externalId=EXT-1`)).json.items).toHaveLength(1);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Json = (
        await t.api('GET', `/absences?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
      ).json;
      seen.push(...page.items.map((x: Json) => x.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all.json.items.map((x: Json) => x.id));
    const page1 = (await t.api('GET', '/absences?limit=1')).json;
    await refused(
      t.api('GET', `/absences?limit=1&status=approved&cursor=${encodeURIComponent(page1.nextCursor)}`),
      422,
      'validation_failed',
      'cursor',
    );
    await refused(t.api('GET', '/absences?from=2026-01-01&to=2027-01-02'), 422, 'validation_failed', 'to');
    await refused(
      t.api('GET', `/absences?employeeId=${a}&externalId=EXT-0`),
      422,
      'validation_failed',
      'externalId',
    );
  });

  it('records absence.* events in the change feed, for tokens with leave.read only', async () => {
    const t = await tenant();
    const [a, b] = t.employees as [string, string];
    const start = (await t.api('GET', '/changes?start=now')).json.resumeCursor as string;
    const vacation = await approvedAbsence(t, a, 'vacation', '2026-06-15', '2026-06-15');
    await requestAbsence(t, b, 'sick', '2026-06-09', '2026-06-09');
    const rejected = await requestAbsence(t, b, 'vacation', '2026-06-22', '2026-06-22');
    await t.api('POST', `/absences/${rejected.json.id}/reject`, { reason: 'no' });
    await t.api('POST', `/absences/${vacation.id}/cancel`, { reason: 'ill' });
    const feed = await t.api(
      'GET',
      `/changes?cursor=${encodeURIComponent(start)}&types=absence.requested,absence.approved,absence.rejected,absence.cancelled`,
    );
    expect(feed.json.items.map((e: Json) => [e.type, e.data.status])).toEqual([
      ['absence.requested', 'requested'],
      ['absence.approved', 'approved'],
      ['absence.requested', 'requested'],
      ['absence.approved', 'approved'],
      ['absence.requested', 'requested'],
      ['absence.rejected', 'rejected'],
      ['absence.cancelled', 'cancelled'],
    ]);
    expect(feed.json.items[1].data).toMatchObject({
      id: vacation.id,
      employee: { id: a },
      type: { code: 'vacation' },
      version: 2,
    });
    const clerk = await secondKey(suite.server.ctx, t.fixture, { scopes: 'attendance.read,employees.read' });
    const clerkToken = await fetchToken(suite.server, clerk.clientId, clerk.secret);
    const hidden = await call(
      suite.server,
      clerkToken,
      'GET',
      `${V1}/changes?cursor=${encodeURIComponent(start)}`,
    );
    expect((hidden.body as Json).items.filter((e: Json) => e.type.startsWith('absence.'))).toEqual([]);
  });
});

describe.each(testDialects().map((d) => [d.name, d] as const))('absence webhooks on %s', (_name, dialect) => {
  let server: TestServer;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    server = await startTestServer(dialect, {
      env: {
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
        WEBHOOK_POLL_INTERVAL_MS: '100',
      },
    });
    receiver = await new WebhookReceiver().start();
  });
  afterAll(async () => {
    await server.stop();
    await receiver.stop();
  });

  it('delivers absence.* events, signed, to endpoints of keys that read leave', async () => {
    const fixture = await createCompanyFixture(server.ctx, {
      timeZone: 'Europe/Berlin',
      scopes: `${LEAVE_SCOPES},webhooks.manage`,
    });
    const token = await fetchToken(server, fixture.key.clientId, fixture.key.secret);
    const api = (method: string, path: string, json?: unknown) =>
      server.request(`${V1}${path}`, { method, token, ...(json === undefined ? {} : { json }) });
    const created = await api('POST', '/webhooks', {
      url: receiver.url,
      eventTypes: ['absence.requested', 'absence.approved'],
    });
    expect(created.status).toBe(201);
    receiver.secrets = [((await created.json()) as Json).secret];
    const year = new Date().getUTCFullYear() + 1;
    const absence = (await (
      await api('POST', '/absences', {
        employee: { id: fixture.employees[0]!.id },
        typeCode: 'sick',
        startDate: `${year}-03-02`,
        endDate: `${year}-03-03`,
      })
    ).json()) as Json;
    expect(absence.status).toBe('approved');
    for (let i = 0; i < 100 && receiver.received.length < 2; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(receiver.received.map((d) => d.payload.type)).toEqual(['absence.requested', 'absence.approved']);
    for (const delivery of receiver.received) {
      expect(delivery.verifiedWith).toHaveLength(1);
      expect(delivery.payload.data).toMatchObject({
        id: absence.id,
        employee: { id: fixture.employees[0]!.id },
        days: 2,
      });
    }
  });
});
