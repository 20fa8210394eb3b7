import { ApiError } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { type BreakSpan, breakMinutes, evaluateBreakEnd, evaluateBreakStart } from './break-rules.js';
import { type BreakRow } from './queries/breaks.js';
import type { OpenSession } from './queries/context.js';
import { entryResult, timeEntryListItem } from './results.js';
import { appendNotes, assertDaysOpen, notes, type PunchDecision, type PunchWrite } from './writes.js';
import { punchRevisionOf, stuckSessionHint } from '../corrections/hooks.js';

/*
 * `break_start` / `break_end` (issue 20): a break inside the open session, after what it follows (the
 * clock-in, the previous break's end, its own start), on days that are not locked. The partial unique
 * index on open breaks is the last word on "one break in progress".
 */

type BreakType = 'break_start' | 'break_end';

/** The breaks as spans for the pure rules (an end of null: the break in progress). */
export function spansOf(breaks: readonly BreakRow[]): BreakSpan[] {
  return breaks.map((b) => ({
    startMs: Date.parse(b.start_at),
    endMs: b.end_at === null ? null : Date.parse(b.end_at),
  }));
}

/** The message of a refused break punch. */
function breakRefusal(
  error: 'already_on_break' | 'not_on_break' | 'break_out_of_order' | 'session_too_long',
  open: OpenSession,
  breaks: readonly BreakRow[],
  type: 'break_start' | 'break_end',
): ApiError {
  const last = breaks.at(-1);
  switch (error) {
    case 'already_on_break':
      return new ApiError(error, `a break is in progress since ${last!.start_at}`);
    case 'not_on_break':
      return new ApiError(error, 'the employee has no break in progress to end');
    case 'session_too_long':
      return new ApiError(
        error,
        `the session open since ${open.start_at} would last 24 hours or longer at this punch${stuckSessionHint(open.id)}`,
      );
    case 'break_out_of_order':
      return new ApiError(
        error,
        type === 'break_end'
          ? `the break's end is before its start (${last!.start_at})`
          : last
            ? `the break's start is before the end of the previous break (${last.end_at ?? last.start_at})`
            : `the break's start is before the clock-in (${open.start_at})`,
      );
  }
}

/** A break punch: refused unless the rules allow it on an open day, then a break started or ended. */
export function decideBreakPunch(write: PunchWrite, type: BreakType): PunchDecision {
  const { context, breaks, punch, input } = write;
  const open = context.open;
  if (!open)
    throw type === 'break_start'
      ? new ApiError('no_open_session', 'the employee has no open session to take a break in')
      : new ApiError('not_on_break', 'the employee has no open session, so no break to end');
  const sessionStart = Date.parse(open.start_at);
  const spans = spansOf(breaks);
  const verdict =
    type === 'break_start'
      ? evaluateBreakStart(sessionStart, spans, punch.epochMs)
      : evaluateBreakEnd(sessionStart, spans, punch.epochMs);
  if (!verdict.ok) throw breakRefusal(verdict.error, open, breaks, type);
  assertDaysOpen(
    context.openDayLocked || context.punchDayLocked,
    [open.work_date, punch.workDate],
    context.openClosedPeriod ?? context.punchClosedPeriod,
  );
  const session = sessionOf(open, input);
  return type === 'break_start' ? startBreak(write, open, session) : endBreak(write, open, session);
}

/** The open session as a break punch leaves it: the device added to its notes, a note replacing its own. */
function sessionOf(open: OpenSession, input: PunchWrite['input']) {
  // As a clock-out does.
  return {
    ...open,
    notes: appendNotes(open.notes, notes(input.deviceId)),
    note: input.note ?? open.note,
    end_at: null,
    end_time: null,
    ends_next_day: 0,
    net_seconds: null,
    status: 'open',
    // Issue 30: every punch is a revision; the session's version is its number.
    version: open.version + 1,
  };
}

type Session = ReturnType<typeof sessionOf>;

function startBreak(write: PunchWrite, open: OpenSession, session: Session): PunchDecision {
  const { principal, at, employee, punch, breaks, input } = write;
  const deviceId = input.deviceId ?? null;
  const row: BreakRow = {
    id: newId(),
    company_id: principal.companyId,
    employee_id: employee.id,
    time_entry_id: open.id,
    start_at: punch.utcIso,
    end_at: null,
    start_time: punch.time,
    end_time: null,
    start_event: 'break_start',
    end_event: null,
    created_by_id: principal.id,
    closed_by_id: null,
    created_at: at,
    updated_at: at,
  };
  if (write.dryRun)
    return {
      outcome: { status: 200, body: entryResult(session, employee, 'break_start', punch, true, open.id) },
      effects: [],
    };
  return {
    outcome: { status: 201, body: entryResult(session, employee, 'break_start', punch, false, open.id) },
    effects: [
      { kind: 'insertBreak', row },
      // The session's new version (and the device and note, when sent).
      {
        kind: 'updateOpenSession',
        id: open.id,
        patch: {
          breakMinutes: open.break_minutes,
          notes: session.notes,
          note: session.note,
          updatedAt: at,
          version: session.version,
        },
      },
      {
        kind: 'revision',
        revision: punchRevisionOf(principal, at, {
          entryId: open.id,
          version: session.version,
          action: 'break_started',
          before: [open, breaks],
          after: [session, [...breaks, row]],
        }),
      },
      {
        kind: 'change',
        at,
        change: {
          action: 'time_entry.break_start',
          entryId: open.id,
          details: { employeeId: employee.id, breakId: row.id, occurredAt: punch.utcIso, deviceId },
          event: {
            type: 'time_entry.break_started',
            data: timeEntryListItem(session, employee, [...breaks, row]),
          },
        },
      },
    ],
  };
}

function endBreak(write: PunchWrite, open: OpenSession, session: Session): PunchDecision {
  const { principal, at, employee, punch, breaks, input } = write;
  const ending = {
    end_at: punch.utcIso,
    end_time: punch.time,
    end_event: 'break_end',
    closed_by_id: principal.id,
  };
  const ended = breaks.map((b) => (b.end_at === null ? { ...b, ...ending } : b));
  const minutes = ended.reduce(
    (sum, b) => sum + breakMinutes(Date.parse(b.start_at), Date.parse(b.end_at!)),
    0,
  );
  const updated = { ...session, break_minutes: minutes };
  if (write.dryRun)
    return {
      outcome: { status: 200, body: entryResult(updated, employee, 'break_end', punch, true, open.id) },
      effects: [],
    };
  return {
    outcome: { status: 201, body: entryResult(updated, employee, 'break_end', punch, false, open.id) },
    effects: [
      { kind: 'closeBreak', closing: { entryId: open.id, ...ending, updated_at: at }, required: true },
      {
        kind: 'updateOpenSession',
        id: open.id,
        patch: {
          breakMinutes: minutes,
          notes: updated.notes,
          note: updated.note,
          updatedAt: at,
          version: updated.version,
        },
      },
      {
        kind: 'revision',
        revision: punchRevisionOf(principal, at, {
          entryId: open.id,
          version: updated.version,
          action: 'break_ended',
          before: [open, breaks],
          after: [updated, ended],
        }),
      },
      {
        kind: 'change',
        at,
        change: {
          action: 'time_entry.break_end',
          entryId: open.id,
          details: { employeeId: employee.id, occurredAt: punch.utcIso, deviceId: input.deviceId ?? null },
          event: { type: 'time_entry.break_ended', data: timeEntryListItem(updated, employee, ended) },
        },
      },
    ],
  };
}
