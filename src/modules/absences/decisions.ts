import { ApiError } from '../../domain/errors.js';
import type { Tx } from '../../platform/db/database.js';
import { recordAudit } from '../audit/queries.js';
import { appendEvents } from '../events/service.js';
import { assertDaysOpen, absenceView, resultOf } from './absences.js';
import { checkBalance } from './balances.js';
import { type LeaveCaller, versionMismatch } from './actors.js';
import { type AbsenceWithType, findAbsence, lockEmployee, updateAbsence } from './queries.js';
import { findType } from './calendar.queries.js';
import type { AbsencePortion, AbsenceResult, AbsenceStatus } from './schemas.js';

/*
 * Decisions on an absence (issue 31), the status machine:
 *   requested → approved (approve) | rejected (reject, with a reason) | cancelled (cancel: withdrawn)
 *   approved  → cancelled (cancel, with a reason; also after it started)
 *   rejected, cancelled: final.
 * Refusals, in order: 404 not_found (another company's or an unknown id), 412 version_mismatch (If-Match
 * names another version), 403 own_entry (a person deciding on their own absence: approving, rejecting,
 * or cancelling an approved one; withdrawing one's own request is allowed), 409
 * invalid_status_transition, 409 day_locked (approving, or cancelling an approved absence, changes
 * what its days count), 409 insufficient_balance (approving beyond the balance).
 */

export type Decision = 'approve' | 'reject' | 'cancel';

const NEXT: Record<
  Decision,
  {
    from: readonly AbsenceStatus[];
    to: AbsenceStatus;
    event: 'absence.approved' | 'absence.rejected' | 'absence.cancelled';
  }
> = {
  approve: { from: ['requested'], to: 'approved', event: 'absence.approved' },
  reject: { from: ['requested'], to: 'rejected', event: 'absence.rejected' },
  cancel: { from: ['requested', 'approved'], to: 'cancelled', event: 'absence.cancelled' },
};

export interface DecisionInput {
  reason: string | null;
  /** The version If-Match names; null: any. */
  ifMatch: number | null;
  dryRun: boolean;
}

function assertMayDecide(caller: LeaveCaller, absence: AbsenceWithType, decision: Decision): void {
  if (caller.employeeId === null || caller.employeeId !== absence.employee_id) return;
  if (decision === 'cancel' && absence.status === 'requested') return;
  throw new ApiError('own_entry', 'a person may not approve, reject or cancel their own absence');
}

function assertTransition(absence: AbsenceWithType, decision: Decision): void {
  if (!NEXT[decision].from.includes(absence.status as AbsenceStatus))
    throw new ApiError(
      'invalid_status_transition',
      `the absence is ${absence.status}: it cannot be ${NEXT[decision].to} (allowed from ${NEXT[decision].from.join(' or ')})`,
    );
}

/** Reads the absence after locking its employee (decisions and requests of one employee queue there). */
async function loadForDecision(tx: Tx, caller: LeaveCaller, id: string) {
  const first = await findAbsence(tx, caller.companyId, id.toLowerCase());
  if (!first) throw new ApiError('not_found', `no absence ${id} in this company`);
  const employee = (await lockEmployee(tx, caller.companyId, first.employee_id))!;
  const absence = (await findAbsence(tx, caller.companyId, first.id))!;
  return { absence, employee };
}

/** Approves, rejects or cancels an absence; a dry run answers the result and changes nothing. */
export async function decideAbsence(
  tx: Tx,
  now: number,
  caller: LeaveCaller,
  id: string,
  decision: Decision,
  input: DecisionInput,
): Promise<{ status: 200; body: AbsenceResult }> {
  const { absence, employee } = await loadForDecision(tx, caller, id);
  const version = Number(absence.version);
  if (input.ifMatch !== null && input.ifMatch !== version) throw versionMismatch(version);
  assertMayDecide(caller, absence, decision);
  assertTransition(absence, decision);
  if (decision === 'approve' || absence.status === 'approved')
    await assertDaysOpen(tx, caller.companyId, employee, absence.start_date, absence.end_date);
  let balanceAfter: number | null = null;
  if (decision === 'approve') {
    const type = (await findType(tx, caller.companyId, { id: absence.absence_type_id }))!;
    balanceAfter = await checkBalance(tx, now, caller, employee, type, {
      id: absence.id,
      startDate: absence.start_date,
      endDate: absence.end_date,
      portion: absence.portion as AbsencePortion,
      hours: absence.hours === null ? null : Number(absence.hours),
    });
  }
  const at = new Date(now).toISOString();
  const patch = {
    status: NEXT[decision].to,
    reason: decision === 'approve' ? absence.reason : input.reason,
    decided_at: at,
    decided_by_kind: caller.actor.kind,
    decided_by_id: caller.actor.id,
    decided_by_name: caller.actor.name,
    updated_at: at,
  };
  const view = absenceView({ ...absence, ...patch, version: input.dryRun ? version : version + 1 });
  if (input.dryRun) return { status: 200, body: resultOf(view, true, balanceAfter) };
  if (!(await updateAbsence(tx, absence.id, version, patch))) throw versionMismatch(version + 1);
  await recordAudit(tx, {
    companyId: caller.companyId,
    actorType: caller.audit.type,
    actorId: caller.audit.id,
    action: `absence.${decision}`,
    targetType: 'absence',
    targetId: absence.id,
    details: { from: absence.status, to: patch.status, reason: input.reason },
    at,
  });
  await appendEvents(tx, caller.companyId, [{ type: NEXT[decision].event, data: view }], at);
  return { status: 200, body: resultOf(view, false, balanceAfter) };
}
