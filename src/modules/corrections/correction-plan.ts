import { validationError } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import type { TimeEntryBreakRow, TimeEntryRow } from '../../platform/db/schema.js';
import type { BreakSpan } from '../time-tracking/break-rules.js';
import {
  checkOpenStart,
  type CorrectionBody,
  evaluateTimes,
  middleBreak,
  type Moment,
  momentAt,
  momentOf,
  type ParsedCorrection,
} from './correction-rules.js';
import { hasPunchedBreaks } from './entry-access.js';

/*
 * A correction's new entry, from the entry as it is and what was sent: its times localised like the
 * entry's own, its breaks (replaced, placed in the middle, or kept, an open one ending at the new
 * clock-out), its figures checked by the rules (correction-rules.ts). Nothing is read or written here.
 */

export interface CorrectionPlan {
  next: TimeEntryRow;
  breaks: TimeEntryBreakRow[];
  breaksChanged: boolean;
}

interface Author {
  actorId: string | null;
  at: string;
}

/** The entry's zone (null: it keeps the offsets sent) and the offset of its start, in minutes. */
function zoneOf(entry: TimeEntryRow): { zone: string | null; offset: number } {
  const offset = Math.round(
    (Date.parse(`${entry.work_date}T${entry.start_time}Z`) - Date.parse(entry.start_at)) / 60_000,
  );
  return { zone: entry.time_zone === 'offset' ? null : entry.time_zone, offset };
}

function breakRow(entry: TimeEntryRow, start: Moment, end: Moment, author: Author): TimeEntryBreakRow {
  return {
    id: newId(),
    company_id: entry.company_id,
    employee_id: entry.employee_id,
    time_entry_id: entry.id,
    start_at: start.utcIso,
    end_at: end.utcIso,
    start_time: start.time,
    end_time: end.time,
    start_event: 'correction',
    end_event: 'correction',
    created_by_id: author.actorId,
    closed_by_id: author.actorId,
    created_at: author.at,
    updated_at: author.at,
  };
}

const spanOf = (row: TimeEntryBreakRow): BreakSpan => ({
  startMs: Date.parse(row.start_at),
  endMs: row.end_at === null ? null : Date.parse(row.end_at),
});

/** 422 for what an entry of its kind and state cannot take. */
function checkShape(entry: TimeEntryRow, body: CorrectionBody, closing: boolean): void {
  if (!hasPunchedBreaks(entry) && body.breaks !== undefined)
    throw validationError([
      {
        field: 'breaks',
        message: 'a shift has one unplaced break: send breakMinutes',
        code: 'not_for_shifts',
      },
    ]);
  if (!closing && (body.breaks !== undefined || body.breakMinutes !== undefined))
    throw validationError([
      {
        field: body.breaks !== undefined ? 'breaks' : 'breakMinutes',
        message: "an open session's breaks are punched; send clockOut to close it with them",
        code: 'open_session',
      },
    ]);
}

/** The breaks of an entry of the time clock after the correction. */
function plannedBreaks(
  entry: TimeEntryRow,
  current: TimeEntryBreakRow[],
  input: { body: CorrectionBody; parsed: ParsedCorrection; start: Moment; end: Moment | null },
  author: Author,
): { rows: TimeEntryBreakRow[]; changed: boolean } {
  const { zone, offset } = zoneOf(entry);
  const { body, parsed, start, end } = input;
  if (parsed.breaks !== null) {
    const rows = parsed.breaks
      .map((b) => breakRow(entry, momentOf(b.start, zone), momentOf(b.end, zone), author))
      .sort((a, b) => Date.parse(a.start_at) - Date.parse(b.start_at));
    return { rows, changed: true };
  }
  if (body.breakMinutes !== undefined && end !== null) {
    const placed = middleBreak(start, end, body.breakMinutes);
    if (!placed.ok) throw validationError(placed.errors);
    const rows = placed.spans.map((s) =>
      breakRow(entry, momentAt(s.startMs, zone, offset), momentAt(s.endMs!, zone, offset), author),
    );
    return { rows, changed: true };
  }
  const running = current.find((row) => row.end_at === null);
  if (!running || end === null) return { rows: current, changed: false };
  // Closing the session ends the break in progress at the clock-out, as a clock-out does.
  const ended = { ...running, end_at: end.utcIso, end_time: end.time, end_event: 'correction' };
  ended.closed_by_id = author.actorId;
  ended.updated_at = author.at;
  return { rows: current.map((row) => (row === running ? ended : row)), changed: true };
}

/** The corrected entry and its breaks; 422 naming the field when the result breaks a rule. */
export function planCorrection(
  entry: TimeEntryRow,
  current: TimeEntryBreakRow[],
  request: { body: CorrectionBody; parsed: ParsedCorrection },
  author: Author,
): CorrectionPlan {
  const { body, parsed } = request;
  const { zone, offset } = zoneOf(entry);
  const start: Moment = parsed.clockIn
    ? momentOf(parsed.clockIn, zone)
    : {
        epochMs: Date.parse(entry.start_at),
        utcIso: entry.start_at,
        workDate: entry.work_date,
        time: entry.start_time,
      };
  const end = parsed.clockOut
    ? momentOf(parsed.clockOut, zone)
    : entry.end_at === null
      ? null
      : momentAt(Date.parse(entry.end_at), zone, offset);
  checkShape(entry, body, end !== null);
  const openStart =
    parsed.clockIn && end === null ? checkOpenStart(start.epochMs, Date.parse(author.at)) : null;
  if (openStart && !openStart.ok) throw validationError(openStart.errors);
  const timeClock = hasPunchedBreaks(entry);
  const breaks = timeClock
    ? plannedBreaks(entry, current, { body, parsed, start, end }, author)
    : { rows: current, changed: false };
  const verdict = evaluateTimes({
    start,
    end,
    spans: timeClock ? breaks.rows.map(spanOf) : null,
    breakMinutes: timeClock || body.breakMinutes === undefined ? entry.break_minutes : body.breakMinutes,
  });
  if (!verdict.ok) throw validationError(verdict.errors);
  const closing = entry.end_at === null && end !== null;
  const next: TimeEntryRow = {
    ...entry,
    work_date: start.workDate,
    start_at: start.utcIso,
    start_time: start.time,
    end_at: end?.utcIso ?? null,
    end_time: end?.time ?? null,
    ends_next_day: verdict.endsNextDay ? 1 : 0,
    break_minutes: verdict.breakMinutes,
    net_seconds: verdict.netSeconds,
    note: body.note !== undefined ? body.note : entry.note,
    status: end === null ? 'open' : 'pending_approval',
    approved_at: null,
    clock_out_event: closing ? 'correction' : entry.clock_out_event,
    closed_by_id: closing ? author.actorId : entry.closed_by_id,
    edited: 1,
    version: entry.version + 1,
    updated_at: author.at,
  };
  return { next, breaks: breaks.rows, breaksChanged: breaks.changed };
}
