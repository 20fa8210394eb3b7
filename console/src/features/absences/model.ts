import { addDays } from '../../format.js';
import type { NamedPerson } from '../../names.js';

/* The Absences screen's and the Company screen's shapes (the admin API's, issue 31). */

export interface Actor {
  kind: string;
  id: string | null;
  name: string | null;
}

export interface Absence {
  id: string;
  employee: { id: string; externalId: string | null };
  type: { id: string; code: string };
  startDate: string;
  endDate: string;
  portion: 'full' | 'first_half' | 'second_half' | 'hours';
  hours: number | null;
  days: number;
  status: 'requested' | 'approved' | 'rejected' | 'cancelled';
  note: string | null;
  reason: string | null;
  decidedAt: string | null;
  decidedBy: Actor | null;
  version: number;
  person: NamedPerson;
}

export interface Holiday {
  date: string;
  name: string;
  portion: 'full' | 'half';
  source: 'region' | 'company';
}

export interface TeamMember extends NamedPerson {
  id: string;
  externalId: string | null;
}

export interface TeamCalendar {
  from: string;
  to: string;
  holidays: Holiday[];
  employees: TeamMember[];
  truncated: boolean;
  absences: Absence[];
}

export interface RequestsPage {
  items: Absence[];
  nextCursor: string | null;
}

export interface Balance {
  type: { id: string; code: string };
  year: number;
  entitlement: number;
  carriedOver: number;
  carryOverExpiresOn: string | null;
  taken: number;
  planned: number;
  requested: number;
  remaining: number;
}

export interface AbsenceType {
  id: string;
  code: string;
  name: string;
  category: string;
  unit: string;
  paid: boolean;
  countsAsWorkTime: boolean;
  requiresApproval: boolean;
  deductsFromBalance: boolean;
  yearlyEntitlementDays: number;
  allowNegative: boolean;
  carryOverMaxDays: number;
  carryOverExpiresOn: string | null;
}

export interface HolidayOverride {
  id: string;
  workplaceId: string | null;
  date: string;
  kind: 'add' | 'remove';
  name: string | null;
  portion: 'full' | 'half';
}

export interface HolidaySettings {
  workplaces: { id: string; name: string; holidayRegion: string | null }[];
  overrides: HolidayOverride[];
}

/** "2026-06" of a day. */
export const monthOfDay = (day: string) => day.slice(0, 7);

/** The month before or after `month` (YYYY-MM). */
export function stepMonth(month: string, by: number): string {
  const date = new Date(`${month}-01T00:00:00Z`);
  date.setUTCMonth(date.getUTCMonth() + by);
  return date.toISOString().slice(0, 7);
}

/** Every day of the range. */
export function daysOf(from: string, to: string): string[] {
  const days: string[] = [];
  for (let day = from; day <= to; day = addDays(day, 1)) days.push(day);
  return days;
}

export function isWeekend(day: string): boolean {
  const weekday = new Date(`${day}T00:00:00Z`).getUTCDay();
  return weekday === 0 || weekday === 6;
}

/** "June 2026". */
export function monthLabel(month: string): string {
  return new Intl.DateTimeFormat('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(
    new Date(`${month}-01T12:00:00Z`),
  );
}

const PORTIONS: Record<Absence['portion'], string> = {
  full: '',
  first_half: 'morning',
  second_half: 'afternoon',
  hours: 'hours',
};

/** "vacation, morning" / "sick, 3 h". */
export function absenceWhat(absence: Pick<Absence, 'type' | 'portion' | 'hours'>): string {
  if (absence.portion === 'hours') return `${absence.type.code}, ${absence.hours ?? 0} h`;
  const part = PORTIONS[absence.portion];
  return part ? `${absence.type.code}, ${part}` : absence.type.code;
}

/** The letter a calendar cell shows for a type: its code's first letter, upper case. */
export const typeLetter = (code: string) => code.charAt(0).toUpperCase();

export const formatDays = (days: number) => (Number.isInteger(days) ? String(days) : days.toFixed(2));
