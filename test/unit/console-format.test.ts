import { describe, expect, it } from 'vitest';
import {
  addDays,
  formatDay,
  formatInstant,
  isDay,
  mondayOf,
  todayIn,
  weekDays,
} from '../../console/src/format.js';

/** The console's calendar arithmetic and formatting (console/src/format.ts), which runs in the browser. */
describe('console dates', () => {
  it('finds the Monday of a week, across month, year and DST boundaries', () => {
    expect(mondayOf('2026-11-24')).toBe('2026-11-23');
    expect(mondayOf('2026-11-23')).toBe('2026-11-23');
    expect(mondayOf('2026-11-29')).toBe('2026-11-23'); // Sunday belongs to the week before it
    expect(mondayOf('2027-01-01')).toBe('2026-12-28');
    expect(mondayOf('2026-03-29')).toBe('2026-03-23'); // the day Europe changes to summer time
    expect(weekDays('2026-10-19')).toEqual([
      '2026-10-19',
      '2026-10-20',
      '2026-10-21',
      '2026-10-22',
      '2026-10-23',
      '2026-10-24',
      '2026-10-25',
    ]);
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
  });

  it("takes today in the company's zone, not the browser's", () => {
    const instant = new Date('2026-11-23T23:30:00Z');
    expect(todayIn('Europe/Berlin', instant)).toBe('2026-11-24');
    expect(todayIn('America/New_York', instant)).toBe('2026-11-23');
    expect(todayIn('UTC', instant)).toBe('2026-11-23');
  });

  it('shows an instant in the zone, naming it', () => {
    expect(formatInstant('2026-11-23T23:30:00Z', 'Europe/Berlin')).toBe('24 Nov 2026, 00:30 CET');
    expect(formatInstant('2026-07-01T12:00:00Z', 'Europe/Berlin')).toBe('1 Jul 2026, 14:00 CEST');
    expect(formatInstant(null, 'UTC')).toBe('—');
    expect(formatDay('2026-11-23')).toBe('Mon, 23 Nov 2026');
  });

  it('accepts only real calendar days', () => {
    expect(isDay('2026-11-23')).toBe(true);
    expect(isDay('2026-13-01')).toBe(false);
    expect(isDay('23.11.2026')).toBe(false);
  });
});
