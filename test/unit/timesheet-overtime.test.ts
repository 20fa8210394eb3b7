import { describe, expect, it } from 'vitest';
import {
  computeOvertime,
  weekdayIndex,
  workweekStartOf,
  type OvertimeSettings,
} from '../../src/domain/timesheets/overtime.js';
import { buildTimesheet, lookbackStart, type TimesheetEntry } from '../../src/domain/timesheets/timesheet.js';

const H = 3600;
const monday: OvertimeSettings = { workweekStart: 'monday', dailyOvertimeAfterSeconds: null };

/** A completed entry of `hours` net on `date`, starting at `start` UTC. */
function entry(
  date: string,
  start: string,
  hours: number,
  extra: Partial<TimesheetEntry> = {},
): TimesheetEntry {
  const startAt = `${date}T${start}:00.000Z`;
  return {
    workDate: date,
    startAt,
    endAt: new Date(
      Date.parse(startAt) + hours * H * 1000 + (extra.breakMinutes ?? 0) * 60_000,
    ).toISOString(),
    netSeconds: hours * H,
    breakMinutes: null,
    status: 'approved',
    ...extra,
  };
}

describe('workweeks', () => {
  it('finds the first day of the workweek for every start day', () => {
    expect(weekdayIndex('2026-11-09')).toBe(0); // a Monday
    expect(weekdayIndex('2026-11-15')).toBe(6);
    expect(workweekStartOf('2026-11-12', 'monday')).toBe('2026-11-09');
    expect(workweekStartOf('2026-11-09', 'monday')).toBe('2026-11-09');
    expect(workweekStartOf('2026-11-12', 'sunday')).toBe('2026-11-08');
    expect(workweekStartOf('2026-11-12', 'thursday')).toBe('2026-11-12');
    expect(workweekStartOf('2026-11-11', 'thursday')).toBe('2026-11-05');
    expect(workweekStartOf('2027-01-01', 'saturday')).toBe('2026-12-26');
  });

  it('reads back to the workweek start or two days for the rest rule, whichever is earlier', () => {
    expect(lookbackStart('2026-11-12', monday)).toBe('2026-11-09');
    expect(lookbackStart('2026-11-10', monday)).toBe('2026-11-08');
  });
});

describe('overtime (docs/timesheets.md)', () => {
  it('splits daily overtime first, then the regular hours that cross the weekly threshold', () => {
    const days = computeOvertime(
      [
        { date: '2026-11-09', workedSeconds: 10 * H },
        { date: '2026-11-10', workedSeconds: 9 * H },
        { date: '2026-11-11', workedSeconds: 9 * H },
        { date: '2026-11-12', workedSeconds: 9 * H },
        { date: '2026-11-13', workedSeconds: 8 * H },
      ],
      { workweekStart: 'monday', dailyOvertimeAfterSeconds: 9 * H },
      () => 40 * H,
    );
    expect(days.map((d) => [d.regularSeconds / H, d.overtimeSeconds / H])).toEqual([
      [9, 1],
      [9, 0],
      [9, 0],
      [9, 0],
      [4, 4],
    ]);
    expect(days[0]).toMatchObject({ dailyOvertimeSeconds: H, weeklyOvertimeSeconds: 0 });
    expect(days[4]).toMatchObject({ dailyOvertimeSeconds: 0, weeklyOvertimeSeconds: 4 * H });
  });

  it('has no weekly overtime when the schedule has no weekly hours, and none without thresholds', () => {
    const days = computeOvertime([{ date: '2026-11-09', workedSeconds: 80 * H }], monday, () => null);
    expect(days[0]).toMatchObject({ regularSeconds: 80 * H, overtimeSeconds: 0 });
  });

  it('starts a new accumulation with each workweek, in date order whatever the input order', () => {
    const days = computeOvertime(
      [
        { date: '2026-11-16', workedSeconds: 30 * H },
        { date: '2026-11-15', workedSeconds: 30 * H },
        { date: '2026-11-14', workedSeconds: 30 * H },
      ],
      { workweekStart: 'sunday', dailyOvertimeAfterSeconds: null },
      () => 40 * H,
    );
    // Sunday 15 starts a week: Saturday 14 belongs to the week before.
    expect(days.map((d) => [d.date, d.overtimeSeconds / H])).toEqual([
      ['2026-11-14', 0],
      ['2026-11-15', 0],
      ['2026-11-16', 20],
    ]);
  });

  it('worked example 1: a workweek crossing the start of the range counts its earlier days unlisted', () => {
    // Monday-start weeks, daily threshold 9 h, weekly 40 h; the range starts on Thursday 12 Nov.
    const sheet = buildTimesheet({
      from: '2026-11-12',
      to: '2026-11-15',
      entries: [
        entry('2026-11-09', '07:00', 10),
        entry('2026-11-10', '07:00', 9),
        entry('2026-11-11', '07:00', 9),
        entry('2026-11-12', '07:00', 9),
        entry('2026-11-13', '07:00', 8),
      ],
      approvedOnly: false,
      settings: { workweekStart: 'monday', dailyOvertimeAfterSeconds: 9 * H, rules: 'none' },
      weeklyThresholdSeconds: () => 40 * H,
    });
    expect(
      sheet.days.map((d) => [d.date, d.workedSeconds / H, d.regularSeconds / H, d.overtimeSeconds / H]),
    ).toEqual([
      ['2026-11-12', 9, 9, 0],
      ['2026-11-13', 8, 4, 4],
    ]);
    expect(sheet.totals).toMatchObject({
      workedSeconds: 17 * H,
      regularSeconds: 13 * H,
      overtimeSeconds: 4 * H,
    });
  });

  it('worked example 2: a schedule change mid-week applies from the next workweek', () => {
    // 40 h until Tuesday 10 Nov, 20 h from Wednesday 11 Nov; 8.5 h Monday to Friday, then 8 h days.
    const threshold = (first: string) => (first >= '2026-11-11' ? 20 * H : 40 * H);
    const entries = ['09', '10', '11', '12', '13'].map((d) => entry(`2026-11-${d}`, '07:00', 8.5));
    entries.push(...['16', '17', '18'].map((d) => entry(`2026-11-${d}`, '07:00', 8)));
    const sheet = buildTimesheet({
      from: '2026-11-09',
      to: '2026-11-22',
      entries,
      approvedOnly: false,
      settings: { workweekStart: 'monday', dailyOvertimeAfterSeconds: null, rules: 'none' },
      weeklyThresholdSeconds: threshold,
    });
    expect(sheet.days.map((d) => [d.date.slice(8), d.overtimeSeconds / H])).toEqual([
      ['09', 0],
      ['10', 0],
      ['11', 0],
      ['12', 0],
      ['13', 2.5],
      ['16', 0],
      ['17', 0],
      ['18', 4],
    ]);
  });

  it('worked example 3: an overnight shift counts whole on the day it started', () => {
    // Friday 13 Nov 20:00 to Saturday 06:00 (10 h), daily threshold 8 h.
    const sheet = buildTimesheet({
      from: '2026-11-09',
      to: '2026-11-15',
      entries: [entry('2026-11-13', '20:00', 10)],
      approvedOnly: false,
      settings: { workweekStart: 'monday', dailyOvertimeAfterSeconds: 8 * H, rules: 'none' },
      weeklyThresholdSeconds: () => 40 * H,
    });
    expect(sheet.days).toHaveLength(1);
    expect(sheet.days[0]).toMatchObject({
      date: '2026-11-13',
      workedSeconds: 10 * H,
      regularSeconds: 8 * H,
      overtimeSeconds: 2 * H,
    });
  });

  it('counts pending and approved (approved only on request), never drafts or rejected, open sessions apart', () => {
    const entries = [
      entry('2026-11-10', '07:00', 4, { status: 'approved' }),
      entry('2026-11-10', '12:00', 3, { status: 'pending_approval', breakMinutes: 15 }),
      entry('2026-11-10', '16:00', 2, { status: 'rejected' }),
      entry('2026-11-11', '07:00', 2, { status: 'draft' }),
      {
        workDate: '2026-11-12',
        startAt: '2026-11-12T07:00:00.000Z',
        endAt: null,
        netSeconds: null,
        breakMinutes: null,
        status: 'open',
      },
    ];
    const settings = {
      workweekStart: 'monday' as const,
      dailyOvertimeAfterSeconds: null,
      rules: 'none' as const,
    };
    const all = buildTimesheet({
      from: '2026-11-09',
      to: '2026-11-15',
      entries,
      approvedOnly: false,
      settings,
      weeklyThresholdSeconds: () => null,
    });
    // The rejected entry, the draft and the open session are in no day's figures or counts.
    expect(all.days.map((d) => [d.date, d.workedSeconds / H, d.entries, d.breakMinutes])).toEqual([
      ['2026-11-10', 7, 2, 15],
    ]);
    expect(all.days[0]!.statuses).toEqual({ pending_approval: 1, approved: 1 });
    expect(all.totals).toEqual({
      workedSeconds: 7 * H,
      regularSeconds: 7 * H,
      overtimeSeconds: 0,
      breakMinutes: 15,
      approvedSeconds: 4 * H,
      pendingSeconds: 3 * H,
      openSessions: 1,
    });
    const approved = buildTimesheet({
      from: '2026-11-09',
      to: '2026-11-15',
      entries,
      approvedOnly: true,
      settings,
      weeklyThresholdSeconds: () => null,
    });
    expect(approved.totals).toMatchObject({
      workedSeconds: 4 * H,
      pendingSeconds: 0,
      approvedSeconds: 4 * H,
      breakMinutes: 0,
      openSessions: 1,
    });
    expect(approved.days.map((d) => [d.date, d.entries, d.statuses])).toEqual([
      ['2026-11-10', 1, { pending_approval: 0, approved: 1 }],
    ]);
  });
});
