import { type CursorCodec } from '../../domain/cursor.js';
import { ApiError, validationError } from '../../domain/errors.js';
import { recordAudit } from '../audit/queries.js';
import { type Principal } from '../auth/service.js';
import { type AppContext } from '../context.js';
import {
  type EmployeeWithZone,
  findEmployeeByExternalId,
  findEmployeeById,
  listEmployeesPage,
  lockEmployeeWithZone,
  lockEmployeesInIdOrder,
  searchEmployees,
} from './queries.js';
import { employeeListItem } from './views.js';
import { appendEvents } from '../events/service.js';
import { type Executor, type Tx, isUniqueViolation } from '../../platform/db/database.js';
import { type EmployeeRow } from '../../platform/db/schema.js';
import { type Page, invalidCursor } from '../../shared/pages.js';
import { isStorableText } from '../../shared/stored-text.js';
import { type ConsolePerson } from '../people/person.js';

export interface EmployeeSelector {
  id?: string | null;
  externalId?: string | null;
}

/**
 * Spec, EmployeeSelector: id, external id or both (then both must name the same person), always
 * inside the caller's company, never a deleted employee.
 */
export async function resolveEmployee(
  db: Executor,
  companyId: string,
  selector: EmployeeSelector,
): Promise<EmployeeRow> {
  return resolveWith(db, companyId, selector, findEmployeeById, findEmployeeByExternalId);
}

/**
 * The row locks of every employee the selectors name (by id or external id), taken in id order before
 * a batch writes for several of them (see `lockEmployeesInIdOrder`); each write still resolves and
 * locks its own employee (`lockEmployeeForWrite`), a lock it then already holds.
 */
export async function lockEmployeesForBatch(
  tx: Tx,
  companyId: string,
  selectors: EmployeeSelector[],
): Promise<void> {
  const ids = new Set<string>();
  const externalIds = new Set<string>();
  for (const selector of selectors) {
    if (typeof selector.id === 'string') ids.add(selector.id);
    if (typeof selector.externalId === 'string') externalIds.add(selector.externalId);
  }
  await lockEmployeesInIdOrder(tx, companyId, [...ids], [...externalIds]);
}

/**
 * `resolveEmployee` for a write: the time zone of the employee's workplace is read in the same query,
 * and the employee's row stays locked until the transaction ends (see `lockEmployeeWithZone`).
 */
export async function lockEmployeeForWrite(
  tx: Tx,
  companyId: string,
  selector: EmployeeSelector,
  /** A keyed write's Idempotency-Key lock, tried with the employee's (see lockEmployeeWithZone). */
  keyLock?: { name: string; busy: () => Error },
): Promise<EmployeeWithZone> {
  return resolveWith(
    tx,
    companyId,
    selector,
    (_db, c, id) => lockEmployeeWithZone(tx, c, { id }, keyLock),
    (_db, c, externalId) => lockEmployeeWithZone(tx, c, { externalId }, keyLock),
  );
}

/** The employee `selector` names among those given (a batch's, read at once), as resolveEmployee says it. */
export function resolveAmong<E extends Pick<EmployeeRow, 'id' | 'external_id'>>(
  companyId: string,
  selector: EmployeeSelector,
  byId: ReadonlyMap<string, E>,
  byExternalId: ReadonlyMap<string, E>,
): Promise<E> {
  return resolveWith(
    null as unknown as Executor,
    companyId,
    selector,
    async (_db, _c, id) => byId.get(id),
    async (_db, _c, externalId) => byExternalId.get(externalId),
  );
}

async function resolveWith<E extends Pick<EmployeeRow, 'id' | 'external_id'>>(
  db: Executor,
  companyId: string,
  selector: EmployeeSelector,
  byId: (db: Executor, companyId: string, id: string) => Promise<E | undefined>,
  byExternalId: (db: Executor, companyId: string, externalId: string) => Promise<E | undefined>,
): Promise<E> {
  const id = selector.id ?? null;
  const externalId = selector.externalId ?? null;
  if (id === null && externalId === null)
    throw validationError([{ field: 'employee', message: 'needs id or externalId', code: 'required' }]);
  if (id !== null) {
    const employee = await byId(db, companyId, id.toLowerCase());
    if (!employee) throw new ApiError('employee_not_found', `no employee ${id} in this company`);
    if (externalId !== null && employee.external_id !== externalId)
      throw validationError([
        { field: 'employee', message: 'id and externalId name different employees', code: 'mismatch' },
      ]);
    return employee;
  }
  const employee = isStorableText(externalId!) ? await byExternalId(db, companyId, externalId!) : undefined;
  if (!employee)
    throw new ApiError('employee_not_found', `no employee with external id ${externalId} in this company`);
  return employee;
}

export async function listEmployees(
  ctx: AppContext,
  cursors: CursorCodec,
  principal: Principal,
  query: { status?: string; limit?: number; cursor?: string },
): Promise<Page<ReturnType<typeof employeeListItem>>> {
  const status = query.status ?? null;
  const limit = query.limit ?? 25;
  let afterId: string | null = null;
  if (query.cursor !== undefined) {
    const payload = cursors.decode(query.cursor);
    // The cursor is bound to its listing: another company's or another filter's cursor is refused.
    if (payload?.k !== 'employees' || payload.c !== principal.companyId || payload.s !== status)
      throw invalidCursor();
    if (typeof payload.a !== 'string') throw invalidCursor();
    afterId = payload.a;
  }
  const rows = await listEmployeesPage(ctx.database.db, principal.companyId, {
    status,
    afterId,
    limit: limit + 1,
  });
  const hasMore = rows.length > limit;
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return {
    items: items.map(employeeListItem),
    nextCursor:
      hasMore && last
        ? cursors.encode({ k: 'employees', c: principal.companyId, s: status, a: last.id })
        : null,
    hasMore,
  };
}

/** Spec, PUT /employees/{id}/external-id: null or blank clears; unique per company, case-sensitive. */
export async function setExternalId(
  ctx: AppContext,
  principal: Principal,
  input: { employeeId: string; externalId: string | null; dryRun: boolean },
) {
  const value = input.externalId === null || input.externalId.trim() === '' ? null : input.externalId;
  if (value !== null && !isStorableText(value))
    throw validationError([
      {
        field: 'externalId',
        message: 'must not contain NUL or unpaired surrogate characters',
        code: 'invalid_characters',
      },
    ]);
  const at = new Date(ctx.now()).toISOString();
  const conflict = (holderId: string) =>
    new ApiError('already_exists', `external id ${value} is already held by employee ${holderId}`);
  try {
    return await ctx.database.transaction(async (tx) => {
      const employee = await findEmployeeById(tx, principal.companyId, input.employeeId.toLowerCase());
      if (!employee)
        throw new ApiError('employee_not_found', `no employee ${input.employeeId} in this company`);
      if (value !== null) {
        const holder = await findEmployeeByExternalId(tx, principal.companyId, value);
        if (holder && holder.id !== employee.id) throw conflict(holder.id);
      }
      if (!input.dryRun && employee.external_id !== value) {
        await tx
          .updateTable('employees')
          .set({ external_id: value, updated_at: at })
          .where('id', '=', employee.id)
          .execute();
        await recordAudit(tx, {
          companyId: principal.companyId,
          actorType: principal.kind,
          actorId: principal.id,
          action: 'employee.set_external_id',
          targetType: 'employee',
          targetId: employee.id,
          details: { from: employee.external_id, to: value },
          at,
        });
        const updated = await findEmployeeById(tx, principal.companyId, employee.id);
        if (updated)
          await appendEvents(
            tx,
            principal.companyId,
            [{ type: 'employee.updated', data: employeeListItem(updated) }],
            at,
          );
      }
      return { id: employee.id, externalId: value, dryRun: input.dryRun };
    });
  } catch (error) {
    // Two callers racing for the same value: the unique index decides, the loser gets the spec's 409.
    if (isUniqueViolation(error) && value !== null) {
      const holder = await findEmployeeByExternalId(ctx.database.db, principal.companyId, value);
      throw conflict(holder?.id ?? 'another employee');
    }
    throw error;
  }
}

/** The company's employees by name, for the console's picker; `search` matches names, email, external id. */
export async function listEmployeesByName(
  ctx: AppContext,
  cursors: CursorCodec,
  person: ConsolePerson,
  query: { search?: string; limit?: number; cursor?: string },
) {
  const search = query.search?.trim() ? query.search.trim() : null;
  const limit = query.limit ?? 50;
  let offset = 0;
  if (query.cursor !== undefined) {
    const payload = cursors.decode(query.cursor);
    // Bound to its listing: another company's or another search's cursor is refused.
    if (payload?.k !== 'admin-employees' || payload.c !== person.companyId || payload.s !== search)
      throw invalidCursor();
    if (typeof payload.o !== 'number' || !Number.isSafeInteger(payload.o) || payload.o < 0)
      throw invalidCursor();
    offset = payload.o;
  }
  const rows = await searchEmployees(ctx.database.db, person.companyId, { search, offset, limit: limit + 1 });
  const hasMore = rows.length > limit;
  const items = rows.slice(0, limit).map((row) => ({
    id: row.id,
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    externalId: row.external_id,
    status: row.status,
    workplaceId: row.workplace_id,
  }));
  return {
    items,
    nextCursor: hasMore
      ? cursors.encode({ k: 'admin-employees', c: person.companyId, s: search, o: offset + limit })
      : null,
    hasMore,
  };
}
