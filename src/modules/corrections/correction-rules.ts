import { type FieldError, validationError } from '../../domain/errors.js';
import {
  type LocalizedInstant,
  localizeInstant,
  type ParsedInstant,
  parseInstantWithOffset,
} from '../../domain/time-zone.js';
import { type BreakSpan, sessionFigures } from '../time-tracking/break-rules.js';
import { MAX_FUTURE_MS, MAX_SESSION_MS, MIN_NET_SHIFT_SECONDS } from '../time-tracking/punch-rules.js';

/*
 * The rules of a correction (PATCH /time-entries/{id}), pure: what was sent, parsed; the new times
 * checked as POST /time-entries checks a shift (under 24 hours, net at least 15 minutes, one break in
 * the middle and none on an overnight shift) or, for an entry of the time clock, with its punched
 * breaks inside it. The 30-day and 5-minute windows of new records do not apply.
 */

export interface CorrectionBody {
  clockIn?: string;
  clockOut?: string;
  breakMinutes?: number | null;
  breaks?: { startedAt: string; endedAt: string }[];
  note?: string | null;
  reason: string;
}

export interface ParsedCorrection {
  clockIn: ParsedInstant | null;
  clockOut: ParsedInstant | null;
  breaks: { start: ParsedInstant; end: ParsedInstant }[] | null;
}

const FORMAT = 'must be an RFC 3339 date-time with an explicit UTC offset';

function parseField(value: string | undefined, field: string, errors: FieldError[]): ParsedInstant | null {
  if (value === undefined) return null;
  const parsed = parseInstantWithOffset(value);
  if (!parsed) errors.push({ field, message: FORMAT, code: 'format' });
  return parsed;
}

/** The body's instants, parsed; 422 naming each field that is malformed, or a body that changes nothing. */
export function parseCorrection(body: CorrectionBody): ParsedCorrection {
  const errors: FieldError[] = [];
  if (body.reason.trim() === '')
    errors.push({ field: 'reason', message: 'must not be blank', code: 'blank' });
  const { clockIn, clockOut, breakMinutes, breaks, note } = body;
  if ([clockIn, clockOut, breakMinutes, breaks, note].every((value) => value === undefined))
    errors.push({
      field: 'body',
      message: 'send at least one of clockIn, clockOut, breakMinutes, breaks and note',
      code: 'nothing_to_change',
    });
  if (breakMinutes !== undefined && breaks !== undefined)
    errors.push({ field: 'breaks', message: 'send either breakMinutes or breaks, not both', code: 'one_of' });
  const parsed: ParsedCorrection = {
    clockIn: parseField(clockIn, 'clockIn', errors),
    clockOut: parseField(clockOut, 'clockOut', errors),
    breaks:
      breaks?.map((b, i) => ({
        start: parseField(b.startedAt, `breaks[${i}].startedAt`, errors)!,
        end: parseField(b.endedAt, `breaks[${i}].endedAt`, errors)!,
      })) ?? null,
  };
  if (errors.length > 0) throw validationError(errors);
  return parsed;
}

/** An instant of an entry: UTC and the wall clock in the entry's zone (or at the entry's offset). */
export type Moment = Pick<LocalizedInstant, 'epochMs' | 'utcIso' | 'workDate' | 'time'>;

/** `epochMs` localised in `zone`, or at `offsetMinutes` when the entry keeps the offsets sent. */
export function momentAt(epochMs: number, zone: string | null, offsetMinutes: number): Moment {
  const wall = new Date(epochMs + offsetMinutes * 60_000).toISOString();
  return localizeInstant(
    { epochMs, offsetMinutes, wallDate: wall.slice(0, 10), wallTime: wall.slice(11, 19) },
    zone,
  );
}

/** A sent instant localised like the entry's own: in its zone, or as sent in `offset` mode. */
export function momentOf(parsed: ParsedInstant, zone: string | null): Moment {
  return localizeInstant(parsed, zone);
}

/** What the rules check: the new start and end, and the breaks (a shift's minutes, or placed breaks). */
export interface CorrectedTimes {
  start: Moment;
  /** Null: the session stays open. */
  end: Moment | null;
  /** Entries of the time clock: their breaks (an open one ends at `end`). */
  spans: BreakSpan[] | null;
  /** Shifts: their one unplaced break. */
  breakMinutes: number | null;
}

export type TimesVerdict =
  | { ok: true; endsNextDay: boolean; breakMinutes: number | null; netSeconds: number | null }
  | { ok: false; errors: FieldError[] };

/** The times of a corrected entry against the rules of a recorded one. */
export function evaluateTimes(times: CorrectedTimes): TimesVerdict {
  const { start, end, spans } = times;
  if (end === null) {
    const first = spans?.[0];
    if (first && first.startMs < start.epochMs)
      return fail('clockIn', 'must not be after the start of the first break', 'after_first_break');
    return { ok: true, endsNextDay: false, breakMinutes: times.breakMinutes, netSeconds: null };
  }
  const durationMs = end.epochMs - start.epochMs;
  if (durationMs <= 0) return fail('clockOut', 'must be after clockIn', 'not_after_clock_in');
  if (durationMs >= MAX_SESSION_MS)
    return fail('clockOut', 'the entry must be shorter than 24 hours', 'too_long');
  const overnight = end.workDate !== start.workDate;
  if (spans !== null) return evaluateSpans(start.epochMs, end.epochMs, spans, overnight);
  const minutes = times.breakMinutes ?? 0;
  if (minutes > 0 && overnight)
    return fail(
      'breakMinutes',
      'a break cannot be recorded on a shift that ends on the next day',
      'break_on_overnight_shift',
    );
  if (minutes * 60_000 >= durationMs)
    return fail('breakMinutes', 'the break must be shorter than the entry', 'break_longer_than_shift');
  const netSeconds = Math.floor((durationMs - minutes * 60_000) / 1000);
  if (netSeconds < MIN_NET_SHIFT_SECONDS) return netTooShort();
  return { ok: true, endsNextDay: overnight, breakMinutes: times.breakMinutes, netSeconds };
}

function evaluateSpans(startMs: number, endMs: number, spans: BreakSpan[], overnight: boolean): TimesVerdict {
  let previousEnd = startMs;
  for (const span of spans) {
    const spanEnd = span.endMs ?? endMs;
    if (span.startMs < previousEnd || spanEnd <= span.startMs || spanEnd > endMs)
      return fail(
        'breaks',
        'each break must lie inside the entry, end after it starts and start after the previous one ended',
        'out_of_order',
      );
    previousEnd = spanEnd;
  }
  const figures = sessionFigures(startMs, endMs, spans);
  if (figures.netSeconds < MIN_NET_SHIFT_SECONDS) return netTooShort();
  // As a clock-out leaves it: an entry of the time clock without breaks has no break minutes.
  const breakMinutes = spans.length > 0 ? figures.breakMinutes : null;
  return { ok: true, endsNextDay: overnight, breakMinutes, netSeconds: figures.netSeconds };
}

function fail(field: string, message: string, code: string): { ok: false; errors: FieldError[] } {
  return { ok: false, errors: [{ field, message, code }] };
}

function netTooShort(): { ok: false; errors: FieldError[] } {
  return fail(
    'clockOut',
    'net working time (the entry less its breaks) must be at least 15 minutes',
    'net_time_too_short',
  );
}

/**
 * `breakMinutes` on an entry of the time clock: one break of that length in the middle of the entry
 * (none for 0 or null); a break that does not fit, or one on an overnight entry, is refused like a
 * shift's.
 */
export function middleBreak(
  start: Moment,
  end: Moment,
  minutes: number | null,
): { ok: true; spans: BreakSpan[] } | { ok: false; errors: FieldError[] } {
  if (!minutes) return { ok: true, spans: [] };
  const durationMs = end.epochMs - start.epochMs;
  if (end.workDate !== start.workDate)
    return fail(
      'breakMinutes',
      'a break cannot be recorded on a shift that ends on the next day',
      'break_on_overnight_shift',
    );
  if (durationMs <= 0 || minutes * 60_000 >= durationMs)
    return fail('breakMinutes', 'the break must be shorter than the entry', 'break_longer_than_shift');
  const startMs = start.epochMs + Math.floor((durationMs - minutes * 60_000) / 2);
  return { ok: true, spans: [{ startMs, endMs: startMs + minutes * 60_000 }] };
}

/**
 * A new start of a session left open (no clockOut): not in the future (beyond the 5 minutes a clock may
 * be ahead), and less than 24 hours ago — an older session needs its clockOut in the same correction.
 */
export function checkOpenStart(startMs: number, nowMs: number): TimesVerdict | null {
  if (startMs - nowMs > MAX_FUTURE_MS) return fail('clockIn', 'must not be in the future', 'in_future');
  if (nowMs - startMs >= MAX_SESSION_MS)
    return fail(
      'clockIn',
      'a session left open must have started less than 24 hours ago; send its clockOut too',
      'open_too_long',
    );
  return null;
}
