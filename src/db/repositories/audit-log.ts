import { newId } from '../../ids.js';
import type { Executor } from '../database.js';

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

export async function recordAudit(db: Executor, entry: AuditEntry): Promise<void> {
  await db
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
