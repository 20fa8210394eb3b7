import { type CursorCodec } from '../../domain/cursor.js';
import { ApiError, validationError } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { type Principal } from '../auth/service.js';
import { type AppContext } from '../context.js';
import {
  insertEvents,
  insertPendingEvents,
  numberPendingEventsIn,
  pruneEventsBefore,
  readEventsAfter,
  sequenceOf,
  takeSequence,
} from './queries.js';
import { numberAfterCommit } from './sequencer.js';
import { afterCommit, type Executor, serialWriters, type Tx } from '../../platform/db/database.js';
import { columnsOf } from '../../platform/db/update-rows.js';
import type { WritePlan } from '../../platform/db/write-plan.js';
import { invalidCursor } from '../../shared/pages.js';

/**
 * The event types this service writes. An open list: later versions add types (clients ignore the
 * ones they do not know).
 */
export const EVENT_TYPES = [
  'time_entry.opened',
  'time_entry.completed',
  'time_entry.approved',
  'time_entry.rejected',
  'day.confirmed',
  'employee.created',
  'employee.updated',
  'employee.deleted',
  'time_entry.break_started',
  'time_entry.break_ended',
  // Planned shifts (issue 33): the attendance-exceptions job.
  'attendance.exception_detected',
  'attendance.exception_resolved',
  // Corrections (issue 30).
  'time_entry.updated',
  'time_entry.deleted',
  'time_entry.reopened',
  'period.closed',
  'period.reopened',
  // Absences (issue 31).
  'absence.requested',
  'absence.approved',
  'absence.rejected',
  'absence.cancelled',
  // Self-service correction requests (issue 35).
  'correction.requested',
  'correction.approved',
  'correction.rejected',
  'correction.withdrawn',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export interface NewEvent {
  type: EventType;
  /** The public API's own shape of what changed (see EVENT_TYPES' documentation in the description). */
  data: unknown;
}

export const DEFAULT_EVENT_RETENTION_DAYS = 30;

/**
 * Appends events to the company's log in the caller's transaction: they commit with the change they
 * record, or not at all. SQLite (serial writers): numbered here, the next numbers of the company's
 * sequence. PostgreSQL: written unnumbered, and numbered right after the commit, in causal order, by the
 * event sequencer (sequencer.ts), so writers of one company never wait for each other's commits; the
 * caller's `Database.transaction` returns once they are numbered (or after WAIT_AFTER_COMMIT_MS).
 */
export async function appendEvents(tx: Tx, companyId: string, events: NewEvent[], at: string): Promise<void> {
  await appendEventsAt(
    tx,
    companyId,
    events.map((event) => ({ event, at })),
  );
}

/**
 * appendEvents as writes of a plan (a punch's writes in one statement, issue 32): PostgreSQL, the
 * unnumbered rows (numbered after the commit, as appendEvents says); SQLite, the company's next numbers
 * taken now and the numbered rows.
 */
export async function planEvents(
  tx: Tx,
  plan: WritePlan,
  companyId: string,
  events: NewEvent[],
  at: string,
): Promise<void> {
  if (events.length === 0) return;
  const rows = events.map((event) => eventRow(companyId, event, at));
  if (!serialWriters(tx)) {
    for (const row of rows) plan.insert('pending_events', columnsOf([row]), row);
    afterCommit(tx, numberAfterCommit);
    return;
  }
  const first = await takeSequence(tx, companyId, events.length);
  rows.forEach((row, i) => {
    const numbered = { ...row, seq: first + i };
    plan.insert('events', columnsOf([numbered]), numbered);
  });
}

function eventRow(companyId: string, event: NewEvent, at: string) {
  return {
    company_id: companyId,
    id: newId(),
    type: event.type,
    occurred_at: at,
    data: JSON.stringify(event.data),
  };
}

/** appendEvents for events of several instants (a batch of punches, issue 32), in order. */
export async function appendEventsAt(
  tx: Tx,
  companyId: string,
  events: { event: NewEvent; at: string }[],
): Promise<void> {
  if (events.length === 0) return;
  const rows = events.map(({ event, at }) => eventRow(companyId, event, at));
  if (!serialWriters(tx)) {
    await insertPendingEvents(tx, rows);
    afterCommit(tx, numberAfterCommit);
    return;
  }
  const first = await takeSequence(tx, companyId, events.length);
  await insertEvents(
    tx,
    rows.map((row, i) => ({ ...row, seq: first + i })),
  );
}

/**
 * Which families of events a token may read: `time_entry.*`, `day.*`, `period.*`, `attendance.*` and
 * `correction.*` with
 * attendance.read, `employee.*` with employees.read, `absence.*` with leave.read.
 */
export function visibleFamilies(principal: { readonly scopes: readonly string[] }): string[] {
  const families: string[] = [];
  if (principal.scopes.includes('attendance.read'))
    families.push('time_entry.', 'day.', 'period.', 'attendance.', 'correction.');
  if (principal.scopes.includes('employees.read')) families.push('employee.');
  if (principal.scopes.includes('leave.read')) families.push('absence.');
  return families;
}

const TYPE_NAME = /^[a-z_]+\.[a-z_]+$/;

export interface ChangesQuery {
  cursor?: string;
  limit?: number;
  types?: string;
  start?: 'oldest' | 'now';
}

/**
 * Spec (additive), GET /changes: the company's events after the cursor's position, in causal order
 * (docs/architecture.md: a change made after another committed comes after it).
 * `resumeCursor` is the position after the last event returned (or the same position when none was):
 * following it never misses and never repeats an event.
 */
export async function readChanges(
  db: Executor,
  cursors: CursorCodec,
  principal: Principal,
  query: ChangesQuery,
) {
  const families = visibleFamilies(principal);
  if (families.length === 0)
    throw new ApiError(
      'insufficient_scope',
      'the change feed needs the scope attendance.read, employees.read or leave.read',
      null,
      {
        'www-authenticate':
          'Bearer error="insufficient_scope", scope="attendance.read employees.read leave.read"',
      },
    );
  let types: string[] | null = null;
  if (query.types !== undefined) {
    const requested = query.types
      .split(',')
      .map((t) => t.trim())
      .filter((t) => t !== '');
    const malformed = requested.find((t) => !TYPE_NAME.test(t));
    if (requested.length === 0 || malformed !== undefined)
      throw validationError([
        {
          field: 'types',
          message: 'must be a comma-separated list of event types like time_entry.opened',
          code: 'format',
        },
      ]);
    types = requested;
  }
  const visible = (type: string) => families.some((family) => type.startsWith(family));
  // Only the families the token may read: a filter of its own, or all of them.
  const filter = (types ?? EVENT_TYPES).filter(visible);
  const allVisible = types === null && EVENT_TYPES.every(visible);
  const limit = query.limit ?? 25;
  const sequence = await sequenceOf(db, principal.companyId);
  let after: number;
  if (query.cursor !== undefined) {
    const payload = cursors.decode(query.cursor);
    if (payload?.k !== 'changes' || payload.c !== principal.companyId || typeof payload.s !== 'number')
      throw invalidCursor('change feed');
    after = payload.s;
    if (after > sequence.lastSeq) throw invalidCursor('change feed');
    if (after < sequence.prunedThrough)
      throw new ApiError(
        'cursor_expired',
        'events after this cursor were removed by retention; start again with start=oldest or start=now',
      );
  } else after = query.start === 'now' ? sequence.lastSeq : sequence.prunedThrough;

  const rows =
    filter.length === 0
      ? []
      : await readEventsAfter(db, principal.companyId, after, allVisible ? null : filter, limit + 1);
  const hasMore = rows.length > limit;
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  const position = last ? Number(last.seq) : after;
  /*
   * Without more to read, every event numbered up to `sequence.lastSeq` (read before the events, so
   * committed before them) has been seen or filtered out: the resume position may move up to it, and
   * a filtered reader does not scan the same events again.
   */
  const resumeAt = hasMore ? position : Math.max(position, sequence.lastSeq);
  const cursorAt = (seq: number) => cursors.encode({ k: 'changes', c: principal.companyId, s: seq });
  return {
    items: items.map((row) => ({
      id: row.id,
      type: row.type,
      occurredAt: row.occurred_at,
      data: JSON.parse(row.data) as unknown,
    })),
    nextCursor: hasMore ? cursorAt(position) : null,
    hasMore,
    resumeCursor: cursorAt(resumeAt),
  };
}

/** Events are kept `retentionDays` (EVENT_RETENTION_DAYS), then removed; the server runs this periodically. */
export async function pruneEvents(ctx: AppContext, retentionDays: number): Promise<number> {
  const cutoff = new Date(ctx.now() - retentionDays * 86_400_000).toISOString();
  return pruneEventsBefore(ctx.database, cutoff);
}

/**
 * An import's last step (`punchclock import`, in its transaction): the events the source had committed
 * and not numbered yet (`pending_events`, PostgreSQL) numbered after the imported ones, in their order.
 */
export async function numberImportedEvents(tx: Tx): Promise<void> {
  await numberPendingEventsIn(tx);
}
