import type { FieldError } from '../../domain/errors.js';
import { type LocalizedInstant, localizeInstant, parseInstantWithOffset } from '../../domain/time-zone.js';

/*
 * The pure rules of one planned shift (issue 33): instants with an explicit offset, the end after the
 * start and less than 24 hours later, the break shorter than the shift; the day it belongs to is its
 * start's date in the workplace's zone. And the overlap rule: two shifts of one employee may not
 * overlap (touching is fine: 08:00-12:00 and 12:00-16:00).
 */

export const MAX_SHIFT_MS = 24 * 3_600_000;

export interface ShiftTimes {
  start: LocalizedInstant;
  end: LocalizedInstant;
  breakMinutes: number;
}

export type ShiftTimesVerdict = { ok: true; times: ShiftTimes } | { ok: false; errors: FieldError[] };

const OFFSET_MESSAGE = 'must be an RFC 3339 date-time with an explicit UTC offset';
const YEARS_MESSAGE = 'must be in the years 1000 to 9999 (UTC)';

/** The instants a shift may have: years 1000–9999 in UTC, which every store and view writes as four digits. */
export const EARLIEST_SHIFT_MS = Date.UTC(1000, 0, 1);
export const LATEST_SHIFT_MS = Date.UTC(10000, 0, 1);

export function isInShiftYears(epochMs: number): boolean {
  return epochMs >= EARLIEST_SHIFT_MS && epochMs < LATEST_SHIFT_MS;
}

export function evaluateShiftTimes(
  input: { start: string; end: string; breakMinutes: number },
  zone: string,
): ShiftTimesVerdict {
  const start = parseInstantWithOffset(input.start);
  const end = parseInstantWithOffset(input.end);
  const errors: FieldError[] = [];
  if (!start) errors.push({ field: 'start', message: OFFSET_MESSAGE, code: 'format' });
  if (!end) errors.push({ field: 'end', message: OFFSET_MESSAGE, code: 'format' });
  if (!start || !end) return { ok: false, errors };
  if (!isInShiftYears(start.epochMs)) errors.push({ field: 'start', message: YEARS_MESSAGE, code: 'range' });
  if (!isInShiftYears(end.epochMs)) errors.push({ field: 'end', message: YEARS_MESSAGE, code: 'range' });
  if (errors.length > 0) return { ok: false, errors };
  const span = end.epochMs - start.epochMs;
  if (span <= 0) errors.push({ field: 'end', message: 'must be after start', code: 'range' });
  else if (span >= MAX_SHIFT_MS)
    errors.push({ field: 'end', message: 'must be less than 24 hours after start', code: 'range' });
  else if (input.breakMinutes * 60_000 >= span)
    errors.push({ field: 'breakMinutes', message: 'must be shorter than the shift', code: 'range' });
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    times: {
      start: localizeInstant(start, zone),
      end: localizeInstant(end, zone),
      breakMinutes: input.breakMinutes,
    },
  };
}

export interface Span {
  id: string;
  startMs: number;
  endMs: number;
}

/** The first of `others` that overlaps [startMs, endMs), ignoring `selfId`. */
export function firstOverlap(
  others: Iterable<Span>,
  candidate: { startMs: number; endMs: number },
  selfId: string | null,
): Span | null {
  for (const other of others)
    if (other.id !== selfId && other.startMs < candidate.endMs && other.endMs > candidate.startMs)
      return other;
  return null;
}

/** Planned working time of a shift in seconds: its span less its break. */
export function plannedSeconds(startMs: number, endMs: number, breakMinutes: number): number {
  return Math.max(0, Math.round((endMs - startMs) / 1000) - breakMinutes * 60);
}
