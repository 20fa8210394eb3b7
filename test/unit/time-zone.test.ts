import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import type { ParsedInstant } from '../../src/domain/time-zone.js';
import {
  addDays,
  daysBetween,
  isValidDate,
  isValidTimeZone,
  localizeInstant,
  parseInstantWithOffset,
  todayIn,
} from '../../src/domain/time-zone.js';

function parsed(value: string): ParsedInstant {
  const instant = parseInstantWithOffset(value);
  if (!instant) {
    throw new Error(`fixture did not parse: ${value}`);
  }
  return instant;
}

function localize(value: string, zone: string | null) {
  return localizeInstant(parsed(value), zone);
}

describe('parseInstantWithOffset', () => {
  it.each([
    ['2026-03-29T01:30:00+01:00', '2026-03-29T00:30:00.000Z', 60, '2026-03-29', '01:30:00'],
    ['2026-03-29T01:30:00.123Z', '2026-03-29T01:30:00.123Z', 0, '2026-03-29', '01:30:00'],
    ['2026-03-29t01:30:00z', '2026-03-29T01:30:00.000Z', 0, '2026-03-29', '01:30:00'],
    ['2026-03-29T01:30:00.5+05:30', '2026-03-28T20:00:00.500Z', 330, '2026-03-29', '01:30:00'],
    ['2026-03-29T01:30:00.123456789-03:30', '2026-03-29T05:00:00.123Z', -210, '2026-03-29', '01:30:00'],
    ['2026-03-29T01:30:00-00:00', '2026-03-29T01:30:00.000Z', 0, '2026-03-29', '01:30:00'],
    ['2026-12-31T23:59:59+14:00', '2026-12-31T09:59:59.000Z', 840, '2026-12-31', '23:59:59'],
    ['2026-01-01T00:00:00+23:59', '2025-12-31T00:01:00.000Z', 1439, '2026-01-01', '00:00:00'],
    ['2024-02-29T12:00:00Z', '2024-02-29T12:00:00.000Z', 0, '2024-02-29', '12:00:00'],
  ])('accepts %s', (value, utcIso, offsetMinutes, wallDate, wallTime) => {
    const instant = parseInstantWithOffset(value);
    expect(instant).toEqual({ epochMs: Date.parse(utcIso), offsetMinutes, wallDate, wallTime });
  });

  it('never reports a negative zero offset', () => {
    expect(Object.is(parsed('2026-03-29T01:30:00-00:00').offsetMinutes, 0)).toBe(true);
  });

  it.each([
    ['no offset', '2026-03-29T01:30:00'],
    ['no offset with fraction', '2026-03-29T01:30:00.123'],
    ['date only', '2026-03-29'],
    ['invalid calendar date', '2026-02-30T10:00:00Z'],
    ['29 February in a common year', '2025-02-29T10:00:00Z'],
    ['month 13', '2026-13-01T10:00:00Z'],
    ['month 00', '2026-00-10T10:00:00Z'],
    ['day 00', '2026-03-00T10:00:00Z'],
    ['hour 24', '2026-03-29T24:00:00Z'],
    ['minute 60', '2026-03-29T01:60:00Z'],
    ['second 60', '2026-03-29T01:30:60Z'],
    ['offset hour 25', '2026-03-29T01:30:00+25:00'],
    ['offset minute 60', '2026-03-29T01:30:00+01:60'],
    ['offset without colon', '2026-03-29T01:30:00+0100'],
    ['offset without minutes', '2026-03-29T01:30:00+01'],
    ['missing seconds', '2026-03-29T01:30Z'],
    ['empty fraction', '2026-03-29T01:30:00.Z'],
    ['space separator', '2026-03-29 01:30:00Z'],
    ['single-digit month', '2026-3-29T01:30:00Z'],
    ['leading whitespace', ' 2026-03-29T01:30:00Z'],
    ['trailing whitespace', '2026-03-29T01:30:00Z '],
    ['zone name instead of offset', '2026-03-29T01:30:00[Europe/Berlin]'],
    ['garbage', 'yesterday at noon'],
    ['empty string', ''],
  ])('rejects %s', (_label, value) => {
    expect(parseInstantWithOffset(value)).toBeNull();
  });
});

describe('isValidTimeZone', () => {
  it.each([
    'Europe/Berlin',
    'America/New_York',
    'UTC',
    'Asia/Kolkata',
    'Australia/Lord_Howe',
    'Pacific/Kiritimati',
  ])('accepts %s', (zone) => {
    expect(isValidTimeZone(zone)).toBe(true);
  });

  it.each(['Mars/Base', '', '+02:00', 'Z', 'UTC+2', 'local', 'Europe/Berlin ', 'europe/berlin', 'utc'])(
    'rejects %j',
    (zone) => {
      expect(isValidTimeZone(zone)).toBe(false);
    },
  );
});

describe('localizeInstant', () => {
  it('converts into Europe/Berlin and reports every representation', () => {
    expect(localize('2026-06-15T08:00:00.250Z', 'Europe/Berlin')).toEqual({
      epochMs: Date.parse('2026-06-15T08:00:00.250Z'),
      utcIso: '2026-06-15T08:00:00.250Z',
      workDate: '2026-06-15',
      time: '10:00:00',
      timeZone: 'Europe/Berlin',
      occurredAt: '2026-06-15T10:00:00+02:00',
    });
  });

  it.each([
    // Berlin spring-forward, 2026-03-29: 02:00 CET jumps to 03:00 CEST at 01:00Z.
    ['2026-03-29T00:59:59Z', 'Europe/Berlin', '2026-03-29T01:59:59+01:00'],
    ['2026-03-29T01:00:00Z', 'Europe/Berlin', '2026-03-29T03:00:00+02:00'],
    ['2026-03-29T02:30:00+01:00', 'Europe/Berlin', '2026-03-29T03:30:00+02:00'],
    ['2026-03-29T01:30:00+01:00', 'Europe/Berlin', '2026-03-29T01:30:00+01:00'],
    // Berlin fall-back, 2026-10-25: 03:00 CEST falls back to 02:00 CET at 01:00Z, so 02:30 happens twice.
    ['2026-10-25T00:30:00Z', 'Europe/Berlin', '2026-10-25T02:30:00+02:00'],
    ['2026-10-25T00:59:59Z', 'Europe/Berlin', '2026-10-25T02:59:59+02:00'],
    ['2026-10-25T01:00:00Z', 'Europe/Berlin', '2026-10-25T02:00:00+01:00'],
    ['2026-10-25T01:30:00Z', 'Europe/Berlin', '2026-10-25T02:30:00+01:00'],
    ['2026-03-29T23:30:00Z', 'Europe/Berlin', '2026-03-30T01:30:00+02:00'],
    // New York spring-forward, 2026-03-08: 02:00 EST jumps to 03:00 EDT at 07:00Z.
    ['2026-03-08T06:59:59Z', 'America/New_York', '2026-03-08T01:59:59-05:00'],
    ['2026-03-08T07:00:00Z', 'America/New_York', '2026-03-08T03:00:00-04:00'],
    // New York fall-back, 2026-11-01: 02:00 EDT falls back to 01:00 EST at 06:00Z.
    ['2026-11-01T05:30:00Z', 'America/New_York', '2026-11-01T01:30:00-04:00'],
    ['2026-11-01T06:00:00Z', 'America/New_York', '2026-11-01T01:00:00-05:00'],
    ['2026-11-01T06:30:00Z', 'America/New_York', '2026-11-01T01:30:00-05:00'],
    ['2026-11-01T03:30:00Z', 'America/New_York', '2026-10-31T23:30:00-04:00'],
    // Kolkata has a fixed half-hour offset, which moves the local date earlier than in UTC.
    ['2026-03-29T20:00:00Z', 'Asia/Kolkata', '2026-03-30T01:30:00+05:30'],
    ['2026-03-29T18:29:59Z', 'Asia/Kolkata', '2026-03-29T23:59:59+05:30'],
    // Lord Howe shifts by only 30 minutes: +11:00 in summer, +10:30 in winter.
    ['2026-04-04T14:59:59Z', 'Australia/Lord_Howe', '2026-04-05T01:59:59+11:00'],
    ['2026-04-04T15:00:00Z', 'Australia/Lord_Howe', '2026-04-05T01:30:00+10:30'],
    ['2026-10-03T15:29:59Z', 'Australia/Lord_Howe', '2026-10-04T01:59:59+10:30'],
    ['2026-10-03T15:30:00Z', 'Australia/Lord_Howe', '2026-10-04T02:30:00+11:00'],
    ['2026-06-15T08:00:00+02:00', 'UTC', '2026-06-15T06:00:00+00:00'],
  ])('localizes %s in %s as %s', (value, zone, occurredAt) => {
    const localized = localize(value, zone);
    expect(localized.occurredAt).toBe(occurredAt);
    expect(localized.workDate).toBe(occurredAt.slice(0, 10));
    expect(localized.time).toBe(occurredAt.slice(11, 19));
    expect(localized.timeZone).toBe(zone);
    expect(localized.epochMs).toBe(Date.parse(value));
    expect(Date.parse(localized.occurredAt)).toBe(Date.parse(value));
  });

  it('agrees with Luxon on random instants across zones with odd offsets and transitions', () => {
    const zones = [
      'Europe/Berlin',
      'Europe/Dublin',
      'America/New_York',
      'America/St_Johns',
      'Asia/Kathmandu',
      'Asia/Kolkata',
      'Pacific/Chatham',
      'Australia/Lord_Howe',
      'Pacific/Kiritimati',
      'America/Sao_Paulo',
      'Africa/Casablanca',
      'UTC',
    ];
    // A fixed generator: the same instants on every run.
    let seed = 0x2f6b_1d3a;
    const next = () => {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
      return seed / 2 ** 32;
    };
    const from = Date.UTC(1000, 0, 2);
    const to = Date.UTC(9999, 11, 30);
    const recent = Date.UTC(1970, 0, 1);
    for (let i = 0; i < 6000; i++) {
      const zone = zones[i % zones.length]!;
      // Half of them in the years of real data, where the transitions are dense.
      const epochMs =
        i % 2 === 0
          ? Math.floor(recent + next() * (Date.UTC(2040, 0, 1) - recent))
          : Math.floor(from + next() * (to - from));
      const value = new Date(epochMs).toISOString();
      const expected = DateTime.fromMillis(epochMs, { zone });
      const localized = localize(value, zone);
      expect(localized.occurredAt, `${value} in ${zone}`).toBe(
        `${expected.toFormat('yyyy-MM-dd')}T${expected.toFormat('HH:mm:ss')}${expected.toFormat('ZZ')}`,
      );
    }
  });

  it('drops fractional seconds from the local time but keeps them in the UTC form', () => {
    const localized = localize('2026-07-01T12:00:00.987+02:00', 'America/New_York');
    expect(localized.time).toBe('06:00:00');
    expect(localized.occurredAt).toBe('2026-07-01T06:00:00-04:00');
    expect(localized.utcIso).toBe('2026-07-01T10:00:00.987Z');
  });

  describe("'offset' mode", () => {
    it('keeps the wall clock and offset exactly as sent', () => {
      expect(localize('2026-03-29T01:30:00-05:00', null)).toEqual({
        epochMs: Date.parse('2026-03-29T06:30:00Z'),
        utcIso: '2026-03-29T06:30:00.000Z',
        workDate: '2026-03-29',
        time: '01:30:00',
        timeZone: 'offset',
        occurredAt: '2026-03-29T01:30:00-05:00',
      });
    });

    it('keeps a wall time that does not exist in the sender’s region', () => {
      const localized = localize('2026-03-29T02:30:00+01:00', null);
      expect(localized.workDate).toBe('2026-03-29');
      expect(localized.time).toBe('02:30:00');
      expect(localized.occurredAt).toBe('2026-03-29T02:30:00+01:00');
    });

    it('keeps the local date even when UTC is already on another day', () => {
      const localized = localize('2026-01-01T00:30:00+05:45', null);
      expect(localized.workDate).toBe('2026-01-01');
      expect(localized.occurredAt).toBe('2026-01-01T00:30:00+05:45');
      expect(localized.utcIso).toBe('2025-12-31T18:45:00.000Z');
    });

    it('renders Z as +00:00 and drops fractions', () => {
      const localized = localize('2026-03-29T23:59:59.999z', null);
      expect(localized.time).toBe('23:59:59');
      expect(localized.occurredAt).toBe('2026-03-29T23:59:59+00:00');
      expect(localized.utcIso).toBe('2026-03-29T23:59:59.999Z');
    });
  });

  it('refuses an unknown zone', () => {
    expect(() => localize('2026-03-29T01:30:00Z', 'Mars/Base')).toThrow(RangeError);
  });
});

describe('todayIn', () => {
  const lateUtcEvening = Date.parse('2026-03-28T23:30:00Z');

  it.each([
    [null, '2026-03-28'],
    ['UTC', '2026-03-28'],
    ['Europe/Berlin', '2026-03-29'],
    ['America/New_York', '2026-03-28'],
    ['Asia/Kolkata', '2026-03-29'],
    ['Pacific/Kiritimati', '2026-03-29'],
    ['Pacific/Pago_Pago', '2026-03-28'],
  ])('at 23:30Z the date in %s is %s', (zone, expected) => {
    expect(todayIn(zone, lateUtcEvening)).toBe(expected);
  });

  it('switches at local midnight, not UTC midnight', () => {
    expect(todayIn('America/New_York', Date.parse('2026-01-01T04:59:59.999Z'))).toBe('2025-12-31');
    expect(todayIn('America/New_York', Date.parse('2026-01-01T05:00:00Z'))).toBe('2026-01-01');
    expect(todayIn('Asia/Kolkata', Date.parse('2026-06-30T18:29:59Z'))).toBe('2026-06-30');
    expect(todayIn('Asia/Kolkata', Date.parse('2026-06-30T18:30:00Z'))).toBe('2026-07-01');
    expect(todayIn(null, Date.parse('2026-06-30T23:59:59.999Z'))).toBe('2026-06-30');
    expect(todayIn(null, Date.parse('2026-07-01T00:00:00Z'))).toBe('2026-07-01');
  });

  it('follows daylight saving time for the midnight boundary', () => {
    // Berlin midnight is 23:00Z in winter and 22:00Z in summer.
    expect(todayIn('Europe/Berlin', Date.parse('2026-01-15T22:59:59Z'))).toBe('2026-01-15');
    expect(todayIn('Europe/Berlin', Date.parse('2026-01-15T23:00:00Z'))).toBe('2026-01-16');
    expect(todayIn('Europe/Berlin', Date.parse('2026-07-15T21:59:59Z'))).toBe('2026-07-15');
    expect(todayIn('Europe/Berlin', Date.parse('2026-07-15T22:00:00Z'))).toBe('2026-07-16');
  });
});

describe('calendar dates', () => {
  it.each([
    ['2026-03-29', 1, '2026-03-30'],
    ['2026-03-28', 1, '2026-03-29'],
    ['2026-10-25', 1, '2026-10-26'],
    ['2026-12-31', 1, '2027-01-01'],
    ['2026-01-01', -1, '2025-12-31'],
    ['2028-02-28', 1, '2028-02-29'],
    ['2026-02-28', 1, '2026-03-01'],
    ['2026-03-01', -30, '2026-01-30'],
    ['2026-05-05', 0, '2026-05-05'],
  ])('addDays(%s, %i) is %s', (date, days, expected) => {
    expect(addDays(date, days)).toBe(expected);
  });

  it.each([
    ['2026-03-28', '2026-03-30', 2],
    ['2026-10-24', '2026-10-26', 2],
    ['2026-03-30', '2026-03-28', -2],
    ['2026-01-01', '2026-01-01', 0],
    ['2025-12-31', '2026-12-31', 365],
    ['2028-01-01', '2029-01-01', 366],
  ])('daysBetween(%s, %s) is %i', (from, to, expected) => {
    expect(daysBetween(from, to)).toBe(expected);
  });

  it('rejects malformed dates in arithmetic', () => {
    expect(() => addDays('2026-02-30', 1)).toThrow(RangeError);
    expect(() => daysBetween('2026-01-01', 'tomorrow')).toThrow(RangeError);
  });

  it.each(['2026-01-01', '2028-02-29', '2026-12-31', '0001-01-01'])('isValidDate accepts %s', (date) => {
    expect(isValidDate(date)).toBe(true);
  });

  it.each([
    '2026-02-29',
    '2026-02-30',
    '2026-04-31',
    '2026-13-01',
    '2026-00-01',
    '2026-01-00',
    '2026-1-01',
    '26-01-01',
    '2026/01/01',
    '2026-01-01T00:00:00Z',
    ' 2026-01-01',
    '',
  ])('isValidDate rejects %j', (date) => {
    expect(isValidDate(date)).toBe(false);
  });
});
