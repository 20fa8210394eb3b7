import { addDays } from '../../format.js';
import { type NamedPerson, WEEKDAYS } from '../../names.js';

interface Flag {
  rule: string;
  date: string;
  message: string;
}

export interface Day {
  date: string;
  workedHours: number;
  breakMinutes: number;
  regularHours: number;
  overtimeHours: number;
  entries: number;
  statuses: Record<string, number>;
  flags: Flag[];
}

export interface Timesheet {
  employee: NamedPerson & { id: string; externalId: string | null };
  days: Day[];
  totals: {
    workedHours: number;
    regularHours: number;
    overtimeHours: number;
    breakMinutes: number;
    approvedHours: number;
    pendingHours: number;
    openSessions: number;
  };
}

export interface TimesheetPage {
  items: Timesheet[];
  nextCursor: string | null;
  from: string;
  to: string;
  settings: { workweekStart: string; dailyOvertimeHours: number | null; workingTimeRules: string };
}

export const RULES: Record<string, string> = {
  none: 'no working-time rules',
  'de-arbzg': 'the German Working Hours Act (ArbZG)',
  'us-ca': "California's rules",
};

export const hours = (value: number) => value.toFixed(2);

/** The first day of the workweek (starting `start`) that holds `day`. */
export function weekStartOf(day: string, start: string): string {
  const weekday = (new Date(`${day}T00:00:00Z`).getUTCDay() + 6) % 7; // 0 = Monday
  const first = Math.max(0, WEEKDAYS.indexOf(start as (typeof WEEKDAYS)[number]));
  return addDays(day, -((weekday - first + 7) % 7));
}

export function monthOf(day: string): { from: string; to: string } {
  const from = `${day.slice(0, 7)}-01`;
  const next = new Date(`${from}T00:00:00Z`);
  next.setUTCMonth(next.getUTCMonth() + 1);
  return { from, to: addDays(next.toISOString().slice(0, 10), -1) };
}

/** The period's first and last day: the workweek or the calendar month holding `anchor`. */
export function rangeOf(period: 'week' | 'month', anchor: string, workweekStart: string | null) {
  if (period === 'month') return monthOf(anchor);
  const from = weekStartOf(anchor, workweekStart ?? 'monday');
  return { from, to: addDays(from, 6) };
}
