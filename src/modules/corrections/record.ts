import type { Tx } from '../../platform/db/database.js';
import { recordAudit } from '../audit/queries.js';
import { appendEvents, type NewEvent } from '../events/service.js';
import { auditActorOf, type NewRevision, writeRevision } from './revisions.js';

/**
 * What every change of this room records with it, in its transaction: the revision (what changed,
 * by whom, why), the audit row and the change feed's event, appended last (see appendEvents).
 */
export async function recordChange(
  tx: Tx,
  change: NewRevision & { audit: string; event: NewEvent | null },
): Promise<void> {
  await writeRevision(tx, change);
  await recordAudit(tx, {
    companyId: change.companyId,
    ...auditActorOf(change.actor),
    action: change.audit,
    targetType: 'time_entry',
    targetId: change.entryId,
    details: { revision: change.revision, reason: change.reason ?? null, changes: change.changes },
    at: change.at,
  });
  if (change.event) await appendEvents(tx, change.companyId, [change.event], change.at);
}
