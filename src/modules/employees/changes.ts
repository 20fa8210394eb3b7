import { ApiError } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { addDays, todayIn } from '../../domain/time-zone.js';
import { auditBase, recordAudit } from '../audit/queries.js';
import { requireCompany } from '../companies/service.js';
import { findClosedPeriod } from '../corrections/queries/day-locks.js';
import { type Actor } from '../context.js';
import { findEmployeeByExternalId, findLatestScheduleId } from './queries.js';
import { employeeListItem, employeeRef } from './views.js';
import { appendEvents } from '../events/service.js';
import { type Tx, isUniqueViolation } from '../../platform/db/database.js';
import { type EmployeeRow } from '../../platform/db/schema.js';
import {
  invalid,
  notFound,
  requireDate,
  requireEmail,
  requireText,
  requireUuid,
} from '../../shared/input-checks.js';
import { endInvitationsOfEmployee } from '../people/queries.js';
import { withdrawWaitingRequests } from '../self-service/close-requests.js';

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
  /** Employment dates (issue 31): a date, or none. */
  hiredOn?: string;
  leftOn?: string;
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

function optionalDate(value: string | undefined, what: string): string | null | undefined {
  if (value === undefined) return undefined;
  return value === 'none' || value === '' ? null : requireDate(value, what);
}

/** A leaving date before the hiring date is refused (issue 31). */
function assertEmploymentOrder(hiredOn: string | null, leftOn: string | null): void {
  if (hiredOn !== null && leftOn !== null && leftOn < hiredOn)
    throw invalid('left-on must not be before hired-on');
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

/**
 * The same checks applyEmployeeInput makes, one field at a time, each refusal with its field's name
 * (the console shows it next to the input). Keys are EmployeeInput's; the caller names them its way.
 */
export function employeeFieldErrors(input: EmployeeInput): { field: keyof EmployeeInput; message: string }[] {
  const checks: [keyof EmployeeInput, () => unknown][] = [
    ['email', () => input.email !== undefined && requireEmail(input.email)],
    ['firstName', () => optionalName(input.firstName, 'first name')],
    ['lastName', () => optionalName(input.lastName, 'last name')],
    ['status', () => input.status !== undefined && requireStatus(input.status)],
    [
      'externalId',
      () =>
        input.externalId !== undefined &&
        input.externalId !== 'none' &&
        input.externalId !== '' &&
        checkExternalId(input.externalId),
    ],
    ['workplace', () => input.workplace !== undefined && optionalGuid(input.workplace, 'workplace id')],
    ['schedule', () => input.schedule !== undefined && optionalGuid(input.schedule, 'schedule id')],
    [
      'scheduleFrom',
      () => {
        if (input.scheduleFrom === undefined) return;
        if (input.schedule === undefined) throw invalid('a start date needs a schedule');
        requireDate(input.scheduleFrom, 'schedule-from');
      },
    ],
    ['hiredOn', () => optionalDate(input.hiredOn, 'hired-on')],
    [
      'leftOn',
      () =>
        assertEmploymentOrder(
          optionalDate(input.hiredOn, '') ?? null,
          optionalDate(input.leftOn, 'left-on') ?? null,
        ),
    ],
  ];
  const errors: { field: keyof EmployeeInput; message: string }[] = [];
  for (const [field, check] of checks) {
    try {
      check();
    } catch (error) {
      if (!(error instanceof ApiError) || error.errorName !== 'validation_failed') throw error;
      errors.push({ field, message: error.detail ?? error.message });
    }
  }
  return errors;
}

async function employeeView(tx: Tx, row: EmployeeRow) {
  return {
    ...employeeListItem(row),
    companyId: row.company_id,
    workplaceId: row.workplace_id,
    scheduleId: await findLatestScheduleId(tx, row.id),
  };
}

async function requireEmployeeRow(tx: Tx, employeeId: string) {
  const id = requireUuid(employeeId, 'employee id');
  const row = await tx
    .selectFrom('employees')
    .selectAll()
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!row) throw notFound('employee', employeeId);
  return row;
}

async function applyEmployeeInput(
  tx: Tx,
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
  const hiredOn = optionalDate(input.hiredOn, 'hired-on');
  if (hiredOn !== undefined) patch.hired_on = hiredOn;
  const leftOn = optionalDate(input.leftOn, 'left-on');
  if (leftOn !== undefined) patch.left_on = leftOn;
  if (input.workplace !== undefined) {
    if (input.workplace === 'none') patch.workplace_id = null;
    else {
      const id = requireUuid(input.workplace, 'workplace id');
      const workplace = await tx
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
      const found = await tx
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

async function assertExternalIdFree(tx: Tx, companyId: string, externalId: unknown, selfId: string | null) {
  if (typeof externalId !== 'string') return;
  const holder = await findEmployeeByExternalId(tx, companyId, externalId);
  if (holder && holder.id !== selfId)
    throw new ApiError(
      'already_exists',
      `external id ${externalId} is already held by employee ${holder.id}`,
    );
}

async function assignSchedule(
  tx: Tx,
  employeeId: string,
  schedule: { id: string | null; from: string },
  at: string,
) {
  if (schedule.id === null) {
    await tx.deleteFrom('employee_schedules').where('employee_id', '=', employeeId).execute();
    return;
  }
  // A new assignment replaces any that would start on or after it; earlier ones stay as history.
  await tx
    .deleteFrom('employee_schedules')
    .where('employee_id', '=', employeeId)
    .where('effective_from', '>=', schedule.from)
    .execute();
  await tx
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

export async function createEmployee(
  tx: Tx,
  now: number,
  companyId: string,
  input: EmployeeInput,
  actor?: Actor,
) {
  if (input.email === undefined) throw invalid('--email is required');
  const at = new Date(now).toISOString();
  try {
    const company = await requireCompany(tx, companyId);
    const { patch, schedule } = await applyEmployeeInput(tx, company.id, input, at, company.time_zone);
    await assertExternalIdFree(tx, company.id, patch.external_id, null);
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
      hired_on: (patch.hired_on as string | null | undefined) ?? null,
      left_on: (patch.left_on as string | null | undefined) ?? null,
    };
    assertEmploymentOrder(row.hired_on, row.left_on);
    await tx.insertInto('employees').values(row).execute();
    if (schedule) await assignSchedule(tx, row.id, schedule, at);
    await recordAudit(tx, {
      ...auditBase(company.id, at, actor),
      action: 'employee.create',
      targetType: 'employee',
      targetId: row.id,
    });
    await appendEvents(tx, company.id, [{ type: 'employee.created', data: employeeListItem(row) }], at);
    return employeeView(tx, row);
  } catch (error) {
    translateUniqueViolation(error, input.externalId);
  }
}

/**
 * The days whose employment a new hiring or leaving date changes count as owed or not in timesheets
 * (issue 31): none of them may lie in a closed period (409 day_locked, as for absences).
 */
async function assertEmploymentDaysOpen(
  tx: Tx,
  existing: Pick<EmployeeRow, 'company_id' | 'workplace_id' | 'hired_on' | 'left_on'>,
  next: { hiredOn: string | null; leftOn: string | null },
): Promise<void> {
  const ranges: { from: string; to: string; what: string }[] = [];
  if (next.hiredOn !== existing.hired_on) {
    const [a, b] = [existing.hired_on ?? FIRST_DAY, next.hiredOn ?? FIRST_DAY].sort() as [string, string];
    ranges.push({ from: a, to: addDays(b, -1), what: 'the hiring date' });
  }
  if (next.leftOn !== existing.left_on) {
    const [a, b] = [existing.left_on ?? LAST_DAY, next.leftOn ?? LAST_DAY].sort() as [string, string];
    ranges.push({ from: addDays(a, 1), to: b, what: 'the leaving date' });
  }
  for (const range of ranges) {
    const period = await findClosedPeriod(tx, {
      companyId: existing.company_id,
      workplaceId: existing.workplace_id,
      from: range.from,
      to: range.to,
    });
    if (period)
      throw new ApiError(
        'day_locked',
        `${range.what} would change what the days of the closed period ${period.from_date} to ${period.to_date} owe (locked period ${period.id}); reopen it first`,
      );
  }
}

/** Open ends of employment, as dates that sort before and after every real one. */
const FIRST_DAY = '0001-01-01';
const LAST_DAY = '9999-12-31';

export async function updateEmployee(
  tx: Tx,
  now: number,
  employeeId: string,
  input: EmployeeInput,
  actor?: Actor,
) {
  const at = new Date(now).toISOString();
  try {
    const existing = await requireEmployeeRow(tx, employeeId);
    const company = await requireCompany(tx, existing.company_id);
    const { patch, schedule } = await applyEmployeeInput(tx, company.id, input, at, company.time_zone);
    await assertExternalIdFree(tx, company.id, patch.external_id, existing.id);
    const hiredOn = patch.hired_on !== undefined ? (patch.hired_on as string | null) : existing.hired_on;
    const leftOn = patch.left_on !== undefined ? (patch.left_on as string | null) : existing.left_on;
    assertEmploymentOrder(hiredOn, leftOn);
    await assertEmploymentDaysOpen(tx, existing, { hiredOn, leftOn });
    if (Object.keys(patch).length > 0)
      await tx
        .updateTable('employees')
        .set({ ...patch, updated_at: at })
        .where('id', '=', existing.id)
        .execute();
    if (schedule) await assignSchedule(tx, existing.id, schedule, at);
    await recordAudit(tx, {
      ...auditBase(company.id, at, actor),
      action: 'employee.update',
      targetType: 'employee',
      targetId: existing.id,
      details: { ...patch, ...(schedule ? { schedule } : {}) },
    });
    const updated = await requireEmployeeRow(tx, existing.id);
    await appendEvents(tx, company.id, [{ type: 'employee.updated', data: employeeListItem(updated) }], at);
    return employeeView(tx, updated);
  } catch (error) {
    translateUniqueViolation(error, input.externalId);
  }
}

export async function deleteEmployee(tx: Tx, now: number, employeeId: string, actor?: Actor) {
  const at = new Date(now).toISOString();
  const existing = await requireEmployeeRow(tx, employeeId);
  await tx
    .updateTable('employees')
    .set({ deleted_at: at, updated_at: at })
    .where('id', '=', existing.id)
    .execute();
  await recordAudit(tx, {
    ...auditBase(existing.company_id, at, actor),
    action: 'employee.delete',
    targetType: 'employee',
    targetId: existing.id,
  });
  await appendEvents(
    tx,
    existing.company_id,
    [{ type: 'employee.deleted', data: employeeRef(existing) }],
    at,
  );
  // Their waiting correction requests can never be applied: closed (withdrawn by the system).
  await withdrawWaitingRequests(tx, at, { employeeId: existing.id });
  // Unused invitation links of their persons end too (review 2, #7).
  await endInvitationsOfEmployee(tx, existing.id, at);
  return { id: existing.id, deleted: true as const };
}

/** `employee update --company C`: the employee must belong to C (the flag never moves anyone). */
export async function assertEmployeeInCompany(tx: Tx, employeeId: string, companyId: string) {
  const row = await tx
    .selectFrom('employees')
    .select('company_id')
    .where('id', '=', requireUuid(employeeId, 'employee id'))
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (row && row.company_id !== requireUuid(companyId, 'company id'))
    throw invalid(`employee ${employeeId} does not belong to company ${companyId}`);
}
