import type { ExceptionKind } from './schemas.js';

/*
 * The pure rules of attendance exceptions (issue 33; docs/timesheets.md, "Attendance exceptions"),
 * judged by the job at `now` from published shifts and time entries:
 *
 * - An entry belongs to a shift when it starts in the two hours before the shift's start or during
 *   the shift, or is already running at its start. Its "last" shift is the latest such one that has
 *   started: a session running through two touching shifts is judged once, at the end of the last.
 * - late_in: the first clock-in of the shift is after start + grace (minutes: after the start).
 * - no_show: no clock-in by start + noShowAfter, and no approved absence or holiday covering the
 *   shift; resolved when a clock-in comes (which is then also a late_in).
 * - early_out: once the shift is over and every entry of it is closed, the last clock-out is before
 *   end − grace (minutes: before the end).
 * - missed_clock_out: an entry whose last shift this is was still open at end + grace; resolved
 *   when it is closed (minutes: how long past the end, counted until then).
 * - unplanned: an entry on a day with no published shift of the employee, at a workplace that has
 *   published shifts that day (a company or workplace without a plan raises none); resolved when a
 *   shift of the employee that day is published, when no entry of that day counts any more (deleted,
 *   rejected, moved to another day), or when the day's entries, judged again, are no longer unplanned.
 *
 * Each exception has a key (kind, shift and its times, or employee and day) that the database holds
 * unique: the same facts judged again, by any instance, find it and add nothing.
 */

export const EARLY_CLOCK_IN_MS = 2 * 3_600_000;
const MINUTE_MS = 60_000;

export interface RuleShift {
  id: string;
  version: number;
  employeeId: string;
  workplaceId: string;
  date: string;
  startMs: number;
  endMs: number;
}

export interface RuleEntry {
  id: string;
  employeeId: string;
  workDate: string;
  startMs: number;
  /** null while the session is open. */
  endMs: number | null;
}

export interface ExceptionSettings {
  lateGraceMinutes: number;
  noShowAfterMinutes: number;
}

export interface Candidate {
  kind: ExceptionKind;
  employeeId: string;
  workplaceId: string | null;
  plannedShiftId: string | null;
  shiftVersion: number | null;
  timeEntryId: string | null;
  date: string;
  minutes: number;
  key: string;
  /** Already over when found (the clock-in came, the session was closed): recorded resolved. */
  resolved: boolean;
}

/**
 * Keyed by the shift and its times, not its version: a change of its note or break judges nothing
 * again; a change of its times is a new plan, judged anew (the old exceptions resolved).
 */
export function exceptionKey(
  kind: ExceptionKind,
  shift: { id: string; startMs: number; endMs: number },
): string {
  return `${kind}:${shift.id}:${shift.startMs}:${shift.endMs}`;
}

export function unplannedKey(employeeId: string, date: string): string {
  return `unplanned:${employeeId}:${date}`;
}

/**
 * An entry belongs to a shift when it starts in the two hours before its start or during it. One
 * started earlier (a session left open yesterday) belongs only when it runs into the shift from the
 * employee's `previous` shift touching this one (a double shift), and started for that one.
 */
export function belongsTo(
  entry: RuleEntry,
  shift: { startMs: number; endMs: number },
  previous: { startMs: number; endMs: number } | null = null,
): boolean {
  if (entry.startMs >= shift.endMs) return false;
  if (entry.startMs >= shift.startMs - EARLY_CLOCK_IN_MS) return true;
  if (previous === null || previous.endMs < shift.startMs) return false;
  if (entry.endMs !== null && entry.endMs <= shift.startMs) return false;
  return entry.startMs >= previous.startMs - EARLY_CLOCK_IN_MS;
}

const minutesBetween = (fromMs: number, toMs: number) => Math.max(0, Math.floor((toMs - fromMs) / MINUTE_MS));

function candidate(
  kind: ExceptionKind,
  shift: RuleShift,
  fields: { minutes: number; timeEntryId: string | null; resolved: boolean },
): Candidate {
  return {
    kind,
    employeeId: shift.employeeId,
    workplaceId: shift.workplaceId,
    plannedShiftId: shift.id,
    shiftVersion: shift.version,
    date: shift.date,
    key: exceptionKey(kind, shift),
    ...fields,
  };
}

/** late_in and no_show of one started shift, from the entries that belong to it. */
export function arrivalExceptions(
  shift: RuleShift,
  entries: readonly RuleEntry[],
  nowMs: number,
  settings: ExceptionSettings,
  excused: boolean,
): Candidate[] {
  const found: Candidate[] = [];
  const first = entries.reduce<RuleEntry | null>(
    (a, e) => (a === null || e.startMs < a.startMs ? e : a),
    null,
  );
  const noShowAt = shift.startMs + settings.noShowAfterMinutes * MINUTE_MS;
  if (first !== null && first.startMs > shift.startMs + settings.lateGraceMinutes * MINUTE_MS)
    found.push(
      candidate('late_in', shift, {
        minutes: minutesBetween(shift.startMs, first.startMs),
        timeEntryId: first.id,
        resolved: false,
      }),
    );
  if (nowMs >= noShowAt && !excused && (first === null || first.startMs > noShowAt))
    found.push(candidate('no_show', shift, { minutes: 0, timeEntryId: null, resolved: first !== null }));
  return found;
}

/** early_out and missed_clock_out of one started shift. `own`: the entries whose last shift it is. */
export function departureExceptions(
  shift: RuleShift,
  entries: readonly RuleEntry[],
  own: readonly RuleEntry[],
  nowMs: number,
  settings: ExceptionSettings,
): Candidate[] {
  const found: Candidate[] = [];
  const grace = settings.lateGraceMinutes * MINUTE_MS;
  const closed = entries.every((e) => e.endMs !== null);
  if (nowMs >= shift.endMs && entries.length > 0 && closed) {
    const last = entries.reduce((a, e) => (e.endMs! > a.endMs! ? e : a));
    if (last.endMs! < shift.endMs - grace)
      found.push(
        candidate('early_out', shift, {
          minutes: minutesBetween(last.endMs!, shift.endMs),
          timeEntryId: last.id,
          resolved: false,
        }),
      );
  }
  if (nowMs < shift.endMs + grace) return found;
  for (const entry of own) {
    if (entry.endMs !== null && entry.endMs <= shift.endMs + grace) continue;
    found.push(
      candidate('missed_clock_out', shift, {
        minutes: minutesBetween(shift.endMs, entry.endMs ?? nowMs),
        timeEntryId: entry.id,
        resolved: entry.endMs !== null,
      }),
    );
    break;
  }
  return found;
}

/** The entries belonging to each started shift, and the shift each entry belongs to last. */
export function matchEntries(
  shifts: readonly RuleShift[],
  entries: readonly RuleEntry[],
  nowMs: number,
): { of: Map<string, RuleEntry[]>; own: Map<string, RuleEntry[]>; matched: Set<string> } {
  const of = new Map<string, RuleEntry[]>();
  const own = new Map<string, RuleEntry[]>();
  const matched = new Set<string>();
  const started = new Map<string, RuleShift[]>();
  for (const shift of [...shifts].sort((a, b) => a.startMs - b.startMs))
    if (shift.startMs <= nowMs)
      started.set(shift.employeeId, [...(started.get(shift.employeeId) ?? []), shift]);
  for (const entry of entries) {
    let last: RuleShift | null = null;
    let previous: RuleShift | null = null;
    for (const shift of started.get(entry.employeeId) ?? []) {
      const before = previous;
      previous = shift;
      if (!belongsTo(entry, shift, before)) continue;
      of.set(shift.id, [...(of.get(shift.id) ?? []), entry]);
      last = shift;
    }
    if (last === null) continue;
    matched.add(entry.id);
    own.set(last.id, [...(own.get(last.id) ?? []), entry]);
  }
  return { of, own, matched };
}

/** unplanned: the first entry of each employee-day without a published shift at a planned workplace. */
export function unplannedExceptions(
  entries: readonly RuleEntry[],
  input: {
    matched: ReadonlySet<string>;
    shiftDays: ReadonlySet<string>;
    plannedWorkplaceDays: ReadonlySet<string>;
    workplaceOf: ReadonlyMap<string, string | null>;
  },
): Candidate[] {
  const found = new Map<string, Candidate>();
  for (const entry of [...entries].sort((a, b) => a.startMs - b.startMs)) {
    const workplaceId = input.workplaceOf.get(entry.employeeId) ?? null;
    const key = unplannedKey(entry.employeeId, entry.workDate);
    if (found.has(key) || input.matched.has(entry.id) || workplaceId === null) continue;
    if (input.shiftDays.has(`${entry.employeeId}:${entry.workDate}`)) continue;
    if (!input.plannedWorkplaceDays.has(`${workplaceId}:${entry.workDate}`)) continue;
    found.set(key, {
      kind: 'unplanned',
      employeeId: entry.employeeId,
      workplaceId,
      plannedShiftId: null,
      shiftVersion: null,
      timeEntryId: entry.id,
      date: entry.workDate,
      minutes: 0,
      key,
      resolved: false,
    });
  }
  return [...found.values()];
}

export interface ExistingException {
  id: string;
  key: string;
  kind: ExceptionKind;
  employeeId: string;
  date: string;
  plannedShiftId: string | null;
  shiftVersion: number | null;
  resolved: boolean;
}

/** A recorded exception's shift as it is now: other times or no longer published resolve it. */
export interface ShiftState {
  startMs: number;
  endMs: number;
  published: boolean;
}

export interface Evaluation {
  detect: Candidate[];
  /** Unresolved exceptions that are over, with their final minutes when those changed. */
  resolve: { id: string; minutes: number | null }[];
}

/** The kinds that end (a clock-in, a clock-out); the others are facts that stay. */
const ENDING: readonly ExceptionKind[] = ['no_show', 'missed_clock_out'];

/**
 * Everything the job finds at `nowMs`: `shifts` are the published shifts read around the window
 * (those starting from `fromMs` up to now are judged; the rest say which days are planned),
 * `entries` the counted entries started since `fromMs`, `existing` the exceptions already recorded
 * for them, `current` the present state of the shifts of unresolved ones (a changed, unpublished or
 * deleted shift resolves what it left open).
 */
export function evaluateAttendance(input: {
  nowMs: number;
  fromMs: number;
  settings: ExceptionSettings;
  shifts: readonly RuleShift[];
  entries: readonly RuleEntry[];
  existing: readonly ExistingException[];
  current: ReadonlyMap<string, ShiftState>;
  excused: ReadonlySet<string>;
  workplaceOf: ReadonlyMap<string, string | null>;
  /**
   * For each open `unplanned` exception's employee-day (`employeeId:date`): the starts of the entries
   * of that day that still count, wherever they started (read apart: the day may begin before the window).
   */
  unplannedDays?: ReadonlyMap<string, readonly number[]>;
}): Evaluation {
  const judged = input.shifts.filter((s) => s.startMs >= input.fromMs && s.startMs <= input.nowMs);
  const { of, own, matched } = matchEntries(judged, input.entries, input.nowMs);
  const candidates = judged.flatMap((shift) => [
    ...arrivalExceptions(
      shift,
      of.get(shift.id) ?? [],
      input.nowMs,
      input.settings,
      input.excused.has(shift.id),
    ),
    ...departureExceptions(
      shift,
      of.get(shift.id) ?? [],
      own.get(shift.id) ?? [],
      input.nowMs,
      input.settings,
    ),
  ]);
  const shiftDays = new Set(input.shifts.map((s) => `${s.employeeId}:${s.date}`));
  candidates.push(
    ...unplannedExceptions(
      input.entries.filter((e) => e.startMs >= input.fromMs),
      {
        matched,
        shiftDays,
        plannedWorkplaceDays: new Set(input.shifts.map((s) => `${s.workplaceId}:${s.date}`)),
        workplaceOf: input.workplaceOf,
      },
    ),
  );
  const evaluation = reconcile(candidates, input.existing, new Set(judged.map((s) => s.id)), input.current);
  const byKey = new Set(candidates.map((c) => c.key));
  for (const old of input.existing)
    if (
      old.kind === 'unplanned' &&
      !old.resolved &&
      isUnplannedOver(old, { shiftDays, byKey, fromMs: input.fromMs, days: input.unplannedDays })
    )
      evaluation.resolve.push({ id: old.id, minutes: null });
  return evaluation;
}

/**
 * An open `unplanned` exception is over when a shift of the employee that day is published now, when
 * no entry of that day counts any more, or when every entry of that day was judged again (started in
 * the window) and none is unplanned. A day's entries unknown (no `days` given) judge nothing.
 */
function isUnplannedOver(
  old: ExistingException,
  input: {
    shiftDays: ReadonlySet<string>;
    byKey: ReadonlySet<string>;
    fromMs: number;
    days: ReadonlyMap<string, readonly number[]> | undefined;
  },
): boolean {
  const day = `${old.employeeId}:${old.date}`;
  if (input.shiftDays.has(day)) return true;
  const starts = input.days?.get(day);
  if (starts === undefined) return false;
  if (starts.length === 0) return true;
  return starts.every((ms) => ms >= input.fromMs) && !input.byKey.has(old.key);
}

function reconcile(
  candidates: readonly Candidate[],
  existing: readonly ExistingException[],
  judged: ReadonlySet<string>,
  current: ReadonlyMap<string, ShiftState>,
): Evaluation {
  const known = new Map(existing.map((e) => [e.key, e]));
  const byKey = new Map(candidates.map((c) => [c.key, c]));
  const detect = candidates.filter((c) => !known.has(c.key));
  const resolve: Evaluation['resolve'] = [];
  for (const old of existing) {
    if (old.resolved) continue;
    const now = byKey.get(old.key);
    if (old.plannedShiftId !== null) {
      const shift = current.get(old.plannedShiftId);
      if (
        !shift ||
        !shift.published ||
        exceptionKey(old.kind, { id: old.plannedShiftId, ...shift }) !== old.key
      ) {
        resolve.push({ id: old.id, minutes: null });
        continue;
      }
    }
    if (!ENDING.includes(old.kind) || !judged.has(old.plannedShiftId ?? '')) continue;
    if (now === undefined || now.resolved) resolve.push({ id: old.id, minutes: now?.minutes ?? null });
  }
  return { detect, resolve };
}
