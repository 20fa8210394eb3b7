import { ApiError, validationError } from '../../domain/errors.js';
import { isUuid } from '../../domain/ids.js';
import { findScheduleOfCompany, findWorkplaceOfCompany } from '../companies/queries.js';
import { type AppContext, actorOf, inTransaction } from '../context.js';
import {
  type EmployeeInput,
  createEmployee,
  deleteEmployee,
  employeeFieldErrors,
  updateEmployee,
} from './changes.js';
import { findEmployeeDetail, findEmployeeOfCompany } from './queries.js';
import { type Executor } from '../../platform/db/database.js';
import { notInYourCompany } from '../../shared/input-checks.js';
import { type ConsolePerson } from '../people/person.js';
/*
 * The employee operations for a person of one company (the admin API): the CLI's own operations
 * (changes.ts), run only after making sure the employee, workplace and schedule named belong to the
 * person's company; each refusal names its field. Another company's employee is 404, like an unknown id.
 */

export async function requireOwnEmployee(
  db: Parameters<typeof findEmployeeOfCompany>[0],
  person: ConsolePerson,
  id: string,
) {
  const employee = await findEmployeeOfCompany(db, person.companyId, id.toLowerCase());
  if (!employee) throw notInYourCompany('employee');
  return employee;
}

async function employeeDetail(db: Executor, person: ConsolePerson, id: string) {
  const row = isUuid(id) ? await findEmployeeDetail(db, person.companyId, id.toLowerCase()) : undefined;
  if (!row) throw notInYourCompany('employee');
  return {
    id: row.id,
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    externalId: row.external_id,
    status: row.status,
    workplaceId: row.workplace_id,
    scheduleId: row.schedule_id,
    scheduleFrom: row.schedule_from,
    hiredOn: row.hired_on,
    leftOn: row.left_on,
  };
}

export function getEmployee(ctx: AppContext, person: ConsolePerson, id: string) {
  return employeeDetail(ctx.database.db, person, id);
}

/** An employee as the console sends it (ids or null for none); the CLI's flags take "none" for null. */
export interface EmployeeBody {
  email?: string;
  firstName?: string | null;
  lastName?: string | null;
  status?: string;
  externalId?: string | null;
  workplaceId?: string | null;
  scheduleId?: string | null;
  scheduleFrom?: string;
  hiredOn?: string | null;
  leftOn?: string | null;
}

/** The console's field names for EmployeeInput's. */
const FIELD_NAMES: Record<keyof EmployeeInput, string> = {
  email: 'email',
  firstName: 'firstName',
  lastName: 'lastName',
  status: 'status',
  externalId: 'externalId',
  workplace: 'workplaceId',
  schedule: 'scheduleId',
  scheduleFrom: 'scheduleFrom',
  department: 'departmentId',
  position: 'positionId',
  hiredOn: 'hiredOn',
  leftOn: 'leftOn',
};

function toInput(body: EmployeeBody): EmployeeInput {
  const input: EmployeeInput = {};
  if (body.email !== undefined) input.email = body.email;
  if (body.firstName !== undefined) input.firstName = body.firstName ?? 'none';
  if (body.lastName !== undefined) input.lastName = body.lastName ?? 'none';
  if (body.status !== undefined) input.status = body.status;
  if (body.externalId !== undefined) input.externalId = body.externalId ?? 'none';
  if (body.workplaceId !== undefined) input.workplace = body.workplaceId ?? 'none';
  if (body.scheduleId !== undefined) input.schedule = body.scheduleId ?? 'none';
  if (body.scheduleFrom !== undefined) input.scheduleFrom = body.scheduleFrom;
  if (body.hiredOn !== undefined) input.hiredOn = body.hiredOn ?? 'none';
  if (body.leftOn !== undefined) input.leftOn = body.leftOn ?? 'none';
  return input;
}

/**
 * The CLI's checks, field by field (422 naming each field), then that the workplace and schedule
 * named are the company's own (422 on the field: the body names them, the URL does not).
 */
async function checkEmployeeInput(
  db: Executor,
  person: ConsolePerson,
  input: EmployeeInput,
  creating: boolean,
) {
  const errors: { field: string; message: string; code: string }[] = employeeFieldErrors(input).map((e) => ({
    field: FIELD_NAMES[e.field],
    message: e.message,
    code: 'invalid',
  }));
  if (creating && input.email === undefined)
    errors.unshift({ field: 'email', message: 'is required', code: 'required' });
  const named = errors.map((e) => e.field);
  if (input.workplace && input.workplace !== 'none' && !named.includes('workplaceId'))
    if (!(await findWorkplaceOfCompany(db, person.companyId, input.workplace.toLowerCase())))
      errors.push({ field: 'workplaceId', message: 'no such workplace in your company', code: 'not_found' });
  if (input.schedule && input.schedule !== 'none' && !named.includes('scheduleId'))
    if (!(await findScheduleOfCompany(db, person.companyId, input.schedule.toLowerCase())))
      errors.push({ field: 'scheduleId', message: 'no such schedule in your company', code: 'not_found' });
  if (errors.length > 0) throw validationError(errors);
}

/** 409 already_exists (an external id another employee holds) names its field for the console. */
function withExternalIdField(error: unknown): never {
  if (error instanceof ApiError && error.errorName === 'already_exists')
    throw new ApiError('already_exists', error.detail ?? error.message, [
      { field: 'externalId', message: error.detail ?? error.message, code: 'taken' },
    ]);
  throw error;
}

export async function createEmployeeOf(ctx: AppContext, person: ConsolePerson, body: EmployeeBody) {
  const input = toInput(body);
  await checkEmployeeInput(ctx.database.db, person, input, true);
  try {
    return await inTransaction(ctx, async (tx, now) => {
      const created = await createEmployee(tx, now, person.companyId, input, actorOf(person));
      return employeeDetail(tx, person, created.id);
    });
  } catch (error) {
    withExternalIdField(error);
  }
}

export async function updateEmployeeOf(
  ctx: AppContext,
  person: ConsolePerson,
  id: string,
  body: EmployeeBody,
) {
  const input = toInput(body);
  await employeeDetail(ctx.database.db, person, id);
  await checkEmployeeInput(ctx.database.db, person, input, false);
  try {
    return await inTransaction(ctx, async (tx, now) => {
      const own = await employeeDetail(tx, person, id);
      await updateEmployee(tx, now, own.id, input, actorOf(person));
      return employeeDetail(tx, person, own.id);
    });
  } catch (error) {
    withExternalIdField(error);
  }
}

export function deleteEmployeeOf(ctx: AppContext, person: ConsolePerson, id: string) {
  return inTransaction(ctx, async (tx, now) => {
    const own = await employeeDetail(tx, person, id);
    await deleteEmployee(tx, now, own.id, actorOf(person));
  });
}
