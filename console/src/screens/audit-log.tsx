import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiProblem, companyZone, messageOf, may, PERMISSIONS } from '../api.js';
import { Field, Loading, Notice, ScreenHeading, ZoneNote } from '../components/ui.js';
import { formatInstant, isDay } from '../format.js';
import { hrefOf, navigate } from '../router.js';
import type { Screen, ScreenProps } from './registry.js';

interface AuditEntry {
  id: string;
  at: string;
  actor: { type: 'user' | 'api_key' | 'cli'; id: string | null; name: string | null };
  action: string;
  targetType: string | null;
  targetId: string | null;
  details: Record<string, unknown> | null;
}

interface AuditPage {
  items: AuditEntry[];
  nextCursor: string | null;
  actions: string[];
}

const ACTOR_TYPES: [string, string][] = [
  ['', 'Anyone'],
  ['user', 'People (console)'],
  ['api_key', 'API keys'],
  ['cli', 'Command line'],
];

function actorText(actor: AuditEntry['actor']): string {
  if (actor.type === 'cli') return 'Command line';
  const kind = actor.type === 'user' ? 'person' : 'API key';
  return `${actor.name ?? actor.id ?? 'unknown'} (${kind})`;
}

function detailsText(details: Record<string, unknown> | null): string {
  if (!details) return '';
  return Object.entries(details)
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join('; ');
}

const FILTERS = ['actorType', 'actorId', 'action', 'from', 'to'] as const;
type Filters = Record<(typeof FILTERS)[number], string>;

function AuditLogScreen({ person, route }: ScreenProps) {
  const zone = companyZone(person);
  const filters = Object.fromEntries(FILTERS.map((key) => [key, route.query.get(key) ?? ''])) as Filters;
  const [entries, setEntries] = useState<AuditEntry[] | null>(null);
  const [actions, setActions] = useState<string[]>([]);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [actorName, setActorName] = useState<string | null>(null);
  const key = FILTERS.map((name) => filters[name]).join('|');
  // Only the newest request's answer is shown (filters changed quickly never show an older answer).
  const latest = useRef(0);

  const load = useCallback(
    async (cursor: string | null) => {
      const query = new URLSearchParams({ limit: '50' });
      for (const name of FILTERS) {
        const value = filters[name];
        if (value && ((name !== 'from' && name !== 'to') || isDay(value))) query.set(name, value);
      }
      if (cursor) query.set('cursor', cursor);
      const mine = ++latest.current;
      try {
        const page = await api<AuditPage>('GET', `/audit-log?${query}`);
        if (mine !== latest.current) return;
        setEntries((before) => (cursor ? [...(before ?? []), ...page.items] : page.items));
        setActions(page.actions);
        setNextCursor(page.nextCursor);
        setError(null);
      } catch (caught) {
        if (mine !== latest.current) return;
        setEntries([]);
        setNextCursor(null);
        setError(
          caught instanceof ApiProblem && caught.fieldErrors.length > 0
            ? `These filters cannot be used: ${caught.fieldErrors.map((e) => `${e.field.split('/').at(-1)} ${e.message}`).join('; ')}`
            : messageOf(caught),
        );
      }
    },
    // `key` spells out every filter: the listing changes exactly when one of them does.
    [key],
  );

  useEffect(() => {
    setEntries(null);
    void load(null);
  }, [load]);

  const change = (name: keyof Filters, value: string) => {
    const next: Record<string, string | undefined> = { ...filters, [name]: value || undefined };
    if (name === 'actorType') next.actorId = undefined;
    navigate(hrefOf(['audit-log'], next), { replace: true });
  };
  const filtered = FILTERS.some((name) => filters[name]);

  return (
    <>
      <ScreenHeading title="Audit log">
        <p class="lede">Who changed what in {person.company.name}, and when: newest first.</p>
      </ScreenHeading>
      <ZoneNote timeZone={person.company.timeZone} />
      <section aria-labelledby="audit-filter-heading" class="card filters">
        <h2 id="audit-filter-heading" class="visually-hidden">
          Filters
        </h2>
        <div class="filter-row">
          <Field label="Who">
            {({ id, describedBy }) => (
              <select
                id={id}
                aria-describedby={describedBy}
                value={filters.actorType}
                onChange={(e) => change('actorType', e.currentTarget.value)}
              >
                {ACTOR_TYPES.map(([value, label]) => (
                  <option key={value} value={value}>
                    {label}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Action">
            {({ id, describedBy }) => (
              <select
                id={id}
                aria-describedby={describedBy}
                value={filters.action}
                onChange={(e) => change('action', e.currentTarget.value)}
              >
                <option value="">Any action</option>
                {filters.action && !actions.includes(filters.action) ? (
                  <option value={filters.action}>{filters.action}</option>
                ) : null}
                {actions.map((action) => (
                  <option key={action} value={action}>
                    {action}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="From (day)">
            {({ id, describedBy }) => (
              <input
                id={id}
                type="date"
                aria-describedby={describedBy}
                value={filters.from}
                onChange={(e) => change('from', e.currentTarget.value)}
              />
            )}
          </Field>
          <Field label="To (day)">
            {({ id, describedBy }) => (
              <input
                id={id}
                type="date"
                aria-describedby={describedBy}
                value={filters.to}
                onChange={(e) => change('to', e.currentTarget.value)}
              />
            )}
          </Field>
        </div>
        {filters.actorId ? (
          <p class="hint">
            Only the entries of <strong>{actorName ?? filters.actorId}</strong>.
          </p>
        ) : null}
        {filtered ? (
          <p>
            <a href={hrefOf(['audit-log'])}>Clear the filters</a>
          </p>
        ) : null}
      </section>
      <Notice tone="error" message={error} />
      {entries === null && !error ? <Loading what="the audit log" /> : null}
      {entries ? (
        <section aria-labelledby="audit-list-heading">
          <h2 id="audit-list-heading">
            {filtered ? 'Matching entries' : 'All entries'}{' '}
            <span class="count">
              ({entries.length}
              {nextCursor ? '+' : ''})
            </span>
          </h2>
          {entries.length === 0 ? (
            <p>No entry matches.</p>
          ) : (
            <div class="table-wrap">
              <table class="data-table">
                <caption class="visually-hidden">Audit log, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Who</th>
                    <th scope="col">Action</th>
                    <th scope="col">What</th>
                  </tr>
                </thead>
                <tbody>
                  {entries.map((entry) => (
                    <tr key={entry.id}>
                      <th scope="row" data-label="When" class="nowrap">
                        {formatInstant(entry.at, zone)}
                      </th>
                      <td data-label="Who">
                        {entry.actor.id ? (
                          <a
                            href={hrefOf(['audit-log'], {
                              actorType: entry.actor.type,
                              actorId: entry.actor.id,
                            })}
                            onClick={() => setActorName(actorText(entry.actor))}
                            aria-label={`Only the entries of ${actorText(entry.actor)}`}
                          >
                            {actorText(entry.actor)}
                          </a>
                        ) : (
                          actorText(entry.actor)
                        )}
                      </td>
                      <td data-label="Action">
                        <code>{entry.action}</code>
                      </td>
                      <td data-label="What">
                        {entry.targetType ? (
                          <span>
                            {entry.targetType} <code class="sub">{entry.targetId}</code>
                          </span>
                        ) : null}
                        {entry.details ? <p class="details">{detailsText(entry.details)}</p> : null}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {nextCursor ? (
            <button type="button" onClick={() => void load(nextCursor)}>
              Show older entries
            </button>
          ) : null}
        </section>
      ) : null}
    </>
  );
}

export const auditLogScreen: Screen = {
  path: 'audit-log',
  title: 'Audit log',
  allowed: (person) => may(person, PERMISSIONS.manageCompany),
  component: AuditLogScreen,
};
