import { ApiError } from '../../domain/errors.js';
import { isUuid } from '../../domain/ids.js';
import { addDays } from '../../domain/time-zone.js';
import type { Executor, Tx } from '../../platform/db/database.js';
import type { TimeEntryBreakRow, TimeEntryRow } from '../../platform/db/schema.js';
import type { Principal } from '../auth/service.js';
import type { Actor } from '../context.js';
import { findEntryBreaks } from '../time-tracking/queries/breaks.js';
import { isPunchedSource, timeEntryListItem } from '../time-tracking/results.js';
import { findEmployeeRef, findEntry, lockEntryEmployee } from './queries/entries.js';
import { keyCreatorEmployeeOf, linkedEmployeeOf } from './queries/revisions.js';
import { actorOfAdmin, actorOfPrincipal, type RevisionActor } from './revisions.js';

/*
 * How a change of an entry starts (issue 30): the entry of the caller's company (404 otherwise), its
 * employee locked like a punch locks them, the person's own entries refused (403 own_entry), the
 * version the caller saw compared (412 version_mismatch).
 */

/** Who changes entries, and in which company (null: any, the command line's operator). */
export interface Manager {
  companyId: string | null;
  actor: RevisionActor;
}

export function managerOfPrincipal(principal: Pick<Principal, 'kind' | 'id' | 'companyId'>): Manager {
  return { companyId: principal.companyId, actor: actorOfPrincipal(principal) };
}

export function managerOfAdmin(actor: Actor, companyId: string | null): Manager {
  return { companyId, actor: actorOfAdmin(actor) };
}

export type EntryEmployee = NonNullable<Awaited<ReturnType<typeof lockEntryEmployee>>>;

export interface LoadedEntry {
  entry: TimeEntryRow;
  employee: EntryEmployee;
  /** The entry's punched breaks, oldest first (none for a shift). */
  breaks: TimeEntryBreakRow[];
}

/** `If-Match`: the versions the caller accepts; null: any (no header, or `*`). */
export type IfMatch = readonly number[] | null;

function notFound(id: string): ApiError {
  return new ApiError('not_found', `no time entry ${id} in this company`);
}

/** Whether an entry's list item carries its punched breaks (entries of the time clock). */
export function hasPunchedBreaks(entry: Pick<TimeEntryRow, 'source'>): boolean {
  return isPunchedSource(entry.source);
}

/** The entry as a list item, with its breaks when it is of the time clock. */
export function entryItem(
  entry: Parameters<typeof timeEntryListItem>[0],
  employee: { id: string; external_id: string | null },
  breaks: readonly TimeEntryBreakRow[],
) {
  return timeEntryListItem(entry, employee, hasPunchedBreaks(entry) ? breaks : undefined);
}

/** The day an entry ends on (the next day for an overnight one). */
export function endDayOf(entry: Pick<TimeEntryRow, 'work_date' | 'ends_next_day'>): string {
  return entry.ends_next_day === 1 ? addDays(entry.work_date, 1) : entry.work_date;
}

/**
 * 403 own_entry when the actor is the entry's employee: a person linked to them, or an API key created
 * by such a person (a key acts for its creator, so it may not do what the creator may not).
 */
export async function assertNotOwnEntry(db: Executor, manager: Manager, employeeId: string): Promise<void> {
  const { kind, id } = manager.actor;
  if (id === null || (kind !== 'person' && kind !== 'api_key')) return;
  const linked = kind === 'person' ? await linkedEmployeeOf(db, id) : await keyCreatorEmployeeOf(db, id);
  if (linked === employeeId)
    throw new ApiError(
      'own_entry',
      "you are linked to this entry's employee; someone else decides on or corrects your own entries",
    );
}

/** The entry, its employee (row-locked) and its breaks, for a change by `manager`. */
export async function loadForChange(
  tx: Tx,
  manager: Manager,
  entryId: string,
  ifMatch: IfMatch,
): Promise<LoadedEntry> {
  if (!isUuid(entryId)) throw notFound(entryId);
  const id = entryId.toLowerCase();
  const first = await findEntry(tx, manager.companyId, id);
  if (!first) throw notFound(entryId);
  // The employee's lock first, as every punch takes it: then the entry read below is the latest.
  const employee = await lockEntryEmployee(tx, first.employee_id);
  const entry = await findEntry(tx, manager.companyId, id);
  if (!employee || !entry) throw notFound(entryId);
  await assertNotOwnEntry(tx, manager, entry.employee_id);
  if (ifMatch !== null && !ifMatch.includes(entry.version))
    throw new ApiError(
      'version_mismatch',
      `the entry is at version ${entry.version}, not ${ifMatch.join(' or ')}: it changed meanwhile; read it again before changing it`,
    );
  const breaks = hasPunchedBreaks(entry) ? await findEntryBreaks(tx, entry.id) : [];
  return { entry, employee, breaks };
}

/** GET /time-entries/{id}: the entry of the company as a list item; 404 for any other id. */
export async function readEntry(db: Executor, companyId: string, entryId: string) {
  const entry = isUuid(entryId) ? await findEntry(db, companyId, entryId.toLowerCase()) : undefined;
  if (!entry) throw notFound(entryId);
  const employee = await findEmployeeRef(db, entry.employee_id);
  const breaks = hasPunchedBreaks(entry) ? await findEntryBreaks(db, entry.id) : [];
  return entryItem(entry, employee, breaks);
}

/**
 * `If-Match` as sent: `*` (any), or entity tags, quoted or bare, weak or strong (`"3"`, `3`, `W/"3"`),
 * comma-separated. A tag that is no version matches none (412).
 */
export function parseIfMatch(header: string | string[] | undefined): IfMatch {
  if (header === undefined) return null;
  const tags = (Array.isArray(header) ? header.join(',') : header)
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
  if (tags.length === 0 || tags.includes('*')) return null;
  return tags.map((tag) => {
    const bare = tag.replace(/^W\//, '').replace(/^"(.*)"$/, '$1');
    return /^[1-9]\d{0,9}$/.test(bare) ? Number(bare) : -1;
  });
}
