import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/modules/context.js';
import { planTimesheets } from '../../src/modules/timesheets/service.js';
import { secondKey } from '../support/api.js';
import { testDialects } from '../support/databases.js';
import { fetchToken } from '../support/server.js';
import { call, MINUTE, type Reply, type Tenant, timeTrackingSuite } from '../support/time-tracking.js';
import { createSchedule, createWorkplace, updateCompany } from '../../src/modules/companies/service.js';
import { decideEntry } from '../../src/modules/time-tracking/approval.js';
import { createEmployee, updateEmployee } from '../../src/modules/employees/changes.js';
import { createUser, issueUserToken } from '../../src/modules/people/users.js';
import { timesheetCsv } from '../../src/modules/timesheets/csv.js';

/*
 * GET /reports/timesheets (issue 21), from outside, on both databases, against figures computed by
 * hand (docs/timesheets.md): overtime by day and by week, a workweek crossing `from`, a schedule
 * change mid-week, overnight shifts across DST in two zones, breaks, each rule pack's flags, the CSV
 * file read back by a real CSV parser, scope refusals and tenant isolation.
 */

const TIMESHEETS = '/api/public/v1/reports/timesheets';
const ALL_SCOPES = 'attendance.record,attendance.read,employees.read,attendance.reports';

interface Day {
  date: string;
  workedHours: number;
  breakMinutes: number;
  regularHours: number;
  overtimeHours: number;
  entries: number;
  statuses: Record<string, number>;
  flags: { rule: string; date: string; message: string }[];
}
interface Sheet {
  employee: { id: string; externalId: string | null };
  days: Day[];
  totals: Record<string, number>;
}
interface SheetPage {
  items: Sheet[];
  nextCursor: string | null;
  hasMore: boolean;
}

const noStatuses = { pending_approval: 0, approved: 0 };

describe.each(testDialects().map((d) => [d.name, d] as const))('timesheets on %s', (_name, dialect) => {
  const suite = timeTrackingSuite(dialect);

  async function tenant(
    timeZone: string,
    settings: { workweekStart?: string; dailyOvertimeAfter?: string; workingTimeRules?: string } = {},
    employeeCount = 2,
  ): Promise<Tenant> {
    const t = await suite.berlin({ timeZone, scopes: ALL_SCOPES, employeeCount });
    issued.set(t, suite.now);
    await inTransaction(suite.server.ctx, (tx, now) => updateCompany(tx, now, t.fixture.companyId, settings));
    return t;
  }

  /** When each tenant's token was issued, by the server's clock: tokens last 15 minutes. */
  const issued = new WeakMap<Tenant, number>();

  /** Moves the server's clock to `at`, with a fresh token for `t` when its own has expired by then. */
  async function moveTo(t: Tenant, at: number) {
    suite.now = at;
    const since = issued.get(t) ?? Number.NEGATIVE_INFINITY;
    if (at < since || at - since > 10 * MINUTE) {
      await t.refreshToken();
      issued.set(t, at);
    }
  }

  /** A completed shift through the public API, recorded a minute after it ended. */
  async function work(t: Tenant, employeeId: string, clockIn: string, clockOut: string, breakMinutes = 0) {
    await moveTo(t, Date.parse(clockOut) + MINUTE);
    const reply = await t.shift({
      employee: { id: employeeId },
      clockIn,
      clockOut,
      ...(breakMinutes > 0 ? { breakMinutes } : {}),
    });
    expect(reply.status, reply.text).toBe(201);
    return reply.body.timeEntryId!;
  }

  /** A live clock-in through the public API: a session left open. */
  async function clockIn(t: Tenant, employeeId: string, at: string) {
    await moveTo(t, Date.parse(at) + 1000);
    const reply = await t.clock({ employee: { id: employeeId }, type: 'clock_in', occurredAt: at });
    expect(reply.status, reply.text).toBe(201);
  }

  /** A live clock-in and clock-out through the public API. */
  async function clock(t: Tenant, employeeId: string, clockIn: string, clockOut: string) {
    for (const [type, at] of [
      ['clock_in', clockIn],
      ['clock_out', clockOut],
    ] as const) {
      await moveTo(t, Date.parse(at) + 1000);
      const reply = await t.clock({ employee: { id: employeeId }, type, occurredAt: at });
      expect(reply.status, reply.text).toBe(201);
    }
  }

  function get(
    t: Tenant,
    query: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<Reply> {
    return call(
      suite.server,
      t.token,
      'GET',
      `${TIMESHEETS}?${new URLSearchParams(query).toString()}`,
      undefined,
      headers,
    );
  }

  async function sheets(t: Tenant, query: Record<string, string>): Promise<SheetPage> {
    const reply = await get(t, query);
    expect(reply.status, reply.text).toBe(200);
    return reply.body as unknown as SheetPage;
  }

  const figures = (sheet: Sheet) =>
    sheet.days.map((d) => [d.date, d.workedHours, d.regularHours, d.overtimeHours, d.breakMinutes]);

  it('splits overtime by day and by week; a workweek crossing `from` counts its earlier days unlisted; status=approved', async () => {
    // Monday-start weeks, daily threshold 9 h, the fixture's 40-hour schedule.
    const t = await tenant('Europe/Berlin', { dailyOvertimeAfter: '9' });
    const a = t.fixture.employees[0]!.id;
    await work(t, a, '2026-11-02T07:00:00+01:00', '2026-11-02T17:30:00+01:00', 30); // Mon 10 h
    await work(t, a, '2026-11-03T07:00:00+01:00', '2026-11-03T16:30:00+01:00', 30); // Tue 9 h
    await work(t, a, '2026-11-04T07:00:00+01:00', '2026-11-04T16:30:00+01:00', 30); // Wed 9 h
    const thursday = await work(t, a, '2026-11-05T07:00:00+01:00', '2026-11-05T16:30:00+01:00', 30); // Thu 9 h
    await work(t, a, '2026-11-06T07:00:00+01:00', '2026-11-06T15:30:00+01:00', 30); // Fri 8 h
    await inTransaction(suite.server.ctx, (tx, now) => decideEntry(tx, now, thursday, 'approved'));
    // A rejected evening hour on Thursday and a session still open since Saturday morning count
    // nowhere but in openSessions.
    const rejected = await work(t, a, '2026-11-05T18:00:00+01:00', '2026-11-05T19:00:00+01:00');
    await inTransaction(suite.server.ctx, (tx, now) => decideEntry(tx, now, rejected, 'rejected'));
    await clockIn(t, a, '2026-11-07T08:00:00+01:00');

    const page = await sheets(t, { from: '2026-11-05', to: '2026-11-08', employeeId: a });
    expect(page.hasMore).toBe(false);
    expect(page.nextCursor).toBeNull();
    const [sheet] = page.items;
    expect(sheet!.employee).toEqual({ id: a, externalId: 'EXT-0' });
    // Mon 10 (1 daily overtime, 9 regular), Tue-Thu 9: 36 regular by Thursday; Friday's 8 cross 40 by 4.
    expect(figures(sheet!)).toEqual([
      ['2026-11-05', 9, 9, 0, 30],
      ['2026-11-06', 8, 4, 4, 30],
    ]);
    expect(sheet!.days[0]).toMatchObject({ entries: 1, statuses: { ...noStatuses, approved: 1 }, flags: [] });
    expect(sheet!.days[1]!.statuses).toEqual({ ...noStatuses, pending_approval: 1 });
    expect(sheet!.totals).toEqual({
      workedHours: 17,
      regularHours: 13,
      overtimeHours: 4,
      breakMinutes: 60,
      approvedHours: 9,
      pendingHours: 8,
      openSessions: 1,
      plannedHours: 0,
      exceptions: { late_in: 0, early_out: 0, no_show: 0, missed_clock_out: 0, unplanned: 0 },
    });

    // The whole week: Monday's daily overtime shows.
    const week = (await sheets(t, { from: '2026-11-02', to: '2026-11-08', externalId: 'EXT-0' })).items[0]!;
    expect(week.days.map((d) => d.overtimeHours)).toEqual([1, 0, 0, 0, 4]);
    expect(week.totals).toMatchObject({ workedHours: 45, regularHours: 40, overtimeHours: 5 });

    // Approved only: Thursday alone counts (the pending days before it do not fill the week either).
    const approved = (
      await sheets(t, { from: '2026-11-05', to: '2026-11-08', employeeId: a, status: 'approved' })
    ).items[0]!;
    expect(figures(approved)).toEqual([['2026-11-05', 9, 9, 0, 30]]);
    expect(approved.totals).toMatchObject({
      workedHours: 9,
      approvedHours: 9,
      pendingHours: 0,
      overtimeHours: 0,
    });
  });

  it('takes the weekly threshold from the schedule effective on the workweek’s first day', async () => {
    const t = await tenant('Europe/Berlin');
    const b = t.fixture.employees[1]!.id;
    const halfTime = await inTransaction(suite.server.ctx, (tx, now) =>
      createSchedule(tx, now, { companyId: t.fixture.companyId, name: 'Half', weeklyHours: '20' }),
    );
    // 40 h until Tuesday 10 Nov, 20 h from Wednesday 11 Nov.
    await inTransaction(suite.server.ctx, (tx, now) =>
      updateEmployee(tx, now, b, { schedule: halfTime.id, scheduleFrom: '2026-11-11' }),
    );
    for (const day of ['09', '10', '11', '12', '13'])
      await work(t, b, `2026-11-${day}T07:00:00+01:00`, `2026-11-${day}T16:00:00+01:00`, 30); // 8.5 h
    for (const day of ['16', '17', '18'])
      await work(t, b, `2026-11-${day}T07:00:00+01:00`, `2026-11-${day}T15:30:00+01:00`, 30); // 8 h
    const sheet = (await sheets(t, { from: '2026-11-09', to: '2026-11-22', employeeId: b })).items[0]!;
    // Week of the 9th: 40 h (the schedule of Monday the 9th): 42.5 h, 2.5 over on Friday.
    // Week of the 16th: 20 h: 24 h by Wednesday, 4 over.
    expect(sheet.days.map((d) => [d.date.slice(8), d.regularHours, d.overtimeHours])).toEqual([
      ['09', 8.5, 0],
      ['10', 8.5, 0],
      ['11', 8.5, 0],
      ['12', 8.5, 0],
      ['13', 6, 2.5],
      ['16', 8, 0],
      ['17', 8, 0],
      ['18', 4, 4],
    ]);
    expect(sheet.totals).toMatchObject({ workedHours: 66.5, regularHours: 60, overtimeHours: 6.5 });
  });

  it('counts an overnight shift whole on its start day, with the hours DST gave or took, in Berlin and New York', async () => {
    // Berlin: daily threshold 8 h. Mon-Thu 8 h, then Saturday 24 Oct 22:00 CEST to Sunday 06:00 CET: 9 h.
    const berlin = await tenant('Europe/Berlin', { dailyOvertimeAfter: '8' });
    const e = berlin.fixture.employees[0]!.id;
    for (const day of ['19', '20', '21', '22'])
      await work(berlin, e, `2026-10-${day}T07:00:00+02:00`, `2026-10-${day}T15:30:00+02:00`, 30);
    await work(berlin, e, '2026-10-24T22:00:00+02:00', '2026-10-25T06:00:00+01:00');
    const b = (await sheets(berlin, { from: '2026-10-19', to: '2026-10-25', employeeId: e })).items[0]!;
    expect(b.days.map((d) => d.date)).toEqual([
      '2026-10-19',
      '2026-10-20',
      '2026-10-21',
      '2026-10-22',
      '2026-10-24',
    ]);
    expect(figures(b).at(-1)).toEqual(['2026-10-24', 9, 8, 1, 0]);
    expect(b.totals).toMatchObject({ workedHours: 41, regularHours: 40, overtimeHours: 1 });

    // New York: weeks start on Sunday, no daily threshold. Sun 25-Thu 29 Oct 8 h (40), then Saturday
    // 31 Oct 22:00 EDT to Sunday 06:00 EST: 9 h, all over the week's 40; Sunday 1 Nov opens a new week.
    const newYork = await tenant('America/New_York', { workweekStart: 'sunday' });
    const n = newYork.fixture.employees[0]!.id;
    for (const day of ['25', '26', '27', '28', '29'])
      await work(newYork, n, `2026-10-${day}T07:00:00-04:00`, `2026-10-${day}T15:00:00-04:00`);
    await work(newYork, n, '2026-10-31T22:00:00-04:00', '2026-11-01T06:00:00-05:00');
    await work(newYork, n, '2026-11-01T13:00:00-05:00', '2026-11-01T21:00:00-05:00');
    const ny = (await sheets(newYork, { from: '2026-10-25', to: '2026-11-01', employeeId: n })).items[0]!;
    expect(figures(ny).slice(-2)).toEqual([
      ['2026-10-31', 9, 0, 9, 0],
      ['2026-11-01', 8, 8, 0, 0],
    ]);
    expect(ny.totals).toMatchObject({ workedHours: 57, regularHours: 48, overtimeHours: 9 });

    // The nights the clocks go forward: the same wall-clock shift is 7 h, in both zones.
    await work(berlin, e, '2027-03-27T22:00:00+01:00', '2027-03-28T06:00:00+02:00');
    await work(newYork, n, '2027-03-13T22:00:00-05:00', '2027-03-14T06:00:00-04:00');
    const spring = [
      (await sheets(berlin, { from: '2027-03-22', to: '2027-03-28', employeeId: e })).items[0]!,
      (await sheets(newYork, { from: '2027-03-07', to: '2027-03-14', employeeId: n })).items[0]!,
    ];
    expect(spring.map(figures)).toEqual([[['2027-03-27', 7, 7, 0, 0]], [['2027-03-13', 7, 7, 0, 0]]]);
  });

  it('de-arbzg flags breaks, the 10-hour day and the 11-hour rest, never changing overtime', async () => {
    const t = await tenant('Europe/Berlin', { workingTimeRules: 'de-arbzg' });
    const e = t.fixture.employees[0]!.id;
    await work(t, e, '2026-11-03T07:00:00+01:00', '2026-11-03T14:30:00+01:00'); // 7.5 h, no break
    // Two punched sessions with a 20-minute gap (a break part of at least 15 minutes): 7.67 h.
    await clock(t, e, '2026-11-04T07:00:00+01:00', '2026-11-04T11:00:00+01:00');
    await clock(t, e, '2026-11-04T11:20:00+01:00', '2026-11-04T15:00:00+01:00');
    await work(t, e, '2026-11-05T06:00:00+01:00', '2026-11-05T17:45:00+01:00', 45); // 11 h, 45 min
    await work(t, e, '2026-11-06T03:00:00+01:00', '2026-11-06T08:00:00+01:00'); // 9.25 h after Thursday
    const sheet = (await sheets(t, { from: '2026-11-02', to: '2026-11-08', employeeId: e })).items[0]!;
    expect(sheet.days.map((d) => [d.date, d.flags.map((f) => f.rule)])).toEqual([
      ['2026-11-03', ['de-arbzg.break']],
      ['2026-11-04', ['de-arbzg.break']],
      ['2026-11-05', ['de-arbzg.max-daily']],
      ['2026-11-06', ['de-arbzg.rest']],
    ]);
    expect(sheet.days[0]!.flags[0]).toEqual({
      rule: 'de-arbzg.break',
      date: '2026-11-03',
      message: '7.50 h worked with 0 min of breaks; at least 30 min are required beyond 6 h (ArbZG §4)',
    });
    expect(sheet.days[1]!.flags[0]!.message).toBe(
      '7.67 h worked with 20 min of breaks; at least 30 min are required beyond 6 h (ArbZG §4)',
    );
    expect(sheet.days[1]).toMatchObject({ entries: 2, breakMinutes: 0, workedHours: 7.67 });
    expect(sheet.days[2]!.flags[0]!.message).toBe(
      '11.00 h worked, 1.00 h more than the 10 h allowed a day (ArbZG §3)',
    );
    expect(sheet.days[3]!.flags[0]!.message).toBe(
      '9.25 h of rest since the previous work ended at 2026-11-05T16:45:00.000Z; at least 11 h are required (ArbZG §5)',
    );
    // 31.17 h in the week, no daily threshold: the flags changed no overtime.
    expect(sheet.totals).toMatchObject({ workedHours: 31.17, overtimeHours: 0 });
    // The rest rule looks back before `from`: Friday alone still carries its flag.
    const friday = (await sheets(t, { from: '2026-11-06', to: '2026-11-06', employeeId: e })).items[0]!;
    expect(friday.days[0]!.flags.map((f) => f.rule)).toEqual(['de-arbzg.rest']);
  });

  it('us-ca flags daily overtime, double time and late or missing meal periods, never changing overtime', async () => {
    const t = await tenant('America/Los_Angeles', { workingTimeRules: 'us-ca' });
    const e = t.fixture.employees[0]!.id;
    await work(t, e, '2026-11-02T07:00:00-08:00', '2026-11-02T20:30:00-08:00', 30); // 13 h, break after 6.5 h
    await work(t, e, '2026-11-03T08:00:00-08:00', '2026-11-03T12:00:00-08:00'); // meal 12:00-12:30
    await work(t, e, '2026-11-03T12:30:00-08:00', '2026-11-03T17:00:00-08:00'); // 8.5 h in all
    await work(t, e, '2026-11-04T08:00:00-08:00', '2026-11-04T14:00:00-08:00'); // 6 h, no meal
    const sheet = (await sheets(t, { from: '2026-11-02', to: '2026-11-08', employeeId: e })).items[0]!;
    expect(sheet.days.map((d) => [d.date, d.flags.map((f) => f.rule)])).toEqual([
      ['2026-11-02', ['us-ca.daily-overtime', 'us-ca.double-time', 'us-ca.meal']],
      ['2026-11-03', ['us-ca.daily-overtime']],
      ['2026-11-04', ['us-ca.meal']],
    ]);
    const [monday, tuesday, wednesday] = sheet.days;
    expect(monday!.flags.map((f) => f.message)).toEqual([
      '13.00 h worked: 4.00 h beyond 8 h are daily overtime at 1.5 times the regular rate (Labor Code §510)',
      '13.00 h worked: 1.00 h beyond 12 h are double time (Labor Code §510)',
      '13.00 h worked without a meal period of 30 min starting by the end of the fifth hour (the first began after 6.50 h of work) (Labor Code §512)',
    ]);
    expect(tuesday!.flags[0]!.message).toMatch(/^8\.50 h worked: 0\.50 h beyond 8 h/);
    expect(wednesday!.flags[0]!.message).toMatch(/none of 30 min was taken/);
    // 27.5 h, no daily threshold set for the company: overtime stays 0 whatever the flags say.
    expect(sheet.totals).toMatchObject({ workedHours: 27.5, overtimeHours: 0, breakMinutes: 30 });
  });

  /** Live punches through the public API (clock_in, break_start, break_end, clock_out), in order. */
  async function punches(t: Tenant, employeeId: string, events: [string, string][]) {
    for (const [type, at] of events) {
      await moveTo(t, Date.parse(at) + 1000);
      const reply = await t.clock({ employee: { id: employeeId }, type, occurredAt: at });
      expect(reply.status, reply.text).toBe(201);
    }
  }

  it('judges punched breaks where they were taken: us-ca meals by their real start, de-arbzg parts of 15 minutes', async () => {
    const berlin = await tenant('Europe/Berlin', { workingTimeRules: 'us-ca' });
    const e = berlin.fixture.employees[0]!.id;
    // 9 h worked, the meal 14:00-14:30 begins after 6 h of work: late (its minutes alone would sit after 4.5 h).
    await punches(berlin, e, [
      ['clock_in', '2026-11-10T08:00:00+01:00'],
      ['break_start', '2026-11-10T14:00:00+01:00'],
      ['break_end', '2026-11-10T14:30:00+01:00'],
      ['clock_out', '2026-11-10T17:30:00+01:00'],
    ]);
    // 7 h worked with three 10-minute breaks.
    await punches(berlin, e, [
      ['clock_in', '2026-11-11T08:00:00+01:00'],
      ['break_start', '2026-11-11T10:00:00+01:00'],
      ['break_end', '2026-11-11T10:10:00+01:00'],
      ['break_start', '2026-11-11T12:00:00+01:00'],
      ['break_end', '2026-11-11T12:10:00+01:00'],
      ['break_start', '2026-11-11T14:00:00+01:00'],
      ['break_end', '2026-11-11T14:10:00+01:00'],
      ['clock_out', '2026-11-11T15:30:00+01:00'],
    ]);
    const range = { from: '2026-11-09', to: '2026-11-15', employeeId: e };
    const us = (await sheets(berlin, range)).items[0]!;
    expect(us.days.map((d) => [d.date, d.workedHours, d.breakMinutes, d.flags.map((f) => f.rule)])).toEqual([
      ['2026-11-10', 9, 30, ['us-ca.daily-overtime', 'us-ca.meal']],
      ['2026-11-11', 7, 30, ['us-ca.meal']],
    ]);
    expect(us.days[0]!.flags[1]!.message).toBe(
      '9.00 h worked without a meal period of 30 min starting by the end of the fifth hour (the first began after 6.00 h of work) (Labor Code §512)',
    );
    expect(us.days[1]!.flags[0]!.message).toMatch(/none of 30 min was taken/);
    // The same entries under de-arbzg: the three 10-minute breaks are no part of at least 15 minutes.
    await inTransaction(suite.server.ctx, (tx, now) =>
      updateCompany(tx, now, berlin.fixture.companyId, { workingTimeRules: 'de-arbzg' }),
    );
    const de = (await sheets(berlin, range)).items[0]!;
    expect(de.days.map((d) => [d.date, d.flags.map((f) => f.rule)])).toEqual([
      ['2026-11-10', []],
      ['2026-11-11', ['de-arbzg.break']],
    ]);
    expect(de.days[1]!.flags[0]!.message).toBe(
      '7.00 h worked with 0 min of breaks; at least 30 min are required beyond 6 h (ArbZG §4)',
    );

    // New York: 12 h worked, the meal 10:00-10:30 begins after 3 h: in time (its minutes alone would sit after 6 h).
    const newYork = await tenant('America/New_York', { workingTimeRules: 'us-ca' });
    const n = newYork.fixture.employees[0]!.id;
    await punches(newYork, n, [
      ['clock_in', '2026-11-10T07:00:00-05:00'],
      ['break_start', '2026-11-10T10:00:00-05:00'],
      ['break_end', '2026-11-10T10:30:00-05:00'],
      ['clock_out', '2026-11-10T19:30:00-05:00'],
    ]);
    const ny = (await sheets(newYork, { from: '2026-11-09', to: '2026-11-15', employeeId: n })).items[0]!;
    expect(ny.days.map((d) => [d.date, d.workedHours, d.breakMinutes, d.flags.map((f) => f.rule)])).toEqual([
      ['2026-11-10', 12, 30, ['us-ca.daily-overtime']],
    ]);
    // The CSV file carries the same flags.
    const csv = await get(
      newYork,
      { from: '2026-11-09', to: '2026-11-15', employeeId: n },
      { accept: 'text/csv' },
    );
    expect(csv.status).toBe(200);
    expect(csv.text).toContain('us-ca.daily-overtime');
    expect(csv.text).not.toContain('us-ca.meal');
  });

  it('writes a CSV file a real parser reads back, neutralising formulas, with a semicolon and a BOM on request', async () => {
    const t = await tenant('Europe/Berlin', { workingTimeRules: 'de-arbzg' }, 1);
    const [plain] = t.fixture.employees;
    const tricky = await inTransaction(suite.server.ctx, (tx, now) =>
      createEmployee(tx, now, t.fixture.companyId, {
        email: 'tricky@acme.example',
        firstName: '=HYPERLINK("http://x.example","click")',
        lastName: 'Doe, "Jr"\nthe second',
        externalId: '@SUM(1)',
        workplace: t.fixture.workplaceId,
        schedule: t.fixture.scheduleId,
      }),
    );
    await work(t, plain!.id, '2026-11-03T07:00:00+01:00', '2026-11-03T14:30:00+01:00'); // 7.5 h, flag
    await work(t, tricky.id, '2026-11-03T08:00:00+01:00', '2026-11-03T12:00:00+01:00');
    await moveTo(t, Date.parse('2026-11-04T08:00:00+01:00'));
    const open = await t.clock({
      employee: { id: tricky.id },
      type: 'clock_in',
      occurredAt: '2026-11-04T08:00:00+01:00',
    });
    expect(open.status).toBe(201);

    const reply = await get(t, { from: '2026-11-02', to: '2026-11-08' }, { accept: 'text/csv' });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(reply.text.startsWith('employee_id,')).toBe(true);
    expect(reply.text.endsWith('\r\n')).toBe(true);
    const rows = parse(reply.text, { columns: true }) as Record<string, string>[];
    const byEmployee = (id: string) => rows.filter((r) => r.employee_id === id);
    expect(Object.keys(rows[0]!)).toEqual([
      'employee_id',
      'external_id',
      'first_name',
      'last_name',
      'date',
      'worked_hours',
      'regular_hours',
      'overtime_hours',
      'break_minutes',
      'entries',
      'statuses',
      'flags',
      'flag_messages',
      'planned_hours',
    ]);
    expect(byEmployee(plain!.id)).toEqual([
      {
        employee_id: plain!.id,
        external_id: 'EXT-0',
        first_name: 'First0',
        last_name: 'Last0',
        date: '2026-11-03',
        worked_hours: '7.50',
        regular_hours: '7.50',
        overtime_hours: '0.00',
        break_minutes: '0',
        entries: '1',
        statuses: 'pending_approval=1',
        flags: 'de-arbzg.break',
        flag_messages:
          'de-arbzg.break: 7.50 h worked with 0 min of breaks; at least 30 min are required beyond 6 h (ArbZG §4)',
        planned_hours: '0.00',
      },
    ]);
    // Formulas are neutralised with a leading apostrophe; quotes, commas and line breaks survive.
    expect(
      byEmployee(tricky.id).map((r) => [
        r.external_id,
        r.first_name,
        r.last_name,
        r.date,
        r.worked_hours,
        r.statuses,
      ]),
    ).toEqual([
      [
        "'@SUM(1)",
        `'=HYPERLINK("http://x.example","click")`,
        'Doe, "Jr"\nthe second',
        '2026-11-03',
        '4.00',
        'pending_approval=1',
      ],
    ]);
    // The open session of the 4th has no row: it counts only in the JSON's openSessions.
    // Rows follow employee id order.
    expect([...new Set(rows.map((r) => r.employee_id))]).toEqual([plain!.id, tricky.id].sort());

    // The bytes as sent (a text decoder would drop the byte-order mark).
    const excel = await suite.server.request(
      `${TIMESHEETS}?from=2026-11-02&to=2026-11-08&delimiter=semicolon&bom=true`,
      { token: t.token, headers: { accept: 'text/csv' } },
    );
    expect(excel.status).toBe(200);
    const bytes = Buffer.from(await excel.arrayBuffer());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.toString('utf8', 3, 15)).toBe('employee_id;');
    const semicolonRows = parse(bytes, { columns: true, delimiter: ';', bom: true }) as Record<
      string,
      string
    >[];
    expect(semicolonRows).toEqual(rows);

    // Nothing to report: the header row alone.
    const empty = await get(t, { from: '2026-10-01', to: '2026-10-02' }, { accept: 'text/csv' });
    expect(parse(empty.text, { columns: true })).toEqual([]);
    expect(empty.text.split('\r\n')[0]).toBe(Object.keys(rows[0]!).join(','));
    // JSON stays the default, and wins when preferred.
    expect((await get(t, { from: '2026-11-02', to: '2026-11-08' })).headers.get('content-type')).toMatch(
      /^application\/json/,
    );
    const preferred = await get(
      t,
      { from: '2026-11-02', to: '2026-11-08' },
      { accept: 'text/csv;q=0.5, application/json' },
    );
    expect(preferred.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('streams the CSV batch by batch: the header once, every employee once, in id order', async () => {
    const t = await tenant('Europe/Berlin', {}, 5);
    const ids = t.fixture.employees.map((e) => e.id).sort();
    for (const id of ids) await work(t, id, '2026-11-09T08:00:00+01:00', '2026-11-09T12:00:00+01:00');
    const principal = { companyId: t.fixture.companyId, company: { timeZone: 'Europe/Berlin' } };
    const plan = await planTimesheets(
      suite.server.ctx,
      suite.server.services.cursors,
      principal as Parameters<typeof planTimesheets>[2],
      { from: '2026-11-09', to: '2026-11-09' },
    );
    const chunks: string[] = [];
    for await (const chunk of timesheetCsv(suite.server.ctx, plan, {
      delimiter: ';',
      bom: true,
      batchSize: 2,
    }))
      chunks.push(chunk);
    expect(chunks).toHaveLength(3);
    expect(chunks.filter((c) => c.startsWith('\uFEFF'))).toHaveLength(1);
    expect(chunks.filter((c) => c.includes('employee_id;'))).toHaveLength(1);
    const rows = parse(chunks.join(''), { columns: true, delimiter: ';', bom: true }) as Record<
      string,
      string
    >[];
    expect(rows.map((r) => [r.employee_id, r.worked_hours])).toEqual(ids.map((id) => [id, '4.00']));
  });

  it('pages over employees by id, filters by workplace, applies the time-entry list’s range rules', async () => {
    const t = await tenant('Europe/Berlin', {}, 3);
    const ids = t.fixture.employees.map((e) => e.id).sort();
    const elsewhere = await inTransaction(suite.server.ctx, (tx, now) =>
      createWorkplace(tx, now, { companyId: t.fixture.companyId, name: 'Elsewhere' }),
    );
    await inTransaction(suite.server.ctx, (tx, now) =>
      updateEmployee(tx, now, ids[2]!, { workplace: elsewhere.id }),
    );
    for (const id of ids) await work(t, id, '2026-11-09T08:00:00+01:00', '2026-11-09T12:00:00+01:00');
    await moveTo(t, Date.parse('2026-11-10T12:00:00Z'));

    const first = await sheets(t, { limit: '2' });
    expect(first.items.map((i) => i.employee.id)).toEqual(ids.slice(0, 2));
    expect(first.hasMore).toBe(true);
    const second = await sheets(t, { limit: '2', cursor: first.nextCursor! });
    expect(second.items.map((i) => i.employee.id)).toEqual(ids.slice(2));
    expect(second).toMatchObject({ hasMore: false, nextCursor: null });
    // Defaults: the last 30 days up to today (10 Nov in Berlin).
    expect(second.items[0]!.days.map((d) => d.date)).toEqual(['2026-11-09']);
    // The cursor belongs to its listing.
    const refused = await get(t, { limit: '2', cursor: first.nextCursor!, status: 'approved' });
    expect(refused.status).toBe(422);
    expect(refused.body.errors?.[0]?.field).toBe('cursor');

    const site = await sheets(t, { workplaceId: elsewhere.id });
    expect(site.items.map((i) => i.employee.id)).toEqual([ids[2]]);
    // Employees without entries in the range are listed with no days.
    const quiet = await sheets(t, { from: '2026-10-01', to: '2026-10-31' });
    expect(quiet.items.map((i) => [i.days.length, i.totals.workedHours])).toEqual([
      [0, 0],
      [0, 0],
      [0, 0],
    ]);

    for (const [query, field] of [
      [{ from: '2026-11-10', to: '2026-11-09' }, 'from'],
      [{ from: '2026-08-01', to: '2026-11-09' }, 'to'],
      [{ employeeId: ids[0]!, workplaceId: elsewhere.id }, 'workplaceId'],
      [{ employeeId: ids[0]!, externalId: 'EXT-0' }, 'externalId'],
      [{ status: 'pending' }, 'status'],
      [{ from: '2026-02-30' }, 'from'],
      [{ delimiter: 'tab' }, 'delimiter'],
      [{ cursor: 'nonsense' }, 'cursor'],
    ] as const) {
      const reply = await get(t, query as Record<string, string>);
      expect(reply.status, JSON.stringify(query)).toBe(422);
      expect(reply.body.error).toBe('validation_failed');
      expect(reply.body.errors?.map((e) => e.field)).toContain(field);
    }
    // A refused CSV request is a problem document too.
    const csvRefused = await get(t, { from: '2026-11-10', to: '2026-11-09' }, { accept: 'text/csv' });
    expect(csvRefused.status).toBe(422);
    expect(csvRefused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await get(t, { employeeId: '00000000-0000-4000-8000-000000000000' })).body.error).toBe(
      'employee_not_found',
    );
    expect((await get(t, { externalId: 'nobody' })).status).toBe(404);
  });

  it('needs attendance.reports, and never shows another company’s employees', async () => {
    const mine = await tenant('Europe/Berlin');
    const other = await tenant('Europe/Berlin');
    const theirs = other.fixture.employees[0]!.id;
    await work(other, theirs, '2026-11-09T08:00:00+01:00', '2026-11-09T12:00:00+01:00');
    await moveTo(mine, Date.parse('2026-11-10T12:00:00Z'));
    await moveTo(other, suite.now);

    const listed = await sheets(mine, {});
    expect(listed.items.map((i) => i.employee.id).sort()).toEqual(
      mine.fixture.employees.map((e) => e.id).sort(),
    );
    expect((await get(mine, { employeeId: theirs })).status).toBe(404);
    expect((await sheets(mine, { workplaceId: other.fixture.workplaceId })).items).toEqual([]);
    // Nor in the file: the other company worked on the 9th, this one did not.
    const file = await get(mine, { from: '2026-11-09', to: '2026-11-09' }, { accept: 'text/csv' });
    expect(file.status).toBe(200);
    expect(file.text).not.toContain(theirs);
    expect(parse(file.text, { columns: true })).toEqual([]);
    const theirFile = await get(other, { from: '2026-11-09', to: '2026-11-09' }, { accept: 'text/csv' });
    expect(
      (parse(theirFile.text, { columns: true }) as Record<string, string>[]).map((r) => r.employee_id),
    ).toEqual([theirs]);
    // Another company's cursor is refused.
    const theirPage = await sheets(other, { limit: '1' });
    expect((await get(mine, { limit: '1', cursor: theirPage.nextCursor! })).status).toBe(422);

    const reader = await secondKey(suite.server.ctx, mine.fixture, {
      scopes: 'attendance.read,employees.read',
    });
    const readerToken = await fetchToken(suite.server, reader.clientId, reader.secret);
    for (const accept of ['application/json', 'text/csv']) {
      const refused = await call(suite.server, readerToken, 'GET', TIMESHEETS, undefined, { accept });
      expect(refused.status).toBe(403);
      expect(refused.body.error).toBe('insufficient_scope');
      expect(refused.headers.get('www-authenticate')).toMatch(/insufficient_scope/);
    }

    // Time tracking switched off for the company: refused like every time-tracking read.
    await inTransaction(suite.server.ctx, (tx, now) =>
      updateCompany(tx, now, mine.fixture.companyId, { timeTracking: 'off' }),
    );
    expect((await get(mine, {})).body.error).toBe('time_tracking_disabled');
    await inTransaction(suite.server.ctx, (tx, now) =>
      updateCompany(tx, now, mine.fixture.companyId, { timeTracking: 'on' }),
    );

    // A person's own token: allowed with permission 49, refused without.
    for (const [permissions, status] of [
      ['49', 200],
      ['47', 403],
    ] as const) {
      const person = await inTransaction(suite.server.ctx, (tx, now) =>
        createUser(tx, now, {
          companyId: mine.fixture.companyId,
          email: `p${permissions}@acme.example`,
          permissions,
        }),
      );
      const { access_token: token } = await inTransaction(suite.server.ctx, (tx) =>
        issueUserToken(tx, suite.server.tokens, person.id),
      );
      expect((await call(suite.server, token, 'GET', TIMESHEETS)).status).toBe(status);
    }
  });
});
