import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/modules/context.js';
import { expectProblem, type Json } from '../support/api.js';
import { AdminClient, createPerson, type Person } from '../support/admin-api.js';
import { testDialects } from '../support/databases.js';
import {
  type CompanyFixture,
  createCompanyFixture,
  fetchToken,
  startTestServer,
  type TestServer,
} from '../support/server.js';
import { createWorkplace } from '../../src/modules/companies/service.js';
import { updateEmployee } from '../../src/modules/employees/changes.js';

/**
 * The admin API behind the console's Now, Employees and Audit log screens (issue 23), through the
 * real server with every answer held to the admin OpenAPI document: permissions, another company's
 * ids (404), the CLI's field checks as 422s naming the field, cursors bound to their listing.
 */

const NOW = Date.parse('2026-03-04T11:00:00Z');
const EVENTS = '/api/public/v1/time-clock/events';

describe.each(testDialects().map((d) => [d.name, d] as const))(
  'admin API screens on %s',
  (_name, dialect) => {
    let server: TestServer;
    let client: AdminClient;
    let a: CompanyFixture;
    let b: CompanyFixture;
    let admin: Person;
    let serial = 0;

    beforeAll(async () => {
      server = await startTestServer(dialect, { now: () => NOW });
      a = await createCompanyFixture(server.ctx, {
        name: 'Acme',
        timeZone: 'Europe/Berlin',
        employeeCount: 3,
      });
      b = await createCompanyFixture(server.ctx, { name: 'Beta', timeZone: 'America/New_York' });
      client = await AdminClient.create(server);
      admin = await createPerson(server.ctx, a.companyId, { email: 'boss@acme.example', superAdmin: true });
    });
    afterAll(async () => server?.stop());

    async function signedIn(companyId: string, permissions: string) {
      serial += 1;
      const person = await createPerson(server.ctx, companyId, {
        email: `s${serial}@example.com`,
        permissions,
      });
      return client.fresh().signedIn(person);
    }

    async function json<T = Json>(response: Response, status: number): Promise<T> {
      expect(response.status, await response.clone().text()).toBe(status);
      return (await response.json()) as T;
    }

    async function punchAt(fixture: CompanyFixture, employeeId: string, type: string, occurredAt: string) {
      const token = await fetchToken(server, fixture.key.clientId, fixture.key.secret);
      const response = await server.request(EVENTS, {
        method: 'POST',
        token,
        headers: { 'idempotency-key': crypto.randomUUID() },
        json: { employee: { id: employeeId }, type, occurredAt },
      });
      expect(response.status, await response.clone().text()).toBe(201);
    }

    describe('who is in now (GET /time-clock/status)', () => {
      it('lists open sessions oldest first with names, workplace and breaks, as the public status does', async () => {
        const [first, second] = a.employees;
        await punchAt(a, first!.id, 'clock_in', '2026-03-04T08:00:00+01:00');
        await punchAt(a, second!.id, 'clock_in', '2026-03-04T09:30:00+01:00');
        await punchAt(a, second!.id, 'break_start', '2026-03-04T11:00:00+01:00');
        await punchAt(b, b.employees[0]!.id, 'clock_in', '2026-03-04T06:00:00-05:00');

        const browser = await signedIn(a.companyId, '47');
        const page = await json<{ items: Json[]; hasMore: boolean; timeZone: string }>(
          await browser.request('/time-clock/status'),
          200,
        );
        expect(page.timeZone).toBe('Europe/Berlin');
        expect(page.hasMore).toBe(false);
        expect(page.items).toMatchObject([
          {
            employee: { id: first!.id, externalId: 'EXT-0', firstName: 'First0', lastName: 'Last0' },
            workplace: { id: a.workplaceId, name: 'Site' },
            since: '2026-03-04T07:00:00.000Z',
            sinceTime: '08:00:00',
            onBreak: false,
            breakSince: null,
          },
          {
            employee: { id: second!.id, firstName: 'First1' },
            onBreak: true,
            breakSince: '2026-03-04T10:00:00.000Z',
          },
        ]);
        // The same sessions as the public operation (the same service).
        const token = await fetchToken(server, a.key.clientId, a.key.secret);
        const publicPage = (await (
          await server.request('/api/public/v1/time-clock/status', { token })
        ).json()) as { items: Json[] };
        expect(page.items.map((i) => i.timeEntryId)).toEqual(publicPage.items.map((i) => i.timeEntryId));

        // Paged: one a page, the cursor leads on; per workplace.
        const one = await json<{ items: Json[]; nextCursor: string }>(
          await browser.request('/time-clock/status?limit=1'),
          200,
        );
        const next = await json<{ items: Json[] }>(
          await browser.request(`/time-clock/status?limit=1&cursor=${encodeURIComponent(one.nextCursor)}`),
          200,
        );
        expect([...one.items, ...next.items].map((i) => i.timeEntryId)).toEqual(
          page.items.map((i) => i.timeEntryId),
        );
        const site = await json<{ items: Json[] }>(
          await browser.request(`/time-clock/status?workplaceId=${a.workplaceId}`),
          200,
        );
        expect(site.items).toHaveLength(2);
        const empty = await inTransaction(server.ctx, (tx, now) =>
          createWorkplace(tx, now, { companyId: a.companyId, name: 'Depot' }),
        );
        expect(
          (
            await json<{ items: Json[] }>(
              await browser.request(`/time-clock/status?workplaceId=${empty.id}`),
              200,
            )
          ).items,
        ).toEqual([]);
      });

      it("refuses without permission 47, another company's workplace and a foreign cursor", async () => {
        const noRead = await signedIn(a.companyId, '52');
        await expectProblem(await noRead.request('/time-clock/status'), 403, 'forbidden');
        const browser = await signedIn(a.companyId, '47');
        await expectProblem(
          await browser.request(`/time-clock/status?workplaceId=${b.workplaceId}`),
          404,
          'not_found',
        );
        const betaPerson = await signedIn(b.companyId, '47');
        const betaPage = await json<{ items: Json[]; nextCursor: string | null }>(
          await betaPerson.request('/time-clock/status?limit=1'),
          200,
        );
        expect(betaPage.items).toHaveLength(1);
        const twoPage = await json<{ nextCursor: string }>(
          await browser.request('/time-clock/status?limit=1'),
          200,
        );
        // Acme's cursor is no cursor of Beta's listing.
        await expectProblem(
          await betaPerson.request(`/time-clock/status?cursor=${encodeURIComponent(twoPage.nextCursor)}`),
          422,
          'validation_failed',
        );
        await expectProblem(await client.fresh().request('/time-clock/status'), 401, 'session_required');
      });
    });

    describe('employees', () => {
      it('creates, reads, changes and deletes an employee with the CLI’s services, recorded as the person', async () => {
        const manager = await signedIn(a.companyId, '52,92,93');
        const workplaces = await json<{ items: Json[] }>(await manager.request('/workplaces'), 200);
        expect(workplaces.items.map((w) => w.id)).toContain(a.workplaceId);
        expect(JSON.stringify(workplaces)).not.toContain(b.workplaceId);
        const schedules = await json<{ items: Json[] }>(await manager.request('/schedules'), 200);
        expect(schedules.items).toMatchObject([{ id: a.scheduleId, name: 'Full time', weeklyHours: 40 }]);

        const created = await json<Json>(
          await manager.request('/employees', {
            method: 'POST',
            json: {
              email: 'new.person@acme.example',
              firstName: 'Nina',
              lastName: 'Neu',
              externalId: 'BADGE-77',
              workplaceId: a.workplaceId,
              scheduleId: a.scheduleId,
              scheduleFrom: '2026-03-02',
            },
          }),
          201,
        );
        expect(created).toMatchObject({
          email: 'new.person@acme.example',
          firstName: 'Nina',
          status: 'active',
          externalId: 'BADGE-77',
          workplaceId: a.workplaceId,
          scheduleId: a.scheduleId,
          scheduleFrom: '2026-03-02',
        });
        const id = created.id as string;
        expect(await json(await manager.request(`/employees/${id}`), 200)).toEqual(created);
        const found = await json<{ items: Json[] }>(await manager.request('/employees?search=badge-77'), 200);
        expect(found.items.map((e) => e.id)).toEqual([id]);

        const changed = await json<Json>(
          await manager.request(`/employees/${id}`, {
            method: 'PATCH',
            json: {
              status: 'on_leave',
              lastName: null,
              externalId: null,
              workplaceId: null,
              scheduleId: null,
            },
          }),
          200,
        );
        expect(changed).toMatchObject({
          status: 'on_leave',
          lastName: null,
          externalId: null,
          workplaceId: null,
          scheduleId: null,
          firstName: 'Nina',
        });

        const audit = await json<{ items: Json[] }>(
          await manager.request(`/audit-log?action=employee.`),
          200,
        );
        expect(audit.items.filter((e) => e.targetId === id).map((e) => [e.action, e.actor])).toEqual([
          [
            'employee.update',
            { type: 'user', id: expect.any(String), name: expect.stringMatching(/@example\.com$/) },
          ],
          [
            'employee.create',
            { type: 'user', id: expect.any(String), name: expect.stringMatching(/@example\.com$/) },
          ],
        ]);

        const deleted = await manager.request(`/employees/${id}`, { method: 'DELETE' });
        expect(deleted.status).toBe(204);
        await expectProblem(await manager.request(`/employees/${id}`), 404, 'not_found');
        await expectProblem(
          await manager.request(`/employees/${id}`, { method: 'DELETE' }),
          404,
          'not_found',
        );
      });

      it('answers the CLI’s refusals as 422s naming each field, and a held external id as 409 on its field', async () => {
        const manager = await signedIn(a.companyId, '52,92');
        const bad = await expectProblem(
          await manager.request('/employees', {
            method: 'POST',
            json: {
              email: 'not an email',
              status: 'retired',
              externalId: 'x'.repeat(65),
              workplaceId: b.workplaceId,
              scheduleId: 'nope',
              scheduleFrom: '2026-02-30',
            },
          }),
          422,
          'validation_failed',
        );
        const fields = Object.fromEntries((bad.errors ?? []).map((e) => [e.field, e.message]));
        expect(fields).toEqual({
          email: 'not an email address: not an email',
          status: 'status must be one of active, inactive, on_leave, suspended, terminated',
          externalId: 'external id must be at most 64 characters',
          scheduleId: 'schedule id must be a UUID: nope',
          scheduleFrom: 'schedule-from must be a date YYYY-MM-DD: 2026-02-30',
          workplaceId: 'no such workplace in your company',
        });
        const missing = await expectProblem(
          await manager.request('/employees', { method: 'POST', json: { email: '  ', firstName: 'X' } }),
          422,
          'validation_failed',
        );
        expect(missing.errors?.map((e) => e.field)).toEqual(['email']);
        const taken = await expectProblem(
          await manager.request('/employees', {
            method: 'POST',
            json: { email: 'dup@acme.example', externalId: 'EXT-0' },
          }),
          409,
          'already_exists',
        );
        expect(taken.errors?.map((e) => e.field)).toEqual(['externalId']);
        const list = await json<{ items: Json[] }>(await manager.request('/employees?search=dup@'), 200);
        expect(list.items).toEqual([]);
      });

      it("refuses without permissions 52 / 92 and gives nothing of another company's", async () => {
        const reader = await signedIn(a.companyId, '52');
        const employee = a.employees[2]!.id;
        expect(await json(await reader.request(`/employees/${employee}`), 200)).toMatchObject({
          id: employee,
        });
        await expectProblem(
          await reader.request('/employees', { method: 'POST', json: { email: 'x@acme.example' } }),
          403,
          'forbidden',
        );
        await expectProblem(
          await reader.request(`/employees/${employee}`, { method: 'PATCH', json: { status: 'inactive' } }),
          403,
          'forbidden',
        );
        await expectProblem(
          await reader.request(`/employees/${employee}`, { method: 'DELETE' }),
          403,
          'forbidden',
        );
        const nobody = await signedIn(a.companyId, '90');
        await expectProblem(await nobody.request(`/employees/${employee}`), 403, 'forbidden');
        await expectProblem(await nobody.request('/schedules'), 403, 'forbidden');
        await expectProblem(await nobody.request('/workplaces'), 403, 'forbidden');

        const manager = await signedIn(a.companyId, '52,92');
        const beta = b.employees[0]!.id;
        await expectProblem(await manager.request(`/employees/${beta}`), 404, 'not_found');
        await expectProblem(
          await manager.request(`/employees/${beta}`, { method: 'PATCH', json: { status: 'inactive' } }),
          404,
          'not_found',
        );
        await expectProblem(
          await manager.request(`/employees/${beta}`, { method: 'DELETE' }),
          404,
          'not_found',
        );
        const schedule = await expectProblem(
          await manager.request(`/employees/${employee}`, {
            method: 'PATCH',
            json: { scheduleId: b.scheduleId },
          }),
          422,
          'validation_failed',
        );
        expect(schedule.errors?.map((e) => e.field)).toEqual(['scheduleId']);
        // Beta's employee is untouched; without the CSRF token nothing changes either.
        const betaAdmin = await signedIn(b.companyId, '52');
        expect(await json(await betaAdmin.request(`/employees/${beta}`), 200)).toMatchObject({
          status: 'active',
        });
        await expectProblem(
          await manager.request(`/employees/${employee}`, { method: 'DELETE', csrf: null }),
          403,
          'csrf_failed',
        );
        expect(await json(await reader.request(`/employees/${employee}`), 200)).toMatchObject({
          id: employee,
        });
      });
    });

    describe('the audit log', () => {
      it('shows who did what, newest first, filtered by actor, action and day, paged by cursor', async () => {
        const person = await signedIn(a.companyId, '92');
        const id = a.employees[1]!.id;
        await json(
          await person.request(`/employees/${id}`, { method: 'PATCH', json: { firstName: 'Renamed' } }),
          200,
        );
        // One by the command line's service (no person).
        await inTransaction(server.ctx, (tx, now) => updateEmployee(tx, now, id, { lastName: 'ByCli' }));
        const auditor = await client.fresh().signedIn(admin);
        const all = await json<{ items: Json[]; actions: string[] }>(
          await auditor.request('/audit-log'),
          200,
        );
        expect(all.actions).toEqual(
          expect.arrayContaining(['employee.create', 'employee.update', 'api_key.create']),
        );
        expect(JSON.stringify(all)).not.toContain(b.companyId);
        const times = all.items.map((i) => i.at as string);
        expect([...times].sort().reverse()).toEqual(times);

        const cli = await json<{ items: Json[] }>(
          await auditor.request('/audit-log?actorType=cli&action=employee.update'),
          200,
        );
        expect(cli.items.find((i) => i.targetId === id)).toMatchObject({
          actor: { type: 'cli', id: null, name: null },
          details: { last_name: 'ByCli' },
        });
        const users = await json<{ items: Json[] }>(
          await auditor.request('/audit-log?actorType=user&action=employee.update'),
          200,
        );
        const mine = users.items.find((i) => i.targetId === id)!;
        expect(mine).toMatchObject({ actor: { type: 'user' }, details: { first_name: 'Renamed' } });
        const byActor = await json<{ items: Json[] }>(
          await auditor.request(`/audit-log?actorId=${(mine.actor as Json).id as string}`),
          200,
        );
        expect(byActor.items.map((i) => i.action).sort()).toEqual(['console.sign_in', 'employee.update']);

        // Days in the company's zone: 4 March is today there; 3 March holds nothing.
        const today = await json<{ items: Json[] }>(
          await auditor.request('/audit-log?from=2026-03-04&to=2026-03-04'),
          200,
        );
        expect(today.items.length).toBe(all.items.length);
        const yesterday = await json<{ items: Json[] }>(
          await auditor.request('/audit-log?to=2026-03-03'),
          200,
        );
        expect(yesterday.items).toEqual([]);
        await expectProblem(
          await auditor.request('/audit-log?from=2026-03-05&to=2026-03-04'),
          422,
          'validation_failed',
        );

        // Pages of 2 give the same entries.
        const seen: string[] = [];
        let cursor: string | null = null;
        do {
          const pageResponse: Response = await auditor.request(
            `/audit-log?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          );
          const page = await json<{ items: Json[]; nextCursor: string | null }>(pageResponse, 200);
          seen.push(...page.items.map((i) => i.id as string));
          cursor = page.nextCursor;
        } while (cursor);
        expect(seen).toEqual(all.items.map((i) => i.id));
        // A cursor of other filters is refused.
        const filtered = await json<{ nextCursor: string }>(
          await auditor.request('/audit-log?limit=1&action=employee.'),
          200,
        );
        await expectProblem(
          await auditor.request(`/audit-log?cursor=${encodeURIComponent(filtered.nextCursor)}`),
          422,
          'validation_failed',
        );
      });

      it('needs permission 93 (or super admin) and shows only the own company', async () => {
        await expectProblem(
          await (await signedIn(a.companyId, '47,52,90,91,92')).request('/audit-log'),
          403,
          'forbidden',
        );
        const beta = await signedIn(b.companyId, '93');
        const page = await json<{ items: Json[] }>(await beta.request('/audit-log?limit=100'), 200);
        expect(JSON.stringify(page)).not.toContain(a.companyId);
        expect(JSON.stringify(page)).not.toContain(a.employees[0]!.id);
      });

      describe('timesheets and their company settings', () => {
        it('shows per employee the days, regular and overtime hours and flags, by the company settings; the CSV too', async () => {
          const token = await fetchToken(server, a.key.clientId, a.key.secret);
          const employee = a.employees[0]!;
          const shift = await server.request('/api/public/v1/time-entries', {
            method: 'POST',
            token,
            headers: { 'idempotency-key': crypto.randomUUID() },
            json: {
              employee: { id: employee.id },
              clockIn: '2026-03-02T08:00:00+01:00',
              clockOut: '2026-03-02T18:30:00+01:00',
            },
          });
          expect(shift.status, await shift.clone().text()).toBe(201);

          const manager = await signedIn(a.companyId, '49,93');
          const settings = await json<Json>(
            await manager.request('/company', {
              method: 'PATCH',
              json: { workweekStart: 'monday', dailyOvertimeHours: 8, workingTimeRules: 'de-arbzg' },
            }),
            200,
          );
          expect(settings).toMatchObject({
            workweekStart: 'monday',
            dailyOvertimeHours: 8,
            workingTimeRules: 'de-arbzg',
          });
          const bad = await expectProblem(
            await manager.request('/company', { method: 'PATCH', json: { dailyOvertimeHours: 7.125 } }),
            422,
            'validation_failed',
          );
          expect(bad.errors?.map((e) => e.field)).toEqual(['dailyOvertimeHours']);
          const badPack = await expectProblem(
            await manager.request('/company', { method: 'PATCH', json: { workingTimeRules: 'fr-code' } }),
            422,
            'validation_failed',
          );
          expect(badPack.errors?.[0]?.field).toMatch(/workingTimeRules$/);
          // The attendance margins and the rounding of reports (issue 33).
          expect(
            await json<Json>(
              await manager.request('/company', {
                method: 'PATCH',
                json: {
                  lateGraceMinutes: 10,
                  noShowAfterMinutes: 45,
                  rounding: 'nearest',
                  roundingMinutes: 6,
                },
              }),
              200,
            ),
          ).toMatchObject({
            lateGraceMinutes: 10,
            noShowAfterMinutes: 45,
            rounding: 'nearest',
            roundingMinutes: 6,
          });
          const badGrace = await expectProblem(
            await manager.request('/company', { method: 'PATCH', json: { lateGraceMinutes: 241 } }),
            422,
            'validation_failed',
          );
          expect(badGrace.errors?.[0]?.field).toMatch(/lateGraceMinutes$/);
          // A grace longer than the no-show margin (45 min) would never record late: refused.
          const graceOverNoShow = await expectProblem(
            await manager.request('/company', { method: 'PATCH', json: { lateGraceMinutes: 46 } }),
            422,
            'validation_failed',
          );
          expect(graceOverNoShow.errors?.map((e) => e.field)).toEqual(['lateGraceMinutes']);
          expect(
            await json<Json>(
              await manager.request('/company', { method: 'PATCH', json: { rounding: 'none' } }),
              200,
            ),
          ).toMatchObject({ rounding: 'none', roundingMinutes: 6 });

          const page = await json<{ items: Json[]; settings: Json; from: string; to: string }>(
            await manager.request(`/timesheets?from=2026-03-02&to=2026-03-08&employeeId=${employee.id}`),
            200,
          );
          expect(page.settings).toEqual({
            workweekStart: 'monday',
            dailyOvertimeHours: 8,
            workingTimeRules: 'de-arbzg',
          });
          expect(page.items).toHaveLength(1);
          const sheet = page.items[0]!;
          expect(sheet.employee).toMatchObject({ id: employee.id, firstName: 'First0', lastName: 'Last0' });
          expect(sheet.totals).toMatchObject({ workedHours: 10.5, regularHours: 8, overtimeHours: 2.5 });
          const days = sheet.days as Json[];
          expect(days.map((d) => d.date)).toEqual(['2026-03-02']);
          expect((days[0]!.flags as Json[]).map((f) => f.rule)).toContain('de-arbzg.break');
          // The same figures as the public operation (the same service).
          const all = await json<{ items: Json[] }>(
            await manager.request('/timesheets?from=2026-03-02&to=2026-03-08&limit=100'),
            200,
          );
          expect(all.items.map((i) => (i.employee as Json).id)).toEqual(
            expect.arrayContaining(a.employees.map((e) => e.id)),
          );
          expect(JSON.stringify(all)).not.toContain(b.employees[0]!.id);

          const csv = await manager.request(
            `/timesheets/csv?from=2026-03-02&to=2026-03-08&delimiter=semicolon`,
          );
          expect(csv.status).toBe(200);
          expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
          expect(csv.headers.get('content-disposition')).toBe(
            'attachment; filename="timesheets-2026-03-02-2026-03-08.csv"',
          );
          const lines = (await csv.text()).trim().split('\r\n');
          expect(lines[0]).toBe(
            'employee_id;external_id;first_name;last_name;date;worked_hours;regular_hours;overtime_hours;break_minutes;entries;statuses;flags;flag_messages;target_hours;credited_hours;balance_hours;absences;planned_hours',
          );
          expect(lines.slice(1).filter((l) => l.startsWith(employee.id))[0]).toMatch(
            new RegExp(`^${employee.id};EXT-0;First0;Last0;2026-03-02;10.50;8.00;2.50;`),
          );
          expect(lines.join('\n')).not.toContain(b.employees[0]!.id);
        });

        it("needs permission 49; another company's employee or workplace is 404; bad ranges are 422", async () => {
          const noReports = await signedIn(a.companyId, '47,52,93');
          await expectProblem(
            await noReports.request('/timesheets?from=2026-03-02&to=2026-03-08'),
            403,
            'forbidden',
          );
          await expectProblem(
            await noReports.request('/timesheets/csv?from=2026-03-02&to=2026-03-08'),
            403,
            'forbidden',
          );
          const reader = await signedIn(a.companyId, '49');
          await expectProblem(
            await reader.request(
              `/timesheets?from=2026-03-02&to=2026-03-08&employeeId=${b.employees[0]!.id}`,
            ),
            404,
            'not_found',
          );
          await expectProblem(
            await reader.request(
              `/timesheets/csv?from=2026-03-02&to=2026-03-08&workplaceId=${b.workplaceId}`,
            ),
            404,
            'not_found',
          );
          await expectProblem(
            await reader.request('/timesheets?from=2026-03-09&to=2026-03-02'),
            422,
            'validation_failed',
          );
          await expectProblem(
            await reader.request('/timesheets?from=2026-01-01&to=2026-06-30'),
            422,
            'validation_failed',
          );
          await expectProblem(
            await reader.request('/company', { method: 'PATCH', json: { workweekStart: 'sunday' } }),
            403,
            'forbidden',
          );
          expect(await json(await reader.request('/company'), 200)).toMatchObject({
            workweekStart: 'monday',
          });
        });
      });
    });
  },
);
