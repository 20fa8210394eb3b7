import { inTransaction } from '../../src/modules/context.js';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { requestFingerprint } from '../../src/modules/idempotency/service.js';
import { secondKey } from '../support/api.js';
import { testDialects } from '../support/databases.js';
import {
  createTenant,
  DAY,
  EVENTS,
  eventBody,
  expectReplay,
  HOUR,
  iso,
  MINUTE,
  punch,
  shift,
  T0,
  type Tenant,
  tenantFor,
  timeTrackingSuite,
  UUID,
  WRITE_RESULT_KEYS,
} from '../support/time-tracking.js';
import { updateCompany } from '../../src/modules/companies/service.js';
import { confirmDay } from '../../src/modules/time-tracking/approval.js';
import { createEmployee, updateEmployee } from '../../src/modules/employees/changes.js';

describe.each(testDialects().map((d) => [d.name, d] as const))(
  'time-clock events on %s',
  (_name, dialect) => {
    const suite = timeTrackingSuite(dialect);
    const { berlin } = suite;

    /** The write result of the first employee's clock_in at 08:00 UTC on 10 Nov: 09:00 in Berlin. */
    const clockInAt9 = (tenant: Tenant, timeEntryId: unknown, dryRun: boolean) => ({
      timeEntryId,
      employee: { id: tenant.employeeId, externalId: 'EXT-0' },
      type: 'clock_in',
      workDate: '2026-11-10',
      time: '09:00:00',
      timeZone: 'Europe/Berlin',
      occurredAt: '2026-11-10T09:00:00+01:00',
      endsNextDay: false,
      status: 'open',
      dryRun,
      startTime: null,
      endTime: null,
      totalHours: null,
    });

    describe('clock_in, clock_out and toggle', () => {
      it('clock_in answers 201 with every key of the write result', async () => {
        const tenant = await berlin();
        const response = await punch(tenant, 'clock_in', '2026-11-10T08:00:00Z', {
          deviceId: 'TERM-1',
          note: 'early start',
        });
        expect(response.status).toBe(201);
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
        expect(response.headers.get('idempotent-replayed')).toBeNull();
        expect(Object.keys(response.body).sort()).toEqual(WRITE_RESULT_KEYS);
        expect(response.body).toEqual(clockInAt9(tenant, expect.stringMatching(UUID), false));

        const [row] = await suite.rows(tenant.employeeId);
        expect(row).toMatchObject({
          id: response.body.timeEntryId,
          company_id: tenant.fixture.companyId,
          status: 'open',
          source: 'time_clock',
          work_date: '2026-11-10',
          start_time: '09:00:00',
          start_at: '2026-11-10T08:00:00.000Z',
          end_at: null,
          notes: '[device: TERM-1]',
          note: 'early start',
          created_by_type: 'api_key',
          created_by_id: tenant.fixture.key.id,
        });
        const audit = await suite.audit(response.body.timeEntryId!);
        expect(audit).toHaveLength(1);
        expect(audit[0]).toMatchObject({
          company_id: tenant.fixture.companyId,
          actor_type: 'api_key',
          actor_id: tenant.fixture.key.id,
          action: 'time_entry.clock_in',
          target_type: 'time_entry',
        });
      });

      it('clock_out completes the session: 201, pending_approval, hours rounded to 2 decimals', async () => {
        const tenant = await berlin();
        const opened = await punch(tenant, 'clock_in', '2026-11-10T08:00:00Z', { deviceId: 'TERM-1' });
        expect(opened.status).toBe(201);
        // 1 h 10 min 10 s = 1.169444 h
        const closed = await punch(tenant, 'clock_out', '2026-11-10T09:10:10Z', { deviceId: 'TERM-2' });
        expect(closed.status).toBe(201);
        expect(Object.keys(closed.body).sort()).toEqual(WRITE_RESULT_KEYS);
        expect(closed.body).toEqual({
          timeEntryId: opened.body.timeEntryId,
          employee: { id: tenant.employeeId, externalId: 'EXT-0' },
          type: 'clock_out',
          workDate: '2026-11-10',
          time: '10:10:10',
          timeZone: 'Europe/Berlin',
          occurredAt: '2026-11-10T10:10:10+01:00',
          endsNextDay: false,
          status: 'pending_approval',
          dryRun: false,
          startTime: '09:00:00',
          endTime: '10:10:10',
          totalHours: 1.17,
        });
        const rows = await suite.rows(tenant.employeeId);
        expect(rows).toHaveLength(1);
        expect(rows[0]).toMatchObject({
          status: 'pending_approval',
          end_time: '10:10:10',
          net_seconds: 4210,
          notes: '[device: TERM-1] [device: TERM-2]',
          closed_by_id: tenant.fixture.key.id,
        });
        const actions = await suite.server.database.db
          .selectFrom('audit_log')
          .select(['action', 'actor_type', 'actor_id'])
          .where('target_id', '=', opened.body.timeEntryId!)
          .orderBy('created_at')
          .orderBy('action')
          .execute();
        expect(actions).toEqual([
          { action: 'time_entry.clock_in', actor_type: 'api_key', actor_id: tenant.fixture.key.id },
          { action: 'time_entry.clock_out', actor_type: 'api_key', actor_id: tenant.fixture.key.id },
        ]);
      });

      it('toggle opens a session, then (more than 60 s later) closes it', async () => {
        const tenant = await berlin();
        const first = await punch(tenant, 'toggle', '2026-11-10T08:00:00Z');
        expect(first.status).toBe(201);
        expect(first.body).toMatchObject({ type: 'clock_in', status: 'open', totalHours: null });
        const second = await punch(tenant, 'toggle', '2026-11-10T08:01:01Z');
        expect(second.status).toBe(201);
        expect(second.body).toMatchObject({
          type: 'clock_out',
          timeEntryId: first.body.timeEntryId,
          status: 'pending_approval',
          startTime: '09:00:00',
          endTime: '09:01:01',
          totalHours: 0.02,
        });
        const third = await punch(tenant, 'toggle', '2026-11-10T09:00:00Z');
        expect(third.status).toBe(201);
        expect(third.body.type).toBe('clock_in');
        expect(third.body.timeEntryId).not.toBe(first.body.timeEntryId);
      });

      it("toggle closes the previous day's open session overnight; the entry stays on its start day", async () => {
        const tenant = await berlin();
        const opened = await punch(tenant, 'toggle', '2026-11-09T21:00:00Z'); // 22:00 Berlin, 9 Nov
        expect(opened.status).toBe(201);
        expect(opened.body).toMatchObject({ type: 'clock_in', workDate: '2026-11-09', time: '22:00:00' });
        const closed = await punch(tenant, 'toggle', '2026-11-10T05:30:00Z'); // 06:30 Berlin, 10 Nov
        expect(closed.status).toBe(201);
        expect(closed.body).toMatchObject({
          type: 'clock_out',
          timeEntryId: opened.body.timeEntryId,
          workDate: '2026-11-09',
          time: '06:30:00',
          occurredAt: '2026-11-10T06:30:00+01:00',
          endsNextDay: true,
          status: 'pending_approval',
          startTime: '22:00:00',
          endTime: '06:30:00',
          totalHours: 8.5,
        });
        const list = await tenant.list({
          employeeId: tenant.employeeId,
          from: '2026-11-01',
          to: '2026-11-10',
        });
        expect(list.body.items).toEqual([
          expect.objectContaining({ workDate: '2026-11-09', endsNextDay: true, totalHours: 8.5 }),
        ]);
      });

      it('toggle treats a session open since two days ago as abandoned: it is a clock_in, refused', async () => {
        const tenant = await berlin();
        expect((await punch(tenant, 'clock_in', '2026-11-08T08:00:00Z')).status).toBe(201);
        const toggled = await punch(tenant, 'toggle', '2026-11-10T08:00:00Z');
        expect(toggled.status).toBe(409);
        expect(toggled.body.error).toBe('already_clocked_in');
      });
    });

    describe('employee selector', () => {
      const dry = { 'x-service-dry-run': 'true' };
      /** A clock_in at 08:00 UTC on 10 Nov for whoever `employee` names. */
      const clockInAs = (tenant: Tenant, employee: unknown, headers?: Record<string, string>) =>
        tenant.clock({ employee, type: 'clock_in', occurredAt: '2026-11-10T08:00:00Z' }, headers);

      it('resolves by id, by externalId, and by both when they match', async () => {
        const tenant = await berlin();
        const employee = tenant.fixture.employees[1]!;
        for (const selector of [
          { id: employee.id },
          { externalId: 'EXT-1' },
          { id: employee.id, externalId: 'EXT-1' },
          { id: employee.id.toUpperCase() },
          { id: employee.id, externalId: null },
        ]) {
          const response = await clockInAs(tenant, selector, dry);
          expect(response.status, JSON.stringify(selector)).toBe(200);
          expect(response.body.employee).toEqual({ id: employee.id, externalId: 'EXT-1' });
        }
        const real = await clockInAs(tenant, { externalId: 'EXT-1' });
        expect(real.status).toBe(201);
        expect(real.body.employee).toEqual({ id: employee.id, externalId: 'EXT-1' });
      });

      it('refuses an id and externalId naming different people, and an empty selector, with 422 on employee', async () => {
        const tenant = await berlin();
        for (const selector of [
          { id: tenant.employeeId, externalId: 'EXT-1' },
          {},
          { id: null, externalId: null },
        ]) {
          const response = await clockInAs(tenant, selector);
          expect(response.status, JSON.stringify(selector)).toBe(422);
          expect(response.body.error).toBe('validation_failed');
          expect(response.body.code).toBe(1800);
          expect(response.body.errors?.map((e) => e.field)).toContain('employee');
        }
        expect(await suite.rows(tenant.employeeId)).toHaveLength(0);
      });

      it('answers 404 employee_not_found for unknown ids and for another company’s employee', async () => {
        const tenant = await berlin();
        const other = await berlin({ name: 'Other' });
        const otherOnly = await inTransaction(suite.server.ctx, (tx, now) =>
          createEmployee(tx, now, other.fixture.companyId, {
            email: 'x@other.example',
            externalId: 'ONLY-OTHER',
            workplace: other.fixture.workplaceId,
            schedule: other.fixture.scheduleId,
          }),
        );
        for (const selector of [
          { id: '00000000-0000-4000-8000-000000000000' },
          { externalId: 'NOPE' },
          { externalId: 'ext-0' }, // case-sensitive
          { id: other.employeeId },
          { externalId: 'ONLY-OTHER' },
          { id: otherOnly.id, externalId: 'ONLY-OTHER' },
        ]) {
          const response = await clockInAs(tenant, selector);
          expect(response.status, JSON.stringify(selector)).toBe(404);
          expect(response.body.error).toBe('employee_not_found');
        }
        expect(await suite.rows(other.employeeId)).toHaveLength(0);
        expect(await suite.rows(otherOnly.id)).toHaveLength(0);
      });
    });

    describe('conflicts', () => {
      it('already_clocked_in: 409 with code 2904 as problem details', async () => {
        const tenant = await berlin();
        expect((await punch(tenant, 'clock_in', '2026-11-10T08:00:00Z')).status).toBe(201);
        const response = await punch(tenant, 'clock_in', '2026-11-10T08:05:00Z');
        expect(response.status).toBe(409);
        expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(response.body).toMatchObject({
          status: 409,
          code: 2904,
          error: 'already_clocked_in',
          instance: EVENTS,
          errors: null,
        });
        expect(response.body.type).toMatch(/\/already-clocked-in$/);
        expect(await suite.rows(tenant.employeeId)).toHaveLength(1);
      });

      it('no_open_session: clock_out with nothing open', async () => {
        const tenant = await berlin();
        const response = await punch(tenant, 'clock_out', '2026-11-10T08:00:00Z');
        expect(response.status).toBe(409);
        expect(response.body.error).toBe('no_open_session');
        expect(await suite.rows(tenant.employeeId)).toHaveLength(0);
      });

      it('clock_out_before_clock_in: refused and the session stays open', async () => {
        const tenant = await berlin();
        expect((await punch(tenant, 'clock_in', '2026-11-10T10:00:00Z')).status).toBe(201);
        for (const type of ['clock_out', 'toggle']) {
          const response = await punch(tenant, type, '2026-11-10T09:00:00Z');
          expect(response.status, type).toBe(409);
          expect(response.body.error).toBe('clock_out_before_clock_in');
        }
        const rows = await suite.rows(tenant.employeeId);
        expect(rows.map((r) => r.status)).toEqual(['open']);
      });

      it('session_too_long: refused at 24 h, the session stays open, a later valid clock_out succeeds', async () => {
        const tenant = await berlin();
        const opened = await punch(tenant, 'clock_in', '2026-11-09T11:00:00Z');
        expect(opened.status).toBe(201);
        for (const at of ['2026-11-10T11:00:00Z', '2026-11-10T11:04:00Z']) {
          const response = await punch(tenant, 'clock_out', at);
          expect(response.status, at).toBe(409);
          expect(response.body.error).toBe('session_too_long');
        }
        expect((await suite.rows(tenant.employeeId)).map((r) => r.status)).toEqual(['open']);
        const closed = await punch(tenant, 'clock_out', '2026-11-10T10:00:00Z');
        expect(closed.status).toBe(201);
        expect(closed.body).toMatchObject({
          timeEntryId: opened.body.timeEntryId,
          status: 'pending_approval',
          workDate: '2026-11-09',
          endsNextDay: true,
          totalHours: 23,
        });
      });

      it('overlaps_existing_entry: a clock_in inside a completed entry (its end is free)', async () => {
        const tenant = await berlin();
        const recorded = await shift(tenant, '2026-11-10T07:00:00Z', '2026-11-10T09:00:00Z');
        expect(recorded.status).toBe(201);
        for (const at of ['2026-11-10T07:00:00Z', '2026-11-10T08:00:00Z', '2026-11-10T08:59:59Z']) {
          const response = await punch(tenant, 'clock_in', at);
          expect(response.status, at).toBe(409);
          expect(response.body.error).toBe('overlaps_existing_entry');
        }
        const toggle = await punch(tenant, 'toggle', '2026-11-10T08:30:00Z');
        expect(toggle.status).toBe(409);
        expect(toggle.body.error).toBe('overlaps_existing_entry');
        expect(await suite.rows(tenant.employeeId)).toHaveLength(1);
        const atEnd = await punch(tenant, 'clock_in', '2026-11-10T09:00:00Z');
        expect(atEnd.status).toBe(201);
      });

      it('overlaps_existing_entry: a clock_out that would swallow a shift recorded inside the session', async () => {
        const tenant = await berlin();
        expect((await shift(tenant, '2026-11-10T07:00:00Z', '2026-11-10T09:00:00Z')).status).toBe(201);
        const opened = await punch(tenant, 'clock_in', '2026-11-10T06:00:00Z');
        expect(opened.status).toBe(201);
        const swallow = await punch(tenant, 'clock_out', '2026-11-10T10:00:00Z');
        expect(swallow.status).toBe(409);
        expect(swallow.body.error).toBe('overlaps_existing_entry');
        const row = (await suite.rows(tenant.employeeId)).find((r) => r.id === opened.body.timeEntryId);
        expect(row?.status).toBe('open');
        const fits = await punch(tenant, 'clock_out', '2026-11-10T07:00:00Z');
        expect(fits.status).toBe(201);
        expect(fits.body.totalHours).toBe(1);
      });

      it('day_locked: clock_in on a confirmed day', async () => {
        const tenant = await berlin();
        await inTransaction(suite.server.ctx, (tx, now) =>
          confirmDay(tx, now, { employeeId: tenant.employeeId, date: '2026-11-10' }),
        );
        const response = await punch(tenant, 'clock_in', '2026-11-10T08:00:00Z');
        expect(response.status).toBe(409);
        expect(response.body.error).toBe('day_locked');
        // 23:30 UTC on 9 Nov is 00:30 on 10 Nov in Berlin: the zone decides the day.
        const late = await punch(tenant, 'clock_in', '2026-11-09T23:30:00Z');
        expect(late.status).toBe(409);
        expect(late.body.error).toBe('day_locked');
        const dayBefore = await punch(tenant, 'clock_in', '2026-11-09T08:00:00Z');
        expect(dayBefore.status).toBe(201);
      });

      it("day_locked: clock_out when the entry's work date is locked; the session stays open", async () => {
        const tenant = await berlin();
        expect((await punch(tenant, 'clock_in', '2026-11-09T20:00:00Z')).status).toBe(201);
        await inTransaction(suite.server.ctx, (tx, now) =>
          confirmDay(tx, now, { employeeId: tenant.employeeId, date: '2026-11-09' }),
        );
        const response = await punch(tenant, 'clock_out', '2026-11-10T02:00:00Z');
        expect(response.status).toBe(409);
        expect(response.body.error).toBe('day_locked');
        expect((await suite.rows(tenant.employeeId)).map((r) => r.status)).toEqual(['open']);
      });

      it('business_rule_violation: employee without a workplace', async () => {
        const tenant = await berlin();
        await inTransaction(suite.server.ctx, (tx, now) =>
          updateEmployee(tx, now, tenant.employeeId, { workplace: 'none' }),
        );
        const response = await punch(tenant, 'clock_in', '2026-11-10T08:00:00Z');
        expect(response.status).toBe(409);
        expect(response.body.error).toBe('business_rule_violation');
        expect(await suite.rows(tenant.employeeId)).toHaveLength(0);
      });

      it('business_rule_violation: no schedule effective yet (schedule starts in the future)', async () => {
        const tenant = await berlin();
        const later = await inTransaction(suite.server.ctx, (tx, now) =>
          createEmployee(tx, now, tenant.fixture.companyId, {
            email: 'later@acme.example',
            externalId: 'LATER',
            workplace: tenant.fixture.workplaceId,
            schedule: tenant.fixture.scheduleId,
            scheduleFrom: '2026-12-01',
          }),
        );
        const response = await tenant.clock({
          employee: { externalId: 'LATER' },
          type: 'clock_in',
          occurredAt: '2026-11-10T08:00:00Z',
        });
        expect(response.status).toBe(409);
        expect(response.body.error).toBe('business_rule_violation');
        expect(await suite.rows(later.id)).toHaveLength(0);
      });

      it('time_tracking_disabled: 403 on all three endpoints', async () => {
        const tenant = await berlin();
        await inTransaction(suite.server.ctx, (tx, now) =>
          updateCompany(tx, now, tenant.fixture.companyId, { timeTracking: 'off' }),
        );
        const clock = await punch(tenant, 'clock_in', '2026-11-10T08:00:00Z');
        const recorded = await shift(tenant, '2026-11-10T07:00:00Z', '2026-11-10T09:00:00Z');
        const list = await tenant.list({ employeeId: tenant.employeeId });
        for (const response of [clock, recorded, list]) {
          expect(response.status).toBe(403);
          expect(response.body.error).toBe('time_tracking_disabled');
        }
        expect(await suite.rows(tenant.employeeId)).toHaveLength(0);
        await inTransaction(suite.server.ctx, (tx, now) =>
          updateCompany(tx, now, tenant.fixture.companyId, { timeTracking: 'on' }),
        );
        expect((await punch(tenant, 'clock_in', '2026-11-10T08:00:00Z')).status).toBe(201);
      });
    });

    describe('validation', () => {
      const invalid = async (tenant: Tenant, body: Record<string, unknown>) => {
        const response = await tenant.clock(body);
        expect(response.status, JSON.stringify(body)).toBe(422);
        expect(response.body.error).toBe('validation_failed');
        expect(response.body.code).toBe(1800);
        return (response.body.errors ?? []).map((e) => e.field);
      };

      it('refuses malformed fields with 422 naming the field, and stores nothing', async () => {
        const tenant = await berlin();
        const base = eventBody(tenant, 'clock_in', '2026-11-10T08:00:00Z');
        expect(await invalid(tenant, { ...base, occurredAt: '2026-11-10T08:00:00' })).toEqual(['occurredAt']);
        expect(await invalid(tenant, { ...base, occurredAt: '2026-11-10 08:00' })).toEqual(['occurredAt']);
        expect(await invalid(tenant, { ...base, occurredAt: iso(T0 + 5 * MINUTE + 1000) })).toEqual([
          'occurredAt',
        ]);
        expect(await invalid(tenant, { ...base, occurredAt: iso(T0 - 30 * DAY - 1000) })).toEqual([
          'occurredAt',
        ]);
        expect(await invalid(tenant, { ...base, type: 'punch' })).toEqual(['type']);
        expect(await invalid(tenant, { ...base, deviceId: 'd'.repeat(65) })).toEqual(['deviceId']);
        expect(await invalid(tenant, { ...base, note: 'n'.repeat(501) })).toEqual(['note']);
        // NUL cannot be stored in PostgreSQL text: refused up front on both databases, never a 500.
        expect(await invalid(tenant, { ...base, deviceId: 'TERM\u00001' })).toEqual(['deviceId']);
        expect(await invalid(tenant, { ...base, note: 'late\u0000' })).toEqual(['note']);
        expect(await invalid(tenant, { ...base, colour: 'red' })).toEqual(['colour']);
        expect(await invalid(tenant, { ...base, employee: { externalId: 0 } })).toEqual([
          'employee.externalId',
        ]);
        expect(await invalid(tenant, { ...base, employee: { id: 'not-a-guid' } })).toEqual(['employee.id']);
        expect(await invalid(tenant, { ...base, employee: { externalId: 'x'.repeat(65) } })).toEqual([
          'employee.externalId',
        ]);
        expect(await invalid(tenant, { ...base, employee: { id: tenant.employeeId, badge: 1 } })).toEqual([
          'employee.badge',
        ]);
        const { occurredAt: _omit, ...withoutOccurredAt } = base;
        expect(await invalid(tenant, withoutOccurredAt)).toEqual(['occurredAt']);
        expect(await suite.rows(tenant.employeeId)).toHaveLength(0);
      });

      it('does not coerce a numeric externalId into a string', async () => {
        const tenant = await berlin();
        await inTransaction(suite.server.ctx, (tx, now) =>
          updateEmployee(tx, now, tenant.employeeId, { externalId: '123' }),
        );
        const response = await tenant.clock({
          employee: { externalId: 123 },
          type: 'clock_in',
          occurredAt: '2026-11-10T08:00:00Z',
        });
        expect(response.status).toBe(422);
        expect(response.body.errors?.map((e) => e.field)).toEqual(['employee.externalId']);
        expect(await suite.rows(tenant.employeeId)).toHaveLength(0);
      });

      it('names every wrong field when several are wrong', async () => {
        const tenant = await berlin();
        const fields = await invalid(tenant, {
          employee: { externalId: 7 },
          type: 'sometimes',
          occurredAt: 'yesterday',
          deviceId: 'd'.repeat(65),
          note: 'n'.repeat(501),
          extra: true,
        });
        expect(fields.sort()).toEqual([
          'deviceId',
          'employee.externalId',
          'extra',
          'note',
          'occurredAt',
          'type',
        ]);
      });

      it('accepts the limits exactly: 5 min ahead, 30 days back, 64-char deviceId, 500-char note', async () => {
        const tenant = await berlin();
        const ahead = await punch(tenant, 'clock_in', iso(T0 + 5 * MINUTE), {
          deviceId: 'd'.repeat(64),
          note: 'n'.repeat(500),
        });
        expect(ahead.status).toBe(201);
        const other = await berlin();
        const back = await punch(other, 'clock_in', iso(T0 - 30 * DAY));
        expect(back.status).toBe(201);
      });
    });

    describe('time zones', () => {
      it('the workplace zone wins over the company zone', async () => {
        const tenant = await createTenant(suite.server, {
          timeZone: 'Europe/Berlin',
          workplaceTimeZone: 'America/New_York',
        });
        const response = await punch(tenant, 'clock_in', '2026-11-10T04:30:00+01:00');
        expect(response.status).toBe(201);
        expect(response.body).toMatchObject({
          workDate: '2026-11-09',
          time: '22:30:00',
          timeZone: 'America/New_York',
          occurredAt: '2026-11-09T22:30:00-05:00',
        });
        const [row] = await suite.rows(tenant.employeeId);
        expect(row).toMatchObject({ work_date: '2026-11-09', time_zone: 'America/New_York' });
      });

      it('the company zone applies when the workplace has none', async () => {
        const tenant = await berlin();
        const response = await punch(tenant, 'clock_in', '2026-11-09T22:30:00-05:00');
        expect(response.status).toBe(201);
        expect(response.body).toMatchObject({
          workDate: '2026-11-10',
          time: '04:30:00',
          timeZone: 'Europe/Berlin',
          occurredAt: '2026-11-10T04:30:00+01:00',
        });
      });

      it("keeps the wall clock as sent ('offset') when neither has a zone", async () => {
        const tenant = await createTenant(suite.server, {});
        const opened = await punch(tenant, 'clock_in', '2026-11-09T23:30:00-05:00');
        expect(opened.status).toBe(201);
        expect(opened.body).toMatchObject({
          workDate: '2026-11-09',
          time: '23:30:00',
          timeZone: 'offset',
          occurredAt: '2026-11-09T23:30:00-05:00',
        });
        const closed = await punch(tenant, 'clock_out', '2026-11-10T07:45:00+01:00');
        expect(closed.status).toBe(201);
        expect(closed.body).toMatchObject({
          workDate: '2026-11-09',
          time: '07:45:00',
          timeZone: 'offset',
          occurredAt: '2026-11-10T07:45:00+01:00',
          startTime: '23:30:00',
          endTime: '07:45:00',
          endsNextDay: true,
          totalHours: 2.25,
        });
      });

      it('Asia/Kolkata (+05:30)', async () => {
        const tenant = await createTenant(suite.server, { timeZone: 'Asia/Kolkata' });
        const opened = await punch(tenant, 'clock_in', '2026-11-10T11:00:00Z');
        expect(opened.body).toMatchObject({
          workDate: '2026-11-10',
          time: '16:30:00',
          timeZone: 'Asia/Kolkata',
          occurredAt: '2026-11-10T16:30:00+05:30',
        });
        const closed = await punch(tenant, 'clock_out', '2026-11-10T11:45:30Z');
        expect(closed.body).toMatchObject({ startTime: '16:30:00', endTime: '17:15:30', totalHours: 0.76 });
      });

      it('a session across the end of summer time in Europe/Berlin counts real hours', async () => {
        suite.now = Date.parse('2026-10-25T12:00:00Z');
        const tenant = await berlin();
        const opened = await punch(tenant, 'clock_in', '2026-10-25T00:00:00+02:00');
        expect(opened.body).toMatchObject({
          occurredAt: '2026-10-25T00:00:00+02:00',
          workDate: '2026-10-25',
        });
        const closed = await punch(tenant, 'clock_out', '2026-10-25T07:00:00Z');
        expect(closed.status).toBe(201);
        expect(closed.body).toMatchObject({
          workDate: '2026-10-25',
          occurredAt: '2026-10-25T08:00:00+01:00',
          startTime: '00:00:00',
          endTime: '08:00:00',
          endsNextDay: false,
          totalHours: 9,
        });
      });
    });

    describe('dry run', () => {
      const dry = { 'x-service-dry-run': 'true' };

      it('dry-run clock_in: 200, dryRun true, timeEntryId null, nothing stored', async () => {
        const tenant = await berlin();
        const entries = await suite.count('time_entries');
        const audit = await suite.count('audit_log');
        const response = await tenant.clock(eventBody(tenant, 'clock_in', '2026-11-10T08:00:00Z'), dry);
        expect(response.status).toBe(200);
        expect(Object.keys(response.body).sort()).toEqual(WRITE_RESULT_KEYS);
        expect(response.body).toEqual(clockInAt9(tenant, null, true));
        expect(await suite.count('time_entries')).toBe(entries);
        expect(await suite.count('audit_log')).toBe(audit);
        // Nothing was opened: a real clock_in right after is not a duplicate and not refused.
        expect((await punch(tenant, 'clock_in', '2026-11-10T08:00:00Z')).status).toBe(201);
      });

      it('dry-run clock_out: 200 with the open entry id and the would-be totals; the entry stays open', async () => {
        const tenant = await berlin();
        const opened = await punch(tenant, 'clock_in', '2026-11-10T08:00:00Z');
        const entries = await suite.count('time_entries');
        const audit = await suite.count('audit_log');
        const response = await tenant.clock(eventBody(tenant, 'toggle', '2026-11-10T10:30:00Z'), dry);
        expect(response.status).toBe(200);
        expect(response.body).toMatchObject({
          timeEntryId: opened.body.timeEntryId,
          type: 'clock_out',
          status: 'pending_approval',
          dryRun: true,
          startTime: '09:00:00',
          endTime: '11:30:00',
          totalHours: 2.5,
        });
        expect(await suite.count('time_entries')).toBe(entries);
        expect(await suite.count('audit_log')).toBe(audit);
        const [row] = await suite.rows(tenant.employeeId);
        expect(row).toMatchObject({ status: 'open', end_at: null, net_seconds: null });
      });

      it('errors are still reported in a dry run', async () => {
        const tenant = await berlin();
        const none = await tenant.clock(eventBody(tenant, 'clock_out', '2026-11-10T08:00:00Z'), dry);
        expect(none.status).toBe(409);
        expect(none.body.error).toBe('no_open_session');
        const bad = await tenant.clock(eventBody(tenant, 'clock_in', iso(T0 + HOUR)), dry);
        expect(bad.status).toBe(422);
        const unknown = await tenant.clock(
          { employee: { externalId: 'NOPE' }, type: 'clock_in', occurredAt: '2026-11-10T08:00:00Z' },
          dry,
        );
        expect(unknown.status).toBe(404);
        await inTransaction(suite.server.ctx, (tx, now) =>
          confirmDay(tx, now, { employeeId: tenant.employeeId, date: '2026-11-10' }),
        );
        const locked = await tenant.clock(eventBody(tenant, 'clock_in', '2026-11-10T08:00:00Z'), dry);
        expect(locked.status).toBe(409);
        expect(locked.body.error).toBe('day_locked');
      });

      it('X-Service-Dry-Run: false is a real write; another value is 422', async () => {
        const tenant = await berlin();
        const body = eventBody(tenant, 'clock_in', '2026-11-10T08:00:00Z');
        const bad = await tenant.clock(body, { 'x-service-dry-run': 'maybe' });
        expect(bad.status).toBe(422);
        const real = await tenant.clock(body, { 'x-service-dry-run': 'false' });
        expect(real.status).toBe(201);
        expect(real.body.dryRun).toBe(false);
      });

      it('a dry run with an Idempotency-Key stores no idempotency record', async () => {
        const tenant = await berlin();
        const before = await suite.count('idempotency_records');
        const body = eventBody(tenant, 'clock_in', '2026-11-10T08:00:00Z');
        const dryRun = await tenant.clock(body, { ...dry, 'idempotency-key': 'dry-1' });
        expect(dryRun.status).toBe(200);
        expect(await suite.count('idempotency_records')).toBe(before);
        const real = await tenant.clock(body, { 'idempotency-key': 'dry-1' });
        expect(real.status).toBe(201);
        expect(real.headers.get('idempotent-replayed')).toBeNull();
      });

      it('a dry run that hits a header-less duplicate still says dryRun true', async () => {
        const tenant = await berlin();
        const opened = await punch(tenant, 'clock_in', '2026-11-10T08:00:00Z');
        const response = await tenant.clock(eventBody(tenant, 'clock_in', '2026-11-10T08:00:20Z'), dry);
        expect(response.status).toBe(200);
        expect(response.body).toMatchObject({ timeEntryId: opened.body.timeEntryId, dryRun: true });
      });
    });

    describe('idempotency', () => {
      it('same key and same body: the stored status and body verbatim, marked replayed, one row', async () => {
        const tenant = await berlin();
        const body = eventBody(tenant, 'clock_in', '2026-11-10T08:00:00Z');
        const first = await tenant.clock(body, { 'idempotency-key': 'k-1' });
        expect(first.status).toBe(201);
        expect(first.headers.get('idempotent-replayed')).toBeNull();
        const second = await tenant.clock(body, { 'idempotency-key': 'k-1' });
        expectReplay(second, first, 201);
        expect(second.headers.get('content-type')).toBe(first.headers.get('content-type'));
        // Same JSON, other key order and spacing: the same request.
        const reordered = await tenant.clock(
          `{ "occurredAt": "2026-11-10T08:00:00Z", "type": "clock_in", "employee": { "id": "${tenant.employeeId}" } }`,
          { 'idempotency-key': 'k-1' },
        );
        expectReplay(reordered, first, 201);
        expect(await suite.rows(tenant.employeeId)).toHaveLength(1);
        expect(
          await suite.server.database.db
            .selectFrom('audit_log')
            .select('id')
            .where('action', '=', 'time_entry.clock_in')
            .where('actor_id', '=', tenant.fixture.key.id)
            .execute(),
        ).toHaveLength(1);
      });

      it('a 409 result is replayed too, even once the state has changed', async () => {
        const tenant = await berlin();
        const out = eventBody(tenant, 'clock_out', '2026-11-10T10:00:00Z');
        const first = await tenant.clock(out, { 'idempotency-key': 'out-1' });
        expect(first.status).toBe(409);
        expect(first.body.error).toBe('no_open_session');
        expect((await punch(tenant, 'clock_in', '2026-11-10T08:00:00Z')).status).toBe(201);
        const replay = await tenant.clock(out, { 'idempotency-key': 'out-1' });
        expectReplay(replay, first, 409);
        expect(replay.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect((await suite.rows(tenant.employeeId)).map((r) => r.status)).toEqual(['open']);
        // A fresh key does the real clock-out.
        const fresh = await tenant.clock(out, { 'idempotency-key': 'out-2' });
        expect(fresh.status).toBe(201);
      });

      it('a 422 from the operation is stored and replayed', async () => {
        const tenant = await berlin();
        const body = eventBody(tenant, 'clock_in', iso(T0 + HOUR));
        const first = await tenant.clock(body, { 'idempotency-key': 'future' });
        expect(first.status).toBe(422);
        const replay = await tenant.clock(body, { 'idempotency-key': 'future' });
        expectReplay(replay, first, 422);
      });

      it('same key and a different body: 422 idempotency_key_reused, nothing runs', async () => {
        const tenant = await berlin();
        const body = eventBody(tenant, 'clock_in', '2026-11-10T08:00:00Z');
        expect((await tenant.clock(body, { 'idempotency-key': 'k-2' })).status).toBe(201);
        const reused = await tenant.clock(
          { ...body, type: 'clock_out', occurredAt: '2026-11-10T09:00:00Z' },
          { 'idempotency-key': 'k-2' },
        );
        expect(reused.status).toBe(422);
        expect(reused.body.error).toBe('idempotency_key_reused');
        expect(reused.headers.get('idempotent-replayed')).toBeNull();
        expect((await suite.rows(tenant.employeeId)).map((r) => r.status)).toEqual(['open']);
      });

      it('keys are scoped per API key: two keys of one company use the same key independently', async () => {
        const tenant = await berlin();
        const other = await tenantFor(
          suite.server,
          tenant.fixture,
          await secondKey(suite.server.ctx, tenant.fixture),
        );
        const a = await tenant.clock(
          { employee: { externalId: 'EXT-0' }, type: 'clock_in', occurredAt: '2026-11-10T08:00:00Z' },
          { 'idempotency-key': 'shared' },
        );
        const b = await other.clock(
          { employee: { externalId: 'EXT-1' }, type: 'clock_in', occurredAt: '2026-11-10T08:30:00Z' },
          { 'idempotency-key': 'shared' },
        );
        expect(a.status).toBe(201);
        expect(b.status).toBe(201);
        expect(b.headers.get('idempotent-replayed')).toBeNull();
        expect(b.body.employee?.externalId).toBe('EXT-1');
        // The same body under the other key is a new request too (here refused: the session is open).
        const c = await other.clock(
          { employee: { externalId: 'EXT-0' }, type: 'clock_in', occurredAt: '2026-11-10T08:00:00Z' },
          { 'idempotency-key': 'shared-2' },
        );
        expect(c.status).toBe(409);
      });

      it('Idempotency-Key: 128 characters accepted, 129 refused with 422', async () => {
        const tenant = await berlin();
        const body = eventBody(tenant, 'clock_in', '2026-11-10T08:00:00Z');
        const tooLong = await tenant.clock(body, { 'idempotency-key': 'k'.repeat(129) });
        expect(tooLong.status).toBe(422);
        expect(tooLong.body.error).toBe('validation_failed');
        expect(tooLong.body.errors?.map((e) => e.field)).toEqual(['Idempotency-Key']);
        expect(await suite.rows(tenant.employeeId)).toHaveLength(0);
        const longest = await tenant.clock(body, { 'idempotency-key': 'k'.repeat(128) });
        expect(longest.status).toBe(201);
      });

      it('a quoted key equals the bare key', async () => {
        const tenant = await berlin();
        const body = eventBody(tenant, 'clock_in', '2026-11-10T08:00:00Z');
        const bare = await tenant.clock(body, { 'idempotency-key': 'abc' });
        expect(bare.status).toBe(201);
        const quoted = await tenant.clock(body, { 'idempotency-key': '"abc"' });
        expectReplay(quoted, bare, 201);
      });

      it('in flight: 409 idempotency_in_flight; a different body is still key_reused; a stale claim is taken over', async () => {
        const tenant = await berlin();
        const body = eventBody(tenant, 'clock_in', '2026-11-10T08:00:00Z');
        await suite.keyRecord(tenant, 'busy', { request_hash: requestFingerprint('POST', EVENTS, body) });
        const busy = await tenant.clock(body, { 'idempotency-key': 'busy' });
        expect(busy.status).toBe(409);
        expect(busy.body.error).toBe('idempotency_in_flight');
        const other = await tenant.clock(
          { ...body, occurredAt: '2026-11-10T08:01:00Z' },
          { 'idempotency-key': 'busy' },
        );
        expect(other.status).toBe(422);
        expect(other.body.error).toBe('idempotency_key_reused');
        expect(await suite.rows(tenant.employeeId)).toHaveLength(0);
        // The claimant died: after two minutes a retry takes the key over.
        suite.now += 2 * MINUTE + 1000;
        const retry = await tenant.clock(body, { 'idempotency-key': 'busy' });
        expect(retry.status).toBe(201);
        const replay = await tenant.clock(body, { 'idempotency-key': 'busy' });
        expect(replay.headers.get('idempotent-replayed')).toBe('true');
        expect(replay.text).toBe(retry.text);
      });

      it('an expired record frees its key: the punch runs and its outcome replaces the record (issue 32: one upsert)', async () => {
        const tenant = await berlin();
        const body = eventBody(tenant, 'clock_in', '2026-11-10T08:00:00Z');
        await suite.keyRecord(tenant, 'lapsed', {
          request_hash: 'a request of yesterday',
          state: 'done',
          response_status: 201,
          response_body: '{"old":true}',
          created_at: iso(suite.now - DAY - HOUR),
          expires_at: iso(suite.now - HOUR),
        });
        const fresh = await tenant.clock(body, { 'idempotency-key': 'lapsed' });
        expect(fresh.status).toBe(201);
        expect(fresh.headers.get('idempotent-replayed')).toBeNull();
        const replay = await tenant.clock(body, { 'idempotency-key': 'lapsed' });
        expectReplay(replay, fresh, 201);
        const records = await suite.server.database.db
          .selectFrom('idempotency_records')
          .select(['request_hash', 'response_body', 'expires_at'])
          .where('idempotency_key', '=', 'lapsed')
          .execute();
        expect(records).toEqual([
          {
            request_hash: requestFingerprint('POST', EVENTS, body),
            response_body: fresh.text,
            expires_at: iso(suite.now + DAY),
          },
        ]);
        expect(await suite.rows(tenant.employeeId)).toHaveLength(1);
      });

      it.runIf(_name === 'postgres')(
        'a key whose lock another transaction holds (and the employee row): 409 idempotency_in_flight without waiting for the row, nothing written',
        async () => {
          const tenant = await berlin();
          const body = eventBody(tenant, 'clock_in', '2026-11-10T08:00:00Z');
          const lock = `idempotency|${tenant.fixture.companyId}|${tenant.fixture.key.id}|held`;
          let release!: () => void;
          const released = new Promise<void>((resolve) => (release = resolve));
          let locked!: () => void;
          const taken = new Promise<void>((resolve) => (locked = resolve));
          // The holder is what a request of this key in flight holds: the key's lock and the employee's row.
          const holder = suite.server.database.db.transaction().execute(async (tx) => {
            await sql`select pg_advisory_xact_lock(hashtextextended(${lock}, 0))`.execute(tx);
            await sql`select id from employees where id = ${tenant.employeeId} for update`.execute(tx);
            locked();
            await released;
          });
          await taken;
          try {
            // The key is tried before the row is locked: the answer does not wait for the holder, which
            // only lets go after the answer (a request waiting for the row would never be answered).
            const busy = await tenant.clock(body, { 'idempotency-key': 'held' });
            expect(busy.status).toBe(409);
            expect(busy.body.error).toBe('idempotency_in_flight');
            expect(await suite.rows(tenant.employeeId)).toHaveLength(0);
          } finally {
            release();
            await holder;
          }
          const after = await tenant.clock(body, { 'idempotency-key': 'held' });
          expect(after.status).toBe(201);
        },
      );

      it('two identical requests at once: one runs, the other is replayed or told it is in flight', async () => {
        const tenant = await berlin();
        const body = eventBody(tenant, 'clock_in', '2026-11-10T08:00:00Z');
        const [a, b] = await Promise.all([
          tenant.clock(body, { 'idempotency-key': 'twin' }),
          tenant.clock(body, { 'idempotency-key': 'twin' }),
        ]);
        const fresh = [a!, b!].filter(
          (r) => r.status === 201 && r.headers.get('idempotent-replayed') === null,
        );
        const rest = [a!, b!].filter((r) => !fresh.includes(r));
        expect(fresh).toHaveLength(1);
        expect(rest).toHaveLength(1);
        const second = rest[0]!;
        if (second.status === 201) {
          expect(second.headers.get('idempotent-replayed')).toBe('true');
          expect(second.text).toBe(fresh[0]!.text);
        } else {
          expect(second.status).toBe(409);
          expect(second.body.error).toBe('idempotency_in_flight');
        }
        expect(await suite.rows(tenant.employeeId)).toHaveLength(1);
      });

      it('an expired record (older than 24 h) does not replay', async () => {
        const tenant = await berlin();
        const body = eventBody(tenant, 'clock_in', '2026-11-10T11:00:00Z');
        const first = await tenant.clock(body, { 'idempotency-key': 'old' });
        expect(first.status).toBe(201);
        suite.now += 23 * HOUR;
        await tenant.refreshToken();
        const stillKept = await tenant.clock(body, { 'idempotency-key': 'old' });
        expect(stillKept.status).toBe(201);
        expect(stillKept.headers.get('idempotent-replayed')).toBe('true');
        suite.now += 2 * HOUR; // 25 h after the first request
        await tenant.refreshToken();
        const expired = await tenant.clock(body, { 'idempotency-key': 'old' });
        expect(expired.headers.get('idempotent-replayed')).toBeNull();
        expect(expired.status).toBe(409);
        expect(expired.body.error).toBe('already_clocked_in');
        // The new outcome is what the key now replays.
        const again = await tenant.clock(body, { 'idempotency-key': 'old' });
        expectReplay(again, expired, 409);
        expect(await suite.rows(tenant.employeeId)).toHaveLength(1);
      });
    });

    describe('header-less duplicates', () => {
      it('a second identical clock_in within 60 s answers 200 with the same entry; after 61 s it is 409', async () => {
        const tenant = await berlin();
        const first = await punch(tenant, 'clock_in', '2026-11-10T08:00:00Z', { deviceId: 'T' });
        expect(first.status).toBe(201);
        const same = await punch(tenant, 'clock_in', '2026-11-10T08:00:00Z', { deviceId: 'T' });
        expect(same.status).toBe(200);
        expect(same.body).toEqual({ ...first.body });
        const near = await punch(tenant, 'clock_in', '2026-11-10T08:00:59Z');
        expect(near.status).toBe(200);
        expect(near.body).toMatchObject({
          timeEntryId: first.body.timeEntryId,
          type: 'clock_in',
          status: 'open',
          time: '09:00:00',
          dryRun: false,
        });
        expect(await suite.rows(tenant.employeeId)).toHaveLength(1);
        const later = await punch(tenant, 'clock_in', '2026-11-10T08:01:01Z');
        expect(later.status).toBe(409);
        expect(later.body.error).toBe('already_clocked_in');
        expect(later.body.code).toBe(2904);
      });

      it('a double-tapped toggle within 60 s returns the opened entry; the session stays open', async () => {
        const tenant = await berlin();
        const first = await punch(tenant, 'toggle', '2026-11-10T08:00:00Z');
        expect(first.status).toBe(201);
        const tap = await punch(tenant, 'toggle', '2026-11-10T08:00:20Z');
        expect(tap.status).toBe(200);
        expect(tap.body).toMatchObject({
          timeEntryId: first.body.timeEntryId,
          type: 'clock_in',
          status: 'open',
          endTime: null,
          totalHours: null,
        });
        const rows = await suite.rows(tenant.employeeId);
        expect(rows.map((r) => r.status)).toEqual(['open']);
        const close = await punch(tenant, 'toggle', '2026-11-10T09:00:00Z');
        expect(close.status).toBe(201);
        expect(close.body.type).toBe('clock_out');
      });

      it('a repeated clock_out within 60 s returns the completed entry', async () => {
        const tenant = await berlin();
        const opened = await punch(tenant, 'clock_in', '2026-11-10T08:00:00Z');
        const closed = await punch(tenant, 'clock_out', '2026-11-10T10:00:00Z');
        expect(closed.status).toBe(201);
        const again = await punch(tenant, 'clock_out', '2026-11-10T10:00:10Z');
        expect(again.status).toBe(200);
        expect(again.body).toMatchObject({
          timeEntryId: opened.body.timeEntryId,
          type: 'clock_out',
          status: 'pending_approval',
          time: '11:00:00',
          totalHours: 2,
        });
      });

      it("the duplicate answer repeats the stored punch in 'offset' mode (not its UTC wall clock)", async () => {
        const tenant = await createTenant(suite.server, {});
        const opened = await punch(tenant, 'clock_in', '2026-11-09T23:30:00-05:00');
        expect(opened.status).toBe(201);
        const again = await punch(tenant, 'clock_in', '2026-11-09T23:30:00-05:00');
        expect(again.status).toBe(200);
        expect(again.body).toEqual(opened.body);
        const closed = await punch(tenant, 'clock_out', '2026-11-10T02:30:00-05:00');
        expect(closed.status).toBe(201);
        const closedAgain = await punch(tenant, 'clock_out', '2026-11-10T02:30:00-05:00');
        expect(closedAgain.status).toBe(200);
        expect(closedAgain.body).toEqual(closed.body);
      });

      it('the duplicate answer keeps the zone the entry was stored in', async () => {
        const tenant = await berlin();
        const opened = await punch(tenant, 'clock_in', '2026-11-10T08:00:00Z');
        await inTransaction(suite.server.ctx, (tx, now) =>
          updateCompany(tx, now, tenant.fixture.companyId, { timeZone: 'Asia/Kolkata' }),
        );
        const again = await punch(tenant, 'clock_in', '2026-11-10T08:00:00Z');
        expect(again.status).toBe(200);
        expect(again.body).toEqual(opened.body);
      });

      it('the duplicate rule is per caller, and does not apply when an Idempotency-Key is sent', async () => {
        const tenant = await berlin();
        expect((await punch(tenant, 'clock_in', '2026-11-10T08:00:00Z')).status).toBe(201);
        const other = await tenantFor(
          suite.server,
          tenant.fixture,
          await secondKey(suite.server.ctx, tenant.fixture),
        );
        const byOther = await punch(other, 'clock_in', '2026-11-10T08:00:00Z');
        expect(byOther.status).toBe(409);
        expect(byOther.body.error).toBe('already_clocked_in');
        const keyed = await tenant.clock(eventBody(tenant, 'clock_in', '2026-11-10T08:00:10Z'), {
          'idempotency-key': 'fresh',
        });
        expect(keyed.status).toBe(409);
        expect(keyed.body.error).toBe('already_clocked_in');
      });
    });
  },
);
