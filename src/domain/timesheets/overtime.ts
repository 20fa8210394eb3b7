import { addDays } from '../time-zone.js';

/*
 * Overtime, as docs/timesheets.md states it, so that every reader of a timesheet gets the same
 * figures. All arithmetic is in whole seconds; hours are rounded once, where a figure is shown.
 *
 * 1. Each day's worked time above the daily threshold (when the company has one) is that day's
 *    overtime.
 * 2. The rest of the day (its regular time) accumulates over the workweek in date order; the part
 *    that crosses the weekly threshold (the weekly hours of the schedule effective on the workweek's
 *    first day; none when that schedule has no weekly hours) is overtime on the day it occurs.
 * 3. A workweek that starts before the first day shown counts its earlier days toward the weekly
 *    threshold: the caller passes those days too and lists only the ones it shows.
 */

export const WEEKDAYS = [
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export function isWeekday(value: string): value is Weekday {
  return (WEEKDAYS as readonly string[]).includes(value);
}

/** Monday 0 … Sunday 6 of a `YYYY-MM-DD` date (a calendar date: no zone involved). */
export function weekdayIndex(date: string): number {
  return (new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7;
}

/** The first day of the workweek that holds `date`, for a workweek starting on `start`. */
export function workweekStartOf(date: string, start: Weekday): string {
  const back = (weekdayIndex(date) - WEEKDAYS.indexOf(start) + 7) % 7;
  return back === 0 ? date : addDays(date, -back);
}

export interface OvertimeSettings {
  workweekStart: Weekday;
  /** Seconds of a day after which the rest of the day is overtime; null: no daily threshold. */
  dailyOvertimeAfterSeconds: number | null;
}

export interface WorkedDay {
  date: string;
  workedSeconds: number;
}

export interface OvertimeDay {
  date: string;
  workedSeconds: number;
  regularSeconds: number;
  overtimeSeconds: number;
  /** Of overtimeSeconds: above the daily threshold. */
  dailyOvertimeSeconds: number;
  /** Of overtimeSeconds: regular time of the day that crossed the weekly threshold. */
  weeklyOvertimeSeconds: number;
}

/**
 * Splits each day's worked seconds into regular and overtime. `days` may come in any order (they are
 * taken in date order, one per date); `weeklyThresholdSeconds(firstDay)` is the weekly threshold of
 * the workweek starting on `firstDay`, or null for none.
 */
export function computeOvertime(
  days: readonly WorkedDay[],
  settings: OvertimeSettings,
  weeklyThresholdSeconds: (workweekFirstDay: string) => number | null,
): OvertimeDay[] {
  const sorted = [...days].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  const result: OvertimeDay[] = [];
  let week: string | null = null;
  let threshold: number | null = null;
  let accumulated = 0;
  for (const day of sorted) {
    const first = workweekStartOf(day.date, settings.workweekStart);
    if (first !== week) {
      week = first;
      threshold = weeklyThresholdSeconds(first);
      accumulated = 0;
    }
    const worked = Math.max(0, day.workedSeconds);
    const daily =
      settings.dailyOvertimeAfterSeconds === null
        ? 0
        : Math.max(0, worked - settings.dailyOvertimeAfterSeconds);
    const regularBeforeWeek = worked - daily;
    const before = accumulated;
    accumulated += regularBeforeWeek;
    const weekly =
      threshold === null ? 0 : Math.max(0, accumulated - threshold) - Math.max(0, before - threshold);
    result.push({
      date: day.date,
      workedSeconds: worked,
      regularSeconds: regularBeforeWeek - weekly,
      overtimeSeconds: daily + weekly,
      dailyOvertimeSeconds: daily,
      weeklyOvertimeSeconds: weekly,
    });
  }
  return result;
}
