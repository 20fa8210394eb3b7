import { newId } from '../../ids.js';
import type { Executor } from '../database.js';
import { prepareQuery } from '../prepared.js';

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

// Written by every recorded punch and shift: compiled once (see prepared.ts).
const insertAudit = prepareQuery(
  9,
  (
    db,
    id: string,
    companyId: string | null,
    actorType: string,
    actorId: string | null,
    action: string,
    targetType: string | null,
    targetId: string | null,
    details: string | null,
    createdAt: string,
  ) =>
    db.insertInto('audit_log').values({
      id,
      company_id: companyId,
      actor_type: actorType,
      actor_id: actorId,
      action,
      target_type: targetType,
      target_id: targetId,
      details,
      created_at: createdAt,
    }),
);

/** Pipelined (prepared.ts): it travels with the statements after it; a failure fails the commit. */
export async function recordAudit(db: Executor, entry: AuditEntry): Promise<void> {
  await insertAudit.executePipelined(
    db,
    newId(),
    entry.companyId,
    entry.actorType,
    entry.actorId,
    entry.action,
    entry.targetType,
    entry.targetId,
    entry.details ? JSON.stringify(entry.details) : null,
    entry.at,
  );
}
