import type { Executor } from '../../db/database.js';
import { recordAudit } from '../../db/repositories/audit-log.js';
import { newId } from '../../ids.js';
import { CLI_ACTOR, isoNow, type UseCaseContext } from '../context.js';
import { companyView } from '../views.js';
import { invalid, notFound, requireOnOff, requireText, requireTimeZone, requireUuid } from './validation.js';

export async function requireCompany(db: Executor, companyId: string) {
  const id = requireUuid(companyId, 'company id');
  const company = await db.selectFrom('companies').selectAll().where('id', '=', id).executeTakeFirst();
  if (!company) throw notFound('company', companyId);
  return company;
}

export async function createCompany(
  ctx: UseCaseContext,
  input: { name: string; timeZone?: string; timeTracking?: string; apiAccess?: string },
) {
  const name = requireText(input.name, 'name');
  const timeZone = input.timeZone === undefined ? null : requireTimeZone(input.timeZone);
  const timeTracking =
    input.timeTracking === undefined ? true : requireOnOff(input.timeTracking, 'time tracking');
  const apiAccess = input.apiAccess === undefined ? true : requireOnOff(input.apiAccess, 'api access');
  const at = isoNow(ctx);
  const row = {
    id: newId(),
    name,
    time_zone: timeZone,
    time_tracking: timeTracking ? 1 : 0,
    api_access: apiAccess ? 1 : 0,
    created_at: at,
    updated_at: at,
  };
  await ctx.store.transaction(async (trx) => {
    await trx.insertInto('companies').values(row).execute();
    await recordAudit(trx, {
      ...auditBase(row.id, at),
      action: 'company.create',
      targetType: 'company',
      targetId: row.id,
    });
  });
  return companyView(row);
}

export async function updateCompany(
  ctx: UseCaseContext,
  companyId: string,
  input: { name?: string; timeZone?: string; timeTracking?: string; apiAccess?: string },
) {
  const patch: Record<string, unknown> = {};
  if (input.name !== undefined) patch.name = requireText(input.name, 'name');
  if (input.timeZone !== undefined)
    patch.time_zone = input.timeZone === 'none' ? null : requireTimeZone(input.timeZone);
  if (input.timeTracking !== undefined)
    patch.time_tracking = requireOnOff(input.timeTracking, 'time tracking') ? 1 : 0;
  if (input.apiAccess !== undefined) patch.api_access = requireOnOff(input.apiAccess, 'api access') ? 1 : 0;
  const at = isoNow(ctx);
  return ctx.store.transaction(async (trx) => {
    const company = await requireCompany(trx, companyId);
    if (Object.keys(patch).length > 0) {
      await trx
        .updateTable('companies')
        .set({ ...patch, updated_at: at })
        .where('id', '=', company.id)
        .execute();
      await recordAudit(trx, {
        ...auditBase(company.id, at),
        action: 'company.update',
        targetType: 'company',
        targetId: company.id,
        details: patch,
      });
    }
    return companyView(await requireCompany(trx, company.id));
  });
}

export async function createWorkplace(
  ctx: UseCaseContext,
  input: { companyId: string; name: string; timeZone?: string },
) {
  const name = requireText(input.name, 'name');
  const timeZone = input.timeZone === undefined ? null : requireTimeZone(input.timeZone);
  const at = isoNow(ctx);
  return ctx.store.transaction(async (trx) => {
    const company = await requireCompany(trx, input.companyId);
    const row = { id: newId(), company_id: company.id, name, time_zone: timeZone, created_at: at };
    await trx.insertInto('workplaces').values(row).execute();
    await recordAudit(trx, {
      ...auditBase(company.id, at),
      action: 'workplace.create',
      targetType: 'workplace',
      targetId: row.id,
    });
    return { id: row.id, companyId: company.id, name, timeZone };
  });
}

export async function createSchedule(
  ctx: UseCaseContext,
  input: { companyId: string; name: string; weeklyHours?: string },
) {
  const name = requireText(input.name, 'name');
  let weeklyHours: number | null = null;
  if (input.weeklyHours !== undefined) {
    weeklyHours = Number(input.weeklyHours);
    if (!/^\d+(\.\d+)?$/.test(input.weeklyHours) || weeklyHours > 168)
      throw invalid('weekly hours must be a number from 0 to 168');
  }
  const at = isoNow(ctx);
  return ctx.store.transaction(async (trx) => {
    const company = await requireCompany(trx, input.companyId);
    const row = { id: newId(), company_id: company.id, name, weekly_hours: weeklyHours, created_at: at };
    await trx.insertInto('schedules').values(row).execute();
    await recordAudit(trx, {
      ...auditBase(company.id, at),
      action: 'schedule.create',
      targetType: 'schedule',
      targetId: row.id,
    });
    return { id: row.id, companyId: company.id, name };
  });
}

export function auditBase(companyId: string | null, at: string) {
  return { companyId, actorType: CLI_ACTOR.type, actorId: CLI_ACTOR.id, at };
}
