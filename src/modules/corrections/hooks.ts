import type { Tx } from '../../platform/db/database.js';
import type { TimeEntryBreakRow } from '../../platform/db/schema.js';
import type { Principal } from '../auth/service.js';
import { MAX_SESSION_MS } from '../time-tracking/punch-rules.js';
import {
  actorOfPrincipal,
  diffSnapshots,
  type NewRevision,
  snapshotOf,
  type TrackedEntry,
  writeRevision,
} from './revisions.js';

/*
 * What the time clock calls of this room (issue 30), one line each where it writes: the revision of
 * every recording and punch, and the hints for a session that no punch can close any more. (The
 * closed-period check of punches and shifts is part of their context statement,
 * time-tracking/queries/context.ts.)
 */

/**
 * Revision 1 of a new entry (a clock-in, a shift): `recorded`, no changes; `reason` when the caller
 * has one (an approved correction request names itself).
 */
export function recordedRevision(
  tx: Tx,
  principal: Principal,
  at: string,
  entryId: string,
  reason?: string,
): Promise<void> {
  return writeRevision(tx, recordedRevisionOf(principal, at, entryId, reason));
}

/** Revision 1 of a new entry, as data (a batch writes many at once). */
export function recordedRevisionOf(
  principal: Principal,
  at: string,
  entryId: string,
  reason?: string,
): NewRevision {
  return {
    ...(reason !== undefined ? { reason } : {}),
    companyId: principal.companyId,
    entryId,
    revision: 1,
    at,
    action: 'recorded',
    actor: actorOfPrincipal(principal),
    changes: [],
  };
}

type Breaks = readonly Pick<TimeEntryBreakRow, 'start_at' | 'end_at'>[];

/**
 * The revision of a punch on an open session (`break_started`, `break_ended`, `completed`): `version`
 * is the session's version after it (its version before, plus one), which the punch wrote with its
 * change of the row; the changes are those between the two states.
 */
export function punchRevision(
  tx: Tx,
  principal: Principal,
  at: string,
  punch: PunchRevisionInput,
): Promise<void> {
  return writeRevision(tx, punchRevisionOf(principal, at, punch));
}

interface PunchRevisionInput {
  entryId: string;
  version: number;
  action: 'break_started' | 'break_ended' | 'completed';
  before: [TrackedEntry, Breaks];
  after: [TrackedEntry, Breaks];
}

/** The revision of a punch on an open session, as data (the single punch and a batch write it). */
export function punchRevisionOf(principal: Principal, at: string, punch: PunchRevisionInput): NewRevision {
  return {
    companyId: principal.companyId,
    entryId: punch.entryId,
    revision: punch.version,
    at,
    action: punch.action,
    actor: actorOfPrincipal(principal),
    changes: diffSnapshots(snapshotOf(...punch.before), snapshotOf(...punch.after)),
  };
}

/** Whether a session open since `startAt` can no longer be closed by a punch (open 24 hours or more). */
export function needsCorrection(startAt: string, nowMs: number): boolean {
  return nowMs - Date.parse(startAt) >= MAX_SESSION_MS;
}

/** How to get out of a session no punch can close: the detail of `already_clocked_in` and `session_too_long`. */
export function stuckSessionHint(entryId: string): string {
  return (
    `; if it was never clocked out, a manager closes it with a correction (PATCH /time-entries/${entryId} with a clockOut, ` +
    `scope attendance.manage), or the company sets autoClockOutAfterHours to close such sessions automatically`
  );
}
