import { ApiError, validationError } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { todayIn } from '../../domain/time-zone.js';
import type { Executor, Tx } from '../../platform/db/database.js';
import { recordAudit } from '../audit/queries.js';
import { resolveEmployee } from '../employees/service.js';
import type { LeaveCaller } from './actors.js';
import { typeBalance } from './balances.js';
import { findEmployeeRef, upsertEntitlement } from './queries.js';
import { findType, listTypes } from './calendar.queries.js';

/* Leave balances and entitlements (issue 31; the arithmetic is in balances.ts). */

/** GET /leave-balances: one balance per type that deducts from the balance, of one employee and year. */
export async function leaveBalances(
  db: Executor,
  now: number,
  company: { companyId: string; timeZone: string | null },
  query: { employeeId?: string; externalId?: string; year?: number },
) {
  if ((query.employeeId === undefined) === (query.externalId === undefined))
    throw validationError([
      { field: 'employeeId', message: 'send exactly one of employeeId and externalId', code: 'one_of' },
    ]);
  const found = await resolveEmployee(db, company.companyId, {
    id: query.employeeId ?? null,
    externalId: query.externalId ?? null,
  });
  const employee = (await findEmployeeRef(db, company.companyId, found.id))!;
  const today = todayIn(company.timeZone, now);
  const year = query.year ?? Number(today.slice(0, 4));
  const types = (await listTypes(db, company.companyId)).filter((t) => t.deducts_from_balance === 1);
  const items = [];
  for (const type of types)
    items.push(
      (await typeBalance(db, { companyId: company.companyId, employee, type, year, today })).balance,
    );
  return { employee: { id: employee.id, externalId: employee.external_id }, year, items };
}

/** `leave entitlement set --employee ID --type CODE --year Y --days N`: the days of that year, replacing any. */
export async function setEntitlement(
  tx: Tx,
  now: number,
  caller: LeaveCaller,
  input: { employeeId: string; typeCode: string; year: string | number; days: string | number },
) {
  const year = Number(input.year);
  const days = Number(input.days);
  const errors = [];
  if (!Number.isInteger(year) || year < 2000 || year > 2100)
    errors.push({ field: 'year', message: 'must be a year from 2000 to 2100', code: 'range' });
  if (!/^\d{1,3}(\.\d{1,2})?$/.test(String(input.days)) || days > 366)
    errors.push({
      field: 'days',
      message: 'must be days from 0 to 366 (two decimals at most)',
      code: 'range',
    });
  if (errors.length > 0) throw validationError(errors);
  const employee = await resolveEmployee(tx, caller.companyId, { id: input.employeeId });
  const type = await findType(tx, caller.companyId, { code: input.typeCode });
  if (!type) throw new ApiError('not_found', `the company has no absence type ${input.typeCode}`);
  const at = new Date(now).toISOString();
  await upsertEntitlement(tx, {
    id: newId(),
    company_id: caller.companyId,
    employee_id: employee.id,
    absence_type_id: type.id,
    year,
    days,
    created_at: at,
    updated_at: at,
  });
  await recordAudit(tx, {
    companyId: caller.companyId,
    actorType: caller.audit.type,
    actorId: caller.audit.id,
    action: 'leave.entitlement_set',
    targetType: 'employee',
    targetId: employee.id,
    details: { type: type.code, year, days },
    at,
  });
  return { employeeId: employee.id, type: { id: type.id, code: type.code }, year, days };
}
