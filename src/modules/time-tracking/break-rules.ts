import { MAX_SESSION_MS } from './punch-rules.js';

/** A break of the open session as the rules see it: instants in epoch milliseconds; `endMs` null while it runs. */
export interface BreakSpan {
  startMs: number;
  endMs: number | null;
}

export type BreakVerdict<E extends string> = { ok: true } | { ok: false; error: E };

/** The break in progress, if any (the last one; at most one is open). */
export function openBreak(breaks: readonly BreakSpan[]): BreakSpan | undefined {
  const last = breaks.at(-1);
  return last && last.endMs === null ? last : undefined;
}

/** What a punch of the session follows: the clock-in, or the end (else the start) of the last break. */
export function lastMomentOf(sessionStartMs: number, breaks: readonly BreakSpan[]): number {
  const last = breaks.at(-1);
  if (!last) return sessionStartMs;
  return last.endMs ?? last.startMs;
}

/**
 * `break_start`: the session must have no break running, and the break must not start before what it
 * follows (the clock-in or the end of the previous break), nor 24 hours or more after the clock-in
 * (such a session can never be closed by a punch).
 */
export function evaluateBreakStart(
  sessionStartMs: number,
  breaks: readonly BreakSpan[],
  atMs: number,
): BreakVerdict<'already_on_break' | 'break_out_of_order' | 'session_too_long'> {
  if (openBreak(breaks)) return { ok: false, error: 'already_on_break' };
  if (atMs < lastMomentOf(sessionStartMs, breaks)) return { ok: false, error: 'break_out_of_order' };
  if (atMs - sessionStartMs >= MAX_SESSION_MS) return { ok: false, error: 'session_too_long' };
  return { ok: true };
}

/** `break_end`: a break must be running, and it cannot end before it started. */
export function evaluateBreakEnd(
  sessionStartMs: number,
  breaks: readonly BreakSpan[],
  atMs: number,
): BreakVerdict<'not_on_break' | 'break_out_of_order' | 'session_too_long'> {
  const running = openBreak(breaks);
  if (!running) return { ok: false, error: 'not_on_break' };
  if (atMs < running.startMs) return { ok: false, error: 'break_out_of_order' };
  if (atMs - sessionStartMs >= MAX_SESSION_MS) return { ok: false, error: 'session_too_long' };
  return { ok: true };
}

/**
 * A clock-out of a session with breaks (after the clock-in checks of evaluateClockOut): it cannot
 * come before the end of the last break, nor before the start of the break in progress, which it ends.
 */
export function evaluateClockOutAfterBreaks(
  breaks: readonly BreakSpan[],
  atMs: number,
): BreakVerdict<'break_out_of_order'> {
  const last = breaks.at(-1);
  if (last && atMs < (last.endMs ?? last.startMs)) return { ok: false, error: 'break_out_of_order' };
  return { ok: true };
}

/** A break's length in whole minutes (nearest minute; 30 seconds round up). */
export function breakMinutes(startMs: number, endMs: number): number {
  return Math.round(Math.floor((endMs - startMs) / 1000) / 60);
}

/**
 * A completed session's figures: `breakMinutes` the sum of its breaks' whole minutes (an open break
 * ends at `endMs`), `netSeconds` the session less those minutes, never below zero. Like a shift, whose
 * net time is its length less its `breakMinutes`.
 */
export function sessionFigures(
  sessionStartMs: number,
  endMs: number,
  breaks: readonly BreakSpan[],
): { breakMinutes: number; netSeconds: number } {
  const minutes = breaks.reduce((sum, b) => sum + breakMinutes(b.startMs, b.endMs ?? endMs), 0);
  const grossSeconds = Math.floor((endMs - sessionStartMs) / 1000);
  return { breakMinutes: minutes, netSeconds: Math.max(0, grossSeconds - minutes * 60) };
}
