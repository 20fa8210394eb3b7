import { type LocalizedInstant, addDays } from '../../domain/time-zone.js';

export const MAX_FUTURE_MS = 5 * 60_000;
export const MAX_PAST_MS = 30 * 24 * 3_600_000;
export const MAX_SESSION_MS = 24 * 3_600_000;
export const MIN_NET_SHIFT_SECONDS = 15 * 60;
export const DUPLICATE_WINDOW_MS = 60_000;

const MAX_BREAK_MINUTES = 24 * 60;

export type PunchWindowError = 'too_far_in_future' | 'too_far_in_past';

export type ClockOutEvaluation =
  | { ok: true; durationSeconds: number }
  | { ok: false; error: 'clock_out_before_clock_in' | 'session_too_long' };

export type ShiftFieldError = { field: string; message: string; code: string };

export type ShiftInput = {
  clockIn: LocalizedInstant;
  clockOut: LocalizedInstant;
  breakMinutes: number | null;
  nowMs: number;
};

export type ShiftEvaluation =
  | {
      ok: true;
      workDate: string;
      startTime: string;
      endTime: string;
      endsNextDay: boolean;
      netSeconds: number;
      totalHours: number;
    }
  | { ok: false; errors: ShiftFieldError[] };

export function checkPunchWindow(epochMs: number, nowMs: number): PunchWindowError | null {
  if (epochMs - nowMs > MAX_FUTURE_MS) {
    return 'too_far_in_future';
  }
  if (nowMs - epochMs > MAX_PAST_MS) {
    return 'too_far_in_past';
  }
  return null;
}

export function resolveToggle(
  openSessionWorkDate: string | null,
  punchWorkDate: string,
): 'clock_in' | 'clock_out' {
  if (openSessionWorkDate === null) {
    return 'clock_in';
  }
  // A session opened the day before may legitimately still be running (night shift); anything older is
  // treated as abandoned and the punch starts a new session instead.
  if (openSessionWorkDate === punchWorkDate || addDays(openSessionWorkDate, 1) === punchWorkDate) {
    return 'clock_out';
  }
  return 'clock_in';
}

// Whole seconds are floored so that comparing seconds against a threshold gives the same answer as comparing
// the underlying milliseconds.
function toWholeSeconds(ms: number): number {
  return Math.floor(ms / 1000);
}

export function evaluateClockOut(startMs: number, endMs: number): ClockOutEvaluation {
  if (endMs < startMs) {
    return { ok: false, error: 'clock_out_before_clock_in' };
  }
  if (endMs - startMs >= MAX_SESSION_MS) {
    return { ok: false, error: 'session_too_long' };
  }
  return { ok: true, durationSeconds: toWholeSeconds(endMs - startMs) };
}

export function totalHours(netSeconds: number): number {
  // Rounding hundredths of an hour as an integer avoids binary-float artefacts such as 7.4999999.
  return Math.round(netSeconds / 36) / 100;
}

export function endsNextDay(startWorkDate: string, endLocalDate: string): boolean {
  // Any date change counts: a sub-24 h shift spanning a spring-forward night can land two calendar days later,
  // and in 'offset' mode the two punches may carry different offsets.
  return endLocalDate !== startWorkDate;
}

/** A shift starts at most 30 days back and ends at most 5 minutes ahead. */
function shiftWindowErrors(inMs: number, outMs: number, nowMs: number): ShiftFieldError[] {
  const errors: ShiftFieldError[] = [];
  if (nowMs - inMs > MAX_PAST_MS) {
    errors.push({
      field: 'clockIn',
      code: 'too_far_in_past',
      message: 'clockIn must not be more than 30 days in the past.',
    });
  }
  if (outMs - nowMs > MAX_FUTURE_MS) {
    errors.push({
      field: 'clockOut',
      code: 'too_far_in_future',
      message: 'clockOut must not be more than 5 minutes in the future.',
    });
  }
  return errors;
}

export function evaluateShift(input: ShiftInput): ShiftEvaluation {
  const { clockIn, clockOut, nowMs } = input;
  const errors: ShiftFieldError[] = shiftWindowErrors(clockIn.epochMs, clockOut.epochMs, nowMs);

  const durationMs = clockOut.epochMs - clockIn.epochMs;
  const ordered = durationMs > 0;
  if (!ordered) {
    errors.push({
      field: 'clockOut',
      code: 'not_after_clock_in',
      message: 'clockOut must be after clockIn.',
    });
  } else if (durationMs >= MAX_SESSION_MS) {
    errors.push({
      field: 'clockOut',
      code: 'shift_too_long',
      message: 'A shift must be shorter than 24 hours.',
    });
  }

  const overnight = endsNextDay(clockIn.workDate, clockOut.workDate);
  const breakMinutes = input.breakMinutes ?? 0;
  const breakInRange =
    Number.isInteger(breakMinutes) && breakMinutes >= 0 && breakMinutes <= MAX_BREAK_MINUTES;
  if (!breakInRange) {
    errors.push({
      field: 'breakMinutes',
      code: 'out_of_range',
      message: `breakMinutes must be a whole number between 0 and ${MAX_BREAK_MINUTES}.`,
    });
  }

  // The remaining checks need a usable break value and a positive duration; without them they would only
  // echo the errors above.
  if (breakInRange) {
    if (breakMinutes > 0 && overnight) {
      errors.push({
        field: 'breakMinutes',
        code: 'break_on_overnight_shift',
        message: 'A break cannot be recorded on a shift that ends on the next day.',
      });
    }
    if (ordered) {
      const breakMs = breakMinutes * 60_000;
      if (breakMs >= durationMs) {
        errors.push({
          field: 'breakMinutes',
          code: 'break_longer_than_shift',
          message: 'The break must be shorter than the shift.',
        });
      } else if (toWholeSeconds(durationMs - breakMs) < MIN_NET_SHIFT_SECONDS) {
        errors.push({
          field: 'clockOut',
          code: 'net_time_too_short',
          message: 'Net working time (shift minus break) must be at least 15 minutes.',
        });
      }
    }
  }

  if (errors.length > 0) {
    return { ok: false, errors };
  }

  const netSeconds = toWholeSeconds(durationMs - breakMinutes * 60_000);
  return {
    ok: true,
    workDate: clockIn.workDate,
    startTime: clockIn.time,
    endTime: clockOut.time,
    endsNextDay: overnight,
    netSeconds,
    totalHours: totalHours(netSeconds),
  };
}
