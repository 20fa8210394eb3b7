import type { Executor, Tx } from '../../platform/db/database.js';
import { columnsOf } from '../../platform/db/update-rows.js';
import type { WritePlan } from '../../platform/db/write-plan.js';
import type { TimeEntryBreakRow, TimeEntryRow } from '../../platform/db/schema.js';
import { totalHours } from '../time-tracking/punch-rules.js';
import type { Actor } from '../context.js';
import { insertRevision, insertRevisions, listRevisionRows, revisionsCompany } from './queries/revisions.js';
import type {
  ActorKind,
  ChangeActor,
  Revision,
  RevisionAction,
  RevisionChange,
  StoredActor,
} from './schemas.js';

/*
 * Revisions (issue 30): the recording of an entry and every change after it, numbered from 1. An
 * entry's `version` is the number of its latest revision, so a change writes revision `version + 1`
 * and sets the entry's version to it with its own change of the row, in one transaction; the primary
 * key (entry, revision) refuses a second revision n.
 *
 * The actor and revision shapes these build are published in schemas.ts (the one place later
 * features take them from).
 */

export type { ActorKind, RevisionAction };

/** Who made a change, as stored; its name is read with the revisions (schemas.ts, StoredActor). */
export type RevisionActor = StoredActor;

export const SYSTEM_ACTOR: RevisionActor = { kind: 'system', id: null };
const FIXED_NAMES: Partial<Record<ActorKind, string>> = {
  cli: 'command line',
  system: 'automatic clock-out',
};

/** The actor of a token (an API key, or a person's own token). */
export function actorOfPrincipal(principal: {
  kind: 'api_key' | 'user' | 'device';
  id: string;
}): RevisionActor {
  return { kind: principal.kind === 'user' ? 'person' : principal.kind, id: principal.id };
}

/** The actor of an admin operation (the CLI, or a person in the console). */
export function actorOfAdmin(actor: Actor): RevisionActor {
  if (actor.type === 'cli') return { kind: 'cli', id: null };
  return { kind: actor.type === 'user' ? 'person' : 'api_key', id: actor.id };
}

/** The audit log's words for an actor. */
export function auditActorOf(actor: RevisionActor): {
  actorType: 'api_key' | 'user' | 'device' | 'cli' | 'system';
  actorId: string | null;
} {
  const actorType = actor.kind === 'person' ? 'user' : actor.kind;
  return { actorType, actorId: actor.id };
}

/** The published actor: `{kind, id, name}`. */
export function actorView(kind: string, id: string | null, name: string | null): ChangeActor {
  return { kind: kind as ActorKind, id, name: name ?? FIXED_NAMES[kind as ActorKind] ?? null };
}

export type Change = RevisionChange;

/** The fields of an entry a revision tracks (a row, or the part of it a punch has read). */
export type TrackedEntry = Partial<
  Pick<
    TimeEntryRow,
    | 'work_date'
    | 'start_time'
    | 'end_time'
    | 'ends_next_day'
    | 'net_seconds'
    | 'break_minutes'
    | 'status'
    | 'approved_at'
    | 'note'
  >
>;

type TrackedBreak = Pick<TimeEntryBreakRow, 'start_at' | 'end_at'>;

/** An entry's tracked fields in the list item's names (an open session: no end, 0 hours). */
export function snapshotOf(entry: TrackedEntry, breaks?: readonly TrackedBreak[]): Record<string, unknown> {
  return {
    workDate: entry.work_date ?? null,
    startTime: entry.start_time ?? null,
    endTime: entry.end_time ?? null,
    endsNextDay: entry.ends_next_day === 1,
    totalHours: entry.net_seconds == null ? 0 : totalHours(entry.net_seconds),
    breakMinutes: entry.break_minutes ?? null,
    status: entry.status ?? 'open',
    approvedAt: entry.approved_at ?? null,
    note: entry.note ?? null,
    ...(breaks !== undefined
      ? { breaks: breaks.map((b) => ({ startedAt: b.start_at, endedAt: b.end_at })) }
      : {}),
  };
}

/** The fields that differ between two snapshots, in snapshot order. */
export function diffSnapshots(before: Record<string, unknown>, after: Record<string, unknown>): Change[] {
  const changes: Change[] = [];
  for (const field of Object.keys(after)) {
    if (!(field in before)) continue;
    if (JSON.stringify(before[field]) !== JSON.stringify(after[field]))
      changes.push({ field, from: before[field], to: after[field] });
  }
  return changes;
}

export interface NewRevision {
  companyId: string;
  entryId: string;
  /** The entry's version after the change (1 for the recording). */
  revision: number;
  at: string;
  action: RevisionAction;
  actor: RevisionActor;
  reason?: string | null;
  changes: Change[];
}

/** Writes a revision (the caller wrote the entry's new version with its change). */
export async function writeRevision(tx: Tx, revision: NewRevision): Promise<void> {
  await insertRevision(tx, revisionRow(revision));
}

/** A revision as one write of a plan (a punch's writes in one statement, issue 32). */
export function planRevision(plan: WritePlan, revision: NewRevision): void {
  const row = revisionRow(revision);
  plan.insert('time_entry_revisions', columnsOf([row]), row);
}

/** Several revisions in multi-row statements (a batch of punches, issue 32). */
export async function writeRevisions(tx: Tx, revisions: NewRevision[]): Promise<void> {
  await insertRevisions(tx, revisions.map(revisionRow));
}

function revisionRow(revision: NewRevision) {
  return {
    time_entry_id: revision.entryId,
    revision: revision.revision,
    company_id: revision.companyId,
    at: revision.at,
    action: revision.action,
    actor_kind: revision.actor.kind,
    actor_id: revision.actor.id,
    reason: revision.reason ?? null,
    changes: JSON.stringify(revision.changes),
  };
}

/** An entry's revisions, oldest first, as published; null when the company has none of that entry. */
export async function revisionsOf(
  db: Executor,
  companyId: string,
  entryId: string,
): Promise<Revision[] | null> {
  const rows = await listRevisionRows(db, companyId, entryId);
  if (rows.length === 0) return null;
  return rows.map((row) => ({
    revision: row.revision,
    at: row.at,
    action: row.action as RevisionAction,
    actor: actorView(row.actor_kind, row.actor_id, row.key_name ?? row.person_email ?? row.device_name),
    reason: row.reason,
    changes: JSON.parse(row.changes) as Change[],
  }));
}

/** `entry history ID`: an entry's revisions in whichever company it is; null for an unknown id. */
export async function historyOfEntry(db: Executor, entryId: string) {
  const companyId = await revisionsCompany(db, entryId.toLowerCase());
  return companyId === null ? null : revisionsOf(db, companyId, entryId.toLowerCase());
}
