import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { setHolidayOverride } from '../../src/modules/absences/holidays.js';
import { inTransaction } from '../../src/modules/context.js';
import {
  approvedAbsence,
  balanceOf,
  type Json,
  leaveTenant,
  type LeaveTenant,
  requestAbsence,
} from '../support/absences.js';
import { testDialects } from '../support/databases.js';
import { call, timeTrackingSuite } from '../support/time-tracking.js';

/*
 * Issue 31 from outside, on both databases: a Bavarian workplace's public holidays and the company's
 * overrides, timesheets counting holidays and absences (a week with a holiday and a vacation day
 * balancing to zero, half days, the CSV's new columns, days=all), carry-over usable on 31 March and
 * gone on 1 April, proration for joiners and leavers.
 */

const CLI = { type: 'cli' as const, id: null };
const BAVARIA_2026 = [
  '2026-01-01',
  '2026-01-06',
  '2026-04-03',
  '2026-04-06',
  '2026-05-01',
  '2026-05-14',
  '2026-05-25',
  '2026-06-04',
  '2026-10-03',
  '2026-11-01',
  '2026-12-25',
  '2026-12-26',
];

describe.each(testDialects().map((d) => [d.name, d] as const))(
  'absences and holidays on %s',
  (_name, dialect) => {
    // Monday 8 June 2026, 10:00 in Berlin.
    const suite = timeTrackingSuite(dialect, { start: Date.parse('2026-06-08T08:00:00Z') });

    /** An 8-hour day (08:00-16:30 with 30 minutes' break) through POST /time-entries. */
    async function workDay(t: LeaveTenant, employeeId: string, date: string) {
      const reply = await t.shift({
        employee: { id: employeeId },
        clockIn: `${date}T08:00:00+02:00`,
        clockOut: `${date}T16:30:00+02:00`,
        breakMinutes: 30,
      });
      expect(reply.status, reply.text).toBe(201);
    }

    async function sheet(t: LeaveTenant, employeeId: string, query: Record<string, string>): Promise<Json> {
      const reply = await t.api(
        'GET',
        `/reports/timesheets?${new URLSearchParams({ employeeId, ...query })}`,
      );
      expect(reply.status, reply.text).toBe(200);
      return reply.json.items[0];
    }

    it("lists a Bavarian workplace's holidays of a year (Corpus Christi, not Reformation Day) with the company's overrides", async () => {
      const t = await leaveTenant(suite);
      const holidays = async (query: string) => {
        const reply = await t.api('GET', `/holidays?workplaceId=${t.fixture.workplaceId}${query}`);
        expect(reply.status, reply.text).toBe(200);
        return reply.json.items as Json[];
      };
      const year = await holidays('&from=2026-01-01&to=2026-12-31');
      expect(year.map((h) => h.date)).toEqual(BAVARIA_2026);
      expect(year.find((h) => h.date === '2026-06-04')).toEqual({
        date: '2026-06-04',
        name: 'Corpus Christi',
        portion: 'full',
        source: 'region',
      });
      // Without from/to: this calendar year, in the company's zone.
      expect((await holidays('')).map((h) => h.date)).toEqual(BAVARIA_2026);
      const companyId = t.fixture.companyId;
      await inTransaction(suite.server.ctx, async (tx, now) => {
        await setHolidayOverride(
          tx,
          now,
          { companyId, date: '2026-12-24', name: 'Christmas Eve', portion: 'half' },
          'add',
          CLI,
        );
        await setHolidayOverride(
          tx,
          now,
          { companyId, workplaceId: t.fixture.workplaceId, date: '2026-01-06' },
          'remove',
          CLI,
        );
      });
      const changed = await holidays('&from=2026-01-01&to=2026-12-31');
      expect(changed.map((h) => h.date)).toEqual(
        [...BAVARIA_2026.filter((d) => d !== '2026-01-06'), '2026-12-24'].sort(),
      );
      expect(changed.find((h) => h.date === '2026-12-24')).toMatchObject({
        portion: 'half',
        source: 'company',
      });
      for (const [query, field] of [
        ['&from=2026-01-01&to=2027-01-02', 'to'],
        ['&from=2026-02-01&to=2026-01-01', 'from'],
      ] as const) {
        const refused = await t.api('GET', `/holidays?workplaceId=${t.fixture.workplaceId}${query}`);
        expect(refused.status).toBe(422);
        expect(refused.json.errors[0].field).toBe(field);
      }
      expect((await t.api('GET', '/holidays')).status).toBe(422);
      const other = await leaveTenant(suite);
      expect((await t.api('GET', `/holidays?workplaceId=${other.fixture.workplaceId}`)).json.error).toBe(
        'not_found',
      );
    });

    it('balances a week with a holiday and a vacation day to zero, as it does four days and a holiday or four days and a vacation day', async () => {
      const t = await leaveTenant(suite);
      await t.vacation({ yearlyEntitlementDays: 25 });
      await t.at('2026-06-13T10:00:00+02:00');
      const [a, b, c] = t.employees as [string, string, string];
      // A: Monday to Wednesday worked, Thursday 4 June Corpus Christi, Friday vacation.
      for (const day of ['2026-06-01', '2026-06-02', '2026-06-03']) await workDay(t, a, day);
      await approvedAbsence(t, a, 'vacation', '2026-06-05', '2026-06-05');
      // B: four days worked and the holiday. C: four days worked and a vacation day, in a week without holiday.
      for (const day of ['2026-06-01', '2026-06-02', '2026-06-03', '2026-06-05']) await workDay(t, b, day);
      for (const day of ['2026-06-08', '2026-06-09', '2026-06-10', '2026-06-11']) await workDay(t, c, day);
      await approvedAbsence(t, c, 'vacation', '2026-06-12', '2026-06-12');

      const week = { from: '2026-06-01', to: '2026-06-07' };
      const first = await sheet(t, a, week);
      expect(first.totals).toMatchObject({
        workedHours: 24,
        targetHours: 32,
        creditedHours: 8,
        balanceHours: 0,
        overtimeHours: 0,
      });
      expect(
        first.days.map((d: Json) => [d.date, d.workedHours, d.targetHours, d.creditedHours, d.balanceHours]),
      ).toEqual([
        ['2026-06-01', 8, 8, 0, 0],
        ['2026-06-02', 8, 8, 0, 0],
        ['2026-06-03', 8, 8, 0, 0],
        ['2026-06-04', 0, 0, 0, 0],
        ['2026-06-05', 0, 8, 8, 0],
      ]);
      expect(first.days[3]).toMatchObject({
        holiday: { name: 'Corpus Christi', portion: 'full' },
        entries: 0,
        absences: [],
        credited: [],
      });
      expect(first.days[4]).toMatchObject({
        holiday: null,
        absences: ['vacation'],
        credited: [{ code: 'vacation', hours: 8 }],
      });
      expect((await sheet(t, b, week)).totals).toMatchObject({
        workedHours: 32,
        targetHours: 32,
        balanceHours: 0,
      });
      const second = await sheet(t, c, { from: '2026-06-08', to: '2026-06-14' });
      expect(second.totals).toMatchObject({
        workedHours: 32,
        targetHours: 40,
        creditedHours: 8,
        balanceHours: 0,
      });
      // days=all lists the weekend too, in JSON as in the CSV.
      expect((await sheet(t, a, { ...week, days: 'all' })).days).toHaveLength(7);

      const csv = await call(
        suite.server,
        t.token,
        'GET',
        `/api/public/v1/reports/timesheets?employeeId=${a}&from=2026-06-01&to=2026-06-07`,
        undefined,
        { accept: 'text/csv' },
      );
      expect(csv.status).toBe(200);
      const rows = parse(csv.text) as string[][];
      // After the existing columns, before the planned-shifts issue's planned_hours (both issues say so).
      expect(rows[0]!.slice(-6)).toEqual([
        'flag_messages',
        'target_hours',
        'credited_hours',
        'balance_hours',
        'absences',
        'planned_hours',
      ]);
      expect(rows.slice(1).map((r) => [r[4], ...r.slice(-5, -1)])).toEqual([
        ['2026-06-01', '8.00', '0.00', '0.00', ''],
        ['2026-06-02', '8.00', '0.00', '0.00', ''],
        ['2026-06-03', '8.00', '0.00', '0.00', ''],
        ['2026-06-04', '0.00', '0.00', '0.00', ''],
        ['2026-06-05', '8.00', '8.00', '0.00', 'vacation'],
      ]);
      const all = await call(
        suite.server,
        t.token,
        'GET',
        `/api/public/v1/reports/timesheets?employeeId=${a}&from=2026-06-01&to=2026-06-07&days=all`,
        undefined,
        { accept: 'text/csv' },
      );
      expect((parse(all.text) as string[][]).length).toBe(8);
    });

    it('counts half days: 0.5 of the balance, half the target credited; unpaid leave lowers the target instead', async () => {
      const t = await leaveTenant(suite);
      await t.vacation({ yearlyEntitlementDays: 25 });
      await t.at('2026-06-13T10:00:00+02:00');
      const [a] = t.employees as [string];
      const morning = await approvedAbsence(t, a, 'vacation', '2026-06-10', '2026-06-10', {
        portion: 'first_half',
      });
      expect(morning).toMatchObject({ days: 0.5, portion: 'first_half', hours: null, balanceAfter: 24.5 });
      // The other half of the same day: unpaid, approved too (the two halves do not overlap).
      const afternoon = await approvedAbsence(t, a, 'unpaid', '2026-06-10', '2026-06-10', {
        portion: 'second_half',
      });
      expect(afternoon).toMatchObject({ days: 0.5, balanceAfter: null });
      await workDay(t, a, '2026-06-09');
      const day = (await sheet(t, a, { from: '2026-06-10', to: '2026-06-10' })).days[0];
      expect(day).toMatchObject({
        targetHours: 4,
        creditedHours: 4,
        balanceHours: 0,
        absences: ['vacation', 'unpaid'],
      });
      const hours = await approvedAbsence(t, a, 'sick', '2026-06-11', '2026-06-11', {
        portion: 'hours',
        hours: 3,
      });
      expect(hours).toMatchObject({ days: 0.38, hours: 3, status: 'approved' });
      expect((await sheet(t, a, { from: '2026-06-11', to: '2026-06-11' })).days[0]).toMatchObject({
        targetHours: 8,
        creditedHours: 3,
        balanceHours: -5,
      });
      expect(await balanceOf(t, a, 2026)).toMatchObject({ entitlement: 25, taken: 0.5, remaining: 24.5 });
    });

    it('keeps carried-over days usable on 31 March and lets them lapse on 1 April', async () => {
      suite.now = Date.parse('2025-03-03T09:00:00Z');
      const t = await leaveTenant(suite);
      const [a] = t.employees as [string];
      await t.vacation({ carryOverMaxDays: 5, carryOverExpiresOn: '03-31' });
      await t.entitlement(a, 2025, 10);
      await t.entitlement(a, 2026, 0);
      await approvedAbsence(t, a, 'vacation', '2025-05-05', '2025-05-08');
      expect(await balanceOf(t, a, 2025)).toMatchObject({ entitlement: 10, carriedOver: 0, remaining: 6 });

      await t.at('2026-03-31T10:00:00+02:00');
      expect(await balanceOf(t, a, 2026)).toMatchObject({
        entitlement: 0,
        carriedOver: 5,
        carryOverExpiresOn: '2026-03-31',
        taken: 0,
        remaining: 5,
      });
      const dry = await requestAbsence(
        t,
        a,
        'vacation',
        '2026-03-31',
        '2026-03-31',
        {},
        { 'x-service-dry-run': 'true' },
      );
      expect(dry.status, dry.text).toBe(200);
      expect(dry.json).toMatchObject({ id: null, dryRun: true, days: 1, balanceAfter: 4 });
      // A day after the expiry cannot use carried days, even when asked for before it.
      const april = await requestAbsence(t, a, 'vacation', '2026-04-07', '2026-04-07');
      expect(april.status).toBe(409);
      expect(april.json.error).toBe('insufficient_balance');
      expect(await approvedAbsence(t, a, 'vacation', '2026-03-31', '2026-03-31')).toMatchObject({
        balanceAfter: 4,
      });
      expect(await balanceOf(t, a, 2026)).toMatchObject({ taken: 1, remaining: 4 });

      await t.at('2026-04-01T08:00:00+02:00');
      expect(await balanceOf(t, a, 2026)).toMatchObject({ carriedOver: 5, taken: 1, remaining: 0 });
      const late = await requestAbsence(t, a, 'vacation', '2026-04-02', '2026-04-02');
      expect(late.status).toBe(409);
      expect(late.json.error).toBe('insufficient_balance');
    });

    it("prorates the yearly entitlement by whole months employed: a joiner's and a leaver's", async () => {
      const t = await leaveTenant(suite);
      await t.vacation({ yearlyEntitlementDays: 25 });
      const [joiner, lateJoiner, leaver] = t.employees as [string, string, string];
      await t.employee(joiner, { hiredOn: '2026-07-01' });
      await t.employee(lateJoiner, { hiredOn: '2026-07-15' });
      await t.employee(leaver, { hiredOn: '2019-01-01', leftOn: '2026-03-31' });
      expect(await balanceOf(t, joiner, 2026)).toMatchObject({ entitlement: 12.5, remaining: 12.5 });
      expect(await balanceOf(t, lateJoiner, 2026)).toMatchObject({ entitlement: 10.42 });
      expect(await balanceOf(t, leaver, 2026)).toMatchObject({ entitlement: 6.25 });
      expect(await balanceOf(t, joiner, 2027)).toMatchObject({ entitlement: 25 });
      // Before the hiring date there is no working day.
      const before = await requestAbsence(t, joiner, 'vacation', '2026-06-15', '2026-06-19');
      expect(before.status).toBe(422);
      expect(before.json.errors[0].field).toBe('startDate');
      const employees = await t.api('GET', '/employees');
      const item = employees.json.items.find((e: Json) => e.id === joiner);
      expect(item).toMatchObject({ hiredOn: '2026-07-01', leftOn: null });
      for (const e of employees.json.items)
        expect(Object.keys(e)).toEqual(expect.arrayContaining(['hiredOn', 'leftOn']));
    });
  },
);
