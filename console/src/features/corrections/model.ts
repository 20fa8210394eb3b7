/** What the corrections screens read from the admin API (issue 30). */

export interface EntryLike {
  id: string;
  workDate: string;
  startTime: string;
  endTime: string | null;
  endsNextDay: boolean;
  breakMinutes: number | null;
  status: string;
  source: string;
  version: number;
  edited: boolean;
  autoClosed: boolean;
  breaks?: { startedAt: string; endedAt: string | null }[];
}

export interface Actor {
  kind: string;
  id: string | null;
  name: string | null;
}

export interface Revision {
  revision: number;
  at: string;
  action: string;
  actor: Actor;
  reason: string | null;
  changes: { field: string; from: unknown; to: unknown }[];
}

export interface LockedPeriod {
  id: string;
  from: string;
  to: string;
  workplaceId: string | null;
  closedAt: string;
  closedBy: Actor;
}

/** The dialogs of the Time entries screen. */
export type CorrectionKind = 'edit' | 'close' | 'delete' | 'history' | 'add';
