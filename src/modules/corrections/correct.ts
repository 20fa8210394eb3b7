import { ApiError } from '../../domain/errors.js';
import type { Tx } from '../../platform/db/database.js';
import { MAX_SESSION_MS } from '../time-tracking/punch-rules.js';
import { assertBusinessRules } from '../time-tracking/writes.js';
import { type CorrectionBody, parseCorrection } from './correction-rules.js';
import { planCorrection } from './correction-plan.js';
import { assertDaysWritable } from './day-locks.js';
import { endDayOf, entryItem, type IfMatch, loadForChange, type Manager } from './entry-access.js';
import { findOverlap, patchOf, replaceBreaks, scheduleInForce, updateEntry } from './queries/entries.js';
import { recordChange } from './record.js';
import { diffSnapshots, snapshotOf } from './revisions.js';

/** Entries older than this are no longer corrected or deleted (their start, counted back from now). */
export const CORRECTION_WINDOW_DAYS = 400;

/** 409 entry_too_old for an entry that started more than 400 days ago. */
export function assertCorrectable(entry: { id: string; start_at: string }, now: number): void {
  if (now - Date.parse(entry.start_at) > CORRECTION_WINDOW_DAYS * 86_400_000)
    throw new ApiError(
      'entry_too_old',
      `entry ${entry.id} started ${entry.start_at}, more than ${CORRECTION_WINDOW_DAYS} days ago; it can no longer be changed`,
    );
}

/**
 * PATCH /time-entries/{id}: changes an entry's times, breaks or note, with a reason; closes an open
 * session when a clockOut is sent. Every rule of a recorded shift holds for the result; its old and
 * new days must be open (not confirmed, not in a closed period); it may not overlap another entry. A
 * decided entry goes back to pending_approval. Answers the list item after the change (on a dry run,
 * the item it would be).
 */
export async function correctEntry(
  tx: Tx,
  now: number,
  manager: Manager,
  input: { entryId: string; body: CorrectionBody; ifMatch: IfMatch; dryRun: boolean },
) {
  const parsed = parseCorrection(input.body);
  const { entry, employee, breaks } = await loadForChange(tx, manager, input.entryId, input.ifMatch);
  assertCorrectable(entry, now);
  const at = new Date(now).toISOString();
  const plan = planCorrection(entry, breaks, { body: input.body, parsed }, { actorId: manager.actor.id, at });
  const { next } = plan;
  // The result too: an entry moved past the window could never be corrected or deleted again.
  assertCorrectable(next, now);
  // As POST /time-entries: a workplace, and a schedule in force on the (new) work date.
  assertBusinessRules(employee, await scheduleInForce(tx, entry.employee_id, next.work_date), next.work_date);
  await assertDaysWritable(tx, {
    companyId: entry.company_id,
    employeeId: entry.employee_id,
    workplaceId: employee.workplace_id,
    dates: [entry.work_date, endDayOf(entry), next.work_date, endDayOf(next)],
  });
  const overlapping = await findOverlap(tx, {
    employeeId: entry.employee_id,
    entryId: entry.id,
    from: next.start_at,
    to: next.end_at,
    startedAfter: new Date(Date.parse(next.start_at) - MAX_SESSION_MS).toISOString(),
  });
  if (overlapping !== null)
    throw new ApiError('overlaps_existing_entry', `the corrected entry would overlap entry ${overlapping}`);
  const item = entryItem(next, employee, plan.breaks);
  if (input.dryRun) return item;
  if ((await updateEntry(tx, entry.id, entry.version, patchOf(next))) !== 1)
    throw new ApiError('version_mismatch', 'the entry changed meanwhile; read it again');
  if (plan.breaksChanged) await replaceBreaks(tx, entry.id, plan.breaks);
  await recordChange(tx, {
    companyId: entry.company_id,
    entryId: entry.id,
    revision: next.version,
    at,
    action: 'corrected',
    actor: manager.actor,
    reason: input.body.reason.trim(),
    changes: diffSnapshots(snapshotOf(entry, breaks), snapshotOf(next, plan.breaks)),
    audit: 'time_entry.correct',
    // Closing an open session completes it, as a clock-out does.
    event: {
      type: entry.end_at === null && next.end_at !== null ? 'time_entry.completed' : 'time_entry.updated',
      data: item,
    },
  });
  return item;
}
