import { assertTypeChangeOpen } from './closed-days.js';
import { ApiError, type FieldError, validationError } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { isUniqueViolation, type Executor, type Tx } from '../../platform/db/database.js';
import { recordAudit } from '../audit/queries.js';
import type { Actor } from '../context.js';
import {
  type AbsenceTypeRow,
  findType,
  findTypeById,
  insertTypes,
  listTypes,
  updateType,
} from './calendar.queries.js';
import { ABSENCE_CATEGORIES, ABSENCE_UNITS, type AbsenceTypeView, MONTH_DAY, TYPE_CODE } from './schemas.js';

/*
 * Absence types (issue 31): per company, unique code. New companies get vacation (days, paid, counts
 * as work time, needs approval, deducts, 0 days a year until set, no carry-over, no negative), sick
 * (paid, counts as work time, no approval, no balance) and unpaid (unpaid, does not count, needs
 * approval, no balance). The same rules serve the CLI, the console and the API.
 */

/** Who changes a type, as the audit log records it. */
export type AuditActor = Actor;

export function typeView(row: AbsenceTypeRow): AbsenceTypeView {
  return {
    id: row.id,
    code: row.code,
    name: row.name,
    category: row.category as AbsenceTypeView['category'],
    unit: row.unit as AbsenceTypeView['unit'],
    paid: row.paid === 1,
    countsAsWorkTime: row.counts_as_work_time === 1,
    requiresApproval: row.requires_approval === 1,
    deductsFromBalance: row.deducts_from_balance === 1,
    yearlyEntitlementDays: Number(row.yearly_entitlement_days),
    allowNegative: row.allow_negative === 1,
    carryOverMaxDays: Number(row.carry_over_max_days),
    carryOverExpiresOn: row.carry_over_expires_on,
  };
}

const DEFAULTS = [
  { code: 'vacation', name: 'Vacation', category: 'vacation', paid: 1, counts: 1, approval: 1, deducts: 1 },
  { code: 'sick', name: 'Sick leave', category: 'sick', paid: 1, counts: 1, approval: 0, deducts: 0 },
  { code: 'unpaid', name: 'Unpaid leave', category: 'unpaid', paid: 0, counts: 0, approval: 1, deducts: 0 },
] as const;

/** Gives a new company the default types (createCompany calls this in its transaction). */
export async function createDefaultAbsenceTypes(tx: Tx, companyId: string, at: string): Promise<void> {
  await insertTypes(
    tx,
    DEFAULTS.map((d) => ({
      id: newId(),
      company_id: companyId,
      code: d.code,
      name: d.name,
      category: d.category,
      unit: 'days',
      paid: d.paid,
      counts_as_work_time: d.counts,
      requires_approval: d.approval,
      deducts_from_balance: d.deducts,
      yearly_entitlement_days: 0,
      allow_negative: 0,
      carry_over_max_days: 0,
      carry_over_expires_on: null,
      created_at: at,
      updated_at: at,
    })),
  );
}

export async function listAbsenceTypes(db: Executor, companyId: string) {
  return { items: (await listTypes(db, companyId)).map(typeView) };
}

/** Input of `absence-type create|update` (flags as text) and of the console (typed values). */
export interface TypeInput {
  code?: string;
  name?: string;
  category?: string;
  unit?: string;
  paid?: boolean | string;
  countsAsWorkTime?: boolean | string;
  requiresApproval?: boolean | string;
  deductsFromBalance?: boolean | string;
  yearlyEntitlementDays?: number | string;
  allowNegative?: boolean | string;
  carryOverMaxDays?: number | string;
  carryOverExpiresOn?: string | null;
}

type Patch = Record<string, string | number | null>;

function flag(value: boolean | string, field: string, errors: FieldError[]): number | undefined {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value === 'on' || value === 'off') return value === 'on' ? 1 : 0;
  errors.push({ field, message: 'must be on or off', code: 'enum' });
  return undefined;
}

function days(value: number | string, field: string, errors: FieldError[]): number | undefined {
  const n = typeof value === 'number' ? value : /^\d{1,3}(\.\d{1,2})?$/.test(value) ? Number(value) : NaN;
  if (Number.isFinite(n) && n >= 0 && n <= 366) return Math.round(n * 100) / 100;
  errors.push({
    field,
    message: 'must be a number of days from 0 to 366 (two decimals at most)',
    code: 'range',
  });
  return undefined;
}

function choice(value: string, allowed: readonly string[], field: string, errors: FieldError[]) {
  if (allowed.includes(value)) return value;
  errors.push({ field, message: `must be one of ${allowed.join(', ')}`, code: 'enum' });
  return undefined;
}

function text(value: string, field: string, errors: FieldError[], pattern?: RegExp): string | undefined {
  const trimmed = value.trim();
  if (
    trimmed === '' ||
    trimmed.length > 100 ||
    trimmed.includes('\u0000') ||
    (pattern && !pattern.test(trimmed))
  ) {
    errors.push({
      field,
      message: pattern
        ? 'must be lower-case letters, digits, - or _ (at most 32, a letter first)'
        : 'must be 1 to 100 characters',
      code: 'format',
    });
    return undefined;
  }
  return trimmed;
}

/** Every field sent, checked (each refusal names its field) and as columns. */
export function typePatch(input: TypeInput): Patch {
  const errors: FieldError[] = [];
  const patch: Patch = {};
  const set = (column: string, value: string | number | null | undefined) => {
    if (value !== undefined) patch[column] = value;
  };
  if (input.code !== undefined) set('code', text(input.code, 'code', errors, new RegExp(TYPE_CODE)));
  if (input.name !== undefined) set('name', text(input.name, 'name', errors));
  if (input.category !== undefined)
    set('category', choice(input.category, ABSENCE_CATEGORIES, 'category', errors));
  if (input.unit !== undefined) set('unit', choice(input.unit, ABSENCE_UNITS, 'unit', errors));
  if (input.paid !== undefined) set('paid', flag(input.paid, 'paid', errors));
  if (input.countsAsWorkTime !== undefined)
    set('counts_as_work_time', flag(input.countsAsWorkTime, 'countsAsWorkTime', errors));
  if (input.requiresApproval !== undefined)
    set('requires_approval', flag(input.requiresApproval, 'requiresApproval', errors));
  if (input.deductsFromBalance !== undefined)
    set('deducts_from_balance', flag(input.deductsFromBalance, 'deductsFromBalance', errors));
  if (input.yearlyEntitlementDays !== undefined)
    set('yearly_entitlement_days', days(input.yearlyEntitlementDays, 'yearlyEntitlementDays', errors));
  if (input.allowNegative !== undefined)
    set('allow_negative', flag(input.allowNegative, 'allowNegative', errors));
  if (input.carryOverMaxDays !== undefined)
    set('carry_over_max_days', days(input.carryOverMaxDays, 'carryOverMaxDays', errors));
  if (input.carryOverExpiresOn !== undefined)
    set('carry_over_expires_on', expiry(input.carryOverExpiresOn, errors));
  if (errors.length > 0) throw validationError(errors);
  return patch;
}

function expiry(value: string | null, errors: FieldError[]): string | null | undefined {
  if (value === null || value === 'none') return null;
  if (
    new RegExp(MONTH_DAY).test(value) &&
    !['02-30', '02-31', '04-31', '06-31', '09-31', '11-31'].includes(value)
  )
    return value;
  errors.push({
    field: 'carryOverExpiresOn',
    message: 'must be MM-DD (e.g. 03-31), or none',
    code: 'format',
  });
  return undefined;
}

function conflict(code: unknown): ApiError {
  return new ApiError('already_exists', `the company already has an absence type ${String(code)}`);
}

export async function createAbsenceType(
  tx: Tx,
  now: number,
  companyId: string,
  input: TypeInput,
  actor: AuditActor,
) {
  const missing = (['code', 'name', 'category'] as const).filter((field) => input[field] === undefined);
  if (missing.length > 0)
    throw validationError(missing.map((field) => ({ field, message: 'is required', code: 'required' })));
  const patch = typePatch({
    unit: 'days',
    paid: true,
    countsAsWorkTime: false,
    requiresApproval: true,
    deductsFromBalance: false,
    ...input,
  });
  if (await findType(tx, companyId, { code: String(patch.code) })) throw conflict(patch.code);
  const at = new Date(now).toISOString();
  const row = {
    id: newId(),
    company_id: companyId,
    yearly_entitlement_days: 0,
    allow_negative: 0,
    carry_over_max_days: 0,
    carry_over_expires_on: null,
    ...patch,
    created_at: at,
    updated_at: at,
  } as AbsenceTypeRow;
  try {
    await insertTypes(tx, [row]);
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(patch.code);
    throw error;
  }
  await audit(tx, companyId, actor, 'absence_type.create', row.id, patch, at);
  return typeView(row);
}

export async function updateAbsenceType(
  tx: Tx,
  now: number,
  companyId: string | null,
  typeId: string,
  input: TypeInput,
  actor: AuditActor,
) {
  const { code: _code, ...changeable } = input;
  const patch = typePatch(changeable);
  const existing = await findTypeAnywhere(tx, companyId, typeId);
  const at = new Date(now).toISOString();
  if (patch.counts_as_work_time !== undefined && patch.counts_as_work_time !== existing.counts_as_work_time)
    await assertTypeChangeOpen(tx, existing.id, `countsAsWorkTime of ${existing.code}`);
  if (Object.keys(patch).length > 0) {
    await updateType(tx, existing.id, { ...patch, updated_at: at });
    await audit(tx, existing.company_id, actor, 'absence_type.update', existing.id, patch, at);
  }
  return typeView((await findType(tx, existing.company_id, { id: existing.id }))!);
}

/** The type by id, in `companyId` when given (the CLI names none: the id says which company). */
async function findTypeAnywhere(tx: Tx, companyId: string | null, typeId: string) {
  const id = typeId.toLowerCase();
  const row = companyId === null ? await findTypeById(tx, id) : await findType(tx, companyId, { id });
  if (!row) throw new ApiError('not_found', `unknown absence type ${typeId}`);
  return row;
}

async function audit(
  tx: Tx,
  companyId: string,
  actor: AuditActor,
  action: string,
  id: string,
  details: Patch,
  at: string,
) {
  await recordAudit(tx, {
    companyId,
    actorType: actor.type,
    actorId: actor.id,
    action,
    targetType: 'absence_type',
    targetId: id,
    details,
    at,
  });
}
