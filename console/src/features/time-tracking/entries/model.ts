import type { NamedPerson } from '../../../names.js';

/** An employee as the picker lists them. */
export interface Employee extends NamedPerson {
  id: string;
  externalId: string | null;
  status: string;
}

export interface TimeEntry {
  id: string;
  employee: { id: string; externalId: string | null };
  workDate: string;
  startTime: string;
  endTime: string | null;
  endsNextDay: boolean;
  totalHours: number;
  breakMinutes: number | null;
  status: string;
  source: string;
  approvedAt: string | null;
  createdAt: string;
  /** Corrections (issue 30): the entry's version (sent as If-Match), whether it was corrected or closed automatically. */
  version: number;
  edited: boolean;
  autoClosed: boolean;
}

/** One employee's week: the entries, the confirmed days, the zone the times are in. */
export interface EntryWeek {
  items: TimeEntry[];
  confirmedDays: string[];
  timeZone: string;
}

export interface DecisionResult {
  id: string;
  status: number;
  problem?: { detail?: string | null; title?: string };
}

export type Decision = 'approved' | 'rejected';

export const SOURCES: Record<string, string> = {
  time_clock: 'Time clock',
  api_shift: 'Shift (API)',
  kiosk: 'Kiosk',
  web_clock: 'Web clock',
};

/** The sources whose entries are punched (clock-in, breaks, clock-out), as the server's isPunchedSource. */
const PUNCHED_SOURCES: readonly string[] = ['time_clock', 'kiosk', 'web_clock'];

export function isPunchedSource(source: string | null | undefined): boolean {
  return source !== null && source !== undefined && PUNCHED_SOURCES.includes(source);
}

/** "08:30" of "08:30:00"; '' for none. */
export function time(value: string | null): string {
  return value ? value.slice(0, 5) : '';
}

export const isPending = (entry: TimeEntry) => entry.status === 'pending_approval';
