import type { Executor } from '../../platform/db/database.js';
import { exceptionKey } from './exception-rules.js';
import { listReportExceptions, listReportShifts, type ReportExceptionRow } from './queries/report.js';
import { type RoundingPolicy } from './rounding.js';
import { EXCEPTION_KINDS, type ExceptionKind } from './schemas.js';
import { isRoundingMode } from './settings.js';
import { plannedSeconds } from './shift-rules.js';

/*
 * What timesheets add of issue 33 (docs/timesheets.md): each day's planned hours (the published
 * shifts dated that day, less their breaks), the exceptions counted per kind over the range, and the
 * company's rounding policy of worked time.
 */

export interface PlannedFigures {
  /** Planned seconds by date. */
  byDate: Map<string, number>;
  exceptions: Record<ExceptionKind, number>;
}

const noExceptions = (): Record<ExceptionKind, number> =>
  Object.fromEntries(EXCEPTION_KINDS.map((kind) => [kind, 0])) as Record<ExceptionKind, number>;

/** The planned figures of a batch of employees, in two statements. */
export async function plannedFigures(
  db: Executor,
  input: { companyId: string; employeeIds: readonly string[]; from: string; to: string },
): Promise<(employeeId: string) => PlannedFigures> {
  const [shifts, exceptions] = await Promise.all([
    listReportShifts(db, input),
    listReportExceptions(db, input),
  ]);
  const figures = new Map<string, PlannedFigures>();
  const of = (employeeId: string) => {
    let found = figures.get(employeeId);
    if (!found) figures.set(employeeId, (found = { byDate: new Map(), exceptions: noExceptions() }));
    return found;
  };
  for (const shift of shifts) {
    const { byDate } = of(shift.employee_id);
    const seconds = plannedSeconds(
      Date.parse(shift.start_at),
      Date.parse(shift.end_at),
      Number(shift.break_minutes),
    );
    byDate.set(shift.date, (byDate.get(shift.date) ?? 0) + seconds);
  }
  for (const row of exceptions)
    if ((EXCEPTION_KINDS as readonly string[]).includes(row.kind) && standsInTotals(row))
      of(row.employee_id).exceptions[row.kind as ExceptionKind] += 1;
  return (employeeId) => figures.get(employeeId) ?? { byDate: new Map(), exceptions: noExceptions() };
}

/** Entries that count as worked (the job's: open sessions included; drafts and rejected ones not). */
const WORKED_STATUSES = ['open', 'pending_approval', 'approved'];

/**
 * Whether an exception counts in the report's totals (docs/timesheets.md, "Exceptions in totals"):
 * only those that still stand. Void: one whose shift is deleted, no longer published or has other
 * times now (the plan changed), or whose entry no longer counts (deleted, rejected). Over: a resolved
 * `no_show` (the employee came: its `late_in` counts instead) and a resolved `unplanned` (the day was
 * planned afterwards, or its work removed). A `missed_clock_out` counts once found, closed since or
 * not: the clock-out was missed at the end, which is what payroll checks.
 */
export function standsInTotals(row: ReportExceptionRow): boolean {
  if (row.planned_shift_id !== null) {
    if (row.shift_status !== 'published' || row.shift_start_at === null || row.shift_end_at === null)
      return false;
    const times = { startMs: Date.parse(row.shift_start_at), endMs: Date.parse(row.shift_end_at) };
    if (exceptionKey(row.kind as ExceptionKind, { id: row.planned_shift_id, ...times }) !== row.dedupe_key)
      return false;
  }
  // An unplanned day stays open while any of its entries counts (the job): judged by resolved_at alone.
  if (row.kind !== 'unplanned' && row.time_entry_id !== null) {
    if (row.entry_status === null || !WORKED_STATUSES.includes(row.entry_status)) return false;
  }
  return row.kind === 'missed_clock_out' || row.resolved_at === null;
}

/** A day of the report as buildTimesheet makes it, with its planned seconds. */
interface ReportDay {
  date: string;
  workedSeconds: number;
  breakMinutes: number;
  regularSeconds: number;
  overtimeSeconds: number;
  entries: number;
  statuses: Record<string, number>;
  flags: { rule: string; date: string; message: string }[];
}

/**
 * The listed days with their planned seconds, and a day for each planned date in the range that has
 * no counted entry (worked 0), in date order.
 */
export function withPlannedDays<D extends ReportDay>(
  days: readonly D[],
  planned: PlannedFigures,
): (D & { plannedSeconds: number })[] {
  const listed = new Set(days.map((day) => day.date));
  const extra = [...planned.byDate.keys()]
    .filter((date) => !listed.has(date))
    .map(
      (date) =>
        ({
          date,
          workedSeconds: 0,
          breakMinutes: 0,
          regularSeconds: 0,
          overtimeSeconds: 0,
          entries: 0,
          statuses: { pending_approval: 0, approved: 0 },
          flags: [],
        }) as unknown as D,
    );
  return [...days, ...extra]
    .map((day) => ({ ...day, plannedSeconds: planned.byDate.get(day.date) ?? 0 }))
    .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
}

/** The company's rounding policy as the report applies it. */
export function roundingPolicyOf(
  row: { rounding: string; rounding_minutes: number } | undefined,
): RoundingPolicy {
  if (!row || !isRoundingMode(row.rounding)) return { mode: 'none', minutes: 15 };
  return { mode: row.rounding, minutes: Number(row.rounding_minutes) };
}
