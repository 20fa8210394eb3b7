import type { Tx } from '../../db/database.js';
import { isUniqueViolation } from '../../db/database.js';
import { recordAudit } from '../../db/repositories/audit-log.js';
import { findEmployeeByExternalId, findLatestScheduleId } from '../../db/repositories/employees.js';
import type { EmployeeRow } from '../../db/schema.js';
import { addDays, todayIn } from '../../domain/time-zone.js';
import { ApiError } from '../../errors.js';
import { newId } from '../../ids.js';
import { isoNow, type UseCaseContext } from '../context.js';
import { employeeListItem } from '../views.js';
import { auditBase, requireCompany } from './companies.js';
import { invalid, notFound, requireDate, requireEmail, requireText, requireUuid } from './validation.js';

export const EMPLOYEE_STATUSES = ['active', 'inactive', 'on_leave', 'suspended', 'terminated'] as const;
export const EXTERNAL_ID_MAX = 64;
const DEFAULT_SCHEDULE_LOOKBACK_DAYS = 60;

export interface EmployeeInput {
  email?: string;
  firstName?: string;
  lastName?: string;
  status?: string;
  externalId?: string;
  workplace?: string;
  schedule?: string;
  scheduleFrom?: string;
  department?: string;
  position?: string;
}

function optionalName(value: string | undefined, what: string): string | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'none' || value.trim() === '') return null;
  return requireText(value, what);
}

function optionalGuid(value: string | undefined, what: string): string | null | undefined {
  if (value === undefined) return undefined;
  return value === 'none' ? null : requireUuid(value, what);
}

function requireStatus(value: string): string {
  if (!(EMPLOYEE_STATUSES as readonly string[]).includes(value))
    throw invalid(`status must be one of ${EMPLOYEE_STATUSES.join(', ')}`);
  return value;
}

export function checkExternalId(value: string): string {
  if (value.length > EXTERNAL_ID_MAX)
    throw invalid(`external id must be at most ${EXTERNAL_ID_MAX} characters`);
  return value;
}

async function employeeView(trx: Tx, row: EmployeeRow) {
  return {
    ...employeeListItem(row),
    companyId: row.company_id,
    workplaceId: row.workplace_id,
    scheduleId: await findLatestScheduleId(trx, row.id),
  };
}

async function requireEmployeeRow(trx: Tx, employeeId: string) {
  const id = requireUuid(employeeId, 'employee id');
  const row = await trx
    .selectFrom('employees')
    .selectAll()
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!row) throw notFound('employee', employeeId);
  return row;
}

async function applyEmployeeInput(
  trx: Tx,
  companyId: string,
  input: EmployeeInput,
  at: string,
  timeZone: string | null,
) {
  const patch: Record<string, unknown> = {};
  if (input.email !== undefined) patch.email = requireEmail(input.email);
  const first = optionalName(input.firstName, 'first name');
  if (first !== undefined) patch.first_name = first;
  const last = optionalName(input.lastName, 'last name');
  if (last !== undefined) patch.last_name = last;
  if (input.status !== undefined) patch.status = requireStatus(input.status);
  if (input.externalId !== undefined)
    patch.external_id =
      input.externalId === 'none' || input.externalId === '' ? null : checkExternalId(input.externalId);
  const department = optionalGuid(input.department, 'department');
  if (department !== undefined) patch.department_id = department;
  const position = optionalGuid(input.position, 'position');
  if (position !== undefined) patch.position_id = position;
  if (input.workplace !== undefined) {
    if (input.workplace === 'none') patch.workplace_id = null;
    else {
      const id = requireUuid(input.workplace, 'workplace id');
      const workplace = await trx
        .selectFrom('workplaces')
        .select('id')
        .where('id', '=', id)
        .where('company_id', '=', companyId)
        .executeTakeFirst();
      if (!workplace) throw notFound('workplace in this company', input.workplace);
      patch.workplace_id = id;
    }
  }
  let schedule: { id: string | null; from: string } | undefined;
  if (input.scheduleFrom !== undefined && input.schedule === undefined)
    throw invalid('--schedule-from needs --schedule');
  if (input.schedule !== undefined) {
    const from =
      input.scheduleFrom !== undefined
        ? requireDate(input.scheduleFrom, 'schedule-from')
        : addDays(todayIn(timeZone, Date.parse(at)), -DEFAULT_SCHEDULE_LOOKBACK_DAYS);
    if (input.schedule === 'none') schedule = { id: null, from };
    else {
      const id = requireUuid(input.schedule, 'schedule id');
      const found = await trx
        .selectFrom('schedules')
        .select('id')
        .where('id', '=', id)
        .where('company_id', '=', companyId)
        .executeTakeFirst();
      if (!found) throw notFound('schedule in this company', input.schedule);
      schedule = { id, from };
    }
  }
  return { patch, schedule };
}

async function assertExternalIdFree(trx: Tx, companyId: string, externalId: unknown, selfId: string | null) {
  if (typeof externalId !== 'string') return;
  const holder = await findEmployeeByExternalId(trx, companyId, externalId);
  if (holder && holder.id !== selfId)
    throw new ApiError(
      'already_exists',
      `external id ${externalId} is already held by employee ${holder.id}`,
    );
}

async function assignSchedule(
  trx: Tx,
  employeeId: string,
  schedule: { id: string | null; from: string },
  at: string,
) {
  if (schedule.id === null) {
    await trx.deleteFrom('employee_schedules').where('employee_id', '=', employeeId).execute();
    return;
  }
  // A new assignment replaces any that would start on or after it; earlier ones stay as history.
  await trx
    .deleteFrom('employee_schedules')
    .where('employee_id', '=', employeeId)
    .where('effective_from', '>=', schedule.from)
    .execute();
  await trx
    .insertInto('employee_schedules')
    .values({
      id: newId(),
      employee_id: employeeId,
      schedule_id: schedule.id,
      effective_from: schedule.from,
      created_at: at,
    })
    .execute();
}

function translateUniqueViolation(error: unknown, externalId: unknown): never {
  if (isUniqueViolation(error))
    throw new ApiError(
      'already_exists',
      `external id ${String(externalId)} is already held by another employee`,
    );
  throw error;
}

export async function createEmployee(ctx: UseCaseContext, companyId: string, input: EmployeeInput) {
  if (input.email === undefined) throw invalid('--email is required');
  const at = isoNow(ctx);
  return ctx.store
    .transaction(async (trx) => {
      const company = await requireCompany(trx, companyId);
      const { patch, schedule } = await applyEmployeeInput(trx, company.id, input, at, company.time_zone);
      await assertExternalIdFree(trx, company.id, patch.external_id, null);
      const row = {
        id: newId(),
        company_id: company.id,
        email: patch.email as string,
        first_name: (patch.first_name as string | null | undefined) ?? null,
        last_name: (patch.last_name as string | null | undefined) ?? null,
        status: (patch.status as string | undefined) ?? 'active',
        external_id: (patch.external_id as string | null | undefined) ?? null,
        department_id: (patch.department_id as string | null | undefined) ?? null,
        position_id: (patch.position_id as string | null | undefined) ?? null,
        workplace_id: (patch.workplace_id as string | null | undefined) ?? null,
        created_at: at,
        updated_at: at,
        deleted_at: null,
      };
      await trx.insertInto('employees').values(row).execute();
      if (schedule) await assignSchedule(trx, row.id, schedule, at);
      await recordAudit(trx, {
        ...auditBase(company.id, at),
        action: 'employee.create',
        targetType: 'employee',
        targetId: row.id,
      });
      return employeeView(trx, row);
    })
    .catch((error: unknown) => translateUniqueViolation(error, input.externalId));
}

export async function updateEmployee(ctx: UseCaseContext, employeeId: string, input: EmployeeInput) {
  const at = isoNow(ctx);
  return ctx.store
    .transaction(async (trx) => {
      const existing = await requireEmployeeRow(trx, employeeId);
      const company = await requireCompany(trx, existing.company_id);
      const { patch, schedule } = await applyEmployeeInput(trx, company.id, input, at, company.time_zone);
      await assertExternalIdFree(trx, company.id, patch.external_id, existing.id);
      if (Object.keys(patch).length > 0)
        await trx
          .updateTable('employees')
          .set({ ...patch, updated_at: at })
          .where('id', '=', existing.id)
          .execute();
      if (schedule) await assignSchedule(trx, existing.id, schedule, at);
      await recordAudit(trx, {
        ...auditBase(company.id, at),
        action: 'employee.update',
        targetType: 'employee',
        targetId: existing.id,
        details: { ...patch, ...(schedule ? { schedule } : {}) },
      });
      return employeeView(trx, await requireEmployeeRow(trx, existing.id));
    })
    .catch((error: unknown) => translateUniqueViolation(error, input.externalId));
}

export async function deleteEmployee(ctx: UseCaseContext, employeeId: string) {
  const at = isoNow(ctx);
  return ctx.store.transaction(async (trx) => {
    const existing = await requireEmployeeRow(trx, employeeId);
    await trx
      .updateTable('employees')
      .set({ deleted_at: at, updated_at: at })
      .where('id', '=', existing.id)
      .execute();
    await recordAudit(trx, {
      ...auditBase(existing.company_id, at),
      action: 'employee.delete',
      targetType: 'employee',
      targetId: existing.id,
    });
    return { id: existing.id, deleted: true as const };
  });
}
