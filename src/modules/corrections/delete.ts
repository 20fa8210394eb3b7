import { ApiError, validationError } from '../../domain/errors.js';
import type { Tx } from '../../platform/db/database.js';
import { employeeRef } from '../employees/views.js';
import { withdrawWaitingRequests } from '../self-service/close-requests.js';
import { assertCorrectable } from './correct.js';
import { assertDaysWritable } from './day-locks.js';
import { endDayOf, hasPunchedBreaks, type IfMatch, loadForChange, type Manager } from './entry-access.js';
import { deleteEntryRows } from './queries/entries.js';
import { recordChange } from './record.js';
import { snapshotOf } from './revisions.js';

/**
 * DELETE /time-entries/{id}: removes the entry (and its breaks) from every list and report, with a
 * reason. Its revisions stay, the last one (`deleted`) holding every field it had, so the entry stays
 * readable through them. Its days must be open; an entry older than 400 days stays.
 */
export async function deleteTimeEntry(
  tx: Tx,
  now: number,
  manager: Manager,
  input: { entryId: string; reason: string; ifMatch: IfMatch; dryRun: boolean },
): Promise<{ id: string; deleted: true }> {
  const reason = input.reason.trim();
  if (reason === '')
    throw validationError([{ field: 'reason', message: 'must not be blank', code: 'blank' }]);
  const { entry, employee, breaks } = await loadForChange(tx, manager, input.entryId, input.ifMatch);
  assertCorrectable(entry, now);
  await assertDaysWritable(tx, {
    companyId: entry.company_id,
    employeeId: entry.employee_id,
    workplaceId: employee.workplace_id,
    dates: [entry.work_date, endDayOf(entry)],
  });
  if (input.dryRun) return { id: entry.id, deleted: true };
  if ((await deleteEntryRows(tx, entry.id, entry.version)) !== 1)
    throw new ApiError('version_mismatch', 'the entry changed meanwhile; read it again');
  const last = snapshotOf(entry, hasPunchedBreaks(entry) ? breaks : undefined);
  await recordChange(tx, {
    companyId: entry.company_id,
    entryId: entry.id,
    revision: entry.version + 1,
    at: new Date(now).toISOString(),
    action: 'deleted',
    actor: manager.actor,
    reason,
    changes: Object.entries(last).map(([field, from]) => ({ field, from, to: null })),
    audit: 'time_entry.delete',
    event: {
      type: 'time_entry.deleted',
      data: { id: entry.id, employee: employeeRef(employee), workDate: entry.work_date },
    },
  });
  // Its waiting correction requests can never be applied: closed (withdrawn by the system).
  await withdrawWaitingRequests(tx, new Date(now).toISOString(), { entryId: entry.id });
  return { id: entry.id, deleted: true };
}
