import { describe, expect, it } from 'vitest';
import {
  checkPunchWindow,
  DUPLICATE_WINDOW_MS,
  endsNextDay,
  evaluateClockOut,
  evaluateShift,
  MAX_FUTURE_MS,
  MAX_PAST_MS,
  MAX_SESSION_MS,
  MIN_NET_SHIFT_SECONDS,
  resolveToggle,
  totalHours,
} from '../../src/modules/time-tracking/punch-rules.js';
import type { LocalizedInstant } from '../../src/domain/time-zone.js';
import { localizeInstant, parseInstantWithOffset } from '../../src/domain/time-zone.js';

const HOUR = 3_600_000;

function at(value: string, zone: string | null = 'Europe/Berlin'): LocalizedInstant {
  const instant = parseInstantWithOffset(value);
  if (!instant) {
    throw new Error(`fixture did not parse: ${value}`);
  }
  return localizeInstant(instant, zone);
}

function shiftAt(epochMs: number, zone: string | null = 'UTC'): LocalizedInstant {
  return at(new Date(epochMs).toISOString(), zone);
}

function codes(result: ReturnType<typeof evaluateShift>): Array<[string, string]> {
  return result.ok ? [] : result.errors.map((error) => [error.field, error.code]);
}

describe('constants', () => {
  it('match the spec', () => {
    expect(MAX_FUTURE_MS).toBe(300_000);
    expect(MAX_PAST_MS).toBe(2_592_000_000);
    expect(MAX_SESSION_MS).toBe(86_400_000);
    expect(MIN_NET_SHIFT_SECONDS).toBe(900);
    expect(DUPLICATE_WINDOW_MS).toBe(60_000);
  });
});

describe('checkPunchWindow', () => {
  const now = Date.parse('2026-06-15T12:00:00Z');

  it.each([
    ['now', now, null],
    ['exactly 5 minutes ahead', now + MAX_FUTURE_MS, null],
    ['5 minutes and 1 ms ahead', now + MAX_FUTURE_MS + 1, 'too_far_in_future'],
    ['a day ahead', now + 24 * HOUR, 'too_far_in_future'],
    ['exactly 30 days ago', now - MAX_PAST_MS, null],
    ['30 days and 1 ms ago', now - MAX_PAST_MS - 1, 'too_far_in_past'],
    ['a year ago', now - 365 * 24 * HOUR, 'too_far_in_past'],
  ])('%s', (_label, epochMs, expected) => {
    expect(checkPunchWindow(epochMs, now)).toBe(expected);
  });
});

describe('resolveToggle', () => {
  it.each([
    [null, '2026-06-15', 'clock_in'],
    ['2026-06-15', '2026-06-15', 'clock_out'],
    ['2026-06-14', '2026-06-15', 'clock_out'],
    ['2026-06-13', '2026-06-15', 'clock_in'],
    ['2026-06-16', '2026-06-15', 'clock_in'],
    ['2025-12-31', '2026-01-01', 'clock_out'],
    ['2026-02-28', '2026-03-01', 'clock_out'],
    ['2028-02-28', '2028-02-29', 'clock_out'],
    ['2028-02-28', '2028-03-01', 'clock_in'],
  ])('open session on %s, punch on %s → %s', (open, punch, expected) => {
    expect(resolveToggle(open, punch)).toBe(expected);
  });
});

describe('evaluateClockOut', () => {
  const start = Date.parse('2026-06-15T08:00:00Z');

  it('accepts a normal session', () => {
    expect(evaluateClockOut(start, start + 8 * HOUR)).toEqual({ ok: true, durationSeconds: 28_800 });
  });

  it('accepts equal instants as a zero-length session', () => {
    expect(evaluateClockOut(start, start)).toEqual({ ok: true, durationSeconds: 0 });
  });

  it('accepts 23:59:59', () => {
    expect(evaluateClockOut(start, start + MAX_SESSION_MS - 1000)).toEqual({
      ok: true,
      durationSeconds: 86_399,
    });
  });

  it('rejects exactly 24 hours', () => {
    expect(evaluateClockOut(start, start + MAX_SESSION_MS)).toEqual({ ok: false, error: 'session_too_long' });
  });

  it('rejects a clock-out before the clock-in', () => {
    expect(evaluateClockOut(start, start - 1)).toEqual({ ok: false, error: 'clock_out_before_clock_in' });
  });

  it('floors sub-second durations', () => {
    expect(evaluateClockOut(start, start + 1999)).toEqual({ ok: true, durationSeconds: 1 });
  });
});

describe('totalHours', () => {
  it.each([
    [27_000, 7.5],
    [1_000, 0.28],
    [0, 0],
    [900, 0.25],
    [3_600, 1],
    [1_044, 0.29],
    [15_660, 4.35],
    [17, 0],
    [18, 0.01],
    [30, 0.01],
    [86_399, 24],
    [30_780, 8.55],
    // Exact half-hundredths, where scaling the float hours first would round down by mistake.
    [522, 0.15],
    [1_026, 0.29],
    [3_618, 1.01],
  ])('%i s → %d h', (seconds, hours) => {
    expect(totalHours(seconds)).toBe(hours);
  });
});

describe('endsNextDay', () => {
  it('is false on the same date and true on any other date', () => {
    expect(endsNextDay('2026-06-15', '2026-06-15')).toBe(false);
    expect(endsNextDay('2026-06-15', '2026-06-16')).toBe(true);
    expect(endsNextDay('2026-12-31', '2027-01-01')).toBe(true);
  });
});

describe('evaluateShift', () => {
  const now = Date.parse('2026-11-15T12:00:00Z');

  it('accepts a regular day shift with a break', () => {
    const result = evaluateShift({
      clockIn: at('2026-11-10T08:00:00+01:00'),
      clockOut: at('2026-11-10T16:30:00+01:00'),
      breakMinutes: 30,
      nowMs: now,
    });
    expect(result).toEqual({
      ok: true,
      workDate: '2026-11-10',
      startTime: '08:00:00',
      endTime: '16:30:00',
      endsNextDay: false,
      netSeconds: 28_800,
      totalHours: 8,
    });
  });

  it('treats a null break as no break', () => {
    const result = evaluateShift({
      clockIn: at('2026-11-10T08:00:00+01:00'),
      clockOut: at('2026-11-10T15:30:00+01:00'),
      breakMinutes: null,
      nowMs: now,
    });
    expect(result).toMatchObject({ ok: true, netSeconds: 27_000, totalHours: 7.5 });
  });

  it('dates an overnight shift by the clock-in and flags it', () => {
    const result = evaluateShift({
      clockIn: at('2026-11-10T22:00:00+01:00'),
      clockOut: at('2026-11-11T06:00:00+01:00'),
      breakMinutes: 0,
      nowMs: now,
    });
    expect(result).toEqual({
      ok: true,
      workDate: '2026-11-10',
      startTime: '22:00:00',
      endTime: '06:00:00',
      endsNextDay: true,
      netSeconds: 28_800,
      totalHours: 8,
    });
  });

  it('uses the zone’s local dates, not the UTC dates, to decide overnight', () => {
    // 23:00Z → 01:00Z crosses UTC midnight, but in Kolkata it is 04:30 → 06:30 on the same day.
    const result = evaluateShift({
      clockIn: at('2026-11-09T23:00:00Z', 'Asia/Kolkata'),
      clockOut: at('2026-11-10T01:00:00Z', 'Asia/Kolkata'),
      breakMinutes: 15,
      nowMs: now,
    });
    expect(result).toMatchObject({
      ok: true,
      workDate: '2026-11-10',
      startTime: '04:30:00',
      endTime: '06:30:00',
      endsNextDay: false,
      netSeconds: 6_300,
      totalHours: 1.75,
    });
  });

  it("in 'offset' mode dates and times the shift by the wall clock as sent", () => {
    const result = evaluateShift({
      clockIn: at('2026-11-10T20:00:00-08:00', null),
      clockOut: at('2026-11-10T23:45:00-08:00', null),
      breakMinutes: 0,
      nowMs: now,
    });
    expect(result).toMatchObject({
      ok: true,
      workDate: '2026-11-10',
      startTime: '20:00:00',
      endTime: '23:45:00',
      endsNextDay: false,
      netSeconds: 13_500,
      totalHours: 3.75,
    });
  });

  describe('daylight saving time changes take the real elapsed time', () => {
    it.each([
      // Berlin, fall-back night: 00:00 CEST → 08:00 CET is 9 real hours.
      ['Europe/Berlin', '2026-10-25T00:00:00+02:00', '2026-10-25T08:00:00+01:00', '00:00:00', '08:00:00', 9],
      // Berlin, spring-forward night: 00:00 CET → 08:00 CEST is 7 real hours.
      ['Europe/Berlin', '2026-03-29T00:00:00+01:00', '2026-03-29T08:00:00+02:00', '00:00:00', '08:00:00', 7],
      // New York, spring-forward: 00:00 EST → 08:00 EDT is 7 real hours.
      [
        'America/New_York',
        '2026-03-08T00:00:00-05:00',
        '2026-03-08T08:00:00-04:00',
        '00:00:00',
        '08:00:00',
        7,
      ],
      // New York, fall-back: 00:00 EDT → 08:00 EST is 9 real hours.
      [
        'America/New_York',
        '2026-11-01T00:00:00-04:00',
        '2026-11-01T08:00:00-05:00',
        '00:00:00',
        '08:00:00',
        9,
      ],
      // Lord Howe only moves by 30 minutes: 00:00 (+10:30) → 08:00 (+11:00) on 2026-10-04 is 7.5 real hours.
      [
        'Australia/Lord_Howe',
        '2026-10-04T00:00:00+10:30',
        '2026-10-04T08:00:00+11:00',
        '00:00:00',
        '08:00:00',
        7.5,
      ],
      [
        'Australia/Lord_Howe',
        '2026-04-05T00:00:00+11:00',
        '2026-04-05T08:00:00+10:30',
        '00:00:00',
        '08:00:00',
        8.5,
      ],
    ])('%s %s → %s', (zone, clockIn, clockOut, startTime, endTime, hours) => {
      const result = evaluateShift({
        clockIn: at(clockIn, zone),
        clockOut: at(clockOut, zone),
        breakMinutes: 0,
        nowMs: Date.parse(clockOut) + HOUR,
      });
      expect(result).toEqual({
        ok: true,
        workDate: clockIn.slice(0, 10),
        startTime,
        endTime,
        endsNextDay: false,
        netSeconds: hours * 3600,
        totalHours: hours,
      });
    });

    it('reports an overnight shift across the Berlin fall-back with its true length', () => {
      // 22:00 CEST on the 24th to 06:00 CET on the 25th: 8 wall-clock hours, 9 real hours.
      const result = evaluateShift({
        clockIn: at('2026-10-24T20:00:00Z'),
        clockOut: at('2026-10-25T05:00:00Z'),
        breakMinutes: 0,
        nowMs: now,
      });
      expect(result).toMatchObject({
        ok: true,
        workDate: '2026-10-24',
        startTime: '22:00:00',
        endTime: '06:00:00',
        endsNextDay: true,
        netSeconds: 32_400,
        totalHours: 9,
      });
    });

    it('measures the 24-hour limit in real time across spring-forward', () => {
      // 00:00 CET on 03-29 to 00:30 CEST on 03-30 is 24.5 wall hours but only 23.5 real hours.
      const result = evaluateShift({
        clockIn: at('2026-03-29T00:00:00+01:00'),
        clockOut: at('2026-03-30T00:30:00+02:00'),
        breakMinutes: 0,
        nowMs: Date.parse('2026-04-01T00:00:00Z'),
      });
      expect(result).toMatchObject({ ok: true, endsNextDay: true, netSeconds: 84_600, totalHours: 23.5 });
    });

    it('counts 24 wall-clock hours across fall-back as too long', () => {
      // 00:00 CEST on 10-25 to 23:30 CET the same day is 23.5 wall hours but 24.5 real hours.
      const result = evaluateShift({
        clockIn: at('2026-10-25T00:00:00+02:00'),
        clockOut: at('2026-10-25T23:30:00+01:00'),
        breakMinutes: 0,
        nowMs: now,
      });
      expect(codes(result)).toEqual([['clockOut', 'shift_too_long']]);
    });
  });

  describe('time window', () => {
    it('accepts a clock-in exactly 30 days ago', () => {
      const clockInMs = now - MAX_PAST_MS;
      const result = evaluateShift({
        clockIn: shiftAt(clockInMs),
        clockOut: shiftAt(clockInMs + 8 * HOUR),
        breakMinutes: 0,
        nowMs: now,
      });
      expect(result.ok).toBe(true);
    });

    it('rejects a clock-in more than 30 days ago', () => {
      const clockInMs = now - MAX_PAST_MS - 1000;
      const result = evaluateShift({
        clockIn: shiftAt(clockInMs),
        clockOut: shiftAt(clockInMs + 8 * HOUR),
        breakMinutes: 0,
        nowMs: now,
      });
      expect(codes(result)).toEqual([['clockIn', 'too_far_in_past']]);
    });

    it('accepts a clock-out exactly 5 minutes in the future', () => {
      const result = evaluateShift({
        clockIn: shiftAt(now - 8 * HOUR),
        clockOut: shiftAt(now + MAX_FUTURE_MS),
        breakMinutes: 0,
        nowMs: now,
      });
      expect(result.ok).toBe(true);
    });

    it('rejects a clock-out more than 5 minutes in the future', () => {
      const result = evaluateShift({
        clockIn: shiftAt(now - 8 * HOUR),
        clockOut: shiftAt(now + MAX_FUTURE_MS + 1),
        breakMinutes: 0,
        nowMs: now,
      });
      expect(codes(result)).toEqual([['clockOut', 'too_far_in_future']]);
    });
  });

  describe('order and length', () => {
    const start = Date.parse('2026-11-10T06:00:00Z');

    it('rejects a clock-out equal to the clock-in', () => {
      const result = evaluateShift({
        clockIn: shiftAt(start),
        clockOut: shiftAt(start),
        breakMinutes: 0,
        nowMs: now,
      });
      expect(codes(result)).toEqual([['clockOut', 'not_after_clock_in']]);
    });

    it('rejects a clock-out before the clock-in without follow-up break errors', () => {
      const result = evaluateShift({
        clockIn: shiftAt(start),
        clockOut: shiftAt(start - HOUR),
        breakMinutes: 30,
        nowMs: now,
      });
      expect(codes(result)).toEqual([['clockOut', 'not_after_clock_in']]);
    });

    it('rejects exactly 24 hours', () => {
      const result = evaluateShift({
        clockIn: shiftAt(start),
        clockOut: shiftAt(start + MAX_SESSION_MS),
        breakMinutes: 0,
        nowMs: now,
      });
      expect(codes(result)).toEqual([['clockOut', 'shift_too_long']]);
    });

    it('accepts 23:59:59', () => {
      const result = evaluateShift({
        clockIn: shiftAt(start),
        clockOut: shiftAt(start + MAX_SESSION_MS - 1000),
        breakMinutes: 0,
        nowMs: now,
      });
      expect(result).toMatchObject({ ok: true, netSeconds: 86_399, totalHours: 24, endsNextDay: true });
    });
  });

  describe('break', () => {
    const clockIn = at('2026-11-10T08:00:00+01:00');
    const clockOut = at('2026-11-10T10:00:00+01:00');

    it.each([-1, 1441, 1.5, Number.NaN])('rejects %d minutes as out of range', (breakMinutes) => {
      expect(codes(evaluateShift({ clockIn, clockOut, breakMinutes, nowMs: now }))).toEqual([
        ['breakMinutes', 'out_of_range'],
      ]);
    });

    it('accepts the range bounds 0 and 1440 (1440 then fails only for not fitting the shift)', () => {
      expect(evaluateShift({ clockIn, clockOut, breakMinutes: 0, nowMs: now }).ok).toBe(true);
      expect(codes(evaluateShift({ clockIn, clockOut, breakMinutes: 1440, nowMs: now }))).toEqual([
        ['breakMinutes', 'break_longer_than_shift'],
      ]);
    });

    it('rejects a break as long as the shift', () => {
      expect(codes(evaluateShift({ clockIn, clockOut, breakMinutes: 120, nowMs: now }))).toEqual([
        ['breakMinutes', 'break_longer_than_shift'],
      ]);
    });

    it('rejects a break longer than the shift', () => {
      expect(codes(evaluateShift({ clockIn, clockOut, breakMinutes: 180, nowMs: now }))).toEqual([
        ['breakMinutes', 'break_longer_than_shift'],
      ]);
    });

    it('rejects any break on an overnight shift', () => {
      const result = evaluateShift({
        clockIn: at('2026-11-10T22:00:00+01:00'),
        clockOut: at('2026-11-11T06:00:00+01:00'),
        breakMinutes: 1,
        nowMs: now,
      });
      expect(codes(result)).toEqual([['breakMinutes', 'break_on_overnight_shift']]);
    });

    it('allows a zero or null break on an overnight shift', () => {
      for (const breakMinutes of [0, null]) {
        const result = evaluateShift({
          clockIn: at('2026-11-10T22:00:00+01:00'),
          clockOut: at('2026-11-11T06:00:00+01:00'),
          breakMinutes,
          nowMs: now,
        });
        expect(result.ok).toBe(true);
      }
    });
  });

  describe('net working time', () => {
    it('accepts exactly 15 minutes net', () => {
      const result = evaluateShift({
        clockIn: at('2026-11-10T08:00:00+01:00'),
        clockOut: at('2026-11-10T08:45:00+01:00'),
        breakMinutes: 30,
        nowMs: now,
      });
      expect(result).toMatchObject({ ok: true, netSeconds: 900, totalHours: 0.25 });
    });

    it('rejects 14:59 net', () => {
      const result = evaluateShift({
        clockIn: at('2026-11-10T08:00:00+01:00'),
        clockOut: at('2026-11-10T08:14:59+01:00'),
        breakMinutes: 0,
        nowMs: now,
      });
      expect(codes(result)).toEqual([['clockOut', 'net_time_too_short']]);
    });

    it('rejects a shift whose break leaves less than 15 minutes', () => {
      const result = evaluateShift({
        clockIn: at('2026-11-10T08:00:00+01:00'),
        clockOut: at('2026-11-10T09:00:00+01:00'),
        breakMinutes: 50,
        nowMs: now,
      });
      expect(codes(result)).toEqual([['clockOut', 'net_time_too_short']]);
    });
  });

  describe('combined errors', () => {
    it('reports a stale clock-in together with a break on an overnight shift', () => {
      const result = evaluateShift({
        clockIn: at('2026-10-01T22:00:00+02:00'),
        clockOut: at('2026-10-02T06:00:00+02:00'),
        breakMinutes: 30,
        nowMs: now,
      });
      expect(codes(result)).toEqual([
        ['clockIn', 'too_far_in_past'],
        ['breakMinutes', 'break_on_overnight_shift'],
      ]);
    });

    it('reports future, ordering and break range problems together', () => {
      const result = evaluateShift({
        clockIn: shiftAt(now + 3 * HOUR),
        clockOut: shiftAt(now + 2 * HOUR),
        breakMinutes: -5,
        nowMs: now,
      });
      expect(codes(result)).toEqual([
        ['clockOut', 'too_far_in_future'],
        ['clockOut', 'not_after_clock_in'],
        ['breakMinutes', 'out_of_range'],
      ]);
    });

    it('reports an overnight break that also does not fit the shift', () => {
      const result = evaluateShift({
        clockIn: at('2026-11-10T23:50:00+01:00'),
        clockOut: at('2026-11-11T00:10:00+01:00'),
        breakMinutes: 30,
        nowMs: now,
      });
      expect(codes(result)).toEqual([
        ['breakMinutes', 'break_on_overnight_shift'],
        ['breakMinutes', 'break_longer_than_shift'],
      ]);
    });

    it('reports an overnight break that leaves too little net time', () => {
      const result = evaluateShift({
        clockIn: at('2026-11-10T23:50:00+01:00'),
        clockOut: at('2026-11-11T00:10:00+01:00'),
        breakMinutes: 10,
        nowMs: now,
      });
      expect(codes(result)).toEqual([
        ['breakMinutes', 'break_on_overnight_shift'],
        ['clockOut', 'net_time_too_short'],
      ]);
    });

    it('reports a too-long shift in the future', () => {
      const result = evaluateShift({
        clockIn: shiftAt(now - HOUR),
        clockOut: shiftAt(now + 23 * HOUR),
        breakMinutes: 0,
        nowMs: now,
      });
      expect(codes(result)).toEqual([
        ['clockOut', 'too_far_in_future'],
        ['clockOut', 'shift_too_long'],
      ]);
    });

    it('gives every error a readable English message', () => {
      const result = evaluateShift({
        clockIn: at('2026-10-01T23:50:00+02:00'),
        clockOut: at('2026-10-02T00:10:00+02:00'),
        breakMinutes: 30,
        nowMs: now,
      });
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.errors).toHaveLength(3);
        for (const error of result.errors) {
          expect(error.message).toMatch(/^[A-Za-z].{10,}\.$/);
        }
      }
    });
  });
});
