import { newId } from '../../domain/ids.js';
import type { Tx } from '../../platform/db/database.js';
import { prepareQuery } from '../../platform/db/prepared.js';

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

interface AuditRow {
  id: string;
  companyId: string | null;
  actorType: string;
  actorId: string | null;
  action: string;
  targetType: string | null;
  targetId: string | null;
  details: string | null;
  at: string;
}

const insertAudit = prepareQuery((db, p: AuditRow) =>
  db.insertInto('audit_log').values({
    id: p.id,
    company_id: p.companyId,
    actor_type: p.actorType,
    actor_id: p.actorId,
    action: p.action,
    target_type: p.targetType,
    target_id: p.targetId,
    details: p.details,
    created_at: p.at,
  }),
);

/** Who did what: written in the transaction of the change it records. */
export async function recordAudit(tx: Tx, entry: AuditEntry): Promise<void> {
  await insertAudit.executeWrite(tx, {
    id: newId(),
    companyId: entry.companyId,
    actorType: entry.actorType,
    actorId: entry.actorId,
    action: entry.action,
    targetType: entry.targetType,
    targetId: entry.targetId,
    details: entry.details ? JSON.stringify(entry.details) : null,
    at: entry.at,
  });
}
