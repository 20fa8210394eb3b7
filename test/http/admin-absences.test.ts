import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAbsence } from '../../src/modules/absences/absences.js';
import { cliCallerOf } from '../../src/modules/absences/actors.js';
import { setHolidayRegion } from '../../src/modules/absences/working-days.js';
import { createUser } from '../../src/modules/people/users.js';
import { setUserPassword } from '../../src/modules/people/service.js';
import { inTransaction } from '../../src/modules/context.js';
import { type Json } from '../support/absences.js';
import { AdminClient, createPerson, PASSWORD } from '../support/admin-api.js';
import { testDialects } from '../support/databases.js';
import {
  type CompanyFixture,
  createCompanyFixture,
  startTestServer,
  type TestServer,
} from '../support/server.js';

/**
 * The admin API behind the console's Absences screen and the Company screen's absence types and
 * holidays (issue 31), through the real server, every answer held to the admin OpenAPI document:
 * permissions (72 read, 96 decide, 93 settings), another company's ids, field refusals, own absences.
 */

const NOW = Date.parse('2026-06-08T08:00:00Z');
const CLI = { type: 'cli' as const, id: null };

describe.each(testDialects().map((d) => [d.name, d] as const))(
  'admin API absences on %s',
  (_name, dialect) => {
    let server: TestServer;
    let client: AdminClient;
    let a: CompanyFixture;
    let b: CompanyFixture;
    let serial = 0;

    beforeAll(async () => {
      server = await startTestServer(dialect, { now: () => NOW });
      a = await createCompanyFixture(server.ctx, {
        name: 'Acme',
        timeZone: 'Europe/Berlin',
        employeeCount: 3,
      });
      b = await createCompanyFixture(server.ctx, { name: 'Beta', timeZone: 'Europe/Berlin' });
      await inTransaction(server.ctx, (tx, now) => setHolidayRegion(tx, now, a.workplaceId, 'DE-BY', CLI));
      client = await AdminClient.create(server);
    });
    afterAll(async () => server?.stop());

    async function signedIn(permissions: string, employee?: string) {
      serial += 1;
      if (employee === undefined) {
        const person = await createPerson(server.ctx, a.companyId, {
          email: `p${serial}@acme.example`,
          permissions,
        });
        return client.fresh().signedIn(person);
      }
      const email = `linked${serial}@acme.example`;
      const user = await inTransaction(server.ctx, (tx, now) =>
        createUser(tx, now, { companyId: a.companyId, email, permissions, employee }),
      );
      await setUserPassword(server.ctx, user.id, PASSWORD);
      return client.fresh().signedIn({ id: user.id, email, password: PASSWORD });
    }

    async function json(response: Promise<Response>, status: number): Promise<Json> {
      const r = await response;
      expect(r.status, await r.clone().text()).toBe(status);
      return r.status === 204 ? {} : ((await r.json()) as Json);
    }

    const post = (c: AdminClient, path: string, body: unknown = {}) =>
      c.request(path, { method: 'POST', json: body });

    it('manages absence types (93) and shows them to anyone signed in', async () => {
      const manager = await signedIn('93');
      const reader = await signedIn('');
      expect((await json(reader.request('/absence-types'), 200)).items.map((t: Json) => t.code)).toEqual([
        'sick',
        'unpaid',
        'vacation',
      ]);
      const created = await json(
        post(manager, '/absence-types', {
          code: 'parental',
          name: 'Parental leave',
          category: 'other',
          paid: false,
        }),
        201,
      );
      expect(created).toMatchObject({
        code: 'parental',
        paid: false,
        requiresApproval: true,
        deductsFromBalance: false,
      });
      expect(
        (
          await json(
            post(manager, '/absence-types', { code: 'parental', name: 'Again', category: 'other' }),
            409,
          )
        ).error,
      ).toBe('already_exists');
      expect(
        (await json(post(manager, '/absence-types', { code: 'Bad Code', name: 'x', category: 'other' }), 422))
          .errors[0].field,
      ).toMatch(/code/);
      const vacation = (await json(reader.request('/absence-types'), 200)).items.find(
        (t: Json) => t.code === 'vacation',
      );
      const changed = await json(
        manager.request(`/absence-types/${vacation.id}`, {
          method: 'PATCH',
          json: { yearlyEntitlementDays: 25, carryOverMaxDays: 5, carryOverExpiresOn: '03-31' },
        }),
        200,
      );
      expect(changed).toMatchObject({ yearlyEntitlementDays: 25, carryOverExpiresOn: '03-31' });
      const refused = await json(
        manager.request(`/absence-types/${vacation.id}`, {
          method: 'PATCH',
          json: { carryOverExpiresOn: '02-30' },
        }),
        422,
      );
      expect(refused.errors[0].field).toMatch(/carryOverExpiresOn/);
      expect(
        (await json(post(reader, '/absence-types', { code: 'x', name: 'x', category: 'other' }), 403)).error,
      ).toBe('forbidden');
      const theirs = (await json((await signedInB()).request('/absence-types'), 200)).items[0];
      expect(
        (
          await json(
            manager.request(`/absence-types/${theirs.id}`, { method: 'PATCH', json: { name: 'Mine' } }),
            404,
          )
        ).error,
      ).toBe('not_found');
    });

    async function signedInB() {
      serial += 1;
      const person = await createPerson(server.ctx, b.companyId, {
        email: `b${serial}@beta.example`,
        permissions: '72,93,96',
      });
      return client.fresh().signedIn(person);
    }

    it("sets workplaces' holiday regions and the company's holidays (93)", async () => {
      const manager = await signedIn('93');
      const settings = await json(manager.request('/holiday-settings'), 200);
      expect(settings.workplaces).toEqual([{ id: a.workplaceId, name: 'Site', holidayRegion: 'DE-BY' }]);
      const region = await json(
        manager.request(`/workplaces/${a.workplaceId}/holiday-region`, {
          method: 'PUT',
          json: { holidayRegion: 'de-bw' },
        }),
        200,
      );
      expect(region.workplaces[0].holidayRegion).toBe('DE-BW');
      expect(
        (
          await json(
            manager.request(`/workplaces/${a.workplaceId}/holiday-region`, {
              method: 'PUT',
              json: { holidayRegion: 'XX' },
            }),
            422,
          )
        ).errors[0].field,
      ).toBe('holidayRegion');
      expect(
        (
          await json(
            manager.request(`/workplaces/${b.workplaceId}/holiday-region`, {
              method: 'PUT',
              json: { holidayRegion: 'FR' },
            }),
            404,
          )
        ).error,
      ).toBe('not_found');
      await json(
        manager.request(`/workplaces/${a.workplaceId}/holiday-region`, {
          method: 'PUT',
          json: { holidayRegion: 'DE-BY' },
        }),
        200,
      );
      const eve = await json(
        post(manager, '/holiday-overrides', {
          kind: 'add',
          date: '2026-12-24',
          name: 'Christmas Eve',
          portion: 'half',
        }),
        201,
      );
      expect(eve).toMatchObject({ kind: 'add', date: '2026-12-24', portion: 'half', workplaceId: null });
      expect(
        (await json(post(manager, '/holiday-overrides', { kind: 'add', date: '2026-12-31' }), 422)).errors[0]
          .field,
      ).toBe('name');
      expect(
        (
          await json(
            post(manager, '/holiday-overrides', {
              kind: 'remove',
              date: '2026-01-06',
              workplaceId: b.workplaceId,
            }),
            404,
          )
        ).error,
      ).toBe('not_found');
      expect((await json(manager.request('/holiday-settings'), 200)).overrides).toHaveLength(1);
      await json(manager.request(`/holiday-overrides/${eve.id}`, { method: 'DELETE' }), 204);
      expect(
        (await json(manager.request(`/holiday-overrides/${eve.id}`, { method: 'DELETE' }), 404)).error,
      ).toBe('not_found');
      expect(
        (
          await json(
            post(await signedIn('72'), '/holiday-overrides', { kind: 'remove', date: '2026-01-06' }),
            403,
          )
        ).error,
      ).toBe('forbidden');
    });

    it('shows the team calendar and the waiting requests (72), and decides on them (96), never on one’s own', async () => {
      const [first, second] = a.employees.map((e) => e.id) as [string, string];
      const linkedManager = await signedIn('72,96', first);
      const readerOnly = await signedIn('72');
      const caller = await cliCallerOf(server.ctx.database.db, { companyId: a.companyId });
      const request = (employee: string, typeCode: string, from: string, to: string) =>
        inTransaction(server.ctx, (tx, now) =>
          createAbsence(
            tx,
            now,
            caller,
            { employee: { id: employee }, typeCode, startDate: from, endDate: to },
            { dryRun: false },
          ),
        );
      const own = (await request(first, 'unpaid', '2026-06-15', '2026-06-16')).body;
      const theirs = (await request(second, 'unpaid', '2026-06-22', '2026-06-22')).body;
      const later = (await request(second, 'unpaid', '2026-06-29', '2026-06-29')).body;
      await request(second, 'sick', '2026-06-03', '2026-06-05');

      const calendar = await json(
        readerOnly.request(`/absences/calendar?month=2026-06&workplaceId=${a.workplaceId}`),
        200,
      );
      expect(calendar).toMatchObject({ from: '2026-06-01', to: '2026-06-30', truncated: false });
      expect(calendar.holidays.map((h: Json) => h.date)).toEqual(['2026-06-04']);
      expect(calendar.employees).toHaveLength(3);
      expect(calendar.absences.map((x: Json) => [x.type.code, x.status, x.person.firstName])).toEqual([
        ['sick', 'approved', 'First1'],
        ['unpaid', 'requested', 'First0'],
        ['unpaid', 'requested', 'First1'],
        ['unpaid', 'requested', 'First1'],
      ]);
      expect(
        (await json(readerOnly.request(`/absences/calendar?month=2026-06&workplaceId=${b.workplaceId}`), 404))
          .error,
      ).toBe('not_found');
      expect((await json(readerOnly.request('/absences/calendar?month=2026-13'), 422)).error).toBe(
        'validation_failed',
      );
      // Review of issue 31: month 9999-12 ran into year 10000 and answered 500.
      for (const month of ['9999-12', '0000-01', '1999-12'])
        expect((await json(readerOnly.request(`/absences/calendar?month=${month}`), 422)).error).toBe(
          'validation_failed',
        );
      const december = await json(
        readerOnly.request(`/absences/calendar?month=2100-12&workplaceId=${a.workplaceId}`),
        200,
      );
      expect(december).toMatchObject({ from: '2100-12-01', to: '2100-12-31' });

      const page = await json(readerOnly.request('/absences/requests?limit=2'), 200);
      expect(page.items.map((x: Json) => x.id)).toEqual([own.id, theirs.id]);
      const rest = await json(
        readerOnly.request(`/absences/requests?limit=2&cursor=${encodeURIComponent(page.nextCursor)}`),
        200,
      );
      expect(rest.items.map((x: Json) => x.id)).toEqual([later.id]);

      expect((await json(post(readerOnly, `/absences/${theirs.id}/approve`), 403)).error).toBe('forbidden');
      expect((await json(post(linkedManager, `/absences/${own.id}/approve`), 403)).error).toBe('own_entry');
      const approved = await json(post(linkedManager, `/absences/${theirs.id}/approve`), 200);
      expect(approved).toMatchObject({
        status: 'approved',
        decidedBy: { kind: 'person', name: expect.stringMatching(/^linked/) },
      });
      expect((await json(post(linkedManager, `/absences/${theirs.id}/approve`), 409)).error).toBe(
        'invalid_status_transition',
      );
      expect((await json(post(linkedManager, `/absences/${later.id}/reject`), 422)).errors[0].field).toBe(
        'reason',
      );
      expect(
        (await json(post(linkedManager, `/absences/${later.id}/reject`, { reason: 'Busy week' }), 200))
          .status,
      ).toBe('rejected');
      expect(
        (await json(post(await signedInB(), `/absences/${own.id}/cancel`, { reason: 'x' }), 404)).error,
      ).toBe('not_found');

      const balances = await json(readerOnly.request(`/leave-balances?employeeId=${second}&year=2026`), 200);
      expect(balances.items.map((x: Json) => x.type.code)).toEqual(['vacation']);
      expect(
        (await json(readerOnly.request(`/leave-balances?employeeId=${b.employees[0]!.id}`), 404)).error,
      ).toBe('employee_not_found');
      expect((await json((await signedIn('47')).request('/absences/requests'), 403)).error).toBe('forbidden');
    });
  },
);
