import { ApiError } from '../../domain/errors.js';
import { isUniqueViolation, type Tx } from '../../platform/db/database.js';
import type { TimeEntryBreakRow, TimeEntryRow } from '../../platform/db/schema.js';
import type { AppContext } from '../context.js';
import { sessionFigures } from '../time-tracking/break-rules.js';
import { findEntryBreaks } from '../time-tracking/queries/breaks.js';
import { momentAt } from './correction-rules.js';
import { assertDaysWritable } from './day-locks.js';
import { entryItem } from './entry-access.js';
import { autoClockOutHours, companiesWithAutoClockOut, findDueSessions } from './queries/periods.js';
import { findEntry, lockEntryEmployee, patchOf, replaceBreaks, updateEntry } from './queries/entries.js';
import { recordChange } from './record.js';
import { diffSnapshots, snapshotOf, SYSTEM_ACTOR } from './revisions.js';

/*
 * The automatic clock-out (issue 30). With a company's `autoClockOutAfterHours` (1-23) set, every
 * instance runs `closeDueSessions` about every 30 seconds (AUTO_CLOCK_OUT_INTERVAL_MS): a session open
 * that long is closed at its start plus that many hours, whenever it is found (also when the setting
 * was switched on after that instant). Each session is closed in a transaction of its own that takes
 * the employee's row lock first, like every punch, reads the session again and writes it only while it
 * is still open at the version read: a second instance, or a punch, that got there first leaves
 * nothing to close. The revision's primary key is the last word. A session on a locked day (confirmed,
 * or in a closed period) is left open: it then needs a manager's correction.
 */

const HOUR_MS = 3_600_000;
/** Sessions read per page of a company's due sessions. */
const BATCH = 200;

/** The breaks of a session closed at `endMs`: those after it go, one running over it ends there. */
function clipBreaks(
  breaks: TimeEntryBreakRow[],
  endMs: number,
  end: { utcIso: string; time: string },
  at: string,
) {
  const kept = breaks.filter((b) => Date.parse(b.start_at) < endMs);
  const rows = kept.map((b) =>
    b.end_at === null || Date.parse(b.end_at) > endMs
      ? {
          ...b,
          end_at: end.utcIso,
          end_time: end.time,
          end_event: 'auto_clock_out',
          closed_by_id: null,
          updated_at: at,
        }
      : b,
  );
  const changed = kept.length !== breaks.length || rows.some((row, i) => row !== kept[i]);
  return { rows, changed };
}

/** The session as the automatic clock-out closes it at `endMs`. */
function closedSession(entry: TimeEntryRow, breaks: TimeEntryBreakRow[], endMs: number, at: string) {
  const zone = entry.time_zone === 'offset' ? null : entry.time_zone;
  const offset = Math.round(
    (Date.parse(`${entry.work_date}T${entry.start_time}Z`) - Date.parse(entry.start_at)) / 60_000,
  );
  const end = momentAt(endMs, zone, offset);
  const clipped = clipBreaks(breaks, endMs, end, at);
  const figures = sessionFigures(
    Date.parse(entry.start_at),
    endMs,
    clipped.rows.map((b) => ({ startMs: Date.parse(b.start_at), endMs: Date.parse(b.end_at!) })),
  );
  const next: TimeEntryRow = {
    ...entry,
    end_at: end.utcIso,
    end_time: end.time,
    ends_next_day: end.workDate !== entry.work_date ? 1 : 0,
    // As a clock-out leaves it: the sum of the breaks, none without any.
    break_minutes: clipped.rows.length > 0 ? figures.breakMinutes : null,
    net_seconds: figures.netSeconds,
    status: 'pending_approval',
    clock_out_event: 'auto_clock_out',
    closed_by_id: null,
    auto_closed: 1,
    version: entry.version + 1,
    updated_at: at,
  };
  return { next, end, breaks: clipped };
}

/** Whether the days of a session closed at `endDay` are open; a locked one leaves the session alone. */
async function daysOpen(tx: Tx, entry: TimeEntryRow, workplaceId: string | null, endDay: string) {
  try {
    await assertDaysWritable(tx, {
      companyId: entry.company_id,
      employeeId: entry.employee_id,
      workplaceId,
      dates: [entry.work_date, endDay],
    });
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.errorName === 'day_locked') return false;
    throw error;
  }
}

/** Closes one session if it is still open and due; whether it did. */
export async function closeSession(tx: Tx, now: number, candidate: { id: string; employee_id: string }) {
  const employee = await lockEntryEmployee(tx, candidate.employee_id);
  const entry = await findEntry(tx, null, candidate.id);
  if (!employee || !entry || entry.status !== 'open') return false;
  const hours = await autoClockOutHours(tx, entry.company_id);
  const endMs = Date.parse(entry.start_at) + (hours ?? 0) * HOUR_MS;
  if (hours === null || endMs > now) return false;
  const at = new Date(now).toISOString();
  const before = await findEntryBreaks(tx, entry.id);
  const { next, end, breaks } = closedSession(entry, before, endMs, at);
  if (!(await daysOpen(tx, entry, employee.workplace_id, end.workDate))) return false;
  if ((await updateEntry(tx, entry.id, entry.version, patchOf(next))) !== 1) return false;
  if (breaks.changed) await replaceBreaks(tx, entry.id, breaks.rows);
  const item = entryItem(next, employee, breaks.rows);
  await recordChange(tx, {
    companyId: entry.company_id,
    entryId: entry.id,
    revision: next.version,
    at,
    action: 'auto_closed',
    actor: SYSTEM_ACTOR,
    reason: `open for ${hours} hours: closed automatically at its start plus ${hours} hours (autoClockOutAfterHours)`,
    changes: diffSnapshots(snapshotOf(entry, before), snapshotOf(next, breaks.rows)),
    audit: 'time_entry.auto_close',
    event: { type: 'time_entry.completed', data: item },
  });
  return true;
}

/** Where a run reports a session it could not close (the server's log; tests inject their own). */
export type SessionFailureLog = (failure: { entryId: string; error: unknown }) => void;

const warnOnConsole: SessionFailureLog = ({ entryId, error }) =>
  console.warn(`automatic clock-out: session ${entryId} not closed`, error);

/**
 * Closes one session in a transaction of its own; whether it did. A session that fails is logged and
 * left open (the next run tries again): one bad session does not stop the run for the others.
 */
async function closeInOwnTransaction(
  ctx: AppContext,
  now: number,
  candidate: { id: string; employee_id: string },
  log: SessionFailureLog,
) {
  try {
    return await ctx.database.transaction((tx) => closeSession(tx, now, candidate));
  } catch (error) {
    // Another instance wrote this revision first: the session is closed, once.
    if (!isUniqueViolation(error)) log({ entryId: candidate.id, error });
    return false;
  }
}

/**
 * One run of the automatic clock-out: every session due (its company's setting, its start plus that
 * many hours at or before now) is closed, each in a transaction of its own; one that fails is logged
 * and the run goes on. The number closed.
 */
export async function closeDueSessions(
  ctx: AppContext,
  log: SessionFailureLog = warnOnConsole,
): Promise<number> {
  const now = ctx.now();
  let closed = 0;
  for (const company of await companiesWithAutoClockOut(ctx.database.db)) {
    const startedBy = new Date(now - Number(company.hours) * HOUR_MS).toISOString();
    let after: { start: string; id: string } | null = null;
    for (;;) {
      const page = await findDueSessions(ctx.database.db, {
        companyId: company.id,
        startedBy,
        after,
        limit: BATCH,
      });
      for (const candidate of page) if (await closeInOwnTransaction(ctx, now, candidate, log)) closed += 1;
      const last = page.at(-1);
      if (!last || page.length < BATCH) break;
      after = { start: last.start_at, id: last.id };
    }
  }
  return closed;
}
