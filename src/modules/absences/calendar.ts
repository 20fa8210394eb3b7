import { addDays, daysBetween } from '../../domain/time-zone.js';
import { WEEKDAYS, type Weekday, weekdayIndex } from '../../domain/timesheets/overtime.js';
import type { AbsencePortion, HolidayPortion } from './schemas.js';

/*
 * An employee's working calendar, as pure functions (docs/timesheets.md, "Absences and holidays"):
 * which days are work days, how many hours each owes, how much of it a holiday or an absence takes.
 *
 * - A day is a work day when the schedule effective that day (the latest assignment starting on or
 *   before it) lists its weekday (no schedule: Monday to Friday), the employee is employed that day
 *   (on or after `hiredOn`, on or before `leftOn`), and it is not a full public holiday.
 * - Its `factor`: 1 on a work day, 0.5 on a half-day holiday, 0 otherwise.
 * - Its target: the schedule's daily hours (its own, else weekly hours ÷ work days; no schedule: 0)
 *   times the factor.
 * - An absence takes, of each day of its range: a full day the whole factor (days) and the whole
 *   target (hours); a half day half of each; an `hours` absence its hours (days: hours ÷ daily hours).
 */

export const DEFAULT_WORK_DAYS: readonly Weekday[] = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'];

export interface ScheduleSpan {
  effectiveFrom: string;
  weeklyHours: number | null;
  workDays: readonly Weekday[];
  dailyHours: number | null;
}

export interface Employment {
  hiredOn: string | null;
  leftOn: string | null;
}

export interface HolidayMark {
  name: string;
  portion: HolidayPortion;
}

export interface CalendarDay {
  date: string;
  /** 1 on a work day, 0.5 on a half-day holiday, 0 on days off, full holidays and outside employment. */
  factor: number;
  /** The schedule's daily hours in seconds on a weekday it lists (before holidays), else 0. */
  dailySeconds: number;
  /** What the day owes: dailySeconds × factor. */
  targetSeconds: number;
  holiday: HolidayMark | null;
}

/** `mon,tue,…` or full names, in any case, as the schedule's weekdays in week order; null when malformed. */
export function parseWorkDays(value: string): Weekday[] | null {
  const parts = value
    .split(',')
    .map((part) => part.trim().toLowerCase())
    .filter((part) => part !== '');
  const days = new Set<Weekday>();
  for (const part of parts) {
    const day = WEEKDAYS.find((w) => w === part || (part.length === 3 && w.startsWith(part)));
    if (!day) return null;
    days.add(day);
  }
  return WEEKDAYS.filter((day) => days.has(day));
}

/** The stored text of `work_days` as weekdays (unknown names are skipped). */
export function storedWorkDays(text: string): Weekday[] {
  return parseWorkDays(text) ?? [...DEFAULT_WORK_DAYS];
}

/** The hours of one work day of a schedule: its own, else weekly hours ÷ work days, else 0. */
export function dailyHoursOf(
  schedule: Pick<ScheduleSpan, 'weeklyHours' | 'workDays' | 'dailyHours'>,
): number {
  if (schedule.dailyHours !== null) return schedule.dailyHours;
  if (schedule.weeklyHours === null || schedule.workDays.length === 0) return 0;
  return schedule.weeklyHours / schedule.workDays.length;
}

export function isEmployed(employment: Employment, date: string): boolean {
  return (
    (employment.hiredOn === null || employment.hiredOn <= date) &&
    (employment.leftOn === null || employment.leftOn >= date)
  );
}

/** Every day from `from` to `to` (inclusive). */
export function datesOf(from: string, to: string): string[] {
  const days: string[] = [];
  const count = daysBetween(from, to);
  for (let i = 0; i <= count; i++) days.push(addDays(from, i));
  return days;
}

/** A day of a range with its weekday. */
export interface RangeDay {
  date: string;
  weekday: Weekday;
}

/** Every day from `from` to `to` with its weekday (computed once for a report's many employees). */
export function rangeDays(from: string, to: string): RangeDay[] {
  const dates = datesOf(from, to);
  const first = weekdayIndex(from);
  return dates.map((date, i) => ({ date, weekday: WEEKDAYS[(first + i) % 7]! }));
}

/** The employee's calendar over `from`..`to` (or `days`, that range's rangeDays); `schedules` oldest first. */
export function buildCalendar(input: {
  from: string;
  to: string;
  days?: readonly RangeDay[];
  schedules: readonly ScheduleSpan[];
  employment: Employment;
  holidays: ReadonlyMap<string, HolidayMark>;
}): CalendarDay[] {
  const { schedules } = input;
  let next = 0;
  let current: ScheduleSpan | null = null;
  return (input.days ?? rangeDays(input.from, input.to)).map(({ date, weekday }) => {
    while (next < schedules.length && schedules[next]!.effectiveFrom <= date) current = schedules[next++]!;
    const workDays = current?.workDays ?? DEFAULT_WORK_DAYS;
    const holiday = input.holidays.get(date) ?? null;
    const listed = workDays.includes(weekday);
    const dailySeconds = listed && current !== null ? Math.round(dailyHoursOf(current) * 3600) : 0;
    let factor = listed && isEmployed(input.employment, date) ? 1 : 0;
    if (holiday !== null) factor *= holiday.portion === 'half' ? 0.5 : 0;
    return { date, factor, dailySeconds, targetSeconds: Math.round(dailySeconds * factor), holiday };
  });
}

/** The share of a day an absence takes: 1 for a full day, 0.5 for a half (hours are counted apart). */
export function portionShare(portion: AbsencePortion): number {
  return portion === 'first_half' || portion === 'second_half' ? 0.5 : 1;
}

/** Days an absence takes of one calendar day. */
export function dayShare(day: CalendarDay, portion: AbsencePortion, hours: number | null): number {
  if (day.factor === 0) return 0;
  if (portion === 'hours') return day.dailySeconds === 0 ? 0 : ((hours ?? 0) * 3600) / day.dailySeconds;
  return day.factor * portionShare(portion);
}

/** Seconds of a day an absence takes (credited, or taken off the target): its hours, or the target or half of it. */
export function secondsTaken(day: CalendarDay, portion: AbsencePortion, hours: number | null): number {
  if (day.factor === 0) return 0;
  if (portion === 'hours') return Math.round((hours ?? 0) * 3600);
  return Math.round(day.targetSeconds * portionShare(portion));
}

/** Rounds to two decimals (days and hours as shown). */
export function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

/** Days an absence counts over its calendar (the days of its range), and how many of them are work days. */
export function countAbsence(
  days: readonly CalendarDay[],
  portion: AbsencePortion,
  hours: number | null,
): { days: number; workDays: number; shares: { date: string; days: number }[] } {
  const shares = days
    .map((day) => ({ date: day.date, days: dayShare(day, portion, hours) }))
    .filter((share) => share.days > 0);
  return {
    days: round2(shares.reduce((sum, share) => sum + share.days, 0)),
    workDays: days.filter((day) => day.factor > 0).length,
    shares,
  };
}
