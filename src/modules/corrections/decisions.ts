import { ApiError, validationError } from '../../domain/errors.js';
import type { Tx } from '../../platform/db/database.js';
import type { EventType } from '../events/service.js';
import { assertPeriodsOpen } from './day-locks.js';
import { endDayOf, entryItem, type IfMatch, loadForChange, type Manager } from './entry-access.js';
import { updateEntry } from './queries/entries.js';
import { recordChange } from './record.js';
import { diffSnapshots, type RevisionAction, snapshotOf } from './revisions.js';

/*
 * Decisions on an entry (issue 30): approve and reject a pending entry, reopen a decided one. Each
 * is a revision, an audit row and an event; a status that does not allow it is 409
 * invalid_status_transition, a day in a closed period 409 day_locked.
 */

export type Decision = 'approve' | 'reject' | 'reopen';

const TRANSITIONS: Record<
  Decision,
  { from: readonly string[]; to: string; action: RevisionAction; event: EventType; audit: string }
> = {
  approve: {
    from: ['pending_approval'],
    to: 'approved',
    action: 'approved',
    event: 'time_entry.approved',
    audit: 'time_entry.approve',
  },
  reject: {
    from: ['pending_approval'],
    to: 'rejected',
    action: 'rejected',
    event: 'time_entry.rejected',
    audit: 'time_entry.reject',
  },
  reopen: {
    from: ['approved', 'rejected'],
    to: 'pending_approval',
    action: 'reopened',
    event: 'time_entry.reopened',
    audit: 'time_entry.reopen',
  },
};

/** The 409 of a decision the entry's status does not allow, naming the status. */
function refusedTransition(decision: Decision, entryId: string, status: string): ApiError {
  const allowed = TRANSITIONS[decision].from.join(' or ');
  return new ApiError(
    'invalid_status_transition',
    `entry ${entryId} is ${status}; only ${allowed} entries can be ${decision === 'reopen' ? 'reopened' : `${decision}d`}`,
  );
}

/**
 * Approves, rejects or reopens an entry; answers its list item after the decision (on a dry run, the
 * item it would be, with nothing written). `reason` is the note of an approval, the reason otherwise
 * (422 when sent blank; null only from the console's reject, which asks for none).
 */
export async function decideOnEntry(
  tx: Tx,
  now: number,
  manager: Manager,
  input: { entryId: string; decision: Decision; reason: string | null; ifMatch: IfMatch; dryRun: boolean },
) {
  if (input.decision !== 'approve' && input.reason !== null && input.reason.trim() === '')
    throw validationError([{ field: 'reason', message: 'must not be blank', code: 'blank' }]);
  const { entry, employee, breaks } = await loadForChange(tx, manager, input.entryId, input.ifMatch);
  const transition = TRANSITIONS[input.decision];
  if (!transition.from.includes(entry.status))
    throw refusedTransition(input.decision, entry.id, entry.status);
  await assertPeriodsOpen(tx, entry.company_id, employee.workplace_id, [entry.work_date, endDayOf(entry)]);
  const at = new Date(now).toISOString();
  const decided = {
    ...entry,
    status: transition.to,
    approved_at: transition.to === 'approved' ? at : null,
    updated_at: at,
    version: entry.version + 1,
  };
  const item = entryItem(decided, employee, breaks);
  if (input.dryRun) return item;
  const { status, approved_at, updated_at, version } = decided;
  if ((await updateEntry(tx, entry.id, entry.version, { status, approved_at, updated_at, version })) !== 1)
    throw new ApiError('version_mismatch', 'the entry changed meanwhile; read it again');
  await recordChange(tx, {
    companyId: entry.company_id,
    entryId: entry.id,
    revision: version,
    at,
    action: transition.action,
    actor: manager.actor,
    reason: input.reason,
    changes: diffSnapshots(snapshotOf(entry), snapshotOf(decided)),
    audit: transition.audit,
    event: { type: transition.event, data: item },
  });
  return item;
}
