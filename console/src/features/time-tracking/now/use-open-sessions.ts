import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiProblem, messageOf } from '../../../api.js';
import { MAX_PAGES, type OpenSession, POLL_SECONDS, type Workplace } from './model.js';

/**
 * Who is clocked in (at `workplaceId`, or anywhere), asked again every POLL_SECONDS while the page is
 * visible and not paused. Only the newest request's answer is shown: a poll in flight never hides a
 * change of workplace.
 */
export function useOpenSessions(workplaceId: string) {
  const [sessions, setSessions] = useState<OpenSession[] | null>(null);
  const [workplaces, setWorkplaces] = useState<Workplace[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [updatedAt, setUpdatedAt] = useState<number | null>(null);
  const [paused, setPaused] = useState(false);
  const [truncated, setTruncated] = useState(false);
  const latest = useRef(0);

  useEffect(() => {
    api<{ items: Workplace[] }>('GET', '/workplaces')
      .then((list) => setWorkplaces(list.items))
      .catch((caught: unknown) => setError(messageOf(caught)));
  }, []);

  const load = useCallback(async () => {
    const mine = ++latest.current;
    try {
      const { all, cursor } = await allPages(workplaceId, () => mine === latest.current);
      if (mine !== latest.current) return;
      setTruncated(cursor !== null);
      setSessions(all);
      setUpdatedAt(Date.now());
      setError(null);
    } catch (caught) {
      if (mine !== latest.current) return;
      const gone = caught instanceof ApiProblem && caught.status === 404;
      setError(
        gone ? 'No such workplace in this company.' : `The list could not be updated: ${messageOf(caught)}`,
      );
      if (gone) setSessions(null);
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

  return { sessions, workplaces, error, updatedAt, paused, setPaused, truncated, load };
}

/** Page after page (of 100, at most MAX_PAGES) while `current()` says the answer is still wanted. */
async function allPages(workplaceId: string, current: () => boolean) {
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
  } while (cursor && pages < MAX_PAGES && current());
  return { all, cursor };
}
