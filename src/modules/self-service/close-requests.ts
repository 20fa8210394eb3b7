import type { Tx } from '../../platform/db/database.js';
import { recordAudit } from '../audit/queries.js';
import { appendEvents } from '../events/service.js';
import { decideCorrectionRequest, waitingRequestsOf } from './queries.js';
import { requestView } from './request-view.js';

/**
 * Waiting correction requests whose entry or employee was deleted (issue 35): nothing can apply them
 * any more, so they are closed as `withdrawn` by the system (decidedBy `{kind: system}`, the reason
 * saying why), each with its audit row and a `correction.withdrawn` event, in the deletion's
 * transaction. Called by the entry's and the employee's deletion.
 */
export async function withdrawWaitingRequests(
  tx: Tx,
  at: string,
  of: { entryId: string } | { employeeId: string },
): Promise<number> {
  const why = 'entryId' in of ? 'the time entry was deleted' : 'the employee was deleted';
  const decision = {
    status: 'withdrawn' as const,
    decided_by_kind: 'system' as const,
    decided_by_id: null,
    decided_by_name: null,
    decided_at: at,
    decision_reason: why,
  };
  const waiting = await waitingRequestsOf(tx, of);
  for (const row of waiting) {
    const changed = await decideCorrectionRequest(tx, row.id, decision);
    if (changed !== 1) continue;
    const view = requestView({ ...row, ...decision, updated_at: at });
    await recordAudit(tx, {
      companyId: row.company_id,
      actorType: 'system',
      actorId: null,
      action: 'correction_request.withdraw',
      targetType: 'correction_request',
      targetId: row.id,
      details: { status: 'withdrawn', timeEntryId: row.time_entry_id, date: row.date, reason: why },
      at,
    });
    await appendEvents(tx, row.company_id, [{ type: 'correction.withdrawn', data: view }], at);
  }
  return waiting.length;
}
