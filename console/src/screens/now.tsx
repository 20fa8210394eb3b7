import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiProblem, companyZone, messageOf, may, PERMISSIONS } from '../api.js';
import { Field, Loading, Notice, ScreenHeading, StatusBadge, ZoneNote } from '../components/ui.js';
import { formatInstant } from '../format.js';
import { hrefOf, navigate } from '../router.js';
import type { Screen, ScreenProps } from './registry.js';

interface OpenSession {
  employee: {
    id: string;
    externalId: string | null;
    firstName: string | null;
    lastName: string | null;
    email: string;
  };
  timeEntryId: string;
  workplace: { id: string; name: string } | null;
  since: string;
  onBreak: boolean;
  breakSince: string | null;
}

interface Workplace {
  id: string;
  name: string;
}

/** How often the screen asks again (a short poll: every instance answers it, nothing is held open). */
export const POLL_SECONDS = 15;
/** At most this many open sessions are shown (pages of 100). */
const MAX_PAGES = 20;

function nameOf(employee: OpenSession['employee']): string {
  return [employee.firstName, employee.lastName].filter(Boolean).join(' ') || employee.email;
}

/** "2 h 05 min" from `since` to `now`. */
function duration(since: string, now: number): string {
  const minutes = Math.max(0, Math.floor((now - Date.parse(since)) / 60_000));
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return hours > 0 ? `${hours} h ${String(rest).padStart(2, '0')} min` : `${rest} min`;
}

function timeOf(iso: string, zone: string): string {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone: zone,
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).format(new Date(iso));
}

function countText(sessions: OpenSession[]): string {
  const onBreak = sessions.filter((s) => s.onBreak).length;
  if (sessions.length === 0) return 'Nobody is clocked in.';
  const people =
    sessions.length === 1 ? '1 person is clocked in' : `${sessions.length} people are clocked in`;
  return `${people}, ${onBreak} on a break.`;
}

function NowScreen({ person, route }: ScreenProps) {
  const zone = companyZone(person);
  const workplaceId = route.query.get('workplace') ?? '';
  const [sessions, setSessions] = useState<OpenSession[] | null>(null);
  const [workplaces, setWorkplaces] = useState<Workplace[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [updatedAt, setUpdatedAt] = useState<number | null>(null);
  const [paused, setPaused] = useState(false);
  const [truncated, setTruncated] = useState(false);
  // Only the newest request's answer is shown: a poll in flight never hides a change of workplace.
  const latest = useRef(0);

  useEffect(() => {
    api<{ items: Workplace[] }>('GET', '/workplaces')
      .then((list) => setWorkplaces(list.items))
      .catch((caught: unknown) => setError(messageOf(caught)));
  }, []);

  const load = useCallback(async () => {
    const mine = ++latest.current;
    try {
      const all: OpenSession[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query = new URLSearchParams({ limit: '100' });
        if (workplaceId) query.set('workplaceId', workplaceId);
        if (cursor) query.set('cursor', cursor);
        const page: { items: OpenSession[]; nextCursor: string | null } = await api(
          'GET',
          `/time-clock/status?${query}`,
        );
        all.push(...page.items);
        cursor = page.nextCursor;
        pages += 1;
      } while (cursor && pages < MAX_PAGES && mine === latest.current);
      if (mine !== latest.current) return;
      setTruncated(cursor !== null);
      setSessions(all);
      setUpdatedAt(Date.now());
      setError(null);
    } catch (caught) {
      if (mine !== latest.current) return;
      setError(
        caught instanceof ApiProblem && caught.status === 404
          ? 'No such workplace in this company.'
          : `The list could not be updated: ${messageOf(caught)}`,
      );
      if (caught instanceof ApiProblem && caught.status === 404) setSessions(null);
    }
  }, [workplaceId]);

  useEffect(() => {
    setSessions(null);
    void load();
  }, [load]);

  // The short poll: every POLL_SECONDS while the page is visible and the person has not paused it.
  useEffect(() => {
    if (paused) return;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') void load();
    }, POLL_SECONDS * 1000);
    return () => clearInterval(timer);
  }, [load, paused]);

  const groups = new Map<string, { name: string; items: OpenSession[] }>();
  for (const session of sessions ?? []) {
    const key = session.workplace?.id ?? '';
    const group = groups.get(key) ?? { name: session.workplace?.name ?? 'No workplace', items: [] };
    group.items.push(session);
    groups.set(key, group);
  }
  const ordered = [...groups.entries()].sort(([a, x], [b, y]) =>
    a === '' ? 1 : b === '' ? -1 : x.name.localeCompare(y.name),
  );
  const now = updatedAt ?? Date.now();

  return (
    <>
      <ScreenHeading title="Now">
        <p class="lede">Who is clocked in right now, per workplace, and who is on a break.</p>
      </ScreenHeading>
      <ZoneNote timeZone={person.company.timeZone} />
      <section aria-labelledby="now-filter-heading" class="card filters">
        <h2 id="now-filter-heading" class="visually-hidden">
          Workplace and updates
        </h2>
        <div class="filter-row">
          <Field label="Workplace">
            {({ id, describedBy }) => (
              <select
                id={id}
                aria-describedby={describedBy}
                value={workplaceId}
                onChange={(e) =>
                  navigate(hrefOf(['now'], { workplace: e.currentTarget.value || undefined }), {
                    replace: true,
                  })
                }
              >
                <option value="">All workplaces</option>
                {workplaceId && !workplaces.some((w) => w.id === workplaceId) ? (
                  <option value={workplaceId}>Unknown workplace</option>
                ) : null}
                {workplaces.map((w) => (
                  <option key={w.id} value={w.id}>
                    {w.name}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <div class="toolbar now-toolbar">
            <button type="button" onClick={() => void load()}>
              Refresh now
            </button>
            <button type="button" aria-pressed={paused} onClick={() => setPaused(!paused)}>
              {paused ? 'Resume automatic updates' : 'Pause automatic updates'}
            </button>
          </div>
        </div>
        <p class="hint" id="now-updated">
          {updatedAt === null
            ? 'Loading…'
            : `Last updated ${timeOf(new Date(updatedAt).toISOString(), zone)}. `}
          {paused ? 'Automatic updates are paused.' : `The list updates every ${POLL_SECONDS} seconds.`}
        </p>
      </section>
      <Notice tone="error" message={error} />
      {/* Announced only when what it says changes, not at every poll. */}
      <div role="status" class="now-summary">
        {sessions ? countText(sessions) : null}
      </div>
      {sessions === null && !error ? <Loading what="who is clocked in" /> : null}
      {truncated ? <p class="hint">Only the {MAX_PAGES * 100} longest-running sessions are shown.</p> : null}
      {ordered.map(([key, group]) => (
        <section key={key || 'none'} class="card" aria-labelledby={`now-group-${key || 'none'}`}>
          <h2 id={`now-group-${key || 'none'}`}>
            {group.name} <span class="count">({group.items.length} clocked in)</span>
          </h2>
          <div class="table-wrap">
            <table class="data-table">
              <caption class="visually-hidden">Clocked in at {group.name}, longest first</caption>
              <thead>
                <tr>
                  <th scope="col">Employee</th>
                  <th scope="col">Clocked in</th>
                  <th scope="col">For</th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody>
                {group.items.map((session) => (
                  <tr key={session.timeEntryId}>
                    <th scope="row" data-label="Employee">
                      {nameOf(session.employee)}
                      {session.employee.externalId ? (
                        <span class="sub"> badge {session.employee.externalId}</span>
                      ) : null}
                    </th>
                    <td data-label="Clocked in">{formatInstant(session.since, zone)}</td>
                    <td data-label="For">{duration(session.since, now)}</td>
                    <td data-label="Status">
                      <StatusBadge status={session.onBreak ? 'on_break' : 'working'} />
                      {session.onBreak && session.breakSince ? (
                        <span class="sub"> since {timeOf(session.breakSince, zone).slice(0, 5)}</span>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      ))}
    </>
  );
}

export const nowScreen: Screen = {
  path: 'now',
  title: 'Now',
  allowed: (person) => may(person, PERMISSIONS.readEntries),
  component: NowScreen,
};
