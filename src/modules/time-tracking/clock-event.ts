import { ApiError, validationError } from '../../domain/errors.js';
import { localizeInstant, type ParsedInstant } from '../../domain/time-zone.js';
import type { Tx } from '../../platform/db/database.js';
import type { Principal } from '../auth/service.js';
import { decideBreakPunch, spansOf } from './breaks.js';
import { type BreakRow } from './queries/breaks.js';
import { KEY_REPLAYED, type KeyInWrite } from '../idempotency/service.js';
import { findPunchContext } from './queries/context.js';
import { replayDuplicate } from './duplicate-punches.js';
import { evaluateClockOutAfterBreaks, sessionFigures } from './break-rules.js';
import { checkPunchWindow, evaluateClockOut, resolveToggle } from './punch-rules.js';
import {
  type ClockEventInput,
  type ENTRY_SOURCES,
  entryResult,
  punchSource,
  newEntry,
  timeEntryListItem,
  type WriteOutcome,
} from './results.js';
import {
  appendNotes,
  applyPunchEffects,
  assertBusinessRules,
  assertDaysOpen,
  dayBefore,
  loadEmployeeContext,
  notes,
  parseInstantField,
  type PunchDecision,
  type PunchEffect,
  type PunchWrite,
} from './writes.js';
import type { SessionClosing } from './queries/entries.js';
import {
  needsCorrection,
  punchRevisionOf,
  recordedRevisionOf,
  stuckSessionHint,
} from '../corrections/hooks.js';

/** How a punch is recorded (see recordClockEvent). */
export interface PunchOptions {
  dryRun: boolean;
  detectDuplicates: boolean;
  source?: typeof ENTRY_SOURCES.webClock;
  /** Review flags the punch adds to its entry (offline_punch, device_clock_skew): in its events too. */
  reviewFlags?: string[];
  /** The request's Idempotency-Key, claimed in the punch's own statements (see KeyInWrite). */
  key?: KeyInWrite;
  /** The answer as the request sends it (and a key stores it), when the caller changes it (forPrincipal). */
  present?: (outcome: WriteOutcome) => WriteOutcome;
}

/**
 * POST /time-clock/events: one punch, in the caller's transaction. Resolve the instant (in its
 * window), lock the employee, answer a retry's duplicate with what it recorded, read the context in
 * one statement, let the pure rules decide what the punch is, and write it in one plan.
 *
 * A keyed punch (`key`, issue 32 item 3) is five round trips on PostgreSQL, BEGIN and COMMIT included:
 * the key's lock and the employee's in one statement, the key's record with the context (and the open
 * session's breaks) in the next, every write and the stored outcome in one statement.
 */
export async function recordClockEvent(
  tx: Tx,
  now: number,
  principal: Principal,
  input: ClockEventInput,
  options: PunchOptions & { key?: undefined },
): Promise<WriteOutcome>;
export async function recordClockEvent(
  tx: Tx,
  now: number,
  principal: Principal,
  input: ClockEventInput,
  options: PunchOptions,
): Promise<WriteOutcome | typeof KEY_REPLAYED>;
export async function recordClockEvent(
  tx: Tx,
  now: number,
  principal: Principal,
  input: ClockEventInput,
  options: PunchOptions,
): Promise<WriteOutcome | typeof KEY_REPLAYED> {
  const key = options.key;
  // A dry run stores nothing, under a key or not: idempotentWrite gives it none.
  if (key && options.dryRun) throw new Error('a dry run was given an Idempotency-Key to store under');
  // Resolve: the instant as sent, within its window.
  const parsed = parsePunchInstant(input.occurredAt, now);
  // Lock: concurrent punches for one employee (several instances on one PostgreSQL) queue here; a
  // keyed punch's key is locked in the same statement.
  const { employee, zone } = await loadEmployeeContext(
    tx,
    principal,
    input.employee,
    key && { name: key.lockName, busy: key.busy },
  );
  const punch = localizeInstant(parsed, zone);
  // Duplicate? A punch repeated within a minute answers what the first one recorded.
  if (options.detectDuplicates) {
    const replay = await replayDuplicate(tx, principal, employee, input.type, parsed.epochMs, options.dryRun);
    if (replay) return replay;
  }
  // Context: the schedule, the open session, the day locks and a covering entry, in one statement.
  const context = await findPunchContext(tx, {
    employeeId: employee.id,
    workDate: punch.workDate,
    instant: punch.utcIso,
    startedAfter: dayBefore(punch.utcIso),
    sessionStartedAfter: dayBefore(dayBefore(punch.utcIso)),
    companyId: principal.companyId,
    workplaceId: employee.workplace_id ?? '',
    keyOwnerId: key?.ownerId ?? '',
    key: key?.key ?? '',
  });
  // The key's record, read with the context: a retry replays its stored answer, writing nothing.
  if (key && !key.admit(context.keyRecord)) return KEY_REPLAYED;
  assertBusinessRules(employee, context.scheduleId, punch.workDate);
  // Decide: what the punch is (a toggle becomes a clock-in or a clock-out), then the rules of that.
  const open = context.open;
  const effective =
    input.type === 'toggle' ? resolveToggle(open?.work_date ?? null, punch.workDate) : input.type;
  const breaks = open && effective !== 'clock_in' ? context.openBreaks : [];
  // Write.
  const write: PunchWrite = {
    principal,
    at: new Date(now).toISOString(),
    employee,
    punch,
    context,
    breaks,
    input,
    dryRun: options.dryRun,
    source: options.source ?? punchSource(principal),
    reviewFlags: options.reviewFlags ?? [],
  };
  const decision = decidePunch(write, effective);
  await applyPunchEffects(
    tx,
    principal,
    decision.effects,
    key &&
      ((plan) => key.store(plan, options.present ? options.present(decision.outcome) : decision.outcome)),
  );
  return decision.outcome;
}

/**
 * The pure rules of a punch on its loaded context (issue 32): its answer and its writes as data, or
 * its refusal (an ApiError). The single endpoint and a batch of punches (batch-set.ts) both decide here.
 */
export function decidePunch(
  write: PunchWrite,
  effective: 'clock_in' | 'clock_out' | 'break_start' | 'break_end',
): PunchDecision {
  switch (effective) {
    case 'break_start':
    case 'break_end':
      return decideBreakPunch(write, effective);
    case 'clock_in':
      return clockIn(write);
    case 'clock_out':
      return clockOut(write);
  }
}

/** The flags an entry had (JSON) with `added`, each once, in order. */
export function mergeFlags(had: string | null | undefined, added: readonly string[]): string[] {
  const flags = had ? (JSON.parse(had) as string[]) : [];
  return [...flags, ...added.filter((flag) => !flags.includes(flag))];
}

/** The punch's instant: an RFC 3339 date-time with offset, at most 5 minutes ahead and 30 days back. */
export function parsePunchInstant(occurredAt: string, now: number): ParsedInstant {
  const parsed = parseInstantField(occurredAt, 'occurredAt');
  const windowError = checkPunchWindow(parsed.epochMs, now);
  if (windowError)
    throw validationError([
      {
        field: 'occurredAt',
        message:
          windowError === 'too_far_in_future'
            ? 'must be at most 5 minutes in the future'
            : 'must be at most 30 days in the past',
        code: windowError,
      },
    ]);
  return parsed;
}

/** A clock-in opens a session: none may be open, the day must be open, no entry may cover the instant. */
function clockIn(write: PunchWrite): PunchDecision {
  const { principal, at, employee, punch, context, input } = write;
  if (context.open)
    throw new ApiError(
      'already_clocked_in',
      `a session is open since ${context.open.start_at} (entry ${context.open.id})` +
        (needsCorrection(context.open.start_at, Date.parse(at)) ? stuckSessionHint(context.open.id) : ''),
    );
  assertDaysOpen(context.punchDayLocked, [punch.workDate], context.punchClosedPeriod);
  if (context.coveringId !== null)
    throw new ApiError('overlaps_existing_entry', `the punch falls inside entry ${context.coveringId}`);
  const created = newEntry(principal, employee, at, {
    work_date: punch.workDate,
    start_at: punch.utcIso,
    end_at: null,
    start_time: punch.time,
    end_time: null,
    ends_next_day: 0,
    break_minutes: null,
    net_seconds: null,
    status: 'open',
    source: write.source,
    time_zone: punch.timeZone,
    notes: notes(input.deviceId),
    note: input.note ?? null,
    clock_in_event: input.type,
    closed_by_id: null,
  });
  // The punch's review flags are the entry's from the start, so the event says them too.
  const entry =
    write.reviewFlags.length > 0
      ? { ...created, review_flags: JSON.stringify(mergeFlags(null, write.reviewFlags)) }
      : created;
  if (write.dryRun)
    return {
      outcome: { status: 200, body: entryResult(entry, employee, 'clock_in', punch, true, null) },
      effects: [],
    };
  return {
    outcome: { status: 201, body: entryResult(entry, employee, 'clock_in', punch, false, entry.id) },
    effects: [
      { kind: 'insertEntry', entry },
      { kind: 'revision', revision: recordedRevisionOf(principal, at, entry.id) },
      {
        kind: 'change',
        at,
        change: {
          action: 'time_entry.clock_in',
          entryId: entry.id,
          details: { employeeId: employee.id, sentType: input.type, occurredAt: punch.utcIso },
          event: { type: 'time_entry.opened', data: timeEntryListItem(entry, employee, []) },
        },
      },
    ],
  };
}

/** The session's net seconds at a clock-out, or the refusal: 24 hours or longer, before its start or a break. */
function closingSeconds(write: PunchWrite, open: NonNullable<PunchWrite['context']['open']>): number {
  const { punch, breaks } = write;
  const closing = evaluateClockOut(Date.parse(open.start_at), punch.epochMs);
  if (!closing.ok) {
    throw new ApiError(
      closing.error,
      closing.error === 'session_too_long'
        ? `the session open since ${open.start_at} would last 24 hours or longer; it stays open (record such shifts with POST /time-entries)${stuckSessionHint(open.id)}`
        : `the clock-out is before the session started at ${open.start_at}`,
    );
  }
  const spans = spansOf(breaks);
  const afterBreaks = evaluateClockOutAfterBreaks(spans, punch.epochMs);
  if (!afterBreaks.ok)
    throw new ApiError(
      afterBreaks.error,
      `the clock-out is before ${spans.at(-1)!.endMs === null ? 'the start of the break in progress' : 'the end of the last break'} (${breaks.at(-1)!.end_at ?? breaks.at(-1)!.start_at})`,
    );
  return closing.durationSeconds;
}

/** A clock-out completes the open session (ending a break in progress at the clock-out). */
function clockOut(write: PunchWrite): PunchDecision {
  const { principal, at, employee, punch, context, breaks, input } = write;
  const open = context.open;
  if (!open) throw new ApiError('no_open_session', 'the employee has no open session to clock out of');
  const durationSeconds = closingSeconds(write, open);
  assertDaysOpen(
    context.openDayLocked || context.punchDayLocked,
    [open.work_date, punch.workDate],
    context.openClosedPeriod ?? context.punchClosedPeriod,
  );
  if (context.swallowedId !== null)
    throw new ApiError(
      'overlaps_existing_entry',
      `closing the session would overlap entry ${context.swallowedId}`,
    );
  const spans = spansOf(breaks);
  const figures =
    spans.length > 0
      ? sessionFigures(Date.parse(open.start_at), punch.epochMs, spans)
      : { breakMinutes: open.break_minutes, netSeconds: durationSeconds };
  const completed = {
    ...open,
    break_minutes: figures.breakMinutes,
    end_at: punch.utcIso,
    end_time: punch.time,
    ends_next_day: punch.workDate !== open.work_date ? 1 : 0,
    net_seconds: figures.netSeconds,
    status: 'pending_approval',
    notes: appendNotes(open.notes, notes(input.deviceId)),
    note: input.note ?? open.note,
    clock_out_event: input.type,
    closed_by_id: principal.id,
    updated_at: at,
    version: open.version + 1,
  };
  if (write.dryRun)
    return {
      outcome: { status: 200, body: entryResult(completed, employee, 'clock_out', punch, true, open.id) },
      effects: [],
    };
  return {
    outcome: { status: 201, body: entryResult(completed, employee, 'clock_out', punch, false, open.id) },
    effects: clockOutEffects(
      write,
      open,
      completed,
      spans.some((b) => b.endMs === null),
    ),
  };
}

/** What a clock-out writes: the break in progress ended, the session completed, its revision and change. */
function clockOutEffects(
  write: PunchWrite,
  open: NonNullable<PunchWrite['context']['open']>,
  completed: SessionClosing & Parameters<typeof timeEntryListItem>[0],
  onBreak: boolean,
): PunchEffect[] {
  const { principal, at, employee, punch, breaks, input } = write;
  const ending = {
    end_at: punch.utcIso,
    end_time: punch.time,
    end_event: input.type,
    closed_by_id: principal.id,
  };
  // A clock-out during a break ends the break at the clock-out.
  const finalBreaks: BreakRow[] = breaks.map((b) =>
    b.end_at === null ? { ...b, ...ending, updated_at: at } : b,
  );
  // The entry's flags with the punch's (the event a webhook gets says both).
  const flagged = {
    ...completed,
    review_flags: JSON.stringify(mergeFlags(open.review_flags, write.reviewFlags)),
  };
  return [
    ...(onBreak
      ? [
          {
            kind: 'closeBreak' as const,
            closing: { entryId: open.id, ...ending, updated_at: at },
            required: false,
          },
        ]
      : []),
    { kind: 'completeSession', id: open.id, patch: completed },
    {
      kind: 'revision',
      revision: punchRevisionOf(principal, at, {
        entryId: open.id,
        version: completed.version,
        action: 'completed',
        before: [open, breaks],
        after: [completed, finalBreaks],
      }),
    },
    {
      kind: 'change',
      at,
      change: {
        action: 'time_entry.clock_out',
        entryId: open.id,
        details: { employeeId: employee.id, sentType: input.type, occurredAt: punch.utcIso },
        event: { type: 'time_entry.completed', data: timeEntryListItem(flagged, employee, finalBreaks) },
      },
    },
  ];
}
