import { afterAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/modules/context.js';
import { inTransaction } from '../../src/modules/context.js';
import { updateCompany } from '../../src/modules/companies/service.js';
import { runExceptionsJob } from '../../src/modules/planned-shifts/exceptions-job.js';
import { testDialects } from '../support/databases.js';
import { call, type Tenant, timeTrackingSuite } from '../support/time-tracking.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/*
 * Attendance exceptions (issue 33) from outside, on both databases: a published day with punches on
 * time, late, early and missing, the job run as the day goes by (its clock is the suite's), the list
 * and the change feed's events, a webhook delivery, across midnight and the DST nights.
 */

const API = '/api/public/v1';
const SCOPES = 'attendance.record,attendance.read,employees.read,shifts.manage,webhooks.manage';
const HOUR = 3_600_000;
const MINUTE = 60_000;

type Json = Record<string, unknown>;
interface Exception {
  id: string;
  kind: string;
  employee: { id: string; externalId: string | null };
  plannedShiftId: string | null;
  timeEntryId: string | null;
  date: string;
  minutes: number;
  detectedAt: string;
  resolvedAt: string | null;
}

/** Wednesday 11 November 2026 in Berlin (+01:00) at `hhmm`. */
const wed = (hhmm: string) => Date.parse(`2026-11-11T${hhmm}:00+01:00`);
const iso = (ms: number) => new Date(ms).toISOString();

describe.each(testDialects().map((d) => [d.name, d] as const))(
  'attendance exceptions on %s',
  (_name, dialect) => {
    const suite = timeTrackingSuite(dialect, {
      start: wed('08:00'),
      env: {
        EXCEPTIONS_JOB: 'false',
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
        WEBHOOK_POLL_INTERVAL_MS: '100',
      },
    });
    const receiver = new WebhookReceiver();
    afterAll(async () => receiver.stop());
    const ctx = (): AppContext => suite.server.ctx;
    const at = async (ms: number) => {
      suite.now = ms;
      return runExceptionsJob(ctx());
    };
    // Tokens last 15 minutes of the suite's clock, which the tests move by hours: each call takes a fresh one.
    const punch = async (tenant: Tenant, n: number, type: string, ms: number) => {
      await tenant.refreshToken();
      const reply = await tenant.clock({ employee: { externalId: `EXT-${n}` }, type, occurredAt: iso(ms) });
      expect(reply.status, reply.text).toBe(201);
    };
    const plan = async (tenant: Tenant, shifts: Json[]) => {
      await tenant.refreshToken();
      const reply = await call(suite.server, tenant.token, 'POST', `${API}/planned-shifts/batch`, { shifts });
      const results = (reply.body as unknown as { results: { status: number }[] }).results;
      expect(results.map((r) => r.status)).toEqual(shifts.map(() => 201));
    };
    const exceptions = async (tenant: Tenant, query: Record<string, string> = {}) => {
      await tenant.refreshToken();
      const reply = await call(
        suite.server,
        tenant.token,
        'GET',
        `${API}/attendance-exceptions?${new URLSearchParams({ from: '2026-10-01', to: '2026-11-30', limit: '100', ...query })}`,
      );
      expect(reply.status, reply.text).toBe(200);
      return (reply.body as unknown as { items: Exception[] }).items;
    };
    const byEmployee = (tenant: Tenant, list: Exception[], n: number) =>
      list
        .filter((x) => x.employee.id === tenant.fixture.employees[n]!.id)
        .map((x) => [x.kind, x.minutes, x.resolvedAt !== null])
        .sort();
    const events = async (tenant: Tenant) => {
      await tenant.refreshToken();
      const reply = await call(
        suite.server,
        tenant.token,
        'GET',
        `${API}/changes?types=attendance.exception_detected,attendance.exception_resolved&limit=100`,
      );
      return (reply.body as unknown as { items: { type: string; data: Exception }[] }).items;
    };
    const shiftOf = (n: number, from: string, to: string) => ({
      employee: { externalId: `EXT-${n}` },
      start: `2026-11-11T${from}:00+01:00`,
      end: `2026-11-11T${to}:00+01:00`,
      status: 'published',
    });

    it('a published day: on time, late, early, missing, late after a no-show, a missed clock-out, unplanned work', async () => {
      await receiver.start();
      const tenant = await suite.berlin({ scopes: SCOPES, employeeCount: 7 });
      const hook = await call(suite.server, tenant.token, 'POST', `${API}/webhooks`, {
        url: receiver.url,
        eventTypes: ['attendance.exception_detected', 'attendance.exception_resolved'],
      });
      expect(hook.status, hook.text).toBe(201);
      receiver.secrets = [(hook.body as unknown as { secret: string }).secret];
      await plan(
        tenant,
        [0, 1, 2, 3, 4, 5].map((n) => shiftOf(n, '09:00', '17:00')),
      );
      await at(wed('09:01'));
      await punch(tenant, 0, 'clock_in', wed('08:58'));
      await punch(tenant, 2, 'clock_in', wed('09:00'));
      await punch(tenant, 5, 'clock_in', wed('09:00'));
      suite.now = wed('09:20');
      await punch(tenant, 1, 'clock_in', wed('09:12'));
      expect(await at(wed('09:20'))).toMatchObject({ detected: 1, resolved: 0 });
      expect(await at(wed('09:31'))).toMatchObject({ detected: 2, resolved: 0 });
      expect(byEmployee(tenant, await exceptions(tenant), 3)).toEqual([['no_show', 0, false]]);
      suite.now = wed('09:50');
      await punch(tenant, 4, 'clock_in', wed('09:45'));
      suite.now = wed('10:00');
      await punch(tenant, 6, 'clock_in', wed('10:00'));
      expect(await at(wed('10:01'))).toMatchObject({ detected: 2, resolved: 1 });
      suite.now = wed('17:06');
      await punch(tenant, 0, 'clock_out', wed('17:01'));
      await punch(tenant, 1, 'clock_out', wed('17:00'));
      await punch(tenant, 2, 'clock_out', wed('16:30'));
      await punch(tenant, 4, 'clock_out', wed('17:00'));
      await punch(tenant, 6, 'clock_out', wed('12:00'));
      await at(wed('17:06'));
      suite.now = wed('17:45');
      await punch(tenant, 5, 'clock_out', wed('17:40'));
      await at(wed('17:45'));
      // Judged again, by however many runs: nothing new.
      expect(await at(wed('17:46'))).toMatchObject({ detected: 0, resolved: 0 });

      const list = await exceptions(tenant);
      expect(byEmployee(tenant, list, 0)).toEqual([]);
      expect(byEmployee(tenant, list, 1)).toEqual([['late_in', 12, false]]);
      expect(byEmployee(tenant, list, 2)).toEqual([['early_out', 30, false]]);
      expect(byEmployee(tenant, list, 3)).toEqual([['no_show', 0, false]]);
      expect(byEmployee(tenant, list, 4)).toEqual([
        ['late_in', 45, false],
        ['no_show', 0, true],
      ]);
      expect(byEmployee(tenant, list, 5)).toEqual([['missed_clock_out', 40, true]]);
      expect(byEmployee(tenant, list, 6)).toEqual([['unplanned', 0, false]]);
      expect(list.every((x) => x.date === '2026-11-11')).toBe(true);
      expect(list.find((x) => x.kind === 'unplanned')!.plannedShiftId).toBeNull();
      expect(list.find((x) => x.kind === 'late_in')!.timeEntryId).not.toBeNull();

      const feed = await events(tenant);
      const detected = feed.filter((e) => e.type === 'attendance.exception_detected').map((e) => e.data.id);
      const resolved = feed.filter((e) => e.type === 'attendance.exception_resolved').map((e) => e.data.id);
      expect([...detected].sort()).toEqual(list.map((x) => x.id).sort());
      expect([...resolved].sort()).toEqual(
        list
          .filter((x) => x.resolvedAt !== null)
          .map((x) => x.id)
          .sort(),
      );
      // At least once: the suite's clock jumps by hours, so a lease may run out and a delivery go again.
      const unique = (got: { id: string }[]) => new Set(got.map((d) => d.id)).size;
      const received = await receiver.waitFor((got) => unique(got) >= feed.length);
      const once = [...new Map(received.map((d) => [d.id, d])).values()];
      expect(once.map((d) => d.payload.type).sort()).toEqual(feed.map((e) => e.type).sort());
      expect(received.every((d) => d.verifiedWith.length > 0)).toBe(true);

      expect(await exceptions(tenant, { kind: 'late_in' })).toHaveLength(2);
      expect(await exceptions(tenant, { externalId: 'EXT-4' })).toHaveLength(2);
      const paged = await call(
        suite.server,
        tenant.token,
        'GET',
        `${API}/attendance-exceptions?from=2026-11-11&to=2026-11-11&limit=3`,
      );
      expect(paged.body.hasMore).toBe(true);
      const unknown = await call(
        suite.server,
        tenant.token,
        'GET',
        `${API}/attendance-exceptions?externalId=nobody`,
      );
      expect(unknown.status).toBe(404);
    });

    it('company margins: a grace of 15 minutes forgives 12 minutes late; a no-show after 60 minutes', async () => {
      const tenant = await suite.berlin({ scopes: SCOPES, employeeCount: 2 });
      await inTransaction(ctx(), (tx, now) =>
        updateCompany(tx, now, tenant.fixture.companyId, { lateGrace: '15', noShowAfter: '60' }),
      );
      await plan(tenant, [shiftOf(0, '09:00', '17:00'), shiftOf(1, '09:00', '17:00')]);
      suite.now = wed('09:20');
      await punch(tenant, 0, 'clock_in', wed('09:12'));
      await at(wed('09:45'));
      expect(await exceptions(tenant)).toEqual([]);
      await at(wed('10:00'));
      expect((await exceptions(tenant)).map((x) => x.kind)).toEqual(['no_show']);
    });

    it('a changed or deleted shift resolves what it left open; a draft raises nothing', async () => {
      const tenant = await suite.berlin({ scopes: SCOPES, employeeCount: 3 });
      await plan(tenant, [
        { ...shiftOf(0, '09:00', '17:00'), externalId: 's-0' },
        { ...shiftOf(1, '09:00', '17:00'), externalId: 's-1' },
        { ...shiftOf(2, '09:00', '17:00'), status: 'draft' },
      ]);
      await at(wed('09:40'));
      expect((await exceptions(tenant)).map((x) => x.kind)).toEqual(['no_show', 'no_show']);
      await tenant.refreshToken();
      const moved = await call(suite.server, tenant.token, 'POST', `${API}/planned-shifts/batch`, {
        shifts: [{ ...shiftOf(0, '11:00', '17:00'), externalId: 's-0' }],
      });
      expect(moved.status).toBe(200);
      const listed = await call(
        suite.server,
        tenant.token,
        'GET',
        `${API}/planned-shifts?from=2026-11-11&to=2026-11-11&shiftExternalId=s-1`,
      );
      const id = (listed.body as unknown as { items: { id: string }[] }).items[0]!.id;
      expect(
        (await suite.server.request(`${API}/planned-shifts/${id}`, { method: 'DELETE', token: tenant.token }))
          .status,
      ).toBe(204);
      expect(await at(wed('09:41'))).toMatchObject({ detected: 0, resolved: 2 });
      expect((await exceptions(tenant)).every((x) => x.resolvedAt !== null)).toBe(true);
    });

    it('unplanned work is resolved once a shift of that day is published, or once its entry is deleted', async () => {
      const tenant = await suite.berlin({ scopes: `${SCOPES},attendance.manage`, employeeCount: 3 });
      await plan(tenant, [shiftOf(0, '09:00', '17:00')]);
      suite.now = wed('10:00');
      await punch(tenant, 1, 'clock_in', wed('10:00'));
      await punch(tenant, 2, 'clock_in', wed('10:00'));
      suite.now = wed('12:00');
      await punch(tenant, 1, 'clock_out', wed('12:00'));
      await punch(tenant, 2, 'clock_out', wed('12:00'));
      // (Other tests' companies share the server: this one is judged by its lists, not the run's counts.)
      await at(wed('12:01'));
      const unplanned = (await exceptions(tenant)).filter((x) => x.kind === 'unplanned');
      expect(unplanned.map((x) => x.resolvedAt)).toEqual([null, null]);
      const of = (n: number) => unplanned.find((x) => x.employee.id === tenant.fixture.employees[n]!.id)!;

      // Employee 1: the scheduler publishes the shift they worked afterwards.
      await plan(tenant, [shiftOf(1, '10:00', '12:00')]);
      // Employee 2: the entry was a mistake and is deleted.
      await tenant.refreshToken();
      const deleted = await call(
        suite.server,
        tenant.token,
        'DELETE',
        `${API}/time-entries/${of(2).timeEntryId}`,
        {
          reason: 'punched by mistake',
        },
      );
      expect(deleted.status, deleted.text).toBe(204);
      await at(wed('12:02'));
      // Judged again, by however many runs: resolved once (one event each, the first run's time).
      await at(wed('12:03'));
      await at(wed('12:04'));
      const after = await exceptions(tenant);
      for (const n of [1, 2]) {
        const x = after.find((y) => y.id === of(n).id)!;
        expect(x.resolvedAt).toBe(iso(wed('12:02')));
      }
      const feed = await events(tenant);
      const resolvedIds = feed
        .filter((e) => e.type === 'attendance.exception_resolved')
        .map((e) => e.data.id)
        .sort();
      expect(resolvedIds).toEqual([of(1).id, of(2).id].sort());
      expect(
        feed
          .filter((e) => e.type === 'attendance.exception_resolved')
          .every((e) => e.data.resolvedAt !== null),
      ).toBe(true);
    });

    it('across midnight: a night shift is dated by its start; late in, early out', async () => {
      const tenant = await suite.berlin({ scopes: SCOPES, employeeCount: 1 });
      await plan(tenant, [
        {
          employee: { externalId: 'EXT-0' },
          start: '2026-11-11T22:00:00+01:00',
          end: '2026-11-12T06:00:00+01:00',
          status: 'published',
        },
      ]);
      suite.now = wed('22:20');
      await punch(tenant, 0, 'clock_in', wed('22:10'));
      suite.now = Date.parse('2026-11-12T05:31:00+01:00');
      await punch(tenant, 0, 'clock_out', Date.parse('2026-11-12T05:30:00+01:00'));
      await at(Date.parse('2026-11-12T06:01:00+01:00'));
      expect((await exceptions(tenant)).map((x) => [x.kind, x.minutes, x.date]).sort()).toEqual([
        ['early_out', 30, '2026-11-11'],
        ['late_in', 10, '2026-11-11'],
      ]);
    });

    it('the DST nights: a missed clock-out is found at the real end plus the grace', async () => {
      const tenant = await suite.berlin({ scopes: SCOPES, employeeCount: 2 });
      // 24-25 October 2026 the clocks go back (9 h); 27-28 March 2027 they go forward (7 h).
      const autumnEnd = Date.parse('2026-10-25T06:00:00+01:00');
      const springEnd = Date.parse('2027-03-28T06:00:00+02:00');
      suite.now = Date.parse('2026-10-24T21:55:00+02:00');
      await plan(tenant, [
        {
          employee: { externalId: 'EXT-0' },
          start: '2026-10-24T22:00:00+02:00',
          end: '2026-10-25T06:00:00+01:00',
          status: 'published',
        },
      ]);
      await punch(tenant, 0, 'clock_in', Date.parse('2026-10-24T21:55:00+02:00'));
      expect(await at(autumnEnd + 4 * MINUTE)).toMatchObject({ detected: 0 });
      expect(await at(autumnEnd + 5 * MINUTE)).toMatchObject({ detected: 1 });
      expect(autumnEnd - Date.parse('2026-10-24T22:00:00+02:00')).toBe(9 * HOUR);
      suite.now = Date.parse('2027-03-27T22:00:00+01:00');
      await plan(tenant, [
        {
          employee: { externalId: 'EXT-1' },
          start: '2027-03-27T22:00:00+01:00',
          end: '2027-03-28T06:00:00+02:00',
          status: 'published',
        },
      ]);
      await punch(tenant, 1, 'clock_in', Date.parse('2027-03-27T22:00:00+01:00'));
      expect(await at(springEnd + 4 * MINUTE)).toMatchObject({ detected: 0 });
      expect(await at(springEnd + 5 * MINUTE)).toMatchObject({ detected: 1 });
      const list = await exceptions(tenant, { from: '2026-10-01', to: '2026-12-31' });
      const spring = await exceptions(tenant, { from: '2027-03-01', to: '2027-03-31' });
      expect([...list, ...spring].map((x) => [x.kind, x.date, x.minutes])).toEqual([
        ['missed_clock_out', '2026-10-24', 5],
        ['missed_clock_out', '2027-03-27', 5],
      ]);
    });
  },
);
