import type { Tx } from '../../platform/db/database.js';
import type { TimeEntryRow } from '../../platform/db/schema.js';
import type { Principal } from '../auth/service.js';
import type { EmployeeForWrite } from '../employees/queries.js';
import { DUPLICATE_WINDOW_MS, MAX_SESSION_MS } from './punch-rules.js';
import { type BreakRow } from './queries/breaks.js';
import { findDuplicateBreakPunch, findDuplicatePunch } from './queries/duplicates.js';
import {
  type ClockEventInput,
  entryResult,
  storedInstant,
  storedPunch,
  type WriteOutcome,
  type WriteResult,
} from './results.js';

/*
 * A punch sent again without an Idempotency-Key (spec, Idempotency rule 6): the same punch (type,
 * caller, instant within a minute) already recorded answers what it recorded. The single endpoint
 * looks it up (replayDuplicate); a batch decided as a set finds it among its rows in memory (batch-set.ts).
 */

/**
 * The one duplicate check: the same punch (type, caller, instant within a minute) already recorded
 * answers 200 with what it recorded, localised as it was stored. Null when there is none.
 */
export async function replayDuplicate(
  tx: Tx,
  principal: Principal,
  employee: EmployeeForWrite,
  sentType: ClockEventInput['type'],
  epochMs: number,
  dryRun: boolean,
): Promise<WriteOutcome | null> {
  const window = duplicateWindow(employee.id, sentType, principal.id, epochMs);
  let found: DuplicateFound | null = null;
  if (sentType === 'break_start' || sentType === 'break_end') {
    const duplicate = await findDuplicateBreakPunch(tx, window);
    if (duplicate) found = duplicateOfBreak(sentType, duplicate);
  } else {
    const duplicate = await findDuplicatePunch(tx, window);
    if (duplicate) found = duplicateOfPunch(duplicate);
  }
  return found ? duplicateAnswer(found, employee, dryRun) : null;
}

/** The window a duplicate of a punch is looked for in (see queries/duplicates.ts). */
export function duplicateWindow(employeeId: string, sentType: string, callerId: string, epochMs: number) {
  return {
    employeeId,
    sentType,
    callerId,
    from: new Date(epochMs - DUPLICATE_WINDOW_MS).toISOString(),
    to: new Date(epochMs + DUPLICATE_WINDOW_MS).toISOString(),
    startedAfter: new Date(epochMs - DUPLICATE_WINDOW_MS - MAX_SESSION_MS).toISOString(),
  };
}

interface DuplicateFound {
  entry: Parameters<typeof storedPunch>[0];
  type: WriteResult['type'];
  punched: ReturnType<typeof storedPunch>;
}

export function duplicateOfBreak(
  sentType: 'break_start' | 'break_end',
  duplicate: { entry: TimeEntryRow; brk: BreakRow; matched: 'start' | 'end' },
): DuplicateFound {
  const { entry, brk, matched } = duplicate;
  const punched =
    matched === 'start'
      ? storedInstant(entry, brk.start_at, brk.start_time)
      : storedInstant(entry, brk.end_at!, brk.end_time!);
  return { entry, type: sentType, punched };
}

export function duplicateOfPunch(duplicate: {
  entry: TimeEntryRow;
  matched: 'start' | 'end';
}): DuplicateFound {
  const { entry, matched } = duplicate;
  return {
    entry,
    type: matched === 'start' ? 'clock_in' : 'clock_out',
    punched: storedPunch(entry, matched),
  };
}

/** A duplicate answers 200 with what it recorded; a dry run that meets one still wrote nothing and says so. */
export function duplicateAnswer(
  found: DuplicateFound,
  employee: EmployeeForWrite,
  dryRun: boolean,
): WriteOutcome {
  return {
    status: 200,
    body: entryResult(found.entry, employee, found.type, found.punched, dryRun, found.entry.id),
  };
}
