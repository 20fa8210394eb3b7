import { createDefaultAbsenceTypes } from '../absences/types.js';
import { newId } from '../../domain/ids.js';
import { WEEKDAYS, isWeekday } from '../../domain/timesheets/overtime.js';
import { RULE_PACKS, isRulePack } from '../../domain/timesheets/rules.js';
import { auditBase, recordAudit } from '../audit/queries.js';
import { listSchedulesOfCompany, listWorkplacesOfCompany } from './queries.js';
import { type Actor, type AppContext, actorOf, inTransaction } from '../context.js';
import { type Executor, type Tx } from '../../platform/db/database.js';
import { type CompanyRow } from '../../platform/db/schema.js';
import {
  checkField,
  invalid,
  notFound,
  requireOnOff,
  requireText,
  requireTimeZone,
  requireUuid,
} from '../../shared/input-checks.js';
import { type ConsolePerson } from '../people/person.js';
import {
  ATTENDANCE_DEFAULTS,
  attendanceSettingsInput,
  checkAttendanceMargins,
  attendanceSettingsPatch,
  attendanceSettingsView,
} from '../planned-shifts/settings.js';

/** A new company's timesheet settings: weeks start on Monday, no daily threshold, no rule pack. */
const TIMESHEET_DEFAULTS = {
  workweek_start: 'monday',
  daily_overtime_after_seconds: null,
  working_time_rules: 'none',
  // Attendance exceptions and report rounding (issue 33).
  ...ATTENDANCE_DEFAULTS,
  // Issue 30: no automatic clock-out unless the company asks for one (v1 stays exact).
  auto_clock_out_after_hours: null,
  // Issue 35: the personal web clock is off until the company switches it on.
  web_clock: 0,
};

function requireWeekday(value: string): string {
  if (!isWeekday(value)) throw invalid(`workweek start must be one of ${WEEKDAYS.join(', ')}`);
  return value;
}

/** HOURS (a number from 0 to 24, at most two decimals) as whole seconds, or none. */
export function requireDailyThreshold(value: string): number | null {
  if (value === 'none') return null;
  const hours = Number(value);
  if (!/^\d{1,2}(\.\d{1,2})?$/.test(value) || hours > 24)
    throw invalid('daily overtime threshold must be a number of hours from 0 to 24, or none');
  return Math.round(hours * 3600);
}

/** The automatic clock-out (issue 30): a whole number of hours from 1 to 23, or none. */
export function requireAutoClockOutAfter(value: string): number | null {
  if (value === 'none') return null;
  if (!/^\d{1,2}$/.test(value) || Number(value) < 1 || Number(value) > 23)
    throw invalid('automatic clock-out must be a whole number of hours from 1 to 23, or none');
  return Number(value);
}

function requireRulePack(value: string): string {
  if (!isRulePack(value)) throw invalid(`working-time rules must be one of ${RULE_PACKS.join(', ')}`);
  return value;
}

export async function requireCompany(db: Executor, companyId: string) {
  const id = requireUuid(companyId, 'company id');
  const company = await db.selectFrom('companies').selectAll().where('id', '=', id).executeTakeFirst();
  if (!company) throw notFound('company', companyId);
  return company;
}

export async function createCompany(
  tx: Tx,
  now: number,
  input: { name: string; timeZone?: string; timeTracking?: string; apiAccess?: string },
) {
  const name = requireText(input.name, 'name');
  const timeZone = input.timeZone === undefined ? null : requireTimeZone(input.timeZone);
  const timeTracking =
    input.timeTracking === undefined ? true : requireOnOff(input.timeTracking, 'time tracking');
  const apiAccess = input.apiAccess === undefined ? true : requireOnOff(input.apiAccess, 'api access');
  const at = new Date(now).toISOString();
  const row = {
    id: newId(),
    name,
    time_zone: timeZone,
    time_tracking: timeTracking ? 1 : 0,
    api_access: apiAccess ? 1 : 0,
    created_at: at,
    updated_at: at,
    ...TIMESHEET_DEFAULTS,
  };
  await tx.insertInto('companies').values(row).execute();
  // Absence types every new company starts with (issue 31).
  await createDefaultAbsenceTypes(tx, row.id, at);
  await recordAudit(tx, {
    ...auditBase(row.id, at),
    action: 'company.create',
    targetType: 'company',
    targetId: row.id,
  });
  return companyView(row);
}

export async function updateCompany(
  tx: Tx,
  now: number,
  companyId: string,
  input: {
    name?: string;
    timeZone?: string;
    timeTracking?: string;
    apiAccess?: string;
    workweekStart?: string;
    dailyOvertimeAfter?: string;
    workingTimeRules?: string;
    lateGrace?: string;
    noShowAfter?: string;
    rounding?: string;
    roundingMinutes?: string;
    autoClockOutAfter?: string;
    webClock?: string;
  },
  actor?: Actor,
) {
  const patch: Record<string, unknown> = attendanceSettingsPatch(input);
  if (input.name !== undefined) patch.name = requireText(input.name, 'name');
  if (input.timeZone !== undefined)
    patch.time_zone = input.timeZone === 'none' ? null : requireTimeZone(input.timeZone);
  if (input.timeTracking !== undefined)
    patch.time_tracking = requireOnOff(input.timeTracking, 'time tracking') ? 1 : 0;
  if (input.apiAccess !== undefined) patch.api_access = requireOnOff(input.apiAccess, 'api access') ? 1 : 0;
  if (input.workweekStart !== undefined) patch.workweek_start = requireWeekday(input.workweekStart);
  if (input.dailyOvertimeAfter !== undefined)
    patch.daily_overtime_after_seconds = requireDailyThreshold(input.dailyOvertimeAfter);
  if (input.workingTimeRules !== undefined)
    patch.working_time_rules = requireRulePack(input.workingTimeRules);
  if (input.autoClockOutAfter !== undefined)
    patch.auto_clock_out_after_hours = requireAutoClockOutAfter(input.autoClockOutAfter);
  if (input.webClock !== undefined) patch.web_clock = requireOnOff(input.webClock, 'web clock') ? 1 : 0;
  const at = new Date(now).toISOString();
  const company = await requireCompany(tx, companyId);
  checkAttendanceMargins(company, patch);
  if (Object.keys(patch).length > 0) {
    await tx
      .updateTable('companies')
      .set({ ...patch, updated_at: at })
      .where('id', '=', company.id)
      .execute();
    await recordAudit(tx, {
      ...auditBase(company.id, at, actor),
      action: 'company.update',
      targetType: 'company',
      targetId: company.id,
      details: patch,
    });
  }
  return companyView(await requireCompany(tx, company.id));
}

export async function createWorkplace(
  tx: Tx,
  now: number,
  input: { companyId: string; name: string; timeZone?: string },
) {
  const name = requireText(input.name, 'name');
  const timeZone = input.timeZone === undefined ? null : requireTimeZone(input.timeZone);
  const at = new Date(now).toISOString();
  const company = await requireCompany(tx, input.companyId);
  const row = { id: newId(), company_id: company.id, name, time_zone: timeZone, created_at: at };
  await tx.insertInto('workplaces').values(row).execute();
  await recordAudit(tx, {
    ...auditBase(company.id, at),
    action: 'workplace.create',
    targetType: 'workplace',
    targetId: row.id,
  });
  return { id: row.id, companyId: company.id, name, timeZone };
}

export async function createSchedule(
  tx: Tx,
  now: number,
  input: { companyId: string; name: string; weeklyHours?: string },
) {
  const name = requireText(input.name, 'name');
  let weeklyHours: number | null = null;
  if (input.weeklyHours !== undefined) {
    weeklyHours = Number(input.weeklyHours);
    if (!/^\d+(\.\d+)?$/.test(input.weeklyHours) || weeklyHours > 168)
      throw invalid('weekly hours must be a number from 0 to 168');
  }
  const at = new Date(now).toISOString();
  const company = await requireCompany(tx, input.companyId);
  const row = { id: newId(), company_id: company.id, name, weekly_hours: weeklyHours, created_at: at };
  await tx.insertInto('schedules').values(row).execute();
  await recordAudit(tx, {
    ...auditBase(company.id, at),
    action: 'schedule.create',
    targetType: 'schedule',
    targetId: row.id,
  });
  return { id: row.id, companyId: company.id, name };
}

export function companyView(row: CompanyRow) {
  return {
    id: row.id,
    name: row.name,
    timeZone: row.time_zone,
    timeTracking: row.time_tracking === 1 ? 'on' : 'off',
    apiAccess: row.api_access === 1 ? 'on' : 'off',
    // Timesheet settings (issue 21).
    workweekStart: row.workweek_start,
    dailyOvertimeAfter:
      row.daily_overtime_after_seconds === null ? null : row.daily_overtime_after_seconds / 3600,
    workingTimeRules: row.working_time_rules,
    // Attendance exceptions and report rounding (issue 33).
    ...attendanceSettingsView(row),
    // Issue 30: open sessions are closed this many hours after their start; null: never.
    autoClockOutAfterHours: row.auto_clock_out_after_hours,
    // Issue 35: the personal web clock.
    webClock: row.web_clock === 1 ? 'on' : 'off',
  };
}

function companyOf(view: {
  id: string;
  name: string;
  timeZone: string | null;
  timeTracking: string;
  apiAccess: string;
  workweekStart: string;
  dailyOvertimeAfter: number | null;
  workingTimeRules: string;
  lateGraceMinutes: number;
  noShowAfterMinutes: number;
  rounding: string;
  roundingMinutes: number;
  autoClockOutAfterHours: number | null;
  webClock: string;
}) {
  return {
    id: view.id,
    name: view.name,
    timeZone: view.timeZone,
    timeTracking: view.timeTracking === 'on',
    apiAccess: view.apiAccess === 'on',
    workweekStart: view.workweekStart,
    dailyOvertimeHours: view.dailyOvertimeAfter,
    workingTimeRules: view.workingTimeRules,
    lateGraceMinutes: view.lateGraceMinutes,
    noShowAfterMinutes: view.noShowAfterMinutes,
    rounding: view.rounding,
    roundingMinutes: view.roundingMinutes,
    autoClockOutAfterHours: view.autoClockOutAfterHours,
    webClock: view.webClock === 'on',
  };
}

export async function getCompany(ctx: AppContext, person: ConsolePerson) {
  const row = await requireCompany(ctx.database.db, person.companyId);
  return {
    id: row.id,
    name: row.name,
    timeZone: row.time_zone,
    timeTracking: row.time_tracking === 1,
    apiAccess: row.api_access === 1,
    workweekStart: row.workweek_start,
    dailyOvertimeHours:
      row.daily_overtime_after_seconds === null ? null : row.daily_overtime_after_seconds / 3600,
    workingTimeRules: row.working_time_rules,
    ...attendanceSettingsView(row),
    autoClockOutAfterHours: row.auto_clock_out_after_hours,
    webClock: row.web_clock === 1,
  };
}

/** Changes the person's own company (always theirs: no company id is taken from the request). */
export function changeCompany(
  ctx: AppContext,
  person: ConsolePerson,
  body: {
    timeZone?: string | null;
    timeTracking?: boolean;
    apiAccess?: boolean;
    workweekStart?: string;
    dailyOvertimeHours?: number | null;
    workingTimeRules?: string;
    lateGraceMinutes?: number;
    noShowAfterMinutes?: number;
    rounding?: string;
    roundingMinutes?: number;
    autoClockOutAfterHours?: number | null;
    webClock?: boolean;
  },
) {
  if (typeof body.timeZone === 'string') checkField('timeZone', () => requireTimeZone(body.timeZone!));
  if (typeof body.dailyOvertimeHours === 'number')
    checkField('dailyOvertimeHours', () => requireDailyThreshold(String(body.dailyOvertimeHours)));
  return inTransaction(ctx, async (tx, now) =>
    companyOf(
      await updateCompany(
        tx,
        now,
        person.companyId,
        {
          ...(body.timeZone !== undefined
            ? { timeZone: body.timeZone === null ? 'none' : body.timeZone }
            : {}),
          ...(body.timeTracking !== undefined ? { timeTracking: body.timeTracking ? 'on' : 'off' } : {}),
          ...(body.apiAccess !== undefined ? { apiAccess: body.apiAccess ? 'on' : 'off' } : {}),
          // The CLI's own checks of the timesheet settings (`company update --workweek-start …`).
          ...(body.workweekStart !== undefined ? { workweekStart: body.workweekStart } : {}),
          ...(body.dailyOvertimeHours !== undefined
            ? {
                dailyOvertimeAfter:
                  body.dailyOvertimeHours === null ? 'none' : String(body.dailyOvertimeHours),
              }
            : {}),
          ...(body.workingTimeRules !== undefined ? { workingTimeRules: body.workingTimeRules } : {}),
          ...attendanceSettingsInput(body),
          ...(body.autoClockOutAfterHours !== undefined
            ? {
                autoClockOutAfter:
                  body.autoClockOutAfterHours === null ? 'none' : String(body.autoClockOutAfterHours),
              }
            : {}),
          ...(body.webClock !== undefined ? { webClock: body.webClock ? 'on' : 'off' } : {}),
        },
        actorOf(person),
      ),
    ),
  );
}

export async function listWorkplaces(ctx: AppContext, person: ConsolePerson) {
  const rows = await listWorkplacesOfCompany(ctx.database.db, person.companyId);
  return {
    items: rows.map((row) => ({
      id: row.id,
      name: row.name,
      timeZone: row.time_zone,
      webClockAllowedIps:
        row.web_clock_allowed_ips === null || row.web_clock_allowed_ips === ''
          ? null
          : row.web_clock_allowed_ips.split(','),
      kioskBadgeOnly: row.kiosk_badge_only === 1,
    })),
  };
}

export async function listSchedules(ctx: AppContext, person: ConsolePerson) {
  const rows = await listSchedulesOfCompany(ctx.database.db, person.companyId);
  return { items: rows.map((row) => ({ id: row.id, name: row.name, weeklyHours: row.weekly_hours })) };
}
