import { api } from '../../api.js';
import { personName } from '../../names.js';

/* What the Roster screen reads and writes (the admin API's /roster and /planned-shifts). */

export interface RosterEmployee {
  id: string;
  externalId: string | null;
  firstName: string | null;
  lastName: string | null;
  /** null without permission 47 or 52 (people data). */
  email: string | null;
}

export interface RosterShift {
  id: string;
  externalId: string | null;
  employee: { id: string; externalId: string | null };
  workplaceId: string;
  date: string;
  start: string;
  end: string;
  startTime: string;
  endTime: string;
  breakMinutes: number;
  note: string | null;
  status: 'draft' | 'published';
  version: number;
}

export interface RosterException {
  id: string;
  kind: 'late_in' | 'early_out' | 'no_show' | 'missed_clock_out' | 'unplanned';
  employee: { id: string; externalId: string | null };
  plannedShiftId: string | null;
  date: string;
  minutes: number;
  resolvedAt: string | null;
}

export interface Roster {
  workplaces: { id: string; name: string }[];
  workplace: { id: string; name: string } | null;
  timeZone: string;
  from: string;
  to: string;
  employees: RosterEmployee[];
  shifts: RosterShift[];
  /** null without permission 47 (attendance data): the screen shows no exceptions then. */
  exceptions: RosterException[] | null;
}

/** The form of one shift: a day of the workplace and wall-clock times in its zone. */
export interface ShiftDraft {
  employeeId: string;
  date: string;
  startTime: string;
  endTime: string;
  breakMinutes: number;
  note: string;
}

export function loadRoster(workplaceId: string, from: string, to: string): Promise<Roster> {
  const query = new URLSearchParams({ from, to });
  if (workplaceId) query.set('workplaceId', workplaceId);
  return api<Roster>('GET', `/roster?${query}`);
}

export function saveShift(workplaceId: string, draft: ShiftDraft, id: string | null): Promise<RosterShift> {
  const body = { ...draft, workplaceId, note: draft.note.trim() === '' ? null : draft.note };
  return id === null
    ? api<RosterShift>('POST', '/planned-shifts', body)
    : api<RosterShift>('PUT', `/planned-shifts/${encodeURIComponent(id)}`, body);
}

export function deleteShift(id: string): Promise<void> {
  return api<void>('DELETE', `/planned-shifts/${encodeURIComponent(id)}`);
}

export function copyPreviousWeek(workplaceId: string, weekStart: string) {
  return api<{ created: number; skipped: number }>('POST', '/planned-shifts/copy-week', {
    workplaceId,
    weekStart,
  });
}

export function publishWeek(workplaceId: string, from: string, to: string) {
  return api<{ published: number }>('POST', '/planned-shifts/publish', { workplaceId, from, to });
}

export function nameOf(employee: RosterEmployee | undefined): string {
  return employee ? personName(employee) : 'Unknown employee';
}

export const EXCEPTION_LABELS: Record<RosterException['kind'], string> = {
  late_in: 'Late in',
  early_out: 'Early out',
  no_show: 'No-show',
  missed_clock_out: 'Missed clock-out',
  unplanned: 'Unplanned work',
};

/** "09:00–17:00" with "(next day)" when the shift ends on the following day. */
export function timesOf(shift: RosterShift): string {
  const nextDay = shift.end.slice(0, 10) !== shift.start.slice(0, 10);
  return `${shift.startTime}–${shift.endTime}${nextDay ? ' (next day)' : ''}`;
}
