import { ApiError } from '../../domain/errors.js';
import type { Executor } from '../../platform/db/database.js';
import {
  approvedAbsenceInClosedPeriod,
  closedPeriodOfSchedule,
  closedPeriodsOfCompany,
} from './calendar.queries.js';

/*
 * Closed payroll periods (issue 30) fix what their days count: a change to the calendar behind the
 * timesheets (a holiday override, a workplace's region, a type's "counts as work time", a schedule's
 * days and hours) that would rewrite a closed day is refused with 409 day_locked, as writes of entries
 * and absences are (review of issue 31). Reopen the period first, or make the change take effect
 * after it (an override on a later day; a new schedule assigned from a later date).
 */

export function closedPeriodError(
  period: { id: string; from_date: string; to_date: string },
  change: string,
) {
  return new ApiError(
    'day_locked',
    `${change} would change the closed period ${period.from_date} to ${period.to_date} (locked period ${period.id}); reopen it first`,
  );
}

/**
 * Refuses a change to the days [from, to] of one workplace (its own and the company's closed periods)
 * or, with `workplaceId` null, of the whole company (every workplace's closed periods).
 */
export async function assertCalendarDaysOpen(
  db: Executor,
  companyId: string,
  workplaceId: string | null,
  range: { from: string; to: string },
  change: string,
): Promise<void> {
  const [period] = await closedPeriodsOfCompany(db, companyId, range, workplaceId);
  if (period) throw closedPeriodError(period, change);
}

/** A type's `countsAsWorkTime` decides what its approved absences credit: not on a closed day. */
export async function assertTypeChangeOpen(db: Executor, typeId: string, change: string): Promise<void> {
  const hit = await approvedAbsenceInClosedPeriod(db, typeId);
  if (hit)
    throw closedPeriodError({ id: hit.period_id, from_date: hit.from_date, to_date: hit.to_date }, change);
}

/** A schedule's work days and daily hours are every assigned day's target, closed days included. */
export async function assertScheduleChangeOpen(db: Executor, scheduleId: string): Promise<void> {
  const period = await closedPeriodOfSchedule(db, scheduleId);
  if (period)
    throw new ApiError(
      'day_locked',
      `the schedule's work days and daily hours count on days of the closed period ${period.from_date} to ${period.to_date} (locked period ${period.id}): assign a new schedule from a later date instead, or reopen the period`,
    );
}
