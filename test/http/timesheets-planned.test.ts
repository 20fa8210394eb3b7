import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/modules/context.js';
import { updateCompany } from '../../src/modules/companies/service.js';
import { runExceptionsJob } from '../../src/modules/planned-shifts/exceptions-job.js';
import { testDialects } from '../support/databases.js';
import { call, type Tenant, timeTrackingSuite } from '../support/time-tracking.js';

/*
 * Timesheets with the plan (issue 33): each day's planned hours, a planned day without work listed,
 * the exceptions counted, the CSV's planned_hours column last, and the rounding policy of reports
 * (worked figures only; raw punches and the working-time rules untouched).
 */

const API = '/api/public/v1';
const SCOPES =
  'attendance.record,attendance.read,attendance.reports,attendance.manage,employees.read,shifts.manage';
const day = (d: number, hhmm: string) => `2026-11-0${d}T${hhmm}:00+01:00`;

interface Sheet {
  days: {
    date: string;
    workedHours: number;
    plannedHours: number;
    entries: number;
    flags: { rule: string }[];
  }[];
  totals: Record<string, unknown> & {
    plannedHours: number;
    workedHours: number;
    exceptions: Record<string, number>;
  };
}

describe.each(testDialects().map((d) => [d.name, d] as const))(
  'timesheets with planned shifts on %s',
  (_name, dialect) => {
    const suite = timeTrackingSuite(dialect, { env: { EXCEPTIONS_JOB: 'false' } });
    const report = async (tenant: Tenant, query: Record<string, string>, accept = 'application/json') => {
      await tenant.refreshToken();
      return call(
        suite.server,
        tenant.token,
        'GET',
        `${API}/reports/timesheets?${new URLSearchParams(query)}`,
        undefined,
        {
          accept,
        },
      );
    };
    const setUp = async () => {
      const tenant = await suite.berlin({ scopes: SCOPES, employeeCount: 1 });
      const shifts = [2, 3, 4].map((d) => ({
        employee: { externalId: 'EXT-0' },
        start: day(d, '09:00'),
        end: day(d, '17:00'),
        breakMinutes: 30,
        status: 'published',
      }));
      const planned = await call(suite.server, tenant.token, 'POST', `${API}/planned-shifts/batch`, {
        shifts,
      });
      expect(planned.status).toBe(200);
      // The 2nd: 08:53-17:06 less 30 min (7.72 h); the 3rd: nobody came; the 4th: 09:00-15:05 (6.08 h, no break).
      expect(
        (
          await tenant.shift({
            employee: { externalId: 'EXT-0' },
            clockIn: day(2, '08:53'),
            clockOut: day(2, '17:06'),
            breakMinutes: 30,
          })
        ).status,
      ).toBe(201);
      expect(
        (
          await tenant.shift({
            employee: { externalId: 'EXT-0' },
            clockIn: day(4, '09:00'),
            clockOut: day(4, '15:05'),
          })
        ).status,
      ).toBe(201);
      // The job, run on the 3rd at 10:00 and on the 4th at 18:00: a no-show, then an early clock-out.
      for (const at of [day(3, '10:00'), day(4, '18:00')]) {
        suite.now = Date.parse(at);
        await runExceptionsJob(suite.server.ctx);
      }
      suite.now = Date.parse('2026-11-10T12:00:00Z');
      return tenant;
    };

    it('days carry planned hours, a planned day without work is listed, totals count the exceptions', async () => {
      const tenant = await setUp();
      const reply = await report(tenant, { from: '2026-11-02', to: '2026-11-08', externalId: 'EXT-0' });
      expect(reply.status, reply.text).toBe(200);
      const sheet = (reply.body as unknown as { items: Sheet[] }).items[0]!;
      expect(sheet.days.map((d) => [d.date, d.workedHours, d.plannedHours, d.entries])).toEqual([
        ['2026-11-02', 7.72, 7.5, 1],
        ['2026-11-03', 0, 7.5, 0],
        ['2026-11-04', 6.08, 7.5, 1],
      ]);
      expect(sheet.totals.plannedHours).toBe(22.5);
      // The 2nd's clock-out at 17:06 came after the end and its 5 minutes of grace: a missed clock-out, resolved.
      expect(sheet.totals.exceptions).toEqual({
        late_in: 0,
        early_out: 1,
        no_show: 1,
        missed_clock_out: 1,
        unplanned: 0,
      });

      const csv = await report(tenant, { from: '2026-11-02', to: '2026-11-08' }, 'text/csv');
      const rows = parse(csv.text, { columns: true }) as Record<string, string>[];
      expect(Object.keys(rows[0]!).at(-1)).toBe('planned_hours');
      expect(rows.map((r) => [r.date, r.worked_hours, r.planned_hours])).toEqual([
        ['2026-11-02', '7.72', '7.50'],
        ['2026-11-03', '0.00', '7.50'],
        ['2026-11-04', '6.08', '7.50'],
      ]);
    });

    it('totals count the exceptions that still stand: a no-show made good by a late clock-in, a deleted shift or entry void theirs', async () => {
      const tenant = await setUp();
      const totals = async () =>
        (
          (await report(tenant, { from: '2026-11-02', to: '2026-11-08', externalId: 'EXT-0' }))
            .body as unknown as { items: Sheet[] }
        ).items[0]!.totals.exceptions;
      // The 3rd: the employee did come, at 10:30 (the no-show resolved, a late clock-in of 90 minutes).
      await tenant.refreshToken();
      expect(
        (
          await tenant.shift({
            employee: { externalId: 'EXT-0' },
            clockIn: day(3, '10:30'),
            clockOut: day(3, '17:00'),
          })
        ).status,
      ).toBe(201);
      suite.now = Date.parse(day(4, '18:30'));
      await runExceptionsJob(suite.server.ctx);
      suite.now = Date.parse('2026-11-10T12:00:00Z');
      expect(await totals()).toEqual({
        late_in: 1,
        early_out: 1,
        no_show: 0,
        missed_clock_out: 1,
        unplanned: 0,
      });

      // The 2nd's shift deleted (its missed clock-out is void), the 4th's entry deleted (its early clock-out too).
      await tenant.refreshToken();
      const listed = await call(
        suite.server,
        tenant.token,
        'GET',
        `${API}/planned-shifts?from=2026-11-02&to=2026-11-02&externalId=EXT-0`,
      );
      const shiftId = (listed.body as unknown as { items: { id: string }[] }).items[0]!.id;
      expect(
        (await call(suite.server, tenant.token, 'DELETE', `${API}/planned-shifts/${shiftId}`)).status,
      ).toBe(204);
      const entries = await tenant.list({ externalId: 'EXT-0', from: '2026-11-04', to: '2026-11-04' });
      const entryId = (entries.body.items ?? [])[0]!.id;
      const deleted = await call(suite.server, tenant.token, 'DELETE', `${API}/time-entries/${entryId}`, {
        reason: 'recorded twice',
      });
      expect(deleted.status, deleted.text).toBe(204);
      // The job has not run since: the report alone judges what stands.
      expect(await totals()).toEqual({
        late_in: 1,
        early_out: 0,
        no_show: 0,
        missed_clock_out: 0,
        unplanned: 0,
      });
    });

    it('rounding moves the reported worked time only: the entries and the rule checks keep the raw times', async () => {
      const tenant = await setUp();
      await inTransaction(suite.server.ctx, (tx, now) =>
        updateCompany(tx, now, tenant.fixture.companyId, {
          rounding: 'nearest',
          roundingMinutes: '15',
          workingTimeRules: 'de-arbzg',
        }),
      );
      const sheet = (
        (await report(tenant, { from: '2026-11-02', to: '2026-11-08', externalId: 'EXT-0' }))
          .body as unknown as { items: Sheet[] }
      ).items[0]!;
      // 08:53 → 09:00 and 17:06 → 17:00: 7.5 h; 15:05 → 15:00: 6.00 h, yet 6 h 05 without a break is flagged.
      expect(sheet.days.map((d) => [d.date, d.workedHours])).toEqual([
        ['2026-11-02', 7.5],
        ['2026-11-03', 0],
        ['2026-11-04', 6],
      ]);
      expect(sheet.days[2]!.flags.map((f) => f.rule)).toEqual(['de-arbzg.break']);
      await tenant.refreshToken();
      const entries = await tenant.list({ externalId: 'EXT-0', from: '2026-11-02', to: '2026-11-08' });
      expect((entries.body.items ?? []).map((e) => e.totalHours)).toEqual([7.72, 6.08]);
      await inTransaction(suite.server.ctx, (tx, now) =>
        updateCompany(tx, now, tenant.fixture.companyId, { rounding: 'down' }),
      );
      const down = (
        (await report(tenant, { from: '2026-11-02', to: '2026-11-02', externalId: 'EXT-0' }))
          .body as unknown as { items: Sheet[] }
      ).items[0]!;
      // 08:53 → 09:00, 17:06 → 17:00 less the break: 7.5 h.
      expect(down.days[0]!.workedHours).toBe(7.5);
      await expect(
        inTransaction(suite.server.ctx, (tx, now) =>
          updateCompany(tx, now, tenant.fixture.companyId, { roundingMinutes: '45' }),
        ),
      ).rejects.toThrow(/rounding minutes/);
    });
  },
);
