/* Self-service (issue 35): what the admin API's /self routes answer, as the screens use it. */

import { formatInstant } from '../../format.js';

export interface SelfToday {
  employee: {
    id: string;
    externalId: string | null;
    firstName: string | null;
    lastName: string | null;
    workplaceId: string | null;
  };
  timeZone: string | null;
  today: string;
  state: { clockedIn: boolean; onBreak: boolean; since: string | null; timeEntryId: string | null };
  todayHours: number;
  webClock: { enabled: boolean; allowedHere: boolean };
}

export type Punch = 'clock_in' | 'break_start' | 'break_end' | 'clock_out';

export interface OwnEntry {
  id: string;
  workDate: string;
  startTime: string;
  endTime: string | null;
  endsNextDay: boolean;
  totalHours: number;
  breakMinutes: number | null;
  status: string;
  source: string;
}

export interface CorrectionRequest {
  id: string;
  employee: { id: string; externalId: string | null };
  timeEntryId: string | null;
  date: string;
  proposed: { clockIn: string | null; clockOut: string | null; breakMinutes: number | null };
  reason: string;
  status: 'requested' | 'approved' | 'rejected' | 'withdrawn';
  decidedBy: { kind: string; id: string | null; name: string | null } | null;
  decidedAt: string | null;
  decisionReason: string | null;
  createdAt: string;
  /** The managers' list only. */
  employeeName?: string;
}

export interface OwnAbsence {
  id: string;
  type: { id: string; code: string };
  startDate: string;
  endDate: string;
  portion: string;
  days: number;
  status: string;
  note: string | null;
  reason: string | null;
}

export interface Balance {
  type: { id: string; code: string };
  year: number;
  entitlement: number;
  carriedOver: number;
  taken: number;
  planned: number;
  requested: number;
  remaining: number;
}

/** What the person sees of their clock: the next punches they may make. */
export function nextPunches(state: SelfToday['state']): Punch[] {
  if (!state.clockedIn) return ['clock_in'];
  if (state.onBreak) return ['break_end', 'clock_out'];
  return ['break_start', 'clock_out'];
}

export const PUNCH_LABELS: Record<Punch, string> = {
  clock_in: 'Clock in',
  break_start: 'Start a break',
  break_end: 'Back from break',
  clock_out: 'Clock out',
};

/** "Clocked in at 08:02" and the like, from the answer of a punch. */
export function punchResult(type: string, time: string): string {
  const hhmm = time.slice(0, 5);
  switch (type) {
    case 'clock_in':
      return `Clocked in at ${hhmm}.`;
    case 'break_start':
      return `Break started at ${hhmm}.`;
    case 'break_end':
      return `Back from your break at ${hhmm}.`;
    default:
      return `Clocked out at ${hhmm}.`;
  }
}

export const REQUEST_STATUS: Record<CorrectionRequest['status'], string> = {
  requested: 'Waiting',
  approved: 'Approved',
  rejected: 'Rejected',
  withdrawn: 'Withdrawn',
};

/** The clock's state in words: "You are clocked in since 08:02." */
export function stateText(self: Pick<SelfToday, 'state'>, zone: string): string {
  const { state } = self;
  if (!state.clockedIn) return 'You are not clocked in.';
  const since = formatInstant(state.since, zone);
  return state.onBreak
    ? `You are on a break (clocked in since ${since}).`
    : `You are clocked in since ${since}.`;
}
