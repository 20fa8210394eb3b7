import { employeeRef } from '../employees/views.js';
import { breakMinutes } from './break-rules.js';
import { totalHours } from './punch-rules.js';
import { type TimeEntryBreakRow, type TimeEntryRow } from '../../platform/db/schema.js';
import type { Static } from '@sinclair/typebox';
import { newId } from '../../domain/ids.js';
import { type LocalizedInstant, localizeInstant, parseInstantWithOffset } from '../../domain/time-zone.js';
import type { Principal } from '../auth/service.js';
import type { EmployeeForWrite } from '../employees/queries.js';
import type { EmployeeSelector } from '../employees/service.js';
import type { WriteResultSchema } from './schemas.js';
/*
 * What time tracking answers and writes: the one builder of a write's result, the one builder of a new
 * entry row, the punch a stored entry recorded (for replaying a duplicate), and a time entry as the
 * lists and events show it, with its breaks.
 */

export type ClockEventType = 'clock_in' | 'clock_out' | 'toggle' | 'break_start' | 'break_end';

export interface ClockEventInput {
  employee: EmployeeSelector;
  type: ClockEventType;
  occurredAt: string;
  deviceId?: string | null;
  note?: string | null;
}

/** Values of `source` this service writes; an open list (spec: "Allowed values of source: not shown"). */
export const ENTRY_SOURCES = {
  timeClock: 'time_clock',
  apiShift: 'api_shift',
  // Issue 35: a kiosk device's punches, and the personal web clock of the console's self-service.
  kiosk: 'kiosk',
  webClock: 'web_clock',
} as const;

/** The sources whose entries are punched (clock-in, breaks, clock-out): they carry their breaks. */
const PUNCHED_SOURCES: readonly string[] = [
  ENTRY_SOURCES.timeClock,
  ENTRY_SOURCES.kiosk,
  ENTRY_SOURCES.webClock,
];

export function isPunchedSource(source: string): boolean {
  return PUNCHED_SOURCES.includes(source);
}

/** The source of a punched entry: `kiosk` for a kiosk device's token (issue 35), else `time_clock`. */
export function punchSource(principal: Pick<Principal, 'kind'>): string {
  return principal.kind === 'device' ? ENTRY_SOURCES.kiosk : ENTRY_SOURCES.timeClock;
}

/** Spec, write result: what every punch and shift answers. */
export type WriteResult = Static<typeof WriteResultSchema>;

export interface WriteOutcome {
  status: 200 | 201;
  body: WriteResult;
}

/** The write result of `entry` after the punch `punch` (of type `type`). */
export function entryResult(
  entry: Pick<
    TimeEntryRow,
    'id' | 'work_date' | 'status' | 'ends_next_day' | 'start_time' | 'end_time' | 'net_seconds'
  >,
  employee: EmployeeForWrite,
  type: WriteResult['type'],
  punch: LocalizedInstant,
  dryRun: boolean,
  timeEntryId: string | null,
): WriteResult {
  const complete = entry.end_time !== null;
  return {
    timeEntryId,
    employee: employeeRef(employee),
    type,
    workDate: entry.work_date,
    time: punch.time,
    timeZone: punch.timeZone,
    occurredAt: punch.occurredAt,
    endsNextDay: entry.ends_next_day === 1,
    status: entry.status,
    dryRun,
    startTime: complete ? entry.start_time : null,
    endTime: complete ? entry.end_time : null,
    totalHours: complete && entry.net_seconds !== null ? totalHours(entry.net_seconds) : null,
  };
}

/** What a new entry's row takes from the write that makes it (a clock-in or a shift). */
export type NewEntryFields = Pick<
  TimeEntryRow,
  | 'work_date'
  | 'start_at'
  | 'end_at'
  | 'start_time'
  | 'end_time'
  | 'ends_next_day'
  | 'break_minutes'
  | 'net_seconds'
  | 'status'
  | 'source'
  | 'time_zone'
  | 'notes'
  | 'note'
  | 'clock_in_event'
  | 'closed_by_id'
>;

/** A new entry's row: the write's fields, its company, employee and author, made at `at`. */
export function newEntry(
  principal: Principal,
  employee: EmployeeForWrite,
  at: string,
  fields: NewEntryFields,
) {
  return {
    id: newId(),
    company_id: principal.companyId,
    employee_id: employee.id,
    ...fields,
    clock_out_event: null,
    // Issue 35: the kiosk device that recorded it.
    device_id: principal.kind === 'device' ? principal.id : null,
    created_by_type: principal.kind,
    created_by_id: principal.id,
    created_at: at,
    updated_at: at,
    approved_at: null,
    // Issue 30: revision 1 (the recording); neither corrected nor closed automatically. The
    // insert leaves these to the columns' defaults, which are the same.
    version: 1,
    edited: 0,
    auto_closed: 0,
  };
}

const SECONDS_PER_DAY = 86_400;

function secondsOfDay(time: string): number {
  const [h, m, s] = time.split(':').map(Number);
  return h! * 3600 + m! * 60 + s!;
}

/**
 * The punch an existing entry recorded, localised as it was stored, for replaying a duplicate: in
 * the entry's own zone, or, in `offset` mode, with the offset the punch was sent with (recovered from
 * the stored wall clock; the UTC instant alone would give the UTC wall clock instead).
 */
export function storedPunch(entry: TimeEntryRow, matched: 'start' | 'end'): LocalizedInstant {
  return matched === 'start'
    ? storedInstant(entry, entry.start_at, null)
    : storedInstant(entry, entry.end_at!, entry.end_time!);
}

/**
 * An instant of `entry` (its start, its end, or a break's) localised as it was stored; `wallTime`
 * is the instant's stored wall clock, null for the entry's start (whose date is stored too).
 */
export function storedInstant(entry: TimeEntryRow, iso: string, wallTime: string | null): LocalizedInstant {
  const parsed = parseInstantWithOffset(iso)!;
  if (entry.time_zone !== 'offset') return localizeInstant(parsed, entry.time_zone);
  const utcSeconds = Math.floor(parsed.epochMs / 1000);
  // The start's wall date and time are both stored, so its offset is exact.
  const startOffset =
    Math.floor(Date.parse(`${entry.work_date}T${entry.start_time}Z`) / 1000) -
    Math.floor(Date.parse(entry.start_at) / 1000);
  let offsetSeconds = startOffset;
  if (wallTime !== null) {
    // Only the wall time is stored: its offset is known modulo a day; take the candidate nearest
    // the start's offset.
    const diff =
      (((secondsOfDay(wallTime) - utcSeconds) % SECONDS_PER_DAY) + SECONDS_PER_DAY) % SECONDS_PER_DAY;
    offsetSeconds =
      Math.abs(diff - startOffset) <= Math.abs(diff - SECONDS_PER_DAY - startOffset)
        ? diff
        : diff - SECONDS_PER_DAY;
  }
  const wall = new Date((utcSeconds + offsetSeconds) * 1000).toISOString();
  return localizeInstant(
    {
      ...parsed,
      offsetMinutes: Math.round(offsetSeconds / 60),
      wallDate: wall.slice(0, 10),
      wallTime: wall.slice(11, 19),
    },
    null,
  );
}

/** The columns a time-entry list item is made of (lists select only these). */
export type TimeEntryListRow = Pick<
  TimeEntryRow,
  | 'id'
  | 'work_date'
  | 'start_time'
  | 'end_time'
  | 'ends_next_day'
  | 'net_seconds'
  | 'break_minutes'
  | 'status'
  | 'source'
  | 'approved_at'
  | 'created_at'
  | 'version'
  | 'edited'
  | 'auto_closed'
> &
  Partial<Pick<TimeEntryRow, 'device_id' | 'review_flags'>>;

/** A break of a clocked entry (issue 20): wall clocks in the entry's zone, the instants, whole minutes. */
export function breakView(row: Pick<TimeEntryBreakRow, 'start_at' | 'end_at' | 'start_time' | 'end_time'>) {
  return {
    startTime: row.start_time,
    endTime: row.end_time,
    startedAt: row.start_at,
    endedAt: row.end_at,
    minutes: row.end_at === null ? null : breakMinutes(Date.parse(row.start_at), Date.parse(row.end_at)),
  };
}

/**
 * Spec, Time entry (list item). An open session has no end yet: endTime is null and totalHours 0 until it closes.
 * `breaks` (additive, issue 20) is given for entries of the time clock (source `time_clock`), whose breaks
 * are punched; a shift's single `breakMinutes` has no place in the day, so its items have no `breaks`.
 */
export function timeEntryListItem(
  row: TimeEntryListRow,
  employee: { id: string; external_id: string | null },
  breaks?: readonly Pick<TimeEntryBreakRow, 'start_at' | 'end_at' | 'start_time' | 'end_time'>[],
) {
  return {
    id: row.id,
    employee: employeeRef(employee),
    workDate: row.work_date,
    startTime: row.start_time,
    endTime: row.end_time,
    endsNextDay: row.ends_next_day === 1,
    totalHours: row.net_seconds === null ? 0 : totalHours(row.net_seconds),
    breakMinutes: row.break_minutes,
    status: row.status,
    source: row.source,
    approvedAt: row.approved_at,
    createdAt: row.created_at,
    // Corrections (issue 30): its version (the ETag), whether it was corrected or closed automatically.
    version: row.version,
    edited: row.edited === 1,
    autoClosed: row.auto_closed === 1,
    // Issue 35: the kiosk device that recorded it, and what a reviewer should look at.
    deviceId: row.device_id ?? null,
    reviewFlags: row.review_flags ? (JSON.parse(row.review_flags) as string[]) : [],
    ...(breaks !== undefined ? { breaks: breaks.map(breakView) } : {}),
  };
}
