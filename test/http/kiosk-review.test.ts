import { describe, expect, it } from 'vitest';
import { dummyPinHash, hashPin, pruneKioskAttempts, setEmployeePin } from '../../src/modules/devices/pins.js';
import { inTransaction } from '../../src/modules/context.js';
import { recordRefusedPunch } from '../../src/modules/devices/sync.js';
import type { Principal } from '../../src/modules/auth/service.js';
import { enrolledDevice, IDENTIFY, otherWorkplace, setPin } from '../support/kiosk.js';
import { testDialects } from '../support/databases.js';
import { fetchToken } from '../support/server.js';
import { EVENTS, T0, call, timeTrackingSuite } from '../support/time-tracking.js';

/* The review of the kiosk branch (issue 35): each finding's rule, through the real server. */

const MINUTE = 60_000;
const BATCH = `${EVENTS}/batch`;

describe.each(testDialects().map((d) => [d.name, d] as const))(
  'kiosk review fixes on %s',
  (_name, dialect) => {
    const suite = timeTrackingSuite(dialect, { start: T0 });

    async function kiosk(employeeCount = 2) {
      const tenant = await suite.berlin({ employeeCount });
      const device = await enrolledDevice(suite.server, tenant.fixture.workplaceId);
      const token = await fetchToken(suite.server, device.clientId, device.clientSecret);
      return { tenant, device, token };
    }

    describe('#1 a device reads nobody’s state or badge without identifying them', () => {
      it('X-Service-Dry-Run is 403 insufficient_scope for a device, on both punch routes; nothing stored', async () => {
        const { tenant, token } = await kiosk();
        const event = {
          employee: { id: tenant.employeeId },
          type: 'toggle',
          occurredAt: new Date(T0 - 10 * MINUTE).toISOString(),
        };
        const single = await call(suite.server, token, 'POST', EVENTS, event, {
          'x-service-dry-run': 'true',
        });
        expect(single.status).toBe(403);
        expect(single.body.error).toBe('insufficient_scope');
        const batch = await call(
          suite.server,
          token,
          'POST',
          BATCH,
          { events: [event] },
          { 'x-service-dry-run': 'true' },
        );
        expect(batch.status).toBe(403);
        expect(batch.body.error).toBe('insufficient_scope');
        expect(await suite.rows(tenant.employeeId)).toHaveLength(0);
        // An API key's token still may.
        const keyed = await call(suite.server, tenant.token, 'POST', EVENTS, event, {
          'x-service-dry-run': 'true',
        });
        expect(keyed.status).toBe(200);
        expect(keyed.body.employee).toEqual({ id: tenant.employeeId, externalId: 'EXT-0' });
      });

      it('answers to a device name the employee by id only (externalId null): punch, batch, replay, identify by PIN', async () => {
        const { tenant, token } = await kiosk();
        const at = new Date(T0 - 30 * MINUTE).toISOString();
        const punch = await call(
          suite.server,
          token,
          'POST',
          EVENTS,
          { employee: { id: tenant.employeeId }, type: 'clock_in', occurredAt: at },
          { 'idempotency-key': 'r1-a' },
        );
        expect(punch.status).toBe(201);
        expect(punch.body.employee).toEqual({ id: tenant.employeeId, externalId: null });
        const replay = await call(
          suite.server,
          token,
          'POST',
          EVENTS,
          { employee: { id: tenant.employeeId }, type: 'clock_in', occurredAt: at },
          { 'idempotency-key': 'r1-a' },
        );
        expect(replay.body.employee).toEqual({ id: tenant.employeeId, externalId: null });
        const batch = await call(suite.server, token, 'POST', BATCH, {
          events: [
            {
              employee: { id: tenant.employeeId },
              type: 'clock_out',
              occurredAt: new Date(T0 - 5 * MINUTE).toISOString(),
              idempotencyKey: 'r1-b',
            },
          ],
        });
        const results = (
          JSON.parse(batch.text) as { results: { status: number; body: { employee: unknown } }[] }
        ).results;
        expect(results[0]!.status).toBe(201);
        expect(results[0]!.body.employee).toEqual({ id: tenant.employeeId, externalId: null });
        await setPin(suite.server, tenant.employeeId, '4321');
        const byPin = await call(suite.server, token, 'POST', IDENTIFY, {
          employeeId: tenant.employeeId,
          pin: '4321',
        });
        expect(byPin.status).toBe(200);
        expect(JSON.parse(byPin.text).employee).toEqual({ id: tenant.employeeId, externalId: null });
      });
    });

    describe('#2 unknown badges are limited per device', () => {
      it('20 unknown badges in 15 minutes refuse every badge at that device: 429 badge_locked with Retry-After', async () => {
        const { tenant, token } = await kiosk();
        const second = await enrolledDevice(suite.server, tenant.fixture.workplaceId, 'Back door');
        const secondToken = await fetchToken(suite.server, second.clientId, second.clientSecret);
        for (let i = 0; i < 20; i += 1) {
          if (i === 10) suite.now = T0 + 5 * MINUTE;
          const reply = await call(suite.server, token, 'POST', IDENTIFY, { badge: `GUESS-${i}` });
          expect(reply.status).toBe(404);
          expect(reply.body.error).toBe('employee_not_found');
        }
        const stored = await suite.server.database.db
          .selectFrom('kiosk_badge_failures')
          .select('device_id')
          .execute();
        expect(stored).toHaveLength(20);
        // Locked: even a known badge is refused, until the oldest unknown one is 15 minutes old.
        const locked = await call(suite.server, token, 'POST', IDENTIFY, { badge: 'EXT-0' });
        expect(locked.status).toBe(429);
        expect(locked.body.error).toBe('badge_locked');
        expect(locked.headers.get('retry-after')).toBe(String(10 * 60));
        // Another device of the workplace is not locked.
        expect((await call(suite.server, secondToken, 'POST', IDENTIFY, { badge: 'EXT-0' })).status).toBe(
          200,
        );
        // The first ten age out after 15 minutes: ten more tries, then locked again.
        suite.now = T0 + 15 * MINUTE + 1000;
        expect((await call(suite.server, token, 'POST', IDENTIFY, { badge: 'EXT-0' })).status).toBe(200);
        for (let i = 0; i < 10; i += 1)
          expect((await call(suite.server, token, 'POST', IDENTIFY, { badge: `MORE-${i}` })).status).toBe(
            404,
          );
        expect((await call(suite.server, token, 'POST', IDENTIFY, { badge: 'EXT-0' })).status).toBe(429);
      });
    });

    describe('#2 badges are counted on the punch routes too', () => {
      it('punches naming an unknown externalId count; past 20, badge-only punches and batches are 429 badge_locked', async () => {
        const { tenant, device, token } = await kiosk();
        const at = new Date(T0 - 20 * MINUTE).toISOString();
        const byBadge = (badge: string) => ({
          employee: { externalId: badge },
          type: 'clock_in',
          occurredAt: at,
        });
        for (let i = 0; i < 10; i += 1)
          expect((await call(suite.server, token, 'POST', EVENTS, byBadge(`PUNCH-${i}`))).status).toBe(404);
        const batch = await call(suite.server, token, 'POST', BATCH, {
          events: Array.from({ length: 10 }, (_, i) => byBadge(`BATCH-${i}`)),
        });
        expect(batch.status).toBe(200);
        const counted = await suite.server.database.db
          .selectFrom('kiosk_badge_failures')
          .select('id')
          .where('device_id', '=', device.id)
          .execute();
        expect(counted.length).toBeGreaterThanOrEqual(20);
        const single = await call(suite.server, token, 'POST', EVENTS, byBadge('EXT-0'));
        expect(single.status).toBe(429);
        expect(single.body.error).toBe('badge_locked');
        expect(single.headers.get('retry-after')).toBeTruthy();
        const locked = await call(suite.server, token, 'POST', BATCH, { events: [byBadge('EXT-0')] });
        expect(locked.status).toBe(429);
        expect(locked.body.error).toBe('badge_locked');
        expect((await call(suite.server, token, 'POST', IDENTIFY, { badge: 'EXT-0' })).status).toBe(429);
        // Punches by id are not badges: they still go through.
        const byId = await call(suite.server, token, 'POST', BATCH, {
          events: [{ employee: { id: tenant.employeeId }, type: 'clock_in', occurredAt: at }],
        });
        expect(byId.status).toBe(200);
        expect(JSON.parse(byId.text).results[0].status).toBe(201);
      });
    });

    describe('#5 a device acts only for active employees', () => {
      it('a suspended or terminated employee is 404 employee_not_found at identify (badge, PIN) and punches', async () => {
        const { tenant, token } = await kiosk();
        await setPin(suite.server, tenant.employeeId, '2468');
        const at = new Date(T0 - 20 * MINUTE).toISOString();
        const event = { employee: { id: tenant.employeeId }, type: 'clock_in', occurredAt: at };
        for (const status of ['suspended', 'terminated']) {
          await suite.server.database.db
            .updateTable('employees')
            .set({ status })
            .where('id', '=', tenant.employeeId)
            .execute();
          const listed = await call(suite.server, token, 'GET', '/api/public/v1/kiosk/employees');
          expect(JSON.parse(listed.text).items.map((item: { id: string }) => item.id)).not.toContain(
            tenant.employeeId,
          );
          for (const body of [{ badge: 'EXT-0' }, { employeeId: tenant.employeeId, pin: '2468' }]) {
            const reply = await call(suite.server, token, 'POST', IDENTIFY, body);
            expect(reply.status).toBe(404);
            expect(reply.body.error).toBe('employee_not_found');
          }
          const single = await call(suite.server, token, 'POST', EVENTS, event);
          expect(single.status).toBe(404);
          expect(single.body.error).toBe('employee_not_found');
          const byBadge = await call(suite.server, token, 'POST', EVENTS, {
            ...event,
            employee: { externalId: 'EXT-0' },
          });
          expect(byBadge.status).toBe(404);
          const batch = await call(suite.server, token, 'POST', BATCH, { events: [event] });
          const [result] = (
            JSON.parse(batch.text) as { results: { status: number; body: { error: string } }[] }
          ).results;
          expect(result).toMatchObject({ status: 404, body: { error: 'employee_not_found' } });
        }
        expect(await suite.rows(tenant.employeeId)).toHaveLength(0);
        // Active again: the device may punch for them.
        await suite.server.database.db
          .updateTable('employees')
          .set({ status: 'active' })
          .where('id', '=', tenant.employeeId)
          .execute();
        expect((await call(suite.server, token, 'POST', EVENTS, event)).status).toBe(201);
      });
    });

    describe('#10 a device learns nothing of employees elsewhere', () => {
      it("another workplace's employee with a mismatching externalId is 404, not 422; its own still 422", async () => {
        const { tenant, token } = await kiosk();
        const other = await otherWorkplace(suite.server, tenant.fixture);
        const at = new Date(T0 - 20 * MINUTE).toISOString();
        const elsewhere = await call(suite.server, token, 'POST', EVENTS, {
          employee: { id: other.employeeId, externalId: 'NOT-HIS' },
          type: 'clock_in',
          occurredAt: at,
        });
        expect(elsewhere.status).toBe(404);
        expect(elsewhere.body.error).toBe('employee_not_found');
        const own = await call(suite.server, token, 'POST', EVENTS, {
          employee: { id: tenant.employeeId, externalId: 'NOT-HERS' },
          type: 'clock_in',
          occurredAt: at,
        });
        expect(own.status).toBe(422);
        expect(own.body.error).toBe('validation_failed');
        // An API key's token is told of the mismatch as before.
        const keyed = await call(suite.server, tenant.token, 'POST', EVENTS, {
          employee: { id: other.employeeId, externalId: 'NOT-HIS' },
          type: 'clock_in',
          occurredAt: at,
        });
        expect(keyed.status).toBe(422);
        expect(await suite.rows(other.employeeId)).toHaveLength(0);
      });
    });

    describe("#3 the company's API access switched off is not a revoked device", () => {
      async function tokenReply(clientId: string, secret: string) {
        const response = await suite.server.request('/api/public/v1/oauth/token', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'client_credentials',
            client_id: clientId,
            client_secret: secret,
          }).toString(),
        });
        return {
          status: response.status,
          body: (await response.json()) as { error?: string; error_description?: string },
        };
      }

      it('answers 400 unauthorized_client while API access is off, 401 invalid_client once revoked', async () => {
        const { tenant, device } = await kiosk();
        const setAccess = (on: boolean) =>
          suite.server.database.db
            .updateTable('companies')
            .set({ api_access: on ? 1 : 0 })
            .where('id', '=', tenant.fixture.companyId)
            .execute();
        await setAccess(false);
        const off = await tokenReply(device.clientId, device.clientSecret);
        expect(off.status).toBe(400);
        expect(off.body.error).toBe('unauthorized_client');
        expect(off.body.error_description).toMatch(/API access/);
        // Back on: the same credential works, no new enrolment.
        await setAccess(true);
        expect((await tokenReply(device.clientId, device.clientSecret)).status).toBe(200);
        await suite.server.database.db
          .updateTable('devices')
          .set({ revoked_at: new Date(T0).toISOString() })
          .where('id', '=', device.id)
          .execute();
        const revoked = await tokenReply(device.clientId, device.clientSecret);
        expect(revoked.status).toBe(401);
        expect(revoked.body.error).toBe('invalid_client');
      });
    });

    describe('#4 a badge-only workplace takes no PINs', () => {
      it('the PIN form is 403 kiosk_badge_only (not counted as a wrong PIN); badges still work', async () => {
        const { tenant, token } = await kiosk();
        await setPin(suite.server, tenant.employeeId, '1357');
        await suite.server.database.db
          .updateTable('workplaces')
          .set({ kiosk_badge_only: 1 })
          .where('id', '=', tenant.fixture.workplaceId)
          .execute();
        for (const pin of ['1357', '0000']) {
          const reply = await call(suite.server, token, 'POST', IDENTIFY, {
            employeeId: tenant.employeeId,
            pin,
          });
          expect(reply.status).toBe(403);
          expect(reply.body.error).toBe('kiosk_badge_only');
        }
        const counted = await suite.server.database.db
          .selectFrom('kiosk_pin_failures')
          .select('id')
          .execute();
        expect(counted).toHaveLength(0);
        expect((await call(suite.server, token, 'POST', IDENTIFY, { badge: 'EXT-0' })).status).toBe(200);
      });
    });

    describe('#7 no PIN takes as long as a wrong PIN', () => {
      it("the stand-in hash for an employee without a PIN has a real PIN hash's scrypt parameters", async () => {
        const { tenant } = await kiosk();
        await setPin(suite.server, tenant.employeeId, '9753');
        const row = await suite.server.database.db
          .selectFrom('employee_pins')
          .select('pin_hash')
          .where('employee_id', '=', tenant.employeeId)
          .executeTakeFirstOrThrow();
        const parameters = (hash: string) => hash.split('$').slice(0, 4).join('$');
        const dummy = await dummyPinHash();
        expect(parameters(dummy)).toBe(parameters(row.pin_hash));
        expect(dummy.split('$')[5]!.length).toBe(row.pin_hash.split('$')[5]!.length);
      });
    });

    describe('#8 a transient refusal is not kept as a refusal', () => {
      it('409 idempotency_in_flight is not recorded; a punch stored later under the same key takes its refusal away', async () => {
        const { tenant, device } = await kiosk();
        const principal = { kind: 'device', id: device.id, companyId: tenant.fixture.companyId } as Principal;
        const event = {
          employee: { id: tenant.employeeId },
          type: 'clock_in',
          occurredAt: new Date(T0).toISOString(),
        };
        const refusals = () =>
          suite.server.database.db
            .selectFrom('device_refusals')
            .select(['idempotency_key', 'error'])
            .where('device_id', '=', device.id)
            .execute();
        const problem = (error: string) => JSON.stringify({ error, detail: error });
        await recordRefusedPunch(suite.server.ctx, principal, event, 'k-busy', {
          status: 409,
          body: problem('idempotency_in_flight'),
        });
        expect(await refusals()).toEqual([]);
        await recordRefusedPunch(suite.server.ctx, principal, event, 'k-later', {
          status: 409,
          body: problem('day_locked'),
        });
        expect(await refusals()).toEqual([{ idempotency_key: 'k-later', error: 'day_locked' }]);
        await recordRefusedPunch(suite.server.ctx, principal, event, 'k-later', { status: 201, body: '{}' });
        expect(await refusals()).toEqual([]);
      });
    });

    describe('#9 a PIN is hashed before the write transaction opens', () => {
      it('setEmployeePin stores the hash made by hashPin outside it, and hashes nothing itself', async () => {
        const { tenant } = await kiosk();
        await expect(hashPin('12')).rejects.toMatchObject({ errorName: 'validation_failed' });
        const hashed = await hashPin('8642');
        await inTransaction(suite.server.ctx, (tx, now) =>
          setEmployeePin(tx, now, tenant.employeeId, hashed),
        );
        const row = await suite.server.database.db
          .selectFrom('employee_pins')
          .select('pin_hash')
          .where('employee_id', '=', tenant.employeeId)
          .executeTakeFirstOrThrow();
        expect(row.pin_hash).toBe(hashed.pinHash);
      });
    });

    describe("#6 the device's headers are in the public description", () => {
      it('X-Device-Clock and X-Kiosk-Queue are declared on the punch routes and the kiosk operations', async () => {
        const response = await suite.server.request('/api/public/v1/openapi.json');
        const document = (await response.json()) as {
          paths: Record<
            string,
            Record<string, { parameters?: { in: string; name: string; description?: string }[] }>
          >;
        };
        for (const [path, method] of [
          ['/api/public/v1/time-clock/events', 'post'],
          ['/api/public/v1/time-clock/events/batch', 'post'],
          ['/api/public/v1/kiosk/employees', 'get'],
          ['/api/public/v1/kiosk/identify', 'post'],
        ] as const) {
          const headers = (document.paths[path]![method]!.parameters ?? []).filter((p) => p.in === 'header');
          const names = headers.map((p) => p.name.toLowerCase());
          expect(names, `${method} ${path}`).toEqual(
            expect.arrayContaining(['x-device-clock', 'x-kiosk-queue']),
          );
          expect(headers.find((p) => p.name.toLowerCase() === 'x-device-clock')!.description).toMatch(
            /2 minutes/,
          );
        }
      });
    });

    describe('#13 kiosk attempts are pruned', () => {
      it('wrong PINs, unknown badges and locks older than an hour are removed; recent ones stay', async () => {
        const { tenant, device } = await kiosk();
        const db = suite.server.database.db;
        const base = { company_id: tenant.fixture.companyId, device_id: device.id };
        const old = new Date(T0 - 61 * MINUTE).toISOString();
        const recent = new Date(T0 - 5 * MINUTE).toISOString();
        await db
          .insertInto('kiosk_pin_failures')
          .values([
            { ...base, id: 'f-old', employee_id: tenant.employeeId, at: old },
            { ...base, id: 'f-new', employee_id: tenant.employeeId, at: recent },
          ])
          .execute();
        await db
          .insertInto('kiosk_badge_failures')
          .values([
            { ...base, id: 'b-old', at: old },
            { ...base, id: 'b-new', at: recent },
          ])
          .execute();
        await db
          .insertInto('kiosk_pin_locks')
          .values([
            { ...base, id: 'l-old', employee_id: null, locked_at: old, locked_until: old },
            { ...base, id: 'l-new', employee_id: null, locked_at: recent, locked_until: recent },
          ])
          .execute();
        expect(await pruneKioskAttempts(suite.server.ctx)).toBeGreaterThanOrEqual(3);
        expect(
          (
            await db
              .selectFrom('kiosk_pin_failures')
              .select('id')
              .where('device_id', '=', device.id)
              .execute()
          ).map((r) => r.id),
        ).toEqual(['f-new']);
        expect(
          (
            await db
              .selectFrom('kiosk_badge_failures')
              .select('id')
              .where('device_id', '=', device.id)
              .execute()
          ).map((r) => r.id),
        ).toEqual(['b-new']);
        expect(
          (
            await db.selectFrom('kiosk_pin_locks').select('id').where('device_id', '=', device.id).execute()
          ).map((r) => r.id),
        ).toEqual(['l-new']);
      });
    });
  },
);
