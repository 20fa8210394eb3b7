import { addDays } from '../time-zone.js';
import { computeOvertime, type OvertimeSettings, workweekStartOf } from './overtime.js';
import { type BreakSpan, evaluateRules, type Flag, type RulePack, type WorkPeriod } from './rules.js';

/*
 * One employee's timesheet over a range of work dates, from their entries (docs/timesheets.md):
 * - an entry counts on its work date (the day it started), whole, however late it ends;
 * - `pending_approval` and `approved` entries count (with `approvedOnly`: approved only); `draft` and
 *   `rejected` never count; an open session counts only in `openSessions`;
 * - a day is listed when it has at least one counted entry; `entries` and `statuses` count the
 *   counted entries (in total, and per status);
 * - every sum is in seconds; the caller rounds each figure it shows once.
 */

/** The statuses whose entries count (with `approvedOnly`, only the second). */
export const COUNTED_STATUSES = ['pending_approval', 'approved'] as const;

export interface TimesheetEntry {
  workDate: string;
  startAt: string;
  endAt: string | null;
  netSeconds: number | null;
  breakMinutes: number | null;
  /** The worked seconds the report shows, when a rounding policy moved them (else `netSeconds`). */
  reportedSeconds?: number;
  /** Its punched breaks (closed spans), when it was clocked with breaks; else only `breakMinutes`. */
  breaks?: readonly BreakSpan[];
  status: string;
}

export interface TimesheetSettings extends OvertimeSettings {
  rules: RulePack;
}

export interface TimesheetDay {
  date: string;
  workedSeconds: number;
  breakMinutes: number;
  regularSeconds: number;
  overtimeSeconds: number;
  entries: number;
  statuses: Record<string, number>;
  flags: Flag[];
}

export interface TimesheetTotals {
  workedSeconds: number;
  regularSeconds: number;
  overtimeSeconds: number;
  breakMinutes: number;
  approvedSeconds: number;
  pendingSeconds: number;
  openSessions: number;
}

export interface Timesheet {
  days: TimesheetDay[];
  totals: TimesheetTotals;
}

/**
 * How far before `from` a timesheet reads entries: the start of the workweek holding `from` (its
 * earlier days count toward the weekly threshold) and two days for the rest rule (an entry lasts
 * under 24 hours, so work that ended less than 11 hours before `from`'s first entry began on one of
 * the two days before it).
 */
export function lookbackStart(from: string, settings: OvertimeSettings): string {
  const week = workweekStartOf(from, settings.workweekStart);
  const rest = addDays(from, -2);
  return week < rest ? week : rest;
}

/** The worked seconds an entry adds to the figures (rounded when the company rounds); rules use `netSeconds`. */
const reported = (entry: TimesheetEntry): number => entry.reportedSeconds ?? entry.netSeconds!;

export function countsWith(approvedOnly: boolean): (status: string) => boolean {
  return approvedOnly
    ? (status) => status === 'approved'
    : (status) => status === 'approved' || status === 'pending_approval';
}

/**
 * The timesheet of [from, to] from `entries`, which may include entries before `from` (read from
 * `lookbackStart`) and must not include entries after `to`.
 */
/** The entries dated up to `to`, by work date. */
function entriesByDate(entries: readonly TimesheetEntry[], to: string): Map<string, TimesheetEntry[]> {
  const byDate = new Map<string, TimesheetEntry[]>();
  for (const entry of entries) {
    if (entry.workDate > to) continue;
    const list = byDate.get(entry.workDate);
    if (list) list.push(entry);
    else byDate.set(entry.workDate, [entry]);
  }
  return byDate;
}

/** A counted (completed) entry as a period of work for the rule packs. */
function workPeriod(e: TimesheetEntry): WorkPeriod {
  return {
    startMs: Date.parse(e.startAt),
    endMs: Date.parse(e.endAt!),
    netSeconds: e.netSeconds!,
    breakMinutes: e.breakMinutes ?? 0,
    ...(e.breaks && e.breaks.length > 0 ? { breaks: e.breaks } : {}),
  };
}

export function buildTimesheet(input: {
  from: string;
  to: string;
  entries: readonly TimesheetEntry[];
  approvedOnly: boolean;
  settings: TimesheetSettings;
  weeklyThresholdSeconds: (workweekFirstDay: string) => number | null;
}): Timesheet {
  const { from, to, settings } = input;
  const counts = countsWith(input.approvedOnly);
  const byDate = entriesByDate(input.entries, to);
  const dates = [...byDate.keys()].sort();
  const firstWeek = workweekStartOf(from, settings.workweekStart);
  const totals: TimesheetTotals = {
    workedSeconds: 0,
    regularSeconds: 0,
    overtimeSeconds: 0,
    breakMinutes: 0,
    approvedSeconds: 0,
    pendingSeconds: 0,
    openSessions: 0,
  };

  const counted = new Map<string, TimesheetEntry[]>();
  for (const date of dates) {
    counted.set(
      date,
      byDate.get(date)!.filter((e) => counts(e.status) && e.netSeconds !== null && e.endAt !== null),
    );
  }
  const overtime = new Map(
    computeOvertime(
      dates
        .filter((date) => date >= firstWeek)
        .map((date) => ({
          date,
          workedSeconds: counted.get(date)!.reduce((sum, e) => sum + reported(e), 0),
        })),
      settings,
      input.weeklyThresholdSeconds,
    ).map((day) => [day.date, day]),
  );

  const days: TimesheetDay[] = [];
  let previousWorkEndMs: number | null = null;
  for (const date of dates) {
    const all = byDate.get(date)!;
    const work = counted.get(date)!;
    if (date >= from) totals.openSessions += all.filter((e) => e.status === 'open').length;
    const periods = work.map(workPeriod);
    if (date >= from && work.length > 0) {
      const statuses: Record<string, number> = Object.fromEntries(COUNTED_STATUSES.map((s) => [s, 0]));
      for (const entry of work) statuses[entry.status] = (statuses[entry.status] ?? 0) + 1;
      const split = overtime.get(date);
      const worked = work.reduce((sum, e) => sum + reported(e), 0);
      const breakMinutes = work.reduce((sum, e) => sum + (e.breakMinutes ?? 0), 0);
      const day: TimesheetDay = {
        date,
        workedSeconds: worked,
        breakMinutes,
        regularSeconds: split?.regularSeconds ?? worked,
        overtimeSeconds: split?.overtimeSeconds ?? 0,
        entries: work.length,
        statuses,
        flags: evaluateRules(settings.rules, { date, periods, previousWorkEndMs }),
      };
      days.push(day);
      totals.workedSeconds += day.workedSeconds;
      totals.regularSeconds += day.regularSeconds;
      totals.overtimeSeconds += day.overtimeSeconds;
      totals.breakMinutes += breakMinutes;
      for (const entry of work) {
        if (entry.status === 'approved') totals.approvedSeconds += reported(entry);
        else totals.pendingSeconds += reported(entry);
      }
    }
    for (const period of periods)
      previousWorkEndMs =
        previousWorkEndMs === null ? period.endMs : Math.max(previousWorkEndMs, period.endMs);
  }
  return { days, totals };
}
