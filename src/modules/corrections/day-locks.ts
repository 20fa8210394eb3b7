import { addDays } from '../../domain/time-zone.js';
import { ApiError } from '../../domain/errors.js';
import type { Executor } from '../../platform/db/database.js';
import { findClosedPeriod, firstConfirmedDay } from './queries/day-locks.js';

/*
 * What locks a day against writes: the employee's confirmation (`day confirm`) and a closed payroll
 * period of the company or of the employee's workplace (issue 30). Every write of a time entry checks
 * the days it lands on.
 */

/** The distinct days of `dates` as runs of consecutive days, in order. */
export function dayRuns(dates: readonly (string | null | undefined)[]): { from: string; to: string }[] {
  const days = [...new Set(dates.filter((d): d is string => typeof d === 'string'))].sort();
  const runs: { from: string; to: string }[] = [];
  for (const day of days) {
    const last = runs.at(-1);
    if (last && addDays(last.to, 1) === day) last.to = day;
    else runs.push({ from: day, to: day });
  }
  return runs;
}

/**
 * 409 day_locked when one of `dates` is in a closed period of the company (or of `workplaceId`):
 * punches, shifts, batches, corrections and decisions alike. One indexed read per run of days.
 */
export async function assertPeriodsOpen(
  db: Executor,
  companyId: string,
  workplaceId: string | null,
  dates: readonly (string | null | undefined)[],
): Promise<void> {
  for (const run of dayRuns(dates)) {
    const period = await findClosedPeriod(db, { companyId, workplaceId, ...run });
    if (period)
      throw new ApiError(
        'day_locked',
        `the period ${period.from_date} to ${period.to_date} is closed (locked period ${period.id}); reopen it to change its days`,
      );
  }
}

/** 409 day_locked when one of `dates` is confirmed by the employee or in a closed period. */
export async function assertDaysWritable(
  db: Executor,
  input: {
    companyId: string;
    employeeId: string;
    workplaceId: string | null;
    dates: readonly (string | null | undefined)[];
  },
): Promise<void> {
  const days = [...new Set(input.dates.filter((d): d is string => typeof d === 'string'))];
  const confirmed = await firstConfirmedDay(db, input.employeeId, days);
  if (confirmed !== null)
    throw new ApiError('day_locked', `the employee has confirmed ${confirmed}; it is locked`);
  await assertPeriodsOpen(db, input.companyId, input.workplaceId, days);
}
