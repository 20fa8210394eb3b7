import { newId } from '../../domain/ids.js';
import { type Actor, CLI_ACTOR } from '../context.js';
import { type Executor, type Tx } from '../../platform/db/database.js';
import { prepareQuery } from '../../platform/db/prepared.js';
import { columnsOf, insertRows } from '../../platform/db/update-rows.js';
import type { WritePlan } from '../../platform/db/write-plan.js';

export interface AuditEntry {
  companyId: string | null;
  actorType: 'api_key' | 'user' | 'device' | 'cli' | 'system';
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
  await insertAudit.executeWrite(tx, auditRow(entry));
}

/** An audit row as one write of a plan (a punch's writes in one statement, issue 32). */
export function planAudit(plan: WritePlan, entry: AuditEntry): void {
  const row = auditColumns(auditRow(entry));
  plan.insert('audit_log', columnsOf([row]), row);
}

/** Several audit rows in multi-row statements (a batch of punches, issue 32), in order. */
export async function recordAudits(tx: Tx, entries: AuditEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const rows = entries.map(auditRow).map(auditColumns);
  await insertRows(tx, 'audit_log', columnsOf(rows), rows);
}

function auditColumns(p: AuditRow) {
  return {
    id: p.id,
    company_id: p.companyId,
    actor_type: p.actorType,
    actor_id: p.actorId,
    action: p.action,
    target_type: p.targetType,
    target_id: p.targetId,
    details: p.details,
    created_at: p.at,
  };
}

function auditRow(entry: AuditEntry): AuditRow {
  return {
    id: newId(),
    companyId: entry.companyId,
    actorType: entry.actorType,
    actorId: entry.actorId,
    action: entry.action,
    targetType: entry.targetType,
    targetId: entry.targetId,
    details: entry.details ? JSON.stringify(entry.details) : null,
    at: entry.at,
  };
}

/** A page of the company's audit log, newest first, with the acting person's email or key's name. */
export function listAudit(
  db: Executor,
  input: {
    companyId: string;
    actorType: string | null;
    actorId: string | null;
    action: string | null;
    fromAt: string | null;
    beforeAt: string | null;
    after: { at: string; id: string } | null;
    limit: number;
  },
) {
  let query = db
    .selectFrom('audit_log as a')
    .leftJoin('users as u', (join) =>
      join
        .onRef('u.id', '=', 'a.actor_id')
        .on('a.actor_type', '=', 'user')
        .on('u.company_id', '=', input.companyId),
    )
    .leftJoin('api_keys as k', (join) =>
      join
        .onRef('k.id', '=', 'a.actor_id')
        .on('a.actor_type', '=', 'api_key')
        .on('k.company_id', '=', input.companyId),
    )
    .select([
      'a.id',
      'a.created_at',
      'a.actor_type',
      'a.actor_id',
      'a.action',
      'a.target_type',
      'a.target_id',
      'a.details',
      'u.email as user_email',
      'k.name as key_name',
    ])
    .where('a.company_id', '=', input.companyId);
  if (input.actorType !== null) query = query.where('a.actor_type', '=', input.actorType);
  if (input.actorId !== null) query = query.where('a.actor_id', '=', input.actorId);
  if (input.action !== null)
    query = input.action.endsWith('.')
      ? // A prefix ("employee."): its "_" would match any one character, harmless among these names.
        query.where('a.action', 'like', `${input.action}%`)
      : query.where('a.action', '=', input.action);
  if (input.fromAt !== null) query = query.where('a.created_at', '>=', input.fromAt);
  if (input.beforeAt !== null) query = query.where('a.created_at', '<', input.beforeAt);
  const after = input.after;
  if (after !== null)
    query = query.where((eb) =>
      eb.or([
        eb('a.created_at', '<', after.at),
        eb.and([eb('a.created_at', '=', after.at), eb('a.id', '<', after.id)]),
      ]),
    );
  return query.orderBy('a.created_at', 'desc').orderBy('a.id', 'desc').limit(input.limit).execute();
}

/** Every action the company's log holds (for the screen's filter). */
export async function auditActions(db: Executor, companyId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('audit_log')
    .select('action')
    .distinct()
    .where('company_id', '=', companyId)
    .orderBy('action')
    .execute();
  return rows.map((row) => row.action);
}

/** Who did it: the CLI's operator unless the caller says (the console passes the signed-in person). */
export function auditBase(companyId: string | null, at: string, actor: Actor = CLI_ACTOR) {
  return { companyId, actorType: actor.type, actorId: actor.id, at };
}
