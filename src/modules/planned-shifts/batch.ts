import { ApiError, type FieldError, validationError } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { parseInstantWithOffset } from '../../domain/time-zone.js';
import type { Tx } from '../../platform/db/database.js';
import type { PlannedShiftRow } from '../../platform/db/schema.js';
import type { Actor } from '../context.js';
import { isStorableText } from '../../shared/stored-text.js';
import {
  type EmployeeOfPlan,
  findWorkplaces,
  insertAuditRows,
  insertShifts,
  lockEmployeesOfPlan,
  findShiftsByExternalIds,
  findShiftsByIds,
  shiftsOfEmployeesBetween,
  updateShift,
} from './queries/shifts.js';
import type { PlannedShiftInput } from './schemas.js';
import { evaluateShiftTimes, firstOverlap, isInShiftYears, MAX_SHIFT_MS, type Span } from './shift-rules.js';
import { instantIn, shiftView, type ShiftView } from './views.js';

/*
 * The batch upsert of planned shifts (POST /planned-shifts/batch, the CLI's `shift create` and
 * `shift import`): every item in order, each refused or accepted on its own, all in the caller's one
 * transaction. The employees named are locked first (in id order), then the shifts their items upsert
 * by scheduler id are read; every rule is judged in memory against what was read and what the earlier
 * items did, and the accepted changes are written at the end in a few multi-row statements (a change
 * only while its shift is still at the version read). So 500 items cost a handful of statements, not a
 * transaction each.
 */

const JUDGED_PER_SLICE = 50;

export interface PlanScope {
  companyId: string;
  /** The company's zone: a shift's zone is its workplace's, else this, else UTC. */
  companyZone: string | null;
  actor: Actor;
}

/** One item and the field errors its values already have (checked by the caller against the schema). */
export interface BatchItem {
  item: PlannedShiftInput;
  invalid: FieldError[] | null;
  /** The console's edit of one shift by its id (the public API upserts by `externalId` only). */
  id?: string;
}

export type ItemOutcome =
  { index: number; status: 200 | 201; body: ShiftView } | { index: number; status: number; error: ApiError };

interface ShiftState {
  row: PlannedShiftRow;
  /** The version stored (null: a new shift, inserted at the end). */
  stored: number | null;
  /** The items that created or changed it (their results change if its write is refused). */
  items: number[];
  /** The status its items sent, if any (a new shift is a draft unless told; a changed one keeps its own). */
  statusSent?: PlannedShiftRow['status'] | undefined;
}

interface Plan {
  scope: PlanScope;
  at: string;
  employeesById: Map<string, EmployeeOfPlan>;
  employeesByExternalId: Map<string, EmployeeOfPlan>;
  workplaceZones: Map<string, string | null>;
  shifts: Map<string, ShiftState>;
  byExternalId: Map<string, string>;
  byEmployee: Map<string, Set<string>>;
}

export async function upsertShifts(
  tx: Tx,
  now: number,
  scope: PlanScope,
  items: readonly BatchItem[],
  options: { dryRun: boolean },
): Promise<ItemOutcome[]> {
  const plan = await loadPlan(tx, now, scope, items);
  const outcomes: ItemOutcome[] = [];
  for (const [index, entry] of items.entries()) {
    outcomes.push(decide(plan, entry, index, options.dryRun));
    // Judged in slices: the event loop (and the overload gate that watches its delay) keeps turning.
    if (index % JUDGED_PER_SLICE === JUDGED_PER_SLICE - 1)
      await new Promise((resolve) => setImmediate(resolve));
  }
  if (!options.dryRun) await writePlan(tx, plan, outcomes);
  return outcomes;
}

async function loadPlan(tx: Tx, now: number, scope: PlanScope, items: readonly BatchItem[]): Promise<Plan> {
  const valid = items.filter((entry) => entry.invalid === null).map((entry) => entry.item);
  const ids = new Set<string>();
  const externalIds = new Set<string>();
  for (const { employee } of valid) {
    if (employee.id) ids.add(employee.id.toLowerCase());
    else if (employee.externalId && isStorableText(employee.externalId)) externalIds.add(employee.externalId);
  }
  const employees = await lockEmployeesOfPlan(tx, scope.companyId, [...ids], [...externalIds]);
  const workplaceIds = new Set(employees.flatMap((e) => (e.workplace_id ? [e.workplace_id] : [])));
  for (const item of valid) if (item.workplaceId) workplaceIds.add(item.workplaceId.toLowerCase());
  const shiftIds = [
    ...new Set(valid.flatMap((i) => (i.externalId && isStorableText(i.externalId) ? [i.externalId] : []))),
  ];
  const byId = items.flatMap((entry) => (entry.id !== undefined ? [entry.id] : []));
  const existing = [
    ...(await findShiftsByIds(tx, scope.companyId, byId)),
    ...(await findShiftsByExternalIds(tx, scope.companyId, shiftIds)),
  ];
  const workplaces = await findWorkplaces(tx, scope.companyId, [...workplaceIds]);
  const window = windowOf(valid);
  const nearby = window
    ? await shiftsOfEmployeesBetween(
        tx,
        employees.map((e) => e.id),
        window.from,
        window.to,
      )
    : [];
  const plan: Plan = {
    scope,
    at: new Date(now).toISOString(),
    employeesById: new Map(employees.map((e) => [e.id, e])),
    employeesByExternalId: new Map(employees.flatMap((e) => (e.external_id ? [[e.external_id, e]] : []))),
    workplaceZones: new Map(workplaces.map((w) => [w.id, w.time_zone])),
    shifts: new Map(),
    byExternalId: new Map(),
    byEmployee: new Map(),
  };
  for (const row of [...existing, ...nearby]) track(plan, { row, stored: Number(row.version), items: [] });
  return plan;
}

/** From a day before the earliest start to the latest end sent: where every overlap can be. */
function windowOf(items: readonly PlannedShiftInput[]): { from: string; to: string } | null {
  let min = Infinity;
  let max = -Infinity;
  for (const item of items) {
    const start = parseInstantWithOffset(item.start);
    const end = parseInstantWithOffset(item.end);
    // Items outside the years a shift may have are refused one by one; they widen nothing.
    if (!start || !end || !isInShiftYears(start.epochMs) || !isInShiftYears(end.epochMs)) continue;
    min = Math.min(min, start.epochMs);
    max = Math.max(max, end.epochMs);
  }
  if (min === Infinity || max === -Infinity) return null;
  return { from: new Date(min - MAX_SHIFT_MS).toISOString(), to: new Date(max).toISOString() };
}

function track(plan: Plan, state: ShiftState): void {
  // A shift read twice (by scheduler id and as a neighbour) is tracked once.
  if (plan.shifts.has(state.row.id)) return;
  plan.shifts.set(state.row.id, state);
  if (state.row.external_id !== null) plan.byExternalId.set(state.row.external_id, state.row.id);
  const mine = plan.byEmployee.get(state.row.employee_id) ?? new Set<string>();
  mine.add(state.row.id);
  plan.byEmployee.set(state.row.employee_id, mine);
}

function spansOf(plan: Plan, employeeId: string): Span[] {
  return [...(plan.byEmployee.get(employeeId) ?? [])].map((id) => {
    const { row } = plan.shifts.get(id)!;
    return { id, startMs: Date.parse(row.start_at), endMs: Date.parse(row.end_at) };
  });
}

function refusal(index: number, error: ApiError): ItemOutcome {
  return { index, status: error.status, error };
}

/** Spec, EmployeeSelector, judged against the employees read under lock. */
function pickEmployee(plan: Plan, selector: PlannedShiftInput['employee']): EmployeeOfPlan {
  const id = selector.id ?? null;
  const externalId = selector.externalId ?? null;
  if (id === null && externalId === null)
    throw validationError([{ field: 'employee', message: 'needs id or externalId', code: 'required' }]);
  if (id !== null) {
    const employee = plan.employeesById.get(id.toLowerCase());
    if (!employee) throw new ApiError('employee_not_found', `no employee ${id} in this company`);
    if (externalId !== null && employee.external_id !== externalId)
      throw validationError([
        { field: 'employee', message: 'id and externalId name different employees', code: 'mismatch' },
      ]);
    return employee;
  }
  const employee = plan.employeesByExternalId.get(externalId!);
  if (!employee)
    throw new ApiError('employee_not_found', `no employee with external id ${externalId} in this company`);
  return employee;
}

/** The workplace and its zone: the item's, else the employee's. */
function pickWorkplace(plan: Plan, item: PlannedShiftInput, employee: EmployeeOfPlan) {
  const id = item.workplaceId?.toLowerCase() ?? employee.workplace_id;
  if (id === null)
    throw new ApiError('business_rule_violation', 'the employee has no workplace; send workplaceId');
  if (!plan.workplaceZones.has(id))
    throw validationError([
      { field: 'workplaceId', message: 'is not a workplace of this company', code: 'not_found' },
    ]);
  return { id, zone: plan.workplaceZones.get(id) ?? plan.scope.companyZone ?? 'UTC' };
}

function decide(plan: Plan, entry: BatchItem, index: number, dryRun: boolean): ItemOutcome {
  if (entry.invalid !== null) return refusal(index, validationError(entry.invalid));
  try {
    return decideValid(plan, entry, index, dryRun);
  } catch (error) {
    if (error instanceof ApiError && error.status < 500) return refusal(index, error);
    throw error;
  }
}

/** The shift an item changes: by id (the console), else by scheduler id; none for a new one. */
function existingOf(plan: Plan, entry: BatchItem): ShiftState | undefined {
  if (entry.id !== undefined) {
    const state = plan.shifts.get(entry.id);
    if (!state) throw new ApiError('not_found', `no planned shift ${entry.id} in this company`);
    return state;
  }
  const id = entry.item.externalId ? plan.byExternalId.get(entry.item.externalId) : undefined;
  return id === undefined ? undefined : plan.shifts.get(id);
}

function decideValid(plan: Plan, entry: BatchItem, index: number, dryRun: boolean): ItemOutcome {
  const { item } = entry;
  if (item.externalId && !isStorableText(item.externalId))
    throw validationError([
      {
        field: 'externalId',
        message: 'must not contain NUL or unpaired surrogate characters',
        code: 'format',
      },
    ]);
  const existing = existingOf(plan, entry);
  const existingId = existing?.row.id;
  const employee = pickEmployee(plan, item.employee);
  const workplace = pickWorkplace(plan, item, employee);
  const verdict = evaluateShiftTimes(
    { start: item.start, end: item.end, breakMinutes: item.breakMinutes ?? 0 },
    workplace.zone,
  );
  if (!verdict.ok) throw validationError(verdict.errors);
  const { start, end } = verdict.times;
  const clash = firstOverlap(
    spansOf(plan, employee.id),
    { startMs: start.epochMs, endMs: end.epochMs },
    existingId ?? null,
  );
  if (clash) {
    const other = plan.shifts.get(clash.id)!.row;
    throw new ApiError(
      'shift_overlaps',
      `the shift overlaps shift ${other.id}${other.external_id ? ` (${other.external_id})` : ''} from ${instantIn(other.start_at, other.time_zone)} to ${instantIn(other.end_at, other.time_zone)}`,
    );
  }
  const values = {
    employee_id: employee.id,
    workplace_id: workplace.id,
    external_id: item.externalId ?? existing?.row.external_id ?? null,
    date: start.workDate,
    start_at: start.utcIso,
    end_at: end.utcIso,
    time_zone: workplace.zone,
    break_minutes: item.breakMinutes ?? 0,
    note: item.note ?? null,
  };
  if (existing && item.status !== undefined) existing.statusSent = item.status;
  if (existing)
    return changeShift(
      plan,
      existing,
      { ...values, status: item.status ?? existing.row.status },
      index,
      employee,
    );
  const row: PlannedShiftRow = {
    id: newId(),
    company_id: plan.scope.companyId,
    ...values,
    status: item.status ?? 'draft',
    version: 1,
    created_at: plan.at,
    updated_at: plan.at,
  };
  track(plan, { row, stored: null, items: [index], statusSent: item.status });
  return { index, status: dryRun ? 200 : 201, body: shiftView(row, employee) };
}

const COMPARED = [
  'employee_id',
  'workplace_id',
  'date',
  'start_at',
  'end_at',
  'time_zone',
  'break_minutes',
  'note',
  'status',
] as const;

function changeShift(
  plan: Plan,
  state: ShiftState,
  values: Pick<PlannedShiftRow, (typeof COMPARED)[number] | 'external_id'>,
  index: number,
  employee: EmployeeOfPlan,
): ItemOutcome {
  const before = state.row;
  const unchanged = COMPARED.every((column) => String(before[column]) === String(values[column]));
  if (unchanged) return { index, status: 200, body: shiftView(before, employee) };
  const row: PlannedShiftRow = {
    ...before,
    ...values,
    version: Number(before.version) + 1,
    updated_at: plan.at,
  };
  plan.byEmployee.get(before.employee_id)?.delete(before.id);
  state.row = row;
  state.items.push(index);
  const mine = plan.byEmployee.get(row.employee_id) ?? new Set<string>();
  plan.byEmployee.set(row.employee_id, mine.add(row.id));
  return { index, status: 200, body: shiftView(row, employee) };
}

/** Writes what the items decided; an item whose write the database refused gets that refusal. */
async function writePlan(tx: Tx, plan: Plan, outcomes: ItemOutcome[]): Promise<void> {
  // In id order: two batches changing the same shifts never wait for each other in a circle.
  const touched = [...plan.shifts.values()]
    .filter((state) => state.items.length > 0)
    .sort((a, b) => (a.row.id < b.row.id ? -1 : 1));
  const created = touched.filter((state) => state.stored === null).map((state) => state.row);
  const inserted = await insertShifts(tx, created);
  const raced = await shiftsCreatedMeanwhile(tx, plan, touched, inserted);
  const audits = [];
  for (const state of touched) {
    let action: 'planned_shift.create' | 'planned_shift.update' | null =
      state.stored === null ? 'planned_shift.create' : 'planned_shift.update';
    let ok =
      state.stored === null ? inserted.has(state.row.id) : await updateShift(tx, state.row, state.stored);
    const other = state.stored === null && !ok ? raced.get(state.row.external_id ?? '') : undefined;
    if (other) {
      // Spec: each item is upserted by its externalId. Another request created this one meanwhile (the
      // unique key refused our insert): the item changes that shift instead, as if it had been read.
      const change = upsertOver(plan, state, other);
      ok = change.row === other || (await updateShift(tx, change.row, Number(other.version)));
      action = change.row === other ? null : 'planned_shift.update';
      if (ok) for (const index of state.items) outcomes[index] = { index, status: 200, body: change.body };
      state.row = change.row;
    }
    if (!ok) {
      const error = new ApiError(
        'already_exists',
        `another request wrote the shift ${state.row.external_id ?? state.row.id} at the same time; send it again`,
      );
      for (const index of state.items) outcomes[index] = refusal(index, error);
      continue;
    }
    if (action === null) continue;
    audits.push({
      companyId: plan.scope.companyId,
      actorType: plan.scope.actor.type,
      actorId: plan.scope.actor.id,
      action,
      targetId: state.row.id,
      details: {
        externalId: state.row.external_id,
        employeeId: state.row.employee_id,
        start: state.row.start_at,
        end: state.row.end_at,
        status: state.row.status,
      },
      at: plan.at,
    });
  }
  await insertAuditRows(tx, audits);
}

/**
 * The shifts, by scheduler id, that a concurrent request created after this one read (its insert was
 * skipped on the unique key). Read now: under READ COMMITTED the skipped insert waited for that
 * request's commit, so a new statement sees its row. (SQLite's writers are serial: none there.)
 */
async function shiftsCreatedMeanwhile(
  tx: Tx,
  plan: Plan,
  touched: readonly ShiftState[],
  inserted: ReadonlySet<string>,
): Promise<Map<string, PlannedShiftRow>> {
  const lost = touched.flatMap((state) =>
    state.stored === null && !inserted.has(state.row.id) && state.row.external_id !== null
      ? [state.row.external_id]
      : [],
  );
  const rows = await findShiftsByExternalIds(tx, plan.scope.companyId, lost);
  return new Map(rows.map((row) => [row.external_id!, row]));
}

/** The item's values over the shift another request created: that row itself when nothing changes. */
function upsertOver(
  plan: Plan,
  state: ShiftState,
  other: PlannedShiftRow,
): { row: PlannedShiftRow; body: ShiftView } {
  const wanted = { ...state.row, status: state.statusSent ?? other.status };
  const employee = plan.employeesById.get(wanted.employee_id) ?? {
    id: wanted.employee_id,
    external_id: null,
  };
  const unchanged = COMPARED.every((column) => String(other[column]) === String(wanted[column]));
  if (unchanged) return { row: other, body: shiftView(other, employee) };
  const row: PlannedShiftRow = {
    ...wanted,
    id: other.id,
    company_id: other.company_id,
    created_at: other.created_at,
    version: Number(other.version) + 1,
    updated_at: plan.at,
  };
  return { row, body: shiftView(row, employee) };
}
