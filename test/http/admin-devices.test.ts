import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, type Json } from '../support/api.js';
import { AdminClient, createPerson } from '../support/admin-api.js';
import { testDialects } from '../support/databases.js';
import { IDENTIFY, enrolWith, enrolledDevice } from '../support/kiosk.js';
import {
  type CompanyFixture,
  createCompanyFixture,
  fetchToken,
  startTestServer,
  type TestServer,
} from '../support/server.js';

/**
 * The console's Kiosk devices (issue 35) in the admin API, every answer held to the admin OpenAPI
 * document: permission 92, only the person's own company, the enrolment code shown once and working
 * once, revocation at once, the badge-only switch, PINs, refused punches.
 */

describe.each(testDialects().map((d) => [d.name, d] as const))(
  'admin API kiosk devices on %s',
  (_name, dialect) => {
    let server: TestServer;
    let client: AdminClient;
    let a: CompanyFixture;
    let b: CompanyFixture;
    let serial = 0;

    beforeAll(async () => {
      server = await startTestServer(dialect, { env: { RATE_LIMIT_PER_MINUTE: '100000' } });
      a = await createCompanyFixture(server.ctx, { name: 'Acme', timeZone: 'Europe/Berlin' });
      b = await createCompanyFixture(server.ctx, { name: 'Beta', timeZone: 'Europe/Paris' });
      client = await AdminClient.create(server);
    });
    afterAll(async () => server?.stop());

    async function signedIn(companyId: string, permissions: string) {
      serial += 1;
      const person = await createPerson(server.ctx, companyId, {
        email: `d${serial}@example.com`,
        permissions,
      });
      return client.fresh().signedIn(person);
    }

    async function json<T = Json>(response: Response, status: number): Promise<T> {
      expect(response.status, await response.clone().text()).toBe(status);
      return (await response.json()) as T;
    }

    it('without permission 92 every device operation is 403 forbidden', async () => {
      const reader = await signedIn(a.companyId, '52,47,90,93');
      await expectProblem(await reader.request('/devices'), 403, 'forbidden');
      await expectProblem(
        await reader.request('/devices', { method: 'POST', json: { workplaceId: a.workplaceId, name: 'X' } }),
        403,
        'forbidden',
      );
      await expectProblem(
        await reader.request(`/employees/${a.employees[0]!.id}/pin`, {
          method: 'PUT',
          json: { pin: '1234' },
        }),
        403,
        'forbidden',
      );
      await expectProblem(
        await reader.request(`/workplaces/${a.workplaceId}/kiosk`, {
          method: 'PUT',
          json: { kioskBadgeOnly: true },
        }),
        403,
        'forbidden',
      );
    });

    it('enrols with a code that works once, lists, shows refusals, revokes at once', async () => {
      const manager = await signedIn(a.companyId, '92');
      const enrolment = await json<{ id: string; enrolmentCode: string; expiresAt: string }>(
        await manager.request('/devices', {
          method: 'POST',
          json: { workplaceId: a.workplaceId, name: 'Hall' },
        }),
        201,
      );
      const first = await enrolWith(server, enrolment.enrolmentCode);
      expect(first.status).toBe(201);
      const credential = (await first.json()) as { clientId: string; clientSecret: string };
      await expectProblem(await enrolWith(server, enrolment.enrolmentCode), 401, 'invalid_enrolment_code');

      const token = await fetchToken(server, credential.clientId, credential.clientSecret);
      const batch = await server.request('/api/public/v1/time-clock/events/batch', {
        method: 'POST',
        token,
        headers: { 'x-kiosk-queue': '1' },
        json: {
          events: [
            {
              employee: { id: a.employees[0]!.id },
              type: 'clock_out',
              occurredAt: new Date().toISOString(),
              idempotencyKey: 'refused-1',
            },
          ],
        },
      });
      expect(batch.status).toBe(200);

      const list = await json<{ items: Json[]; workplaces: Json[] }>(await manager.request('/devices'), 200);
      const hall = list.items.find((d) => d.id === enrolment.id)!;
      expect(hall).toMatchObject({
        name: 'Hall',
        workplaceName: 'Site',
        queued: 1,
        refused: 1,
        revokedAt: null,
      });
      expect(hall.enrolledAt).not.toBeNull();
      expect(JSON.stringify(list)).not.toContain(enrolment.enrolmentCode);
      expect(list.workplaces).toEqual([{ id: a.workplaceId, name: 'Site', kioskBadgeOnly: false }]);

      const refusals = await json<{ items: Json[] }>(
        await manager.request(`/devices/${enrolment.id}/refusals`),
        200,
      );
      expect(refusals.items).toEqual([
        expect.objectContaining({
          employeeId: a.employees[0]!.id,
          type: 'clock_out',
          status: 409,
          error: 'no_open_session',
        }),
      ]);

      const revoked = await json<Json>(
        await manager.request(`/devices/${enrolment.id}/revoke`, { method: 'POST' }),
        200,
      );
      expect(revoked.revokedAt).not.toBeNull();
      const after = await server.request('/api/public/v1/kiosk/employees', { token });
      await expectProblem(after, 401, 'invalid_token');
    });

    it("never reaches another company's devices, workplaces or employees", async () => {
      const beta = await signedIn(b.companyId, '92');
      const device = await enrolledDevice(server, a.workplaceId, 'Acme tablet');
      const list = await json<{ items: Json[] }>(await beta.request('/devices'), 200);
      expect(list.items.map((d) => d.id)).not.toContain(device.id);
      await expectProblem(
        await beta.request(`/devices/${device.id}/revoke`, { method: 'POST' }),
        404,
        'not_found',
      );
      await expectProblem(await beta.request(`/devices/${device.id}/refusals`), 404, 'not_found');
      await expectProblem(
        await beta.request('/devices', {
          method: 'POST',
          json: { workplaceId: a.workplaceId, name: 'Sneaky' },
        }),
        404,
        'not_found',
      );
      await expectProblem(
        await beta.request(`/employees/${a.employees[0]!.id}/pin`, { method: 'PUT', json: { pin: '1234' } }),
        404,
        'not_found',
      );
      await expectProblem(
        await beta.request(`/workplaces/${a.workplaceId}/kiosk`, {
          method: 'PUT',
          json: { kioskBadgeOnly: true },
        }),
        404,
        'not_found',
      );
    });

    it('sets a PIN (4 to 8 digits) that the kiosk then accepts, and the badge-only switch', async () => {
      const manager = await signedIn(a.companyId, '92');
      const employeeId = a.employees[1]!.id;
      await expectProblem(
        await manager.request(`/employees/${employeeId}/pin`, { method: 'PUT', json: { pin: '12a4' } }),
        422,
        'validation_failed',
      );
      expect(
        await json(
          await manager.request(`/employees/${employeeId}/pin`, { method: 'PUT', json: { pin: '86420' } }),
          200,
        ),
      ).toEqual({ id: employeeId, pinSet: true });
      const device = await enrolledDevice(server, a.workplaceId, 'PIN tablet');
      const token = await fetchToken(server, device.clientId, device.clientSecret);
      const ok = await server.request(IDENTIFY, {
        method: 'POST',
        token,
        json: { employeeId, pin: '86420' },
      });
      expect(ok.status).toBe(200);

      expect(
        await json(
          await manager.request(`/workplaces/${a.workplaceId}/kiosk`, {
            method: 'PUT',
            json: { kioskBadgeOnly: true },
          }),
          200,
        ),
      ).toEqual({ id: a.workplaceId, name: 'Site', kioskBadgeOnly: true });
      const names = await server.request('/api/public/v1/kiosk/employees', { token });
      expect(await names.json()).toEqual({ items: [] });
      // Review #11: the switch is a workplace field, shown in the admin workplace list.
      const reader = await signedIn(a.companyId, '52');
      const workplaces = await json<{ items: Json[] }>(await reader.request('/workplaces'), 200);
      expect(workplaces.items.find((w) => w.id === a.workplaceId)).toMatchObject({ kioskBadgeOnly: true });
    });

    it('PIN attempts are limited per address', async () => {
      const device = await enrolledDevice(server, b.workplaceId, 'Busy tablet');
      const token = await fetchToken(server, device.clientId, device.clientSecret);
      const unknown = '00000000-0000-4000-8000-000000000000';
      let last = 0;
      for (let i = 0; i < 301; i++)
        last = (
          await server.request(IDENTIFY, {
            method: 'POST',
            token,
            json: { employeeId: unknown, pin: '1234' },
          })
        ).status;
      expect(last).toBe(429);
    });
  },
);
