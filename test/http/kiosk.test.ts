import { describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/modules/context.js';
import { listDevices, revokeDevice, setKioskBadgeOnly } from '../../src/modules/devices/service.js';
import { expectProblem } from '../support/api.js';
import { testDialects } from '../support/databases.js';
import {
  ENROL,
  IDENTIFY,
  KIOSK_EMPLOYEES,
  enrolWith,
  enrolledDevice,
  newEnrolment,
  otherWorkplace,
  setPin,
} from '../support/kiosk.js';
import { fetchToken } from '../support/server.js';
import { EVENTS, T0, call, timeTrackingSuite } from '../support/time-tracking.js';

const MINUTE = 60_000;

describe.each(testDialects().map((d) => [d.name, d] as const))('kiosk devices on %s', (_name, dialect) => {
  const suite = timeTrackingSuite(dialect, { start: T0 });

  async function kiosk(employeeCount = 2) {
    const tenant = await suite.berlin({ employeeCount });
    const device = await enrolledDevice(suite.server, tenant.fixture.workplaceId);
    const token = await fetchToken(suite.server, device.clientId, device.clientSecret);
    return { tenant, device, token };
  }

  describe('enrolment', () => {
    it('a code enrols once; a used, wrong or expired code is 401 invalid_enrolment_code', async () => {
      const tenant = await suite.berlin();
      const enrolment = await newEnrolment(suite.server, tenant.fixture.workplaceId, 'Hall');
      expect(enrolment.enrolmentCode).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/);
      expect(enrolment.expiresAt).toBe(new Date(T0 + 15 * MINUTE).toISOString());
      const row = await suite.server.database.db
        .selectFrom('devices')
        .selectAll()
        .where('id', '=', enrolment.id)
        .executeTakeFirstOrThrow();
      expect(row.enrolment_code_hash).not.toContain(enrolment.enrolmentCode.replace('-', ''));
      expect(row.enrolment_code_hash).toMatch(/^[0-9a-f]{64}$/);

      const first = await enrolWith(suite.server, enrolment.enrolmentCode.toLowerCase().replace('-', ' '));
      expect(first.status).toBe(201);
      const credential = (await first.json()) as Record<string, string>;
      expect(credential).toEqual({
        clientId: expect.stringMatching(/^dev_[0-9a-f]{24}$/),
        clientSecret: expect.stringMatching(/^dev_[0-9a-f]{24}_/),
        workplaceId: tenant.fixture.workplaceId,
        name: 'Hall',
      });
      const stored = await suite.server.database.db
        .selectFrom('devices')
        .selectAll()
        .where('id', '=', enrolment.id)
        .executeTakeFirstOrThrow();
      expect(stored.enrolment_code_hash).toBeNull();
      expect(stored.secret_hash).not.toContain(credential.clientSecret!);

      await expectProblem(
        await enrolWith(suite.server, enrolment.enrolmentCode),
        401,
        'invalid_enrolment_code',
      );
      await expectProblem(await enrolWith(suite.server, 'AAAA-AAAA'), 401, 'invalid_enrolment_code');
      await expectProblem(await enrolWith(suite.server, 'not a code'), 401, 'invalid_enrolment_code');

      const late = await newEnrolment(suite.server, tenant.fixture.workplaceId);
      suite.now = T0 + 15 * MINUTE + 1000;
      await expectProblem(await enrolWith(suite.server, late.enrolmentCode), 401, 'invalid_enrolment_code');
    });

    it('a code of a device revoked before it enrolled is refused', async () => {
      const tenant = await suite.berlin();
      const enrolment = await newEnrolment(suite.server, tenant.fixture.workplaceId);
      await inTransaction(suite.server.ctx, (tx, now) => revokeDevice(tx, now, enrolment.id));
      await expectProblem(
        await enrolWith(suite.server, enrolment.enrolmentCode),
        401,
        'invalid_enrolment_code',
      );
    });

    it('the device token says principal device at /me; a wrong secret is invalid_client', async () => {
      const { tenant, device, token } = await kiosk();
      const me = await call(suite.server, token, 'GET', '/api/public/v1/me');
      expect(me.status).toBe(200);
      expect(JSON.parse(me.text)).toMatchObject({
        principal: 'device',
        id: device.id,
        publicId: device.clientId,
        companyId: tenant.fixture.companyId,
        scopes: [],
        workplaceId: tenant.fixture.workplaceId,
      });
      const wrong = await suite.server.request('/api/public/v1/oauth/token', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: device.clientId,
          client_secret: `${device.clientId}_wrong`,
        }).toString(),
      });
      expect(wrong.status).toBe(401);
      expect(((await wrong.json()) as { error: string }).error).toBe('invalid_client');
    });
  });

  describe('what a device token may do', () => {
    it('any operation but the kiosk ones and the punches is 403 insufficient_scope', async () => {
      const { tenant, token } = await kiosk();
      const refused: [string, string, unknown?][] = [
        ['GET', '/api/public/v1/time-clock/status'],
        ['GET', `/api/public/v1/time-entries?employeeId=${tenant.employeeId}`],
        ['GET', '/api/public/v1/employees'],
        ['GET', '/api/public/v1/changes'],
        [
          'POST',
          '/api/public/v1/time-entries',
          {
            employee: { id: tenant.employeeId },
            workDate: '2026-11-09',
            startTime: '08:00',
            endTime: '12:00',
          },
        ],
      ];
      for (const [method, path, json] of refused) {
        const reply = await call(suite.server, token, method as 'GET', path, json);
        expect(reply.status, `${method} ${path}`).toBe(403);
        expect(JSON.parse(reply.text).error).toBe('insufficient_scope');
      }
    });

    it("an API key's token may not use the kiosk operations", async () => {
      const tenant = await suite.berlin();
      const list = await suite.server.request(KIOSK_EMPLOYEES, { token: tenant.token });
      await expectProblem(list, 403, 'insufficient_scope');
      const identify = await suite.server.request(IDENTIFY, {
        method: 'POST',
        token: tenant.token,
        json: { badge: 'EXT-0' },
      });
      await expectProblem(identify, 403, 'insufficient_scope');
    });

    it("lists its own workplace's employees by name, none when badge-only", async () => {
      const { tenant, token } = await kiosk();
      await otherWorkplace(suite.server, tenant.fixture);
      const list = await call(suite.server, token, 'GET', KIOSK_EMPLOYEES);
      expect(list.status).toBe(200);
      expect(JSON.parse(list.text)).toEqual({
        items: [
          { id: tenant.fixture.employees[0]!.id, displayName: 'First0 Last0' },
          { id: tenant.fixture.employees[1]!.id, displayName: 'First1 Last1' },
        ],
      });
      await inTransaction(suite.server.ctx, (tx, now) =>
        setKioskBadgeOnly(tx, now, tenant.fixture.workplaceId, true),
      );
      const none = await call(suite.server, token, 'GET', KIOSK_EMPLOYEES);
      expect(JSON.parse(none.text)).toEqual({ items: [] });
    });

    it('identifies by badge; an unknown badge or another workplace is 404 employee_not_found', async () => {
      const { tenant, token } = await kiosk();
      const other = await otherWorkplace(suite.server, tenant.fixture);
      const found = await call(suite.server, token, 'POST', IDENTIFY, { badge: 'EXT-0' });
      expect(found.status).toBe(200);
      expect(JSON.parse(found.text)).toEqual({
        employee: { id: tenant.employeeId, externalId: null },
        displayName: 'First0 Last0',
        state: { clockedIn: false, onBreak: false, since: null },
      });
      for (const badge of ['NOPE', 'OTHER-1']) {
        const reply = await call(suite.server, token, 'POST', IDENTIFY, { badge });
        expect(reply.status).toBe(404);
        expect(JSON.parse(reply.text).error).toBe('employee_not_found');
      }
      const byPin = await call(suite.server, token, 'POST', IDENTIFY, {
        employeeId: other.employeeId,
        pin: '1234',
      });
      expect(byPin.status).toBe(404);
      const both = await call(suite.server, token, 'POST', IDENTIFY, {
        badge: 'EXT-0',
        employeeId: tenant.employeeId,
        pin: '1234',
      });
      expect(both.status).toBe(422);
    });

    it('punches for its workplace only, recorded with source kiosk, its id and actor kind device', async () => {
      const { tenant, device, token } = await kiosk();
      const other = await otherWorkplace(suite.server, tenant.fixture);
      const at = new Date(T0 - 60 * MINUTE).toISOString();
      const punch = await call(
        suite.server,
        token,
        'POST',
        EVENTS,
        {
          employee: { id: tenant.employeeId },
          type: 'clock_in',
          occurredAt: at,
          deviceId: 'spoofed',
        },
        { 'idempotency-key': 'k-1' },
      );
      expect(punch.status).toBe(201);
      const [row] = await suite.rows(tenant.employeeId);
      expect(row).toMatchObject({
        source: 'kiosk',
        device_id: device.id,
        created_by_type: 'device',
        notes: `[device: ${device.id}]`,
      });
      const revision = await suite.server.database.db
        .selectFrom('time_entry_revisions')
        .selectAll()
        .where('time_entry_id', '=', row!.id)
        .executeTakeFirstOrThrow();
      expect(revision).toMatchObject({ actor_kind: 'device', actor_id: device.id });
      const state = await call(suite.server, token, 'POST', IDENTIFY, { badge: 'EXT-0' });
      expect(JSON.parse(state.text).state).toEqual({
        clockedIn: true,
        onBreak: false,
        since: at.replace('.000Z', '.000Z'),
      });

      const list = await tenant.list({ employeeId: tenant.employeeId, from: '2026-11-10', to: '2026-11-10' });
      expect(list.body.items?.[0]).toMatchObject({
        source: 'kiosk',
        deviceId: device.id,
        reviewFlags: [],
        breaks: [],
      });

      const elsewhere = await call(suite.server, token, 'POST', EVENTS, {
        employee: { id: other.employeeId },
        type: 'clock_in',
        occurredAt: at,
      });
      expect(elsewhere.status).toBe(404);
      expect(JSON.parse(elsewhere.text).error).toBe('employee_not_found');
      expect(await suite.rows(other.employeeId)).toHaveLength(0);
    });

    it('a revoked device stops at once: 401 invalid_token, and its credential is refused', async () => {
      const { device, token } = await kiosk();
      expect((await call(suite.server, token, 'GET', KIOSK_EMPLOYEES)).status).toBe(200);
      await inTransaction(suite.server.ctx, (tx, now) => revokeDevice(tx, now, device.id));
      const after = await call(suite.server, token, 'GET', KIOSK_EMPLOYEES);
      expect(after.status).toBe(401);
      expect(JSON.parse(after.text).error).toBe('invalid_token');
      await expect(fetchToken(suite.server, device.clientId, device.clientSecret)).rejects.toThrow(/401/);
    });

    it('a deleted employee stops at once', async () => {
      const { tenant, token } = await kiosk();
      await suite.server.database.db
        .updateTable('employees')
        .set({ deleted_at: new Date(T0).toISOString() })
        .where('id', '=', tenant.employeeId)
        .execute();
      expect((await call(suite.server, token, 'POST', IDENTIFY, { badge: 'EXT-0' })).status).toBe(404);
      const punch = await call(suite.server, token, 'POST', EVENTS, {
        employee: { id: tenant.employeeId },
        type: 'clock_in',
        occurredAt: new Date(T0).toISOString(),
      });
      expect(punch.status).toBe(404);
    });
  });

  describe('PINs', () => {
    it('a right PIN identifies; a wrong one is 401 invalid_pin; 5 wrong lock that PIN at that device for 15 minutes', async () => {
      const { tenant, token } = await kiosk();
      const employeeId = tenant.employeeId;
      await setPin(suite.server, employeeId, '2468');
      const stored = await suite.server.database.db
        .selectFrom('employee_pins')
        .selectAll()
        .where('employee_id', '=', employeeId)
        .executeTakeFirstOrThrow();
      expect(stored.pin_hash).toMatch(/^scrypt\$/);
      expect((await call(suite.server, token, 'POST', IDENTIFY, { employeeId, pin: '2468' })).status).toBe(
        200,
      );
      for (let i = 0; i < 5; i++) {
        const wrong = await call(suite.server, token, 'POST', IDENTIFY, { employeeId, pin: '1111' });
        expect(wrong.status).toBe(401);
        expect(JSON.parse(wrong.text).error).toBe('invalid_pin');
      }
      const lockedOut = await call(suite.server, token, 'POST', IDENTIFY, { employeeId, pin: '2468' });
      expect(lockedOut.status).toBe(429);
      expect(JSON.parse(lockedOut.text).error).toBe('pin_locked');
      const retryAfter = Number(lockedOut.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(14 * 60);
      expect(retryAfter).toBeLessThanOrEqual(15 * 60);
      // The other employee's PIN and the badge still work at this device.
      await setPin(suite.server, tenant.fixture.employees[1]!.id, '1357');
      expect(
        (
          await call(suite.server, token, 'POST', IDENTIFY, {
            employeeId: tenant.fixture.employees[1]!.id,
            pin: '1357',
          })
        ).status,
      ).toBe(200);
      expect((await call(suite.server, token, 'POST', IDENTIFY, { badge: 'EXT-0' })).status).toBe(200);
      // A second device is not locked for that employee.
      const second = await enrolledDevice(suite.server, tenant.fixture.workplaceId, 'Back door');
      const secondToken = await fetchToken(suite.server, second.clientId, second.clientSecret);
      expect(
        (await call(suite.server, secondToken, 'POST', IDENTIFY, { employeeId, pin: '2468' })).status,
      ).toBe(200);
      // After 15 minutes the PIN works again.
      suite.now = T0 + 15 * MINUTE + 1000;
      const freshToken = await fetchToken(suite.server, second.clientId, second.clientSecret);
      expect(
        (await call(suite.server, freshToken, 'POST', IDENTIFY, { employeeId, pin: '2468' })).status,
      ).toBe(200);
      const firstAgain = await call(
        suite.server,
        await refreshed(tenant.fixture.workplaceId),
        'GET',
        KIOSK_EMPLOYEES,
      );
      expect(firstAgain.status).toBe(200);
    });

    it('20 wrong PINs lock the whole device for 15 minutes', async () => {
      const { tenant, token } = await kiosk(6);
      const ids = tenant.fixture.employees.map((e) => e.id);
      for (const id of ids) await setPin(suite.server, id, '9999');
      for (const id of ids.slice(0, 5))
        for (let i = 0; i < 4; i++)
          expect(
            (await call(suite.server, token, 'POST', IDENTIFY, { employeeId: id, pin: '0000' })).status,
          ).toBe(401);
      const deviceLocked = await call(suite.server, token, 'POST', IDENTIFY, {
        employeeId: ids[5],
        pin: '9999',
      });
      expect(deviceLocked.status).toBe(429);
      expect(JSON.parse(deviceLocked.text).detail).toMatch(/at this device/);
      expect(Number(deviceLocked.headers.get('retry-after'))).toBeGreaterThan(14 * 60);
    });

    it('parallel guesses test no more than 5 PINs', async () => {
      const { tenant, token } = await kiosk();
      await setPin(suite.server, tenant.employeeId, '2468');
      const replies = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          call(suite.server, token, 'POST', IDENTIFY, {
            employeeId: tenant.employeeId,
            pin: String(1000 + i),
          }),
        ),
      );
      expect(replies.filter((r) => r.status === 401).length).toBeLessThanOrEqual(5);
      expect(replies.filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(7);
    });
  });

  describe('sync', () => {
    it('a batch from a device whose clock is off flags its entries; refusals, queue and offset are kept', async () => {
      const { tenant, device, token } = await kiosk();
      const base = T0 - 3 * 60 * MINUTE;
      const events = [
        {
          employee: { id: tenant.employeeId },
          type: 'clock_in',
          occurredAt: new Date(base).toISOString(),
          idempotencyKey: 'q-1',
        },
        {
          employee: { id: tenant.fixture.employees[1]!.id },
          type: 'clock_out',
          occurredAt: new Date(base).toISOString(),
          idempotencyKey: 'q-2',
        },
      ];
      const headers = { 'x-device-clock': new Date(T0 - 5 * MINUTE).toISOString(), 'x-kiosk-queue': '2' };
      const batch = await call(suite.server, token, 'POST', `${EVENTS}/batch`, { events }, headers);
      expect(batch.status).toBe(200);
      const results = JSON.parse(batch.text).results as { status: number }[];
      expect(results.map((r) => r.status)).toEqual([201, 409]);
      // Sent again (the answer was lost): nothing twice.
      await call(suite.server, token, 'POST', `${EVENTS}/batch`, { events }, headers);
      const list = await tenant.list({ employeeId: tenant.employeeId, from: '2026-11-10', to: '2026-11-10' });
      expect(list.body.items).toHaveLength(1);
      expect(list.body.items?.[0]).toMatchObject({ reviewFlags: ['device_clock_skew'] });

      const { items } = await listDevices(suite.server.database.db, tenant.fixture.companyId);
      expect(items[0]).toMatchObject({ id: device.id, queued: 2, clockOffsetSeconds: 300, refused: 1 });
      expect(items[0]!.lastSeenAt).not.toBeNull();

      // A clock within 2 minutes flags nothing.
      const near = await call(
        suite.server,
        token,
        'POST',
        EVENTS,
        {
          employee: { id: tenant.fixture.employees[1]!.id },
          type: 'clock_in',
          occurredAt: new Date(base).toISOString(),
        },
        { 'x-device-clock': new Date(T0 - 90_000).toISOString() },
      );
      expect(near.status).toBe(201);
      const second = await tenant.list({
        employeeId: tenant.fixture.employees[1]!.id,
        from: '2026-11-10',
        to: '2026-11-10',
      });
      expect(second.body.items?.[0]).toMatchObject({ reviewFlags: [] });
    });
  });

  describe('the kiosk web app', () => {
    it('serves the page, its modules, its service worker and its manifest under a strict policy', async () => {
      const page = await fetch(`${suite.server.listenUrl}/kiosk/`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'; script-src 'self';/);
      const html = await page.text();
      expect(html).toContain('<link rel="manifest" href="/kiosk/manifest.webmanifest" />');
      expect(html).not.toMatch(/https?:\/\//);
      const manifest = await fetch(`${suite.server.listenUrl}/kiosk/manifest.webmanifest`);
      expect(manifest.headers.get('content-type')).toMatch(/^application\/manifest\+json/);
      expect(await manifest.json()).toMatchObject({
        start_url: '/kiosk/',
        scope: '/kiosk/',
        display: 'standalone',
      });
      for (const file of ['app.js', 'api.js', 'queue.js', 'sw.js']) {
        const script = await fetch(`${suite.server.listenUrl}/kiosk/${file}`);
        expect(script.status, file).toBe(200);
        expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
      }
      expect((await fetch(`${suite.server.listenUrl}/kiosk/../package.json`)).status).toBe(404);
      expect((await fetch(`${suite.server.listenUrl}/kiosk/nothing.js`)).status).toBe(404);
      const redirect = await fetch(`${suite.server.listenUrl}/kiosk`, { redirect: 'manual' });
      expect(redirect.status).toBe(301);
      expect(redirect.headers.get('location')).toBe('/kiosk/');
    });
  });

  describe('rate limits', () => {
    it('enrolment codes are limited per address', async () => {
      let last = 0;
      for (let i = 0; i < 21; i++)
        last = (await suite.server.request(ENROL, { method: 'POST', json: { code: 'ZZZZ-ZZZZ' } })).status;
      expect(last).toBe(429);
    });
  });

  async function refreshed(workplaceId: string) {
    const device = await enrolledDevice(suite.server, workplaceId, 'Fresh');
    return fetchToken(suite.server, device.clientId, device.clientSecret);
  }
});
