import type { Executor } from '../../platform/db/database.js';
import { recordAudit } from '../audit/queries.js';
import { newId } from '../../domain/ids.js';
import { isWeekday, WEEKDAYS } from '../../domain/timesheets/overtime.js';
import { isRulePack, RULE_PACKS } from '../../domain/timesheets/rules.js';
import { type Actor, CLI_ACTOR } from '../context.js';
import type { Tx } from '../../platform/db/database.js';
import { companyView } from '../views.js';
import { invalid, notFound, requireOnOff, requireText, requireTimeZone, requireUuid } from './validation.js';

/** A new company's timesheet settings: weeks start on Monday, no daily threshold, no rule pack. */
const TIMESHEET_DEFAULTS = {
  workweek_start: 'monday',
  daily_overtime_after_seconds: null,
  working_time_rules: 'none',
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
  },
  actor?: Actor,
) {
  const patch: Record<string, unknown> = {};
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
  const at = new Date(now).toISOString();
  const company = await requireCompany(tx, companyId);
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

/** Who did it: the CLI's operator unless the caller says (the console passes the signed-in person). */
export function auditBase(companyId: string | null, at: string, actor: Actor = CLI_ACTOR) {
  return { companyId, actorType: actor.type, actorId: actor.id, at };
}
