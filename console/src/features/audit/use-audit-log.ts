import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiProblem, messageOf } from '../../api.js';
import { isDay } from '../../format.js';
import { type AuditEntry, type AuditPage, FILTERS, type Filters } from './model.js';

function queryOf(filters: Filters, cursor: string | null): URLSearchParams {
  const query = new URLSearchParams({ limit: '50' });
  for (const name of FILTERS) {
    const value = filters[name];
    if (value && ((name !== 'from' && name !== 'to') || isDay(value))) query.set(name, value);
  }
  if (cursor) query.set('cursor', cursor);
  return query;
}

/** The entries of the filters, page by page, newest first; only the newest request's answer is shown. */
export function useAuditLog(filters: Filters) {
  const [entries, setEntries] = useState<AuditEntry[] | null>(null);
  const [actions, setActions] = useState<string[]>([]);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const key = FILTERS.map((name) => filters[name]).join('|');
  const latest = useRef(0);

  const load = useCallback(
    async (cursor: string | null) => {
      const mine = ++latest.current;
      try {
        const page = await api<AuditPage>('GET', `/audit-log?${queryOf(filters, cursor)}`);
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

  return { entries, actions, nextCursor, error, load };
}
