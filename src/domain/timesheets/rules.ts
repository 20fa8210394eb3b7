/*
 * Working-time rule packs: checks a company may turn on (`--working-time-rules`) whose findings are
 * shown on the timesheet as flags. They never block a punch and never change the overtime figures.
 *
 * Break time of a day (docs/timesheets.md): the recorded break minutes of the day's entries plus the
 * gaps between consecutive entries of that day. Entries record their breaks as a number of minutes
 * (one unpaid break in the middle of a shift, or the sum of several), not as timestamps, so:
 * - de-arbzg.break counts a recorded break whole and a gap between entries when it lasts at least
 *   15 minutes (ArbZG §4: breaks may be split into parts of at least 15 minutes);
 * - us-ca.meal places a recorded break in the middle of its entry's working time (as the public API
 *   describes a shift's break) and a gap where it is.
 */

export const RULE_PACKS = ['none', 'de-arbzg', 'us-ca'] as const;
export type RulePack = (typeof RULE_PACKS)[number];

export function isRulePack(value: string): value is RulePack {
  return (RULE_PACKS as readonly string[]).includes(value);
}

export type RuleId =
  | 'de-arbzg.break'
  | 'de-arbzg.max-daily'
  | 'de-arbzg.rest'
  | 'us-ca.daily-overtime'
  | 'us-ca.double-time'
  | 'us-ca.meal';

export interface Flag {
  rule: RuleId;
  date: string;
  message: string;
}

/** One entry's working time on the day: its instants, net working seconds and recorded break. */
export interface WorkPeriod {
  startMs: number;
  endMs: number;
  netSeconds: number;
  breakMinutes: number;
}

export interface RuleDay {
  date: string;
  /** The day's counted entries, in any order. */
  periods: readonly WorkPeriod[];
  /** When the employee's previous work (on an earlier work date) ended; null if unknown or none. */
  previousWorkEndMs: number | null;
}

const HOUR = 3600;
const MINUTE = 60;

/** Hours with two decimals, rounded like every figure of the API. */
export function formatHours(seconds: number): string {
  return (Math.round(seconds / 36) / 100).toFixed(2);
}

function formatMinutes(seconds: number): string {
  return String(Math.round(seconds / MINUTE));
}

function sortedPeriods(day: RuleDay): WorkPeriod[] {
  return [...day.periods].sort((a, b) => a.startMs - b.startMs);
}

function workedSeconds(day: RuleDay): number {
  return day.periods.reduce((sum, p) => sum + p.netSeconds, 0);
}

/** Gaps between consecutive periods of the day, in seconds (each with the work done before it). */
function gaps(periods: readonly WorkPeriod[]): { seconds: number; workBefore: number }[] {
  const result: { seconds: number; workBefore: number }[] = [];
  let workBefore = 0;
  let lastEnd: number | null = null;
  for (const period of periods) {
    if (lastEnd !== null && period.startMs > lastEnd)
      result.push({ seconds: (period.startMs - lastEnd) / 1000, workBefore });
    workBefore += period.netSeconds;
    lastEnd = lastEnd === null ? period.endMs : Math.max(lastEnd, period.endMs);
  }
  return result;
}

/**
 * ArbZG §4: work is interrupted by breaks of at least 30 minutes in total when it lasts more than six
 * hours and 45 minutes when it lasts more than nine; breaks may be split into parts of at least 15
 * minutes.
 */
export function deArbzgBreak(day: RuleDay): Flag[] {
  const worked = workedSeconds(day);
  const required = worked > 9 * HOUR ? 45 * MINUTE : worked > 6 * HOUR ? 30 * MINUTE : 0;
  if (required === 0) return [];
  const periods = sortedPeriods(day);
  const taken =
    periods.reduce((sum, p) => sum + p.breakMinutes * MINUTE, 0) +
    gaps(periods)
      .filter((gap) => gap.seconds >= 15 * MINUTE)
      .reduce((sum, gap) => sum + gap.seconds, 0);
  if (taken >= required) return [];
  return [
    {
      rule: 'de-arbzg.break',
      date: day.date,
      message: `${formatHours(worked)} h worked with ${formatMinutes(taken)} min of breaks; at least ${formatMinutes(required)} min are required beyond ${required === 45 * MINUTE ? 9 : 6} h (ArbZG §4)`,
    },
  ];
}

/** ArbZG §3: at most ten hours of work a working day. */
export function deArbzgMaxDaily(day: RuleDay): Flag[] {
  const worked = workedSeconds(day);
  if (worked <= 10 * HOUR) return [];
  return [
    {
      rule: 'de-arbzg.max-daily',
      date: day.date,
      message: `${formatHours(worked)} h worked, ${formatHours(worked - 10 * HOUR)} h more than the 10 h allowed a day (ArbZG §3)`,
    },
  ];
}

/**
 * ArbZG §5: at least eleven hours of uninterrupted rest after the end of the daily working time.
 * Dated on the day whose first entry starts less than 11 hours after the previous work ended.
 */
export function deArbzgRest(day: RuleDay): Flag[] {
  if (day.previousWorkEndMs === null || day.periods.length === 0) return [];
  const firstStart = Math.min(...day.periods.map((p) => p.startMs));
  const rest = Math.max(0, (firstStart - day.previousWorkEndMs) / 1000);
  if (rest >= 11 * HOUR) return [];
  return [
    {
      rule: 'de-arbzg.rest',
      date: day.date,
      message: `${formatHours(rest)} h of rest since the previous work ended at ${new Date(day.previousWorkEndMs).toISOString()}; at least 11 h are required (ArbZG §5)`,
    },
  ];
}

/** Labor Code §510: work beyond 8 hours in a workday is paid at one and a half times the rate (up to 12 h). */
export function usCaDailyOvertime(day: RuleDay): Flag[] {
  const worked = workedSeconds(day);
  if (worked <= 8 * HOUR) return [];
  const overtime = Math.min(worked, 12 * HOUR) - 8 * HOUR;
  return [
    {
      rule: 'us-ca.daily-overtime',
      date: day.date,
      message: `${formatHours(worked)} h worked: ${formatHours(overtime)} h beyond 8 h are daily overtime at 1.5 times the regular rate (Labor Code §510)`,
    },
  ];
}

/** Labor Code §510: work beyond 12 hours in a workday is paid at twice the rate. */
export function usCaDoubleTime(day: RuleDay): Flag[] {
  const worked = workedSeconds(day);
  if (worked <= 12 * HOUR) return [];
  return [
    {
      rule: 'us-ca.double-time',
      date: day.date,
      message: `${formatHours(worked)} h worked: ${formatHours(worked - 12 * HOUR)} h beyond 12 h are double time (Labor Code §510)`,
    },
  ];
}

/**
 * Labor Code §512: a work period of more than five hours a day needs a meal period of at least 30
 * minutes, starting no later than the end of the fifth hour of work (it may be waived by mutual
 * consent when the day is no more than six hours, which the timesheet cannot know: it flags, a person
 * decides).
 */
export function usCaMeal(day: RuleDay): Flag[] {
  const worked = workedSeconds(day);
  if (worked <= 5 * HOUR) return [];
  const periods = sortedPeriods(day);
  // Each meal candidate with the working time done before it began.
  const candidates: { seconds: number; workBefore: number }[] = gaps(periods);
  let workBefore = 0;
  for (const period of periods) {
    if (period.breakMinutes > 0)
      candidates.push({
        seconds: period.breakMinutes * MINUTE,
        workBefore: workBefore + period.netSeconds / 2,
      });
    workBefore += period.netSeconds;
  }
  const meals = candidates
    .filter((c) => c.seconds >= 30 * MINUTE)
    .sort((a, b) => a.workBefore - b.workBefore);
  if (meals.some((meal) => meal.workBefore <= 5 * HOUR)) return [];
  const first = meals[0];
  return [
    {
      rule: 'us-ca.meal',
      date: day.date,
      message:
        `${formatHours(worked)} h worked without a meal period of 30 min starting by the end of the fifth hour` +
        (first
          ? ` (the first began after ${formatHours(first.workBefore)} h of work)`
          : ' (none of 30 min was taken)') +
        ' (Labor Code §512)',
    },
  ];
}

const PACKS: Record<RulePack, readonly ((day: RuleDay) => Flag[])[]> = {
  none: [],
  'de-arbzg': [deArbzgBreak, deArbzgMaxDaily, deArbzgRest],
  'us-ca': [usCaDailyOvertime, usCaDoubleTime, usCaMeal],
};

/** The flags `pack` raises on one day (none for a day without counted work). */
export function evaluateRules(pack: RulePack, day: RuleDay): Flag[] {
  if (day.periods.length === 0) return [];
  return PACKS[pack].flatMap((rule) => rule(day));
}
