import { ApiError, validationError } from '../../domain/errors.js';
import { newId, isUuid } from '../../domain/ids.js';
import { daysBetween, isValidDate } from '../../domain/time-zone.js';
import type { Executor, Tx } from '../../platform/db/database.js';
import { recordAudit } from '../audit/queries.js';
import { appendEvents } from '../events/service.js';
import type { Manager } from './entry-access.js';
import {
  findPeriod,
  findWorkplaceOfCompany,
  insertPeriod,
  listClosedPeriods,
  markReopened,
  type PeriodRow,
} from './queries/periods.js';
import { actorName } from './queries/revisions.js';
import { actorView, auditActorOf } from './revisions.js';

/*
 * Closed payroll periods (issue 30): while a period is closed, every write landing on its days, for
 * every employee of the company (or of its workplace), is 409 day_locked (day-locks.ts).
 */

/** A period spans at most this many days after its first (the time-entry list's range). */
export const MAX_PERIOD_DAYS = 92;

/** A period as published: `closedBy` (and, once reopened, `reopenedBy`) in the revisions' actor shape. */
export function periodView(row: PeriodRow) {
  return {
    id: row.id,
    from: row.from_date,
    to: row.to_date,
    workplaceId: row.workplace_id,
    closedAt: row.closed_at,
    closedBy: actorView(row.closed_by_kind, row.closed_by_id, row.closed_by_name),
    reopenedAt: row.reopened_at,
    reopenedBy:
      row.reopened_by_kind === null
        ? null
        : actorView(row.reopened_by_kind, row.reopened_by_id, row.reopened_by_name),
    reopenReason: row.reopen_reason,
  };
}

export type PeriodView = ReturnType<typeof periodView>;

function checkRange(from: string, to: string): void {
  const errors = [];
  if (!isValidDate(from))
    errors.push({ field: 'from', message: 'must be a date YYYY-MM-DD', code: 'format' });
  if (!isValidDate(to)) errors.push({ field: 'to', message: 'must be a date YYYY-MM-DD', code: 'format' });
  if (errors.length > 0) throw validationError(errors);
  if (from > to) throw validationError([{ field: 'to', message: 'must not be before from', code: 'range' }]);
  if (daysBetween(from, to) > MAX_PERIOD_DAYS)
    throw validationError([
      { field: 'to', message: `a period spans at most ${MAX_PERIOD_DAYS} days`, code: 'range' },
    ]);
}

/** Closes `from`..`to` for the company (or one of its workplaces); answers the period (on a dry run, the one it would be). */
export async function closePeriod(
  tx: Tx,
  now: number,
  manager: Manager & { companyId: string },
  input: { from: string; to: string; workplaceId?: string | null },
  options: { dryRun: boolean },
): Promise<PeriodView> {
  checkRange(input.from, input.to);
  const workplaceId = input.workplaceId ? input.workplaceId.toLowerCase() : null;
  if (
    workplaceId !== null &&
    (!isUuid(workplaceId) || !(await findWorkplaceOfCompany(tx, manager.companyId, workplaceId)))
  )
    throw validationError([
      { field: 'workplaceId', message: 'no such workplace in this company', code: 'not_found' },
    ]);
  const at = new Date(now).toISOString();
  const row = {
    id: newId(),
    company_id: manager.companyId,
    workplace_id: workplaceId,
    from_date: input.from,
    to_date: input.to,
    closed_at: at,
    closed_by_kind: manager.actor.kind,
    closed_by_id: manager.actor.id,
    reopened_at: null,
    reopened_by_kind: null,
    reopened_by_id: null,
    reopen_reason: null,
  };
  const name = await actorName(tx, manager.companyId, manager.actor.kind, manager.actor.id);
  const view = periodView({ ...row, closed_by_name: name, reopened_by_name: null });
  if (options.dryRun) return view;
  await insertPeriod(tx, row);
  await recordPeriodChange(tx, manager, at, { action: 'period.close', view, reason: null });
  return view;
}

export async function listPeriods(db: Executor, companyId: string) {
  return { items: (await listClosedPeriods(db, companyId)).map(periodView) };
}

/** Reopens a closed period of the company (any company for the command line); answers it reopened. */
export async function reopenPeriod(
  tx: Tx,
  now: number,
  manager: Manager,
  input: { periodId: string; reason: string },
  options: { dryRun: boolean },
): Promise<PeriodView> {
  const reason = input.reason.trim();
  if (reason === '')
    throw validationError([{ field: 'reason', message: 'must not be blank', code: 'blank' }]);
  const id = input.periodId.toLowerCase();
  const found = isUuid(id) ? await findPeriod(tx, manager.companyId, id) : undefined;
  if (!found || found.reopened_at !== null)
    throw new ApiError('not_found', `no closed period ${input.periodId} in this company`);
  const at = new Date(now).toISOString();
  const reopened = { at, kind: manager.actor.kind, actorId: manager.actor.id, reason };
  const name = await actorName(tx, found.company_id, manager.actor.kind, manager.actor.id);
  const view = periodView({
    ...found,
    reopened_at: at,
    reopened_by_kind: reopened.kind,
    reopened_by_id: reopened.actorId,
    reopened_by_name: name,
    reopen_reason: reason,
  });
  if (options.dryRun) return view;
  if ((await markReopened(tx, found.id, reopened)) !== 1)
    throw new ApiError('not_found', `no closed period ${input.periodId} in this company`);
  await recordPeriodChange(tx, { ...manager, companyId: found.company_id }, at, {
    action: 'period.reopen',
    view,
    reason,
  });
  return view;
}

async function recordPeriodChange(
  tx: Tx,
  manager: Manager & { companyId: string },
  at: string,
  change: { action: 'period.close' | 'period.reopen'; view: PeriodView; reason: string | null },
) {
  await recordAudit(tx, {
    companyId: manager.companyId,
    ...auditActorOf(manager.actor),
    action: change.action,
    targetType: 'locked_period',
    targetId: change.view.id,
    details: {
      from: change.view.from,
      to: change.view.to,
      workplaceId: change.view.workplaceId,
      reason: change.reason,
    },
    at,
  });
  const type = change.action === 'period.close' ? 'period.closed' : 'period.reopened';
  await appendEvents(tx, manager.companyId, [{ type, data: change.view }], at);
}
