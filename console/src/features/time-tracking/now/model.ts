import type { NamedPerson } from '../../../names.js';
import { needsCorrectionText } from '../../corrections/needs-correction.js';

export interface OpenSession {
  employee: NamedPerson & { id: string; externalId: string | null };
  timeEntryId: string;
  workplace: { id: string; name: string } | null;
  since: string;
  onBreak: boolean;
  breakSince: string | null;
  /** Open 24 hours or more: only a correction closes it (issue 30). */
  needsCorrection: boolean;
}

export interface Workplace {
  id: string;
  name: string;
}

/** How often the screen asks again (a short poll: every instance answers it, nothing is held open). */
export const POLL_SECONDS = 15;
/** At most this many open sessions are shown (pages of 100). */
export const MAX_PAGES = 20;

/** "2 h 05 min" from `since` to `now`. */
export function duration(since: string, now: number): string {
  const minutes = Math.max(0, Math.floor((now - Date.parse(since)) / 60_000));
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return hours > 0 ? `${hours} h ${String(rest).padStart(2, '0')} min` : `${rest} min`;
}

/** "13:45:07" in `zone`. */
export function timeOf(iso: string, zone: string): string {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone: zone,
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).format(new Date(iso));
}

export function countText(sessions: OpenSession[]): string {
  const onBreak = sessions.filter((s) => s.onBreak).length;
  if (sessions.length === 0) return 'Nobody is clocked in.';
  const people =
    sessions.length === 1 ? '1 person is clocked in' : `${sessions.length} people are clocked in`;
  return `${people}, ${onBreak} on a break.${needsCorrectionText(sessions)}`;
}

/** The sessions per workplace, by the workplace's name; those without a workplace last. */
export function byWorkplace(sessions: OpenSession[]): [string, { name: string; items: OpenSession[] }][] {
  const groups = new Map<string, { name: string; items: OpenSession[] }>();
  for (const session of sessions) {
    const key = session.workplace?.id ?? '';
    const group = groups.get(key) ?? { name: session.workplace?.name ?? 'No workplace', items: [] };
    group.items.push(session);
    groups.set(key, group);
  }
  return [...groups.entries()].sort(([a, x], [b, y]) =>
    a === '' ? 1 : b === '' ? -1 : x.name.localeCompare(y.name),
  );
}
