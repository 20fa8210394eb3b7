import type { CursorCodec } from '../../domain/cursor.js';
import { ApiError, validationError } from '../../domain/errors.js';
import { isUuid } from '../../domain/ids.js';
import { daysBetween, isValidDate } from '../../domain/time-zone.js';
import type { Executor, Tx } from '../../platform/db/database.js';
import { recordAudit } from '../audit/queries.js';
import type { Actor, AppContext } from '../context.js';
import { invalidCursor, type Page } from '../../shared/pages.js';
import { isStorableText } from '../../shared/stored-text.js';
import { atMostOneOf } from '../time-tracking/entries.js';
import {
  countDrafts,
  deleteShiftRow,
  findCompanySettings,
  findShift,
  findWorkplaces,
  hasEmployee,
  listShiftsPage,
  lockShift,
  publishDrafts,
  type ShiftFilter,
} from './queries/shifts.js';
import { shiftView, type ShiftView } from './views.js';

/*
 * Reading, deleting and publishing planned shifts (issue 33), for the public API, the console and
 * the CLI alike. Writing them is batch.ts's.
 */

export const MAX_RANGE_DAYS = 92;

export interface CompanyScope {
  companyId: string;
  actor: Actor;
}

/** `from`..`to`: dates, from not after to, at most 92 days apart (the lists' and publishing's rule). */
export function dateRange(query: { from: string; to: string }): { from: string; to: string } {
  for (const field of ['from', 'to'] as const)
    if (!isValidDate(query[field]))
      throw validationError([{ field, message: 'must be a date YYYY-MM-DD', code: 'format' }]);
  if (query.from > query.to)
    throw validationError([{ field: 'from', message: 'must not be after to', code: 'range' }]);
  if (daysBetween(query.from, query.to) > MAX_RANGE_DAYS)
    throw validationError([
      { field: 'to', message: `the range spans at most ${MAX_RANGE_DAYS} days`, code: 'range' },
    ]);
  return { from: query.from, to: query.to };
}

export interface ShiftsQuery {
  from: string;
  to: string;
  employeeId?: string;
  externalId?: string;
  workplaceId?: string;
  shiftExternalId?: string;
  cursor?: string;
  limit?: number;
}

function filterOf(query: ShiftsQuery): ShiftFilter {
  atMostOneOf(query, ['employeeId', 'externalId', 'workplaceId', 'shiftExternalId']);
  if (query.employeeId !== undefined) return { employeeId: query.employeeId.toLowerCase() };
  if (query.externalId !== undefined) return { externalId: query.externalId };
  if (query.workplaceId !== undefined) return { workplaceId: query.workplaceId.toLowerCase() };
  if (query.shiftExternalId !== undefined) return { shiftExternalId: query.shiftExternalId };
  return null;
}

/** An unknown employee (or another company's) is 404 employee_not_found, as on /time-entries. */
async function requireEmployeeOf(db: Executor, companyId: string, filter: ShiftFilter): Promise<void> {
  if (filter === null || !('employeeId' in filter || 'externalId' in filter)) return;
  const known =
    'employeeId' in filter
      ? await hasEmployee(db, companyId, filter)
      : isStorableText(filter.externalId) && (await hasEmployee(db, companyId, filter));
  if (!known)
    throw new ApiError(
      'employee_not_found',
      'employeeId' in filter
        ? `no employee ${filter.employeeId} in this company`
        : `no employee with external id ${filter.externalId} in this company`,
    );
}

/** GET /planned-shifts: the company's shifts dated from..to, by start then id, cursor-paginated. */
export async function listShifts(
  db: Executor,
  cursors: CursorCodec,
  companyId: string,
  query: ShiftsQuery,
): Promise<Page<ShiftView>> {
  const { from, to } = dateRange(query);
  const filter = filterOf(query);
  const filterKey = filter === null ? '' : JSON.stringify(filter);
  let after: { start: string; id: string } | null = null;
  if (query.cursor !== undefined) {
    const p = cursors.decode(query.cursor);
    if (
      p?.k !== 'planned-shifts' ||
      p.c !== companyId ||
      p.f !== from ||
      p.t !== to ||
      p.w !== filterKey ||
      typeof p.s !== 'string' ||
      typeof p.a !== 'string'
    )
      throw invalidCursor();
    after = { start: p.s, id: p.a };
  }
  await requireEmployeeOf(db, companyId, filter);
  const shiftText = filter && 'shiftExternalId' in filter ? filter.shiftExternalId : null;
  if (shiftText !== null && !isStorableText(shiftText))
    return { items: [], nextCursor: null, hasMore: false };
  const limit = query.limit ?? 25;
  const rows = await listShiftsPage(db, { companyId, from, to, filter, after, limit: limit + 1 });
  const hasMore = rows.length > limit;
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return {
    items: items.map((row) => shiftView(row, { id: row.employee_id, external_id: row.employee_external_id })),
    nextCursor:
      hasMore && last
        ? cursors.encode({
            k: 'planned-shifts',
            c: companyId,
            f: from,
            t: to,
            w: filterKey,
            s: last.start_at,
            a: last.id,
          })
        : null,
    hasMore,
  };
}

function notFound(id: string): ApiError {
  return new ApiError('not_found', `no planned shift ${id} in this company`);
}

/** DELETE /planned-shifts/{id}: the shift goes; the job resolves the exceptions it had left open. */
export async function deleteShift(tx: Tx, now: number, scope: CompanyScope, id: string): Promise<void> {
  const shift = isUuid(id) ? await lockShift(tx, scope.companyId, id.toLowerCase()) : undefined;
  if (!shift) throw notFound(id);
  await deleteShiftRow(tx, shift.id);
  await recordAudit(tx, {
    companyId: scope.companyId,
    actorType: scope.actor.type,
    actorId: scope.actor.id,
    action: 'planned_shift.delete',
    targetType: 'planned_shift',
    targetId: shift.id,
    details: { externalId: shift.external_id, employeeId: shift.employee_id, start: shift.start_at },
    at: new Date(now).toISOString(),
  });
}

/** One shift of the company, as its view (the console's read after a change). */
export async function getShift(db: Executor, companyId: string, id: string): Promise<ShiftView> {
  const row = isUuid(id) ? await findShift(db, companyId, id.toLowerCase()) : undefined;
  if (!row) throw notFound(id);
  return shiftView(row, { id: row.employee_id, external_id: row.employee_external_id });
}

/** POST /planned-shifts/publish: every draft dated from..to (of one workplace) becomes published. */
export async function publishShifts(
  tx: Tx,
  now: number,
  scope: CompanyScope,
  input: { from: string; to: string; workplaceId?: string | null },
  options: { dryRun: boolean },
): Promise<{ published: number; dryRun: boolean }> {
  const { from, to } = dateRange(input);
  const workplaceId = input.workplaceId ? input.workplaceId.toLowerCase() : null;
  if (workplaceId !== null && (await findWorkplaces(tx, scope.companyId, [workplaceId])).length === 0)
    throw validationError([
      { field: 'workplaceId', message: 'is not a workplace of this company', code: 'not_found' },
    ]);
  const range = { companyId: scope.companyId, from, to, workplaceId };
  if (options.dryRun) return { published: await countDrafts(tx, range), dryRun: true };
  const at = new Date(now).toISOString();
  const published = await publishDrafts(tx, { ...range, at });
  if (published > 0)
    await recordAudit(tx, {
      companyId: scope.companyId,
      actorType: scope.actor.type,
      actorId: scope.actor.id,
      action: 'planned_shift.publish',
      targetType: 'company',
      targetId: scope.companyId,
      details: { from, to, workplaceId, published },
      at,
    });
  return { published, dryRun: false };
}

/** The company's zone, for the shifts of workplaces without one. */
export async function companyZoneOf(ctx: AppContext, companyId: string): Promise<string | null> {
  return (await findCompanySettings(ctx.database.db, companyId))?.time_zone ?? null;
}
