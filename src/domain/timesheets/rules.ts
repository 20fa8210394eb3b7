/*
 * Working-time rule packs: checks a company may turn on (`--working-time-rules`) whose findings are
 * shown on the timesheet as flags. They never block a punch and never change the overtime figures.
 *
 * Break time of a day (docs/timesheets.md): the breaks of the day's entries plus the gaps between
 * consecutive entries of that day. An entry's breaks come in one of two forms:
 * - punched breaks (`break_start` / `break_end` of a clocked session, issue 20): real spans with a start
 *   and an end instant (`WorkPeriod.breaks`), which the rules take where and as long as they are;
 * - a number of minutes only (a completed shift sent with `breakMinutes`, or a session without
 *   punched breaks): one unpaid break assumed in the middle of the entry's working time (as the public
 *   API describes a shift's break).
 * So:
 * - de-arbzg.break counts a punched break or a gap between entries only when it lasts at least 15
 *   minutes (ArbZG §4: breaks may be split into parts of at least 15 minutes), and a break given only
 *   as minutes whole (its parts are unknown);
 * - us-ca.meal takes as a meal period any break or gap of at least 30 minutes (its real length for a
 *   punched break or a gap, its recorded minutes otherwise), with the day's work done before it began:
 *   for a punched break, the time from its entry's start less the entry's earlier breaks; for minutes
 *   only, half the entry's working time; for a gap, the work of the entries before it; each plus the
 *   work of the day's earlier entries.
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

/** A punched break: its start and end instants (epoch milliseconds). */
export interface BreakSpan {
  startMs: number;
  endMs: number;
}

/**
 * One entry's working time on the day: its instants, net working seconds and recorded break minutes;
 * with `breaks` (punched breaks, in any order), the rules use those spans instead of `breakMinutes`.
 */
export interface WorkPeriod {
  startMs: number;
  endMs: number;
  netSeconds: number;
  breakMinutes: number;
  breaks?: readonly BreakSpan[];
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

function hasSpans(period: WorkPeriod): period is WorkPeriod & { breaks: readonly BreakSpan[] } {
  return period.breaks !== undefined && period.breaks.length > 0;
}

/**
 * Every break of the day's (sorted) periods with its length and the day's work done before it began:
 * punched breaks where they are, a break given only as minutes in the middle of its entry.
 */
function entryBreaks(
  periods: readonly WorkPeriod[],
): { seconds: number; workBefore: number; timed: boolean }[] {
  const result: { seconds: number; workBefore: number; timed: boolean }[] = [];
  let workBefore = 0;
  for (const period of periods) {
    if (hasSpans(period)) {
      let earlierBreaks = 0;
      for (const span of [...period.breaks].sort((a, b) => a.startMs - b.startMs)) {
        const seconds = Math.max(0, (span.endMs - span.startMs) / 1000);
        const elapsed = Math.max(0, (span.startMs - period.startMs) / 1000 - earlierBreaks);
        result.push({
          seconds,
          workBefore: workBefore + Math.min(elapsed, period.netSeconds),
          timed: true,
        });
        earlierBreaks += seconds;
      }
    } else if (period.breakMinutes > 0) {
      result.push({
        seconds: period.breakMinutes * MINUTE,
        workBefore: workBefore + period.netSeconds / 2,
        timed: false,
      });
    }
    workBefore += period.netSeconds;
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
  // A timed part (a punched break, a gap) counts only when it lasts at least 15 minutes; minutes alone
  // count whole (their parts are unknown).
  const taken = [...entryBreaks(periods), ...gaps(periods).map((gap) => ({ ...gap, timed: true }))]
    .filter((part) => !part.timed || part.seconds >= 15 * MINUTE)
    .reduce((sum, part) => sum + part.seconds, 0);
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
  const candidates: { seconds: number; workBefore: number }[] = [...gaps(periods), ...entryBreaks(periods)];
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
