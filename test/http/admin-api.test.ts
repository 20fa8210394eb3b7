import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, type Json } from '../support/api.js';
import { ADMIN, AdminClient, createPerson, type Person } from '../support/admin-api.js';
import { testDialects } from '../support/databases.js';
import {
  type CompanyFixture,
  createCompanyFixture,
  fetchToken,
  startTestServer,
  type TestServer,
} from '../support/server.js';

const NOW = Date.parse('2026-03-04T11:00:00Z');
const ENTRIES = '/api/public/v1/time-entries';

interface ApiKeyBody extends Json {
  id: string;
  clientId: string;
  clientSecret?: string;
}

describe.each(testDialects().map((d) => [d.name, d] as const))('admin API on %s', (_name, dialect) => {
  let server: TestServer;
  let client: AdminClient;
  let a: CompanyFixture;
  let b: CompanyFixture;
  let admin: Person;
  let serial = 0;

  beforeAll(async () => {
    server = await startTestServer(dialect, { now: () => NOW });
    a = await createCompanyFixture(server.ctx, { name: 'Acme', timeZone: 'Europe/Berlin' });
    b = await createCompanyFixture(server.ctx, { name: 'Beta', timeZone: 'America/New_York' });
    client = await AdminClient.create(server);
    admin = await createPerson(server.ctx, a.companyId, { email: 'boss@acme.example', superAdmin: true });
  });
  afterAll(async () => server?.stop());

  async function signedIn(companyId: string, permissions: string, superAdmin = false) {
    serial += 1;
    const person = await createPerson(server.ctx, companyId, {
      email: `p${serial}@example.com`,
      permissions,
      superAdmin,
    });
    return client.fresh().signedIn(person);
  }

  async function json<T = Json>(response: Response, status: number): Promise<T> {
    expect(response.status, await response.clone().text()).toBe(status);
    return (await response.json()) as T;
  }

  /** A completed shift (pending approval) of `employeeId` through the public API. */
  async function pendingShift(fixture: CompanyFixture, employeeId: string, day: string): Promise<string> {
    const token = await fetchToken(server, fixture.key.clientId, fixture.key.secret);
    const response = await server.request(ENTRIES, {
      method: 'POST',
      token,
      headers: { 'idempotency-key': crypto.randomUUID() },
      json: {
        employee: { id: employeeId },
        clockIn: `${day}T08:00:00+01:00`,
        clockOut: `${day}T16:00:00+01:00`,
      },
    });
    const body = await json<{ timeEntryId: string; status: string }>(response, 201);
    expect(body.status).toBe('pending_approval');
    return body.timeEntryId;
  }

  describe('its own OpenAPI document', () => {
    it('is a valid OpenAPI 3.1 document of every admin operation, and none of them is in the public one', async () => {
      const document = (await (await fetch(`${server.listenUrl}${ADMIN}/openapi.json`)).json()) as Json & {
        paths: Record<string, Record<string, Json>>;
      };
      const validator = new Validator();
      const result = await validator.validate(structuredClone(document));
      expect(result.errors ?? []).toEqual([]);
      expect(result.valid).toBe(true);
      const operations = Object.entries(document.paths).flatMap(([path, item]) =>
        Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
      );
      expect(operations.sort()).toEqual(
        [
          'POST /api/admin/v1/session',
          'GET /api/admin/v1/session',
          'DELETE /api/admin/v1/session',
          'POST /api/admin/v1/invitations/accept',
          'GET /api/admin/v1/api-keys',
          'POST /api/admin/v1/api-keys',
          'POST /api/admin/v1/api-keys/{id}/rotate',
          'POST /api/admin/v1/api-keys/{id}/revoke',
          'GET /api/admin/v1/employees',
          'GET /api/admin/v1/time-entries',
          'POST /api/admin/v1/time-entries/decisions',
          'POST /api/admin/v1/confirmed-days',
          'GET /api/admin/v1/company',
          'PATCH /api/admin/v1/company',
          'GET /api/admin/v1/time-clock/status',
          'GET /api/admin/v1/workplaces',
          'GET /api/admin/v1/schedules',
          'GET /api/admin/v1/employees/{id}',
          'POST /api/admin/v1/employees',
          'PATCH /api/admin/v1/employees/{id}',
          'DELETE /api/admin/v1/employees/{id}',
          'GET /api/admin/v1/audit-log',
          'GET /api/admin/v1/timesheets',
          'GET /api/admin/v1/timesheets/csv',
          'GET /api/admin/v1/webhooks',
          'POST /api/admin/v1/webhooks',
          'PATCH /api/admin/v1/webhooks/{id}',
          'DELETE /api/admin/v1/webhooks/{id}',
          'POST /api/admin/v1/webhooks/{id}/rotate-secret',
          'POST /api/admin/v1/webhooks/{id}/test',
          'GET /api/admin/v1/webhooks/{id}/deliveries',
          'POST /api/admin/v1/webhooks/{id}/replay',
          // The Roster screen and the Now screen's attendance (issue 33).
          'GET /api/admin/v1/roster',
          'POST /api/admin/v1/planned-shifts',
          'PUT /api/admin/v1/planned-shifts/{id}',
          'DELETE /api/admin/v1/planned-shifts/{id}',
          'POST /api/admin/v1/planned-shifts/copy-week',
          'POST /api/admin/v1/planned-shifts/publish',
          'GET /api/admin/v1/attendance/now',
          // Corrections (issue 30).
          'GET /api/admin/v1/time-entries/{id}',
          'GET /api/admin/v1/time-entries/{id}/revisions',
          'PATCH /api/admin/v1/time-entries/{id}',
          'DELETE /api/admin/v1/time-entries/{id}',
          'POST /api/admin/v1/time-entries/{id}/reopen',
          'POST /api/admin/v1/time-entries',
          'GET /api/admin/v1/locked-periods',
          'POST /api/admin/v1/locked-periods',
          'DELETE /api/admin/v1/locked-periods/{id}',
          // Single sign-on (issue 34).
          'GET /api/admin/v1/company/sso',
          'PUT /api/admin/v1/company/sso',
          'DELETE /api/admin/v1/company/sso',
          'GET /api/admin/v1/sso/lookup',
          'GET /api/admin/v1/sso/start',
          'GET /api/admin/v1/sso/callback',
          'GET /api/admin/v1/sso/link',
          'POST /api/admin/v1/sso/link',
          // Absences (issue 31): the Absences screen and the Company screen's types and holidays.
          'GET /api/admin/v1/absence-types',
          'POST /api/admin/v1/absence-types',
          'PATCH /api/admin/v1/absence-types/{id}',
          'GET /api/admin/v1/holiday-settings',
          'PUT /api/admin/v1/workplaces/{id}/holiday-region',
          'POST /api/admin/v1/holiday-overrides',
          'DELETE /api/admin/v1/holiday-overrides/{id}',
          'GET /api/admin/v1/absences/calendar',
          'GET /api/admin/v1/absences/requests',
          'GET /api/admin/v1/leave-balances',
          'POST /api/admin/v1/absences/{id}/approve',
          'POST /api/admin/v1/absences/{id}/reject',
          'POST /api/admin/v1/absences/{id}/cancel',
          // Kiosk devices (issue 35).
          'GET /api/admin/v1/devices',
          'POST /api/admin/v1/devices',
          'POST /api/admin/v1/devices/{id}/revoke',
          'GET /api/admin/v1/devices/{id}/refusals',
          'PUT /api/admin/v1/workplaces/{id}/kiosk',
          'PUT /api/admin/v1/employees/{id}/pin',
          // Self-service (issue 35): the person's own data and web clock; managers' correction requests.
          'GET /api/admin/v1/self',
          'POST /api/admin/v1/self/clock',
          'PUT /api/admin/v1/self/pin',
          'GET /api/admin/v1/self/time-entries',
          'GET /api/admin/v1/self/timesheet',
          'GET /api/admin/v1/self/absences',
          'GET /api/admin/v1/self/leave-balances',
          'POST /api/admin/v1/self/absences',
          'POST /api/admin/v1/self/absences/{id}/withdraw',
          'GET /api/admin/v1/self/correction-requests',
          'POST /api/admin/v1/self/correction-requests',
          'POST /api/admin/v1/self/correction-requests/{id}/withdraw',
          'GET /api/admin/v1/correction-requests',
          'POST /api/admin/v1/correction-requests/{id}/approve',
          'POST /api/admin/v1/correction-requests/{id}/reject',
          'POST /api/admin/v1/employees/invite-all',
        ].sort(),
      );
      expect(document.paths['/api/admin/v1/api-keys']!.post!.security).toEqual([
        { consoleSession: [], csrfToken: [] },
      ]);
      expect(document.paths['/api/admin/v1/session']!.post!.security).toEqual([]);
      // Request headers a route declares are header parameters (the web clock's key and device clock).
      const clockParameters = (document.paths['/api/admin/v1/self/clock']!.post!.parameters ?? []) as Json[];
      expect(clockParameters.map((p) => [p.name, p.in]).sort()).toEqual([
        ['idempotency-key', 'header'],
        ['x-device-clock', 'header'],
      ]);
      const publicDocument = (await (
        await fetch(`${server.listenUrl}/api/public/v1/openapi.json`)
      ).json()) as Json;
      expect(JSON.stringify(publicDocument)).not.toContain('/api/admin');
    });
  });

  describe('API keys', () => {
    it('shows a new key’s secret once; the list shows its client id and never a secret', async () => {
      const browser = await client.fresh().signedIn(admin);
      const created = await json<ApiKeyBody>(
        await browser.request('/api-keys', {
          method: 'POST',
          json: {
            name: 'Payroll',
            scopes: ['attendance.read', 'employees.read'],
            allowedIps: ['10.0.0.0/8'],
          },
        }),
        201,
      );
      expect(created.clientSecret!.startsWith(`${created.clientId}_`)).toBe(true);
      expect(created).toMatchObject({ name: 'Payroll', allowedIps: ['10.0.0.0/8'], revokedAt: null });
      const list = await json<{ items: ApiKeyBody[] }>(await browser.request('/api-keys'), 200);
      const listed = list.items.find((k) => k.id === created.id)!;
      expect(listed.clientId).toBe(created.clientId);
      expect(JSON.stringify(list)).not.toContain(created.clientSecret!);
      expect(Object.keys(listed)).not.toContain('clientSecret');
      // Only company A's keys.
      expect(list.items.map((k) => k.clientId)).not.toContain(b.key.clientId);
    });

    it('creates a key that gets a token; revoked, the token endpoint refuses it', async () => {
      const browser = await signedIn(a.companyId, '90');
      const key = await json<ApiKeyBody>(
        await browser.request('/api-keys', {
          method: 'POST',
          json: { name: 'Clock', scopes: ['attendance.record'] },
        }),
        201,
      );
      expect(typeof (await fetchToken(server, key.clientId, key.clientSecret!))).toBe('string');
      const revoked = await json<ApiKeyBody>(
        await browser.request(`/api-keys/${key.id}/revoke`, { method: 'POST' }),
        200,
      );
      expect(revoked.revokedAt).toBe(new Date(NOW).toISOString());
      const refused = await server.request('/api/public/v1/oauth/token', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: key.clientId,
          client_secret: key.clientSecret!,
        }).toString(),
      });
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as Json).error).toBe('invalid_client');
    });

    it('rotates with a grace period: a new secret once, the old one valid until the grace ends', async () => {
      const browser = await signedIn(a.companyId, '90');
      const key = await json<ApiKeyBody>(
        await browser.request('/api-keys', {
          method: 'POST',
          json: { name: 'R', scopes: ['attendance.record'] },
        }),
        201,
      );
      const rotated = await json<ApiKeyBody>(
        await browser.request(`/api-keys/${key.id}/rotate`, { method: 'POST', json: { graceSeconds: 3600 } }),
        200,
      );
      expect(rotated.clientSecret).not.toBe(key.clientSecret);
      expect(rotated.previousSecretValidUntil).toBe(new Date(NOW + 3_600_000).toISOString());
      await fetchToken(server, key.clientId, key.clientSecret!);
      await fetchToken(server, key.clientId, rotated.clientSecret!);
    });

    it("applies the spec's scope rule: a human scope needs the person's permission", async () => {
      const browser = await signedIn(a.companyId, '90,52');
      const refused = await browser.request('/api-keys', {
        method: 'POST',
        json: { name: 'x', scopes: ['attendance.read'] },
      });
      const problem = await expectProblem(refused, 422, 'validation_failed');
      expect(problem.detail).toMatch(/attendance\.read/);
      // Bad input names its field, so the console can show it by the input; nothing is created.
      const before = (await json<{ items: Json[] }>(await browser.request('/api-keys'), 200)).items.length;
      for (const [field, body] of [
        ['name', { name: '   ', scopes: ['attendance.record'] }],
        ['scopes', { name: 'x', scopes: ['attendance.write'] }],
        ['expiresAt', { name: 'x', scopes: ['attendance.record'], expiresAt: 'next week' }],
        ['allowedIps', { name: 'x', scopes: ['attendance.record'], allowedIps: ['10.0.0.300'] }],
      ] as const) {
        const bad = await expectProblem(
          await browser.request('/api-keys', { method: 'POST', json: body }),
          422,
          'validation_failed',
        );
        expect(
          bad.errors!.map((e) => e.field),
          field,
        ).toEqual([field]);
      }
      const past = await browser.request('/api-keys', {
        method: 'POST',
        json: { name: 'x', scopes: ['attendance.record'], expiresAt: '2020-01-01' },
      });
      expect((await expectProblem(past, 422, 'validation_failed')).detail).toMatch(/future/);
      expect((await json<{ items: Json[] }>(await browser.request('/api-keys'), 200)).items).toHaveLength(
        before,
      );
      await json(
        await browser.request('/api-keys', {
          method: 'POST',
          json: { name: 'x', scopes: ['employees.read', 'attendance.record'] },
        }),
        201,
      );
    });

    it('refuses a person without permission 90, whatever the console shows', async () => {
      const browser = await signedIn(a.companyId, '47,52,91,93');
      await expectProblem(await browser.request('/api-keys'), 403, 'forbidden');
      await expectProblem(
        await browser.request('/api-keys', {
          method: 'POST',
          json: { name: 'x', scopes: ['attendance.record'] },
        }),
        403,
        'forbidden',
      );
      await expectProblem(
        await browser.request(`/api-keys/${a.key.id}/revoke`, { method: 'POST' }),
        403,
        'forbidden',
      );
    });

    it('rotates a key only for a person who may grant all its scopes (a new secret is the key’s whole power)', async () => {
      const admin90 = await client.fresh().signedIn(admin);
      const wide = await json<ApiKeyBody>(
        await admin90.request('/api-keys', {
          method: 'POST',
          json: { name: 'Wide', scopes: ['attendance.read', 'employees.read'] },
        }),
        201,
      );
      const keysOnly = await signedIn(a.companyId, '90');
      const refused = await expectProblem(
        await keysOnly.request(`/api-keys/${wide.id}/rotate`, {
          method: 'POST',
          json: { graceSeconds: 86_400 },
        }),
        403,
        'forbidden',
      );
      expect(refused.detail).toContain('attendance.read');
      // The key is unchanged: its secret still gets a token.
      await fetchToken(server, wide.clientId, wide.clientSecret!);
      // A key of machine scopes only is theirs to rotate.
      const machine = await json<ApiKeyBody>(
        await admin90.request('/api-keys', {
          method: 'POST',
          json: { name: 'Clock', scopes: ['attendance.record'] },
        }),
        201,
      );
      expect(
        (await keysOnly.request(`/api-keys/${machine.id}/rotate`, { method: 'POST', json: {} })).status,
      ).toBe(200);
    });

    it("gives 404 for another company's key, and leaves it working", async () => {
      const browser = await signedIn(a.companyId, '90', true);
      await expectProblem(
        await browser.request(`/api-keys/${b.key.id}/revoke`, { method: 'POST' }),
        404,
        'not_found',
      );
      await expectProblem(
        await browser.request(`/api-keys/${b.key.id}/rotate`, { method: 'POST', json: {} }),
        404,
        'not_found',
      );
      await fetchToken(server, b.key.clientId, b.key.secret);
    });
  });

  describe('employees', () => {
    it('lists the company’s employees by name, searchable and paged, with permission 52', async () => {
      const browser = await signedIn(a.companyId, '52');
      const page = await json<{ items: Json[]; hasMore: boolean; nextCursor: string | null }>(
        await browser.request('/employees?limit=1'),
        200,
      );
      expect(page.items).toHaveLength(1);
      expect(page.items[0]).toMatchObject({
        id: a.employees[0]!.id,
        lastName: 'Last0',
        workplaceId: a.workplaceId,
      });
      expect(page.hasMore).toBe(true);
      const next = await json<{ items: Json[]; hasMore: boolean }>(
        await browser.request(`/employees?limit=1&cursor=${page.nextCursor}`),
        200,
      );
      expect(next.items.map((e) => e.id)).toEqual([a.employees[1]!.id]);
      expect(next.hasMore).toBe(false);
      const found = await json<{ items: Json[] }>(await browser.request('/employees?search=ext-1'), 200);
      expect(found.items.map((e) => e.id)).toEqual([a.employees[1]!.id]);
      const none = await json<{ items: Json[] }>(await browser.request('/employees?search=%25'), 200);
      expect(none.items).toEqual([]);
      await expectProblem(await (await signedIn(a.companyId, '47')).request('/employees'), 403, 'forbidden');
      // Another company's cursor is refused.
      const other = await signedIn(b.companyId, '52');
      await expectProblem(
        await other.request(`/employees?cursor=${page.nextCursor}`),
        422,
        'validation_failed',
      );
    });
  });

  describe('time entries', () => {
    it('approve: the public GET /time-entries then shows approved; the audit names the person', async () => {
      const employee = a.employees[0]!.id;
      const entryId = await pendingShift(a, employee, '2026-03-02');
      const reader = await signedIn(a.companyId, '47');
      const week = await json<{ items: Json[]; confirmedDays: string[]; timeZone: string }>(
        await reader.request(`/time-entries?employeeId=${employee}&from=2026-03-02&to=2026-03-08`),
        200,
      );
      expect(week.timeZone).toBe('Europe/Berlin');
      expect(week.items.map((e) => [e.id, e.status, e.workDate])).toEqual([
        [entryId, 'pending_approval', '2026-03-02'],
      ]);
      await expectProblem(
        await reader.request('/time-entries/decisions', {
          method: 'POST',
          json: { ids: [entryId], decision: 'approved' },
        }),
        403,
        'forbidden',
      );

      const manager = await signedIn(a.companyId, '47,91');
      const decided = await json<{ results: Json[] }>(
        await manager.request('/time-entries/decisions', {
          method: 'POST',
          json: { ids: [entryId], decision: 'approved' },
        }),
        200,
      );
      expect(decided.results).toMatchObject([{ id: entryId, status: 200, entry: { status: 'approved' } }]);
      const token = await fetchToken(server, a.key.clientId, a.key.secret);
      const listed = await server.request(`${ENTRIES}?employeeId=${employee}&from=2026-03-02&to=2026-03-02`, {
        token,
      });
      const body = await json<{ items: Json[] }>(listed, 200);
      expect(body.items.map((e) => [e.id, e.status])).toEqual([[entryId, 'approved']]);
      const audit = await server.database.db
        .selectFrom('audit_log')
        .select(['actor_type', 'actor_id'])
        .where('action', '=', 'time_entry.approve')
        .where('target_id', '=', entryId)
        .execute();
      const me = await json<{ id: string }>(await manager.request('/session'), 200);
      expect(audit).toEqual([{ actor_type: 'user', actor_id: me.id }]);

      // Deciding it again: 409 for that entry; an unknown id: 404; each on its own.
      const again = await json<{ results: { id: string; status: number; problem?: Json }[] }>(
        await manager.request('/time-entries/decisions', {
          method: 'POST',
          json: { ids: [entryId, crypto.randomUUID()], decision: 'rejected' },
        }),
        200,
      );
      expect(again.results.map((r) => [r.status, r.problem?.error])).toEqual([
        // Issue 30: the catalogue's error for a status that does not allow the decision.
        [409, 'invalid_status_transition'],
        [404, 'not_found'],
      ]);
    });

    it('decisions with versions: a stale version is 412 version_mismatch in its result; reopen refuses a blank reason', async () => {
      const employee = a.employees[0]!.id;
      const stale = await pendingShift(a, employee, '2026-02-24');
      const fresh = await pendingShift(a, employee, '2026-02-25');
      const manager = await signedIn(a.companyId, '47,91');
      await expectProblem(
        await manager.request('/time-entries/decisions', {
          method: 'POST',
          json: { ids: [stale, fresh], decision: 'approved', versions: [1] },
        }),
        422,
        'validation_failed',
      );
      const decided = await json<{ results: { id: string; status: number; problem?: Json; entry?: Json }[] }>(
        await manager.request('/time-entries/decisions', {
          method: 'POST',
          json: { ids: [stale, fresh], decision: 'approved', versions: [2, 1] },
        }),
        200,
      );
      expect(decided.results.map((r) => [r.id, r.status, r.problem?.error ?? r.entry?.status])).toEqual([
        [stale, 412, 'version_mismatch'],
        [fresh, 200, 'approved'],
      ]);
      const reopened = await manager.request(`/time-entries/${fresh}/reopen`, {
        method: 'POST',
        json: { reason: '   ' },
      });
      const problem = await expectProblem(reopened, 422, 'validation_failed');
      expect(JSON.stringify(problem)).toContain('reason');
    });

    it("add a missing shift: not for the person's own employee (403 own_entry), not while time tracking is off", async () => {
      const manager = await signedIn(a.companyId, '47,91');
      const me = await json<{ id: string }>(await manager.request('/session'), 200);
      const [other, own] = [a.employees[0]!.id, a.employees[1]!.id];
      await server.database.db
        .updateTable('users')
        .set({ employee_id: own })
        .where('id', '=', me.id)
        .execute();
      const add = (employee: string, day: string) =>
        manager.request('/time-entries', {
          method: 'POST',
          json: {
            employee: { id: employee },
            clockIn: `${day}T08:00:00+01:00`,
            clockOut: `${day}T12:00:00+01:00`,
          },
        });
      await expectProblem(await add(own, '2026-02-26'), 403, 'own_entry');
      await expectProblem(await add(own.toUpperCase(), '2026-02-26'), 403, 'own_entry');
      await json(await add(other, '2026-02-26'), 201);
      const company = server.database.db.updateTable('companies').where('id', '=', a.companyId);
      await company.set({ time_tracking: 0 }).execute();
      try {
        await expectProblem(await add(other, '2026-02-27'), 403, 'time_tracking_disabled');
      } finally {
        await company.set({ time_tracking: 1 }).execute();
      }
    });

    it('confirm a day: a punch on it then gets 409 day_locked', async () => {
      const employee = a.employees[1]!.id;
      const manager = await signedIn(a.companyId, '47,91');
      const confirmed = await json(
        await manager.request('/confirmed-days', {
          method: 'POST',
          json: { employeeId: employee, date: '2026-03-04' },
        }),
        201,
      );
      expect(confirmed).toEqual({
        employeeId: employee,
        date: '2026-03-04',
        confirmedAt: new Date(NOW).toISOString(),
      });
      const week = await json<{ confirmedDays: string[] }>(
        await manager.request(`/time-entries?employeeId=${employee}&from=2026-03-02&to=2026-03-08`),
        200,
      );
      expect(week.confirmedDays).toEqual(['2026-03-04']);
      const token = await fetchToken(server, a.key.clientId, a.key.secret);
      const punch = await server.request('/api/public/v1/time-clock/events', {
        method: 'POST',
        token,
        headers: { 'idempotency-key': crypto.randomUUID() },
        json: { employee: { id: employee }, type: 'clock_in', occurredAt: '2026-03-04T11:00:00Z' },
      });
      await expectProblem(punch, 409, 'day_locked');
    });

    it("gives company A's person nothing of company B: entries, employees and days are 404", async () => {
      const bEmployee = b.employees[0]!.id;
      const bEntry = await pendingShift(b, bEmployee, '2026-03-03');
      const intruder = await signedIn(a.companyId, '47,91', true);
      await expectProblem(
        await intruder.request(`/time-entries?employeeId=${bEmployee}&from=2026-03-02&to=2026-03-08`),
        404,
        'not_found',
      );
      await expectProblem(
        await intruder.request('/confirmed-days', {
          method: 'POST',
          json: { employeeId: bEmployee, date: '2026-03-03' },
        }),
        404,
        'not_found',
      );
      const decided = await json<{ results: { status: number }[] }>(
        await intruder.request('/time-entries/decisions', {
          method: 'POST',
          json: { ids: [bEntry], decision: 'approved' },
        }),
        200,
      );
      expect(decided.results.map((r) => r.status)).toEqual([404]);
      const row = await server.database.db
        .selectFrom('time_entries')
        .select('status')
        .where('id', '=', bEntry)
        .executeTakeFirstOrThrow();
      expect(row.status).toBe('pending_approval');
      const days = await server.database.db
        .selectFrom('confirmed_days')
        .selectAll()
        .where('employee_id', '=', bEmployee)
        .execute();
      expect(days).toEqual([]);
    });

    it('refuses a range the wrong way round or too long', async () => {
      const reader = await signedIn(a.companyId, '47');
      const employee = a.employees[0]!.id;
      await expectProblem(
        await reader.request(`/time-entries?employeeId=${employee}&from=2026-03-08&to=2026-03-02`),
        422,
        'validation_failed',
      );
      await expectProblem(
        await reader.request(`/time-entries?employeeId=${employee}&from=2026-01-01&to=2026-06-30`),
        422,
        'validation_failed',
      );
      await expectProblem(
        await (
          await signedIn(a.companyId, '52')
        ).request(`/time-entries?employeeId=${employee}&from=2026-03-02&to=2026-03-08`),
        403,
        'forbidden',
      );
    });
  });

  describe('company', () => {
    it('anyone signed in reads it; permission 93 changes it, and only their own company', async () => {
      const reader = await signedIn(a.companyId, '');
      const company = await json(await reader.request('/company'), 200);
      expect(company).toEqual({
        id: a.companyId,
        name: 'Acme',
        timeZone: 'Europe/Berlin',
        timeTracking: true,
        apiAccess: true,
        workweekStart: 'monday',
        dailyOvertimeHours: null,
        workingTimeRules: 'none',
        // Attendance exceptions and report rounding (issue 33).
        lateGraceMinutes: 5,
        noShowAfterMinutes: 30,
        rounding: 'none',
        roundingMinutes: 15,
        autoClockOutAfterHours: null,
        // The personal web clock (issue 35): off by default.
        webClock: false,
      });
      await expectProblem(
        await reader.request('/company', { method: 'PATCH', json: { timeTracking: false } }),
        403,
        'forbidden',
      );
      const owner = await signedIn(a.companyId, '93');
      const zone = await expectProblem(
        await owner.request('/company', { method: 'PATCH', json: { timeZone: 'Mars/Olympus' } }),
        422,
        'validation_failed',
      );
      expect(zone.errors!.map((e) => e.field)).toEqual(['timeZone']);
      const changed = await json(
        await owner.request('/company', {
          method: 'PATCH',
          json: { timeZone: 'Europe/Paris', apiAccess: true },
        }),
        200,
      );
      expect(changed).toMatchObject({ id: a.companyId, timeZone: 'Europe/Paris' });
      // An id in the body is not accepted at all: the company is always the person's own.
      await expectProblem(
        await owner.request('/company', { method: 'PATCH', json: { id: b.companyId, timeZone: 'UTC' } }),
        422,
        'validation_failed',
      );
      const bCompany = await server.database.db
        .selectFrom('companies')
        .select('time_zone')
        .where('id', '=', b.companyId)
        .executeTakeFirstOrThrow();
      expect(bCompany.time_zone).toBe('America/New_York');
      const restored = await json(
        await owner.request('/company', { method: 'PATCH', json: { timeZone: 'Europe/Berlin' } }),
        200,
      );
      expect(restored).toMatchObject({ timeZone: 'Europe/Berlin' });
    });
  });
});
