import { describe, expect, it } from 'vitest';
import { overlaps } from '../../src/modules/absences/absences.js';
import {
  computeBalance,
  expiryDate,
  firstBalanceYear,
  proratedEntitlement,
  wholeMonthsEmployed,
  type DayAmount,
} from '../../src/modules/absences/balances.js';
import { buildCalendar, countAbsence, parseWorkDays } from '../../src/modules/absences/calendar.js';
import { mergeHolidays, parseRegion, regionHolidays } from '../../src/modules/absences/holidays.js';
import { dayAccount, withAccounts } from '../../src/modules/absences/timesheet.js';
import type { HolidayOverrideRow } from '../../src/modules/absences/calendar.queries.js';

/*
 * The pure rules of issue 31 (docs/timesheets.md, "Absences and holidays" and "Leave balances"): the
 * working calendar, day counts, holidays merged with overrides, proration, carry-over, day accounts.
 */

const FULL_TIME = {
  effectiveFrom: '2020-01-01',
  weeklyHours: 40,
  workDays: parseWorkDays('mon,tue,wed,thu,fri')!,
  dailyHours: null,
};
const EMPLOYED = { hiredOn: null, leftOn: null };
const NO_HOLIDAYS = new Map();

describe('working calendar', () => {
  it('parses weekdays in short or long form, in week order, and refuses others', () => {
    expect(parseWorkDays('fri,MON,tue')).toEqual(['monday', 'tuesday', 'friday']);
    expect(parseWorkDays('monday, wednesday')).toEqual(['monday', 'wednesday']);
    expect(parseWorkDays('mon,xyz')).toBeNull();
  });

  it('owes the daily hours on work days, none on weekends, holidays or outside employment, half on a half holiday', () => {
    const days = buildCalendar({
      from: '2026-12-21',
      to: '2026-12-27',
      schedules: [FULL_TIME],
      employment: { hiredOn: null, leftOn: '2026-12-23' },
      holidays: new Map([['2026-12-22', { name: 'Half', portion: 'half' as const }]]),
    });
    expect(days.map((d) => [d.date, d.factor, d.targetSeconds / 3600])).toEqual([
      ['2026-12-21', 1, 8],
      ['2026-12-22', 0.5, 4],
      ['2026-12-23', 1, 8],
      ['2026-12-24', 0, 0],
      ['2026-12-25', 0, 0],
      ['2026-12-26', 0, 0],
      ['2026-12-27', 0, 0],
    ]);
  });

  it('takes the schedule in force each day: its own daily hours, else weekly hours ÷ work days', () => {
    const fourDays = {
      effectiveFrom: '2026-06-03',
      weeklyHours: 32,
      workDays: parseWorkDays('mon,tue,wed,thu')!,
      dailyHours: null,
    };
    const days = buildCalendar({
      from: '2026-06-01',
      to: '2026-06-05',
      schedules: [FULL_TIME, fourDays],
      employment: EMPLOYED,
      holidays: NO_HOLIDAYS,
    });
    expect(days.map((d) => d.targetSeconds / 3600)).toEqual([8, 8, 8, 8, 0]);
    const own = buildCalendar({
      from: '2026-06-01',
      to: '2026-06-01',
      schedules: [{ ...FULL_TIME, dailyHours: 7.5 }],
      employment: EMPLOYED,
      holidays: NO_HOLIDAYS,
    });
    expect(own[0]!.targetSeconds).toBe(27_000);
  });

  it('counts an absence in working days less holidays; a half day 0.5; a half day on a half holiday 0.25', () => {
    const calendar = buildCalendar({
      from: '2026-06-01',
      to: '2026-06-07',
      schedules: [FULL_TIME],
      employment: EMPLOYED,
      holidays: new Map([
        ['2026-06-04', { name: 'Corpus Christi', portion: 'full' as const }],
        ['2026-06-05', { name: 'Half', portion: 'half' as const }],
      ]),
    });
    expect(countAbsence(calendar, 'full', null).days).toBe(3.5);
    expect(countAbsence(calendar.slice(0, 1), 'first_half', null).days).toBe(0.5);
    expect(countAbsence(calendar.slice(4, 5), 'second_half', null).days).toBe(0.25);
    expect(countAbsence(calendar.slice(0, 1), 'hours', 2).days).toBe(0.25);
    expect(countAbsence(calendar.slice(5, 7), 'full', null).workDays).toBe(0);
  });

  it('lets the two halves of one day stand side by side, and nothing else overlap', () => {
    const morning = { start_date: '2026-06-01', end_date: '2026-06-01', portion: 'first_half' };
    expect(
      overlaps(morning, { startDate: '2026-06-01', endDate: '2026-06-01', portion: 'second_half' }),
    ).toBe(false);
    expect(overlaps(morning, { startDate: '2026-06-01', endDate: '2026-06-01', portion: 'first_half' })).toBe(
      true,
    );
    expect(overlaps(morning, { startDate: '2026-05-29', endDate: '2026-06-02', portion: 'full' })).toBe(true);
    expect(overlaps(morning, { startDate: '2026-06-02', endDate: '2026-06-03', portion: 'full' })).toBe(
      false,
    );
  });
});

describe('holidays', () => {
  it("knows Bavaria's public holidays: Corpus Christi yes, Reformation Day no", () => {
    expect(parseRegion('DE-BY')).toEqual({ country: 'DE', state: 'BY' });
    expect(parseRegion('de-by')).toEqual({ country: 'DE', state: 'BY' });
    expect(parseRegion('XX')).toBeNull();
    expect(parseRegion('DE-ZZ')).toBeNull();
    const dates = regionHolidays('DE-BY', '2026-01-01', '2026-12-31').map((h) => h.date);
    expect(dates).toContain('2026-06-04');
    expect(dates).not.toContain('2026-10-31');
    expect(regionHolidays('DE-BB', '2026-10-31', '2026-10-31').map((h) => h.name)).toEqual([
      'Reformation Day',
    ]);
  });

  it("applies the company's overrides, then the workplace's, over the region's", () => {
    const override = (fields: Partial<HolidayOverrideRow>): HolidayOverrideRow => ({
      id: 'o',
      company_id: 'c',
      workplace_id: null,
      date: '2026-12-24',
      kind: 'add',
      name: 'Christmas Eve',
      portion: 'half',
      created_at: '',
      ...fields,
    });
    const region = regionHolidays('DE-BY', '2026-01-01', '2026-01-06');
    const overrides = [
      override({}),
      override({ date: '2026-01-06', kind: 'remove', name: null, workplace_id: 'w1' }),
    ];
    expect(mergeHolidays(region, overrides, 'w1').map((h) => [h.date, h.portion, h.source])).toEqual([
      ['2026-01-01', 'full', 'region'],
      ['2026-12-24', 'half', 'company'],
    ]);
    expect(mergeHolidays(region, overrides, 'w2').map((h) => h.date)).toEqual([
      '2026-01-01',
      '2026-01-06',
      '2026-12-24',
    ]);
  });
});

describe('balances', () => {
  it('prorates by whole calendar months employed', () => {
    expect(wholeMonthsEmployed(2026, '2026-07-01', null)).toBe(6);
    expect(wholeMonthsEmployed(2026, '2026-07-15', null)).toBe(5);
    expect(wholeMonthsEmployed(2026, null, '2026-03-30')).toBe(2);
    expect(wholeMonthsEmployed(2026, '2025-01-01', null)).toBe(12);
    expect(proratedEntitlement(25, 6)).toBe(12.5);
    expect(proratedEntitlement(25, 5)).toBe(10.42);
  });

  it('carries the remainder over, usable through the expiry day, lapsing the day after', () => {
    const amounts: DayAmount[] = [
      ...['2025-05-04', '2025-05-05', '2025-05-06', '2025-05-07'].map((date) => ({
        date,
        days: 1,
        status: 'approved' as const,
      })),
      { date: '2026-03-31', days: 1, status: 'approved' },
      { date: '2026-06-01', days: 0.5, status: 'requested' },
    ];
    const rules = {
      carryOverMaxDays: 5,
      carryOverExpiresOn: '03-31',
      entitlementOf: (y: number) => (y === 2025 ? 10 : 0),
    };
    const on = (today: string) => computeBalance({ year: 2026, firstYear: 2025, today, amounts, rules });
    expect(on('2026-03-30')).toMatchObject({
      carriedOver: 5,
      taken: 0,
      planned: 1,
      requested: 0.5,
      remaining: 4,
    });
    expect(on('2026-03-31')).toMatchObject({
      taken: 1,
      planned: 0,
      remaining: 4,
      carryOverExpiresOn: '2026-03-31',
    });
    // From 1 April only the carried day used by then counts: 0 + 1 − 1.
    expect(on('2026-04-01')).toMatchObject({ carriedOver: 5, remaining: 0, projected: 0 });
    expect(expiryDate(2026, '02-29')).toBe('2026-02-28');
    expect(firstBalanceYear(2026, '2024-05-01T00:00:00.000Z', '2025-02-01', [])).toBe(2025);
    expect(firstBalanceYear(2026, '2026-01-01T00:00:00.000Z', null, [2023])).toBe(2023);
  });
});

describe('day accounts', () => {
  it('balances a week of four 8-hour days and a vacation day, or a holiday, to zero; unpaid leave neither adds nor owes', () => {
    const calendar = buildCalendar({
      from: '2026-06-01',
      to: '2026-06-07',
      schedules: [FULL_TIME],
      employment: EMPLOYED,
      holidays: new Map([['2026-06-04', { name: 'Corpus Christi', portion: 'full' as const }]]),
    });
    const vacation = {
      employee_id: 'e',
      start_date: '2026-06-05',
      end_date: '2026-06-05',
      portion: 'full',
      hours: null,
      code: 'vacation',
      counts_as_work_time: 1,
    };
    const unpaid = {
      ...vacation,
      start_date: '2026-06-03',
      end_date: '2026-06-03',
      portion: 'first_half',
      code: 'unpaid',
      counts_as_work_time: 0,
    };
    const accounts = calendar.map((day) => dayAccount(day, [vacation, unpaid]));
    expect(accounts.map((a) => [a.targetSeconds / 3600, a.credited.map((c) => c.seconds / 3600)])).toEqual([
      [8, []],
      [8, []],
      [4, []],
      [0, []],
      [8, [8]],
      [0, []],
      [0, []],
    ]);
    const worked = ['2026-06-01', '2026-06-02'].map((date) => ({ date, workedSeconds: 8 * 3600 }));
    const sheet = {
      days: [...worked, { date: '2026-06-03', workedSeconds: 4 * 3600 }].map((d) => ({
        ...d,
        breakMinutes: 0,
        regularSeconds: d.workedSeconds,
        overtimeSeconds: 0,
        entries: 1,
        statuses: { pending_approval: 0, approved: 1 },
        flags: [],
      })),
      totals: {
        workedSeconds: 20 * 3600,
        regularSeconds: 20 * 3600,
        overtimeSeconds: 0,
        breakMinutes: 0,
        approvedSeconds: 20 * 3600,
        pendingSeconds: 0,
        openSessions: 0,
      },
    };
    const counted = withAccounts(sheet, accounts, { from: '2026-06-01', to: '2026-06-07', allDays: false });
    expect(counted.totals).toMatchObject({
      targetSeconds: 28 * 3600,
      creditedSeconds: 8 * 3600,
      balanceSeconds: 0,
    });
    expect(counted.days.map((d) => d.date)).toEqual([
      '2026-06-01',
      '2026-06-02',
      '2026-06-03',
      '2026-06-04',
      '2026-06-05',
    ]);
    expect(
      withAccounts(sheet, accounts, { from: '2026-06-01', to: '2026-06-07', allDays: true }).days,
    ).toHaveLength(7);
  });
});
