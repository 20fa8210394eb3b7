import { newId } from '../../domain/ids.js';
import type { Tx } from '../../platform/db/database.js';

export interface AuditEntry {
  companyId: string | null;
  actorType: 'api_key' | 'user' | 'cli';
  actorId: string | null;
  action: string;
  targetType: string | null;
  targetId: string | null;
  details?: Record<string, unknown> | null;
  at: string;
}

/** Who did what: written in the transaction of the change it records. */
export async function recordAudit(tx: Tx, entry: AuditEntry): Promise<void> {
  await tx
    .insertInto('audit_log')
    .values({
      id: newId(),
      company_id: entry.companyId,
      actor_type: entry.actorType,
      actor_id: entry.actorId,
      action: entry.action,
      target_type: entry.targetType,
      target_id: entry.targetId,
      details: entry.details ? JSON.stringify(entry.details) : null,
      created_at: entry.at,
    })
    .execute();
}
