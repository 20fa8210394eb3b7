import { describe, expect, it } from 'vitest';
import {
  breakMinutes,
  evaluateBreakEnd,
  evaluateBreakStart,
  evaluateClockOutAfterBreaks,
  lastMomentOf,
  openBreak,
  sessionFigures,
} from '../../src/modules/time-tracking/break-rules.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const start = Date.parse('2026-11-10T08:00:00Z');
const done = [{ startMs: start + 2 * HOUR, endMs: start + 2 * HOUR + 15 * MIN }];
const running = [...done, { startMs: start + 4 * HOUR, endMs: null }];

describe('break rules', () => {
  it('knows the break in progress and what a punch follows', () => {
    expect(openBreak([])).toBeUndefined();
    expect(openBreak(done)).toBeUndefined();
    expect(openBreak(running)).toEqual({ startMs: start + 4 * HOUR, endMs: null });
    expect(lastMomentOf(start, [])).toBe(start);
    expect(lastMomentOf(start, done)).toBe(start + 2 * HOUR + 15 * MIN);
    expect(lastMomentOf(start, running)).toBe(start + 4 * HOUR);
  });

  it('break_start: after the clock-in and the previous break, none running, inside 24 hours', () => {
    expect(evaluateBreakStart(start, [], start)).toEqual({ ok: true });
    expect(evaluateBreakStart(start, [], start - 1000)).toEqual({ ok: false, error: 'break_out_of_order' });
    expect(evaluateBreakStart(start, done, start + 2 * HOUR + 14 * MIN)).toEqual({
      ok: false,
      error: 'break_out_of_order',
    });
    expect(evaluateBreakStart(start, done, start + 2 * HOUR + 15 * MIN)).toEqual({ ok: true });
    expect(evaluateBreakStart(start, running, start + 5 * HOUR)).toEqual({
      ok: false,
      error: 'already_on_break',
    });
    expect(evaluateBreakStart(start, [], start + 24 * HOUR)).toEqual({
      ok: false,
      error: 'session_too_long',
    });
    expect(evaluateBreakStart(start, [], start + 24 * HOUR - 1000)).toEqual({ ok: true });
  });

  it('break_end: a break running, not before its start, inside 24 hours', () => {
    expect(evaluateBreakEnd(start, [], start + HOUR)).toEqual({ ok: false, error: 'not_on_break' });
    expect(evaluateBreakEnd(start, done, start + 3 * HOUR)).toEqual({ ok: false, error: 'not_on_break' });
    expect(evaluateBreakEnd(start, running, start + 4 * HOUR - 1)).toEqual({
      ok: false,
      error: 'break_out_of_order',
    });
    expect(evaluateBreakEnd(start, running, start + 4 * HOUR)).toEqual({ ok: true });
    expect(evaluateBreakEnd(start, running, start + 24 * HOUR)).toEqual({
      ok: false,
      error: 'session_too_long',
    });
  });

  it('a clock-out comes after the last break (or the start of the one in progress)', () => {
    expect(evaluateClockOutAfterBreaks([], start)).toEqual({ ok: true });
    expect(evaluateClockOutAfterBreaks(done, start + 2 * HOUR + 10 * MIN)).toEqual({
      ok: false,
      error: 'break_out_of_order',
    });
    expect(evaluateClockOutAfterBreaks(running, start + 4 * HOUR - 1)).toEqual({
      ok: false,
      error: 'break_out_of_order',
    });
    expect(evaluateClockOutAfterBreaks(running, start + 4 * HOUR)).toEqual({ ok: true });
  });

  it('counts whole minutes, to the nearest', () => {
    expect(breakMinutes(0, 15 * MIN)).toBe(15);
    expect(breakMinutes(0, 29_999)).toBe(0);
    expect(breakMinutes(0, 30_000)).toBe(1);
    expect(breakMinutes(0, 15 * MIN + 29_999)).toBe(15);
    expect(breakMinutes(0, 15 * MIN + 30_000)).toBe(16);
  });

  it('a session is its length less the sum of its breaks; a running break ends at the clock-out', () => {
    expect(sessionFigures(start, start + 8 * HOUR, [])).toEqual({ breakMinutes: 0, netSeconds: 8 * 3600 });
    expect(sessionFigures(start, start + 8 * HOUR, done)).toEqual({
      breakMinutes: 15,
      netSeconds: 8 * 3600 - 15 * 60,
    });
    expect(sessionFigures(start, start + 5 * HOUR, running)).toEqual({
      breakMinutes: 75,
      netSeconds: 5 * 3600 - 75 * 60,
    });
    // Never below zero: a session that is one long break.
    expect(sessionFigures(start, start + 40_000, [{ startMs: start, endMs: null }])).toEqual({
      breakMinutes: 1,
      netSeconds: 0,
    });
  });
});
