import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, type Json } from '../support/api.js';
import { AdminClient, createPerson } from '../support/admin-api.js';
import { testDialects } from '../support/databases.js';
import {
  type CompanyFixture,
  createCompanyFixture,
  startTestServer,
  type TestServer,
} from '../support/server.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * The admin API behind the console's Webhooks screen (issue 23): the `webhook` commands' services for
 * the person's own company, permission 93, another company's endpoint 404, held to the admin
 * OpenAPI document; a real local receiver verifies the deliveries.
 */

describe.each(testDialects().map((d) => [d.name, d] as const))(
  'admin API webhooks on %s',
  (_name, dialect) => {
    let server: TestServer;
    let client: AdminClient;
    let a: CompanyFixture;
    let b: CompanyFixture;
    let receiver: WebhookReceiver;
    let serial = 0;

    beforeAll(async () => {
      server = await startTestServer(dialect, {
        env: {
          WEBHOOK_ALLOW_HTTP: 'true',
          WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
          WEBHOOK_POLL_INTERVAL_MS: '100',
          WEBHOOK_RETRY_DELAYS: '0.2,0.2,0.2',
        },
      });
      a = await createCompanyFixture(server.ctx, { name: 'Acme', timeZone: 'Europe/Berlin' });
      b = await createCompanyFixture(server.ctx, { name: 'Beta', timeZone: 'America/New_York' });
      client = await AdminClient.create(server);
      receiver = await new WebhookReceiver().start();
    });
    afterAll(async () => {
      await server?.stop();
      await receiver?.stop();
    });

    async function signedIn(companyId: string, permissions: string) {
      serial += 1;
      const person = await createPerson(server.ctx, companyId, {
        email: `w${serial}@example.com`,
        permissions,
      });
      return client.fresh().signedIn(person);
    }

    async function json<T = Json>(response: Response, status: number): Promise<T> {
      expect(response.status, await response.clone().text()).toBe(status);
      return (await response.json()) as T;
    }

    it('creates (the secret once), lists, changes, disables, re-enables, rotates, tests, replays and deletes', async () => {
      const manager = await signedIn(a.companyId, '93');
      const created = await json<Json & { id: string; secret: string }>(
        await manager.request('/webhooks', {
          method: 'POST',
          json: {
            url: receiver.url,
            eventTypes: ['employee.created', 'day.confirmed'],
            description: 'HR system',
          },
        }),
        201,
      );
      expect(created.secret).toMatch(/^whsec_/);
      expect(created).toMatchObject({ status: 'active', eventTypes: ['employee.created', 'day.confirmed'] });
      receiver.secrets = [created.secret];
      const list = await json<{ items: Json[] }>(await manager.request('/webhooks'), 200);
      expect(list.items.map((e) => e.id)).toEqual([created.id]);
      expect(JSON.stringify(list)).not.toContain(created.secret);

      const changed = await json<Json>(
        await manager.request(`/webhooks/${created.id}`, {
          method: 'PATCH',
          json: { description: 'Payroll' },
        }),
        200,
      );
      expect(changed).toMatchObject({ description: 'Payroll' });
      const disabled = await json<Json>(
        await manager.request(`/webhooks/${created.id}`, { method: 'PATCH', json: { status: 'disabled' } }),
        200,
      );
      expect(disabled).toMatchObject({
        status: 'disabled',
        disabledReason: 'disabled by a person in the console',
      });
      const enabled = await json<Json>(
        await manager.request(`/webhooks/${created.id}`, { method: 'PATCH', json: { status: 'active' } }),
        200,
      );
      expect(enabled).toMatchObject({ status: 'active', disabledReason: null });

      const rotated = await json<Json & { secret: string }>(
        await manager.request(`/webhooks/${created.id}/rotate-secret`, { method: 'POST' }),
        200,
      );
      expect(rotated.secret).not.toBe(created.secret);
      expect(typeof rotated.previousSecretValidUntil).toBe('string');
      receiver.secrets = [rotated.secret];

      const ping = await json<{ deliveryId: string }>(
        await manager.request(`/webhooks/${created.id}/test`, { method: 'POST' }),
        202,
      );
      await expect.poll(() => receiver.received.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
      expect(receiver.received[0]!.verifiedWith).toEqual([rotated.secret]);
      expect(receiver.received[0]!.payload.type).toBe('ping');
      await expect
        .poll(async () => {
          const page = await json<{ items: Json[] }>(
            await manager.request(`/webhooks/${created.id}/deliveries`),
            200,
          );
          return page.items.find((d) => d.id === ping.deliveryId)?.status;
        })
        .toBe('succeeded');
      const replayed = await json<Json>(
        await manager.request(`/webhooks/${created.id}/replay`, {
          method: 'POST',
          json: { deliveryId: ping.deliveryId },
        }),
        202,
      );
      expect(replayed).toEqual({ queued: 1 });
      await expect.poll(() => receiver.received.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
      expect(receiver.received[1]!.id).toBe(receiver.received[0]!.id);

      expect((await manager.request(`/webhooks/${created.id}`, { method: 'DELETE' })).status).toBe(204);
      await expectProblem(await manager.request(`/webhooks/${created.id}/deliveries`), 404, 'not_found');
    });

    it("refuses bad input next to its field, without permission 93, and another company's endpoints", async () => {
      const manager = await signedIn(a.companyId, '93');
      const url = await expectProblem(
        await manager.request('/webhooks', {
          method: 'POST',
          json: { url: 'ftp://x.example/', eventTypes: ['day.confirmed'] },
        }),
        422,
        'validation_failed',
      );
      expect(url.errors?.map((e) => e.field)).toEqual(['url']);
      const types = await expectProblem(
        await manager.request('/webhooks', {
          method: 'POST',
          json: { url: receiver.url, eventTypes: ['day.eaten'] },
        }),
        422,
        'validation_failed',
      );
      expect(types.errors?.map((e) => e.field)).toEqual(['eventTypes']);

      const others = await signedIn(a.companyId, '47,49,52,90,91,92');
      await expectProblem(await others.request('/webhooks'), 403, 'forbidden');
      await expectProblem(
        await others.request('/webhooks', {
          method: 'POST',
          json: { url: receiver.url, eventTypes: ['day.confirmed'] },
        }),
        403,
        'forbidden',
      );

      const betaManager = await signedIn(b.companyId, '93');
      const beta = await json<{ id: string }>(
        await betaManager.request('/webhooks', {
          method: 'POST',
          json: { url: receiver.url, eventTypes: ['day.confirmed'] },
        }),
        201,
      );
      const id = beta.id;
      await expectProblem(
        await manager.request(`/webhooks/${id}`, { method: 'PATCH', json: { status: 'disabled' } }),
        404,
        'not_found',
      );
      await expectProblem(
        await manager.request(`/webhooks/${id}/rotate-secret`, { method: 'POST' }),
        404,
        'not_found',
      );
      await expectProblem(
        await manager.request(`/webhooks/${id}/test`, { method: 'POST' }),
        404,
        'not_found',
      );
      await expectProblem(await manager.request(`/webhooks/${id}/deliveries`), 404, 'not_found');
      await expectProblem(
        await manager.request(`/webhooks/${id}/replay`, {
          method: 'POST',
          json: { from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z' },
        }),
        404,
        'not_found',
      );
      await expectProblem(await manager.request(`/webhooks/${id}`, { method: 'DELETE' }), 404, 'not_found');
      expect(JSON.stringify(await json(await manager.request('/webhooks'), 200))).not.toContain(id);
      const still = await json<{ items: Json[] }>(await betaManager.request('/webhooks'), 200);
      expect(still.items).toMatchObject([{ id, status: 'active' }]);
    });
  },
);
