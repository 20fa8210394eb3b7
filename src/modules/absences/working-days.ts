import { ApiError, validationError } from '../../domain/errors.js';
import type { Executor, Tx } from '../../platform/db/database.js';
import { recordAudit } from '../audit/queries.js';
import {
  buildCalendar,
  type CalendarDay,
  dailyHoursOf,
  parseWorkDays,
  type ScheduleSpan,
  storedWorkDays,
} from './calendar.js';
import { assertScheduleChangeOpen, closedPeriodError } from './closed-days.js';
import { holidayMarks, mergeHolidays, regionHolidays, requireRegion } from './holidays.js';
import {
  closedPeriodsOfCompany,
  findSchedule,
  findWorkplace,
  findWorkplaceRow,
  listOverrides,
  listSchedulesOf,
  type ScheduleRow,
  setWorkplaceRegion,
  updateScheduleRow,
} from './calendar.queries.js';
import type { AuditActor } from './types.js';

/*
 * Working days (issue 31): a schedule's weekdays and daily hours, a workplace's holiday region, and an
 * employee's calendar read from them (calendar.ts computes it).
 */

export function scheduleSpan(row: Omit<ScheduleRow, 'employee_id'>): ScheduleSpan {
  return {
    effectiveFrom: row.effective_from,
    weeklyHours: row.weekly_hours === null ? null : Number(row.weekly_hours),
    workDays: storedWorkDays(row.work_days),
    dailyHours: row.daily_hours === null ? null : Number(row.daily_hours),
  };
}

/** Schedule rows grouped per employee, as spans (oldest first). */
export function spansByEmployee(rows: readonly ScheduleRow[]): Map<string, ScheduleSpan[]> {
  const result = new Map<string, ScheduleSpan[]>();
  for (const row of rows) {
    const list = result.get(row.employee_id);
    if (list) list.push(scheduleSpan(row));
    else result.set(row.employee_id, [scheduleSpan(row)]);
  }
  return result;
}

export interface CalendarEmployee {
  id: string;
  workplace_id: string | null;
  hired_on: string | null;
  left_on: string | null;
}

/** One employee's calendar over `from`..`to`: schedules, employment, the workplace's holidays. */
export async function employeeCalendar(
  db: Executor,
  companyId: string,
  employee: CalendarEmployee,
  from: string,
  to: string,
): Promise<CalendarDay[]> {
  const [schedules, overrides, workplace] = await Promise.all([
    listSchedulesOf(db, [employee.id], to),
    listOverrides(db, companyId, { from, to }),
    employee.workplace_id === null ? undefined : findWorkplace(db, companyId, employee.workplace_id),
  ]);
  const holidays = mergeHolidays(
    regionHolidays(workplace?.holiday_region ?? null, from, to),
    overrides,
    employee.workplace_id,
  );
  return buildCalendar({
    from,
    to,
    schedules: schedules.map(scheduleSpan),
    employment: { hiredOn: employee.hired_on, leftOn: employee.left_on },
    holidays: holidayMarks(holidays),
  });
}

function scheduleView(row: {
  id: string;
  company_id: string;
  name: string;
  weekly_hours: number | null;
  work_days: string;
  daily_hours: number | null;
}) {
  const span = scheduleSpan({ ...row, effective_from: '' });
  return {
    id: row.id,
    companyId: row.company_id,
    name: row.name,
    weeklyHours: span.weeklyHours,
    workDays: span.workDays,
    dailyHours: span.dailyHours,
    effectiveDailyHours: Math.round(dailyHoursOf(span) * 100) / 100,
  };
}

/** `schedule update ID --work-days mon,tue,… --daily-hours H|none`. */
export async function updateSchedule(
  tx: Tx,
  now: number,
  scheduleId: string,
  input: { workDays?: string; dailyHours?: string },
  actor: AuditActor,
) {
  const patch: { work_days?: string; daily_hours?: number | null } = {};
  if (input.workDays !== undefined) {
    const days = parseWorkDays(input.workDays);
    if (days === null)
      throw validationError([
        { field: 'workDays', message: 'must be weekdays like mon,tue,wed (or full names)', code: 'format' },
      ]);
    patch.work_days = days.join(',');
  }
  if (input.dailyHours !== undefined) {
    const hours = Number(input.dailyHours);
    if (input.dailyHours !== 'none' && (!/^\d{1,2}(\.\d{1,2})?$/.test(input.dailyHours) || hours > 24))
      throw validationError([
        { field: 'dailyHours', message: 'must be hours from 0 to 24, or none', code: 'range' },
      ]);
    patch.daily_hours = input.dailyHours === 'none' ? null : hours;
  }
  const id = scheduleId.toLowerCase();
  const existing = await findSchedule(tx, id);
  if (!existing) throw new ApiError('not_found', `unknown schedule: ${scheduleId}`);
  if (
    (patch.work_days !== undefined && patch.work_days !== existing.work_days) ||
    (patch.daily_hours !== undefined && Number(patch.daily_hours) !== Number(existing.daily_hours))
  )
    await assertScheduleChangeOpen(tx, id);
  if (Object.keys(patch).length > 0) {
    await updateScheduleRow(tx, id, patch);
    await recordAudit(tx, {
      companyId: existing.company_id,
      actorType: actor.type,
      actorId: actor.id,
      action: 'schedule.update',
      targetType: 'schedule',
      targetId: id,
      details: patch,
      at: new Date(now).toISOString(),
    });
  }
  return scheduleView({ ...existing, ...patch });
}

/** A new region must not move a holiday on a day of a closed period of the workplace or its company. */
async function assertRegionChangeOpen(
  db: Executor,
  workplace: { id: string; company_id: string; holiday_region: string | null },
  region: string | null,
): Promise<void> {
  if (workplace.holiday_region === region) return;
  const periods = await closedPeriodsOfCompany(
    db,
    workplace.company_id,
    { from: '0001-01-01', to: '9999-12-31' },
    workplace.id,
  );
  const key = (h: { date: string; portion: string }) => `${h.date} ${h.portion}`;
  for (const period of periods) {
    const before = regionHolidays(workplace.holiday_region, period.from_date, period.to_date).map(key);
    const after = regionHolidays(region, period.from_date, period.to_date).map(key);
    if (before.length !== after.length || before.some((day, i) => day !== after[i]))
      throw closedPeriodError(period, `the holiday region ${region ?? 'none'}`);
  }
}

/** `workplace update ID --holiday-region CODE|none` (companyId: the console's check of its own company). */
export async function setHolidayRegion(
  tx: Tx,
  now: number,
  workplaceId: string,
  region: string | null,
  actor: AuditActor,
  companyId: string | null = null,
) {
  const value = region === null || region === 'none' ? null : requireRegion(region, 'holidayRegion');
  const id = workplaceId.toLowerCase();
  const existing = await findWorkplaceRow(tx, id, companyId);
  if (!existing) throw new ApiError('not_found', `unknown workplace: ${workplaceId}`);
  await assertRegionChangeOpen(tx, existing, value);
  await setWorkplaceRegion(tx, id, value);
  await recordAudit(tx, {
    companyId: existing.company_id,
    actorType: actor.type,
    actorId: actor.id,
    action: 'workplace.update',
    targetType: 'workplace',
    targetId: id,
    details: { holiday_region: value },
    at: new Date(now).toISOString(),
  });
  return {
    id,
    companyId: existing.company_id,
    name: existing.name,
    timeZone: existing.time_zone,
    holidayRegion: value,
  };
}
