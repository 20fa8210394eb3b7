import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiProblem, messageOf, may, type Person, PERMISSIONS } from '../../api.js';
import type { Absence, Balance, RequestsPage, TeamCalendar } from './model.js';

/** The company's workplaces (for the calendar's filter). */
export function useWorkplaces(person: Person) {
  const [workplaces, setWorkplaces] = useState<{ id: string; name: string }[]>([]);
  useEffect(() => {
    if (!may(person, PERMISSIONS.readEmployees) && !may(person, PERMISSIONS.readEntries)) return;
    api<{ items: { id: string; name: string }[] }>('GET', '/workplaces')
      .then((list) => setWorkplaces(list.items))
      .catch(() => setWorkplaces([]));
  }, [person]);
  return workplaces;
}

/** A month's team calendar of a workplace (or of everyone); `reload` after a decision. */
export function useTeamCalendar(month: string, workplaceId: string) {
  const [calendar, setCalendar] = useState<TeamCalendar | null>(null);
  const [error, setError] = useState<string | null>(null);
  const latest = useRef(0);
  const load = useCallback(async () => {
    const mine = ++latest.current;
    const query = new URLSearchParams({ month });
    if (workplaceId) query.set('workplaceId', workplaceId);
    try {
      const loaded = await api<TeamCalendar>('GET', `/absences/calendar?${query}`);
      if (mine !== latest.current) return;
      setCalendar(loaded);
      setError(null);
    } catch (caught) {
      if (mine !== latest.current) return;
      setCalendar(null);
      setError(
        caught instanceof ApiProblem && caught.status === 404
          ? 'No such workplace in this company.'
          : messageOf(caught),
      );
    }
  }, [month, workplaceId]);
  useEffect(() => {
    setCalendar(null);
    void load();
  }, [load]);
  return { calendar, error, reload: load };
}

/** The requests waiting for a decision, page by page. */
export function useRequests() {
  const [items, setItems] = useState<Absence[] | null>(null);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(async (cursor: string | null) => {
    const query = new URLSearchParams({ limit: '50' });
    if (cursor) query.set('cursor', cursor);
    try {
      const page = await api<RequestsPage>('GET', `/absences/requests?${query}`);
      setItems((before) => (cursor ? [...(before ?? []), ...page.items] : page.items));
      setNextCursor(page.nextCursor);
      setError(null);
    } catch (caught) {
      setError(messageOf(caught));
    }
  }, []);
  useEffect(() => {
    void load(null);
  }, [load]);
  return { items, nextCursor, error, load };
}

export type Decision = 'approve' | 'reject' | 'cancel';

/** Approving, rejecting or cancelling an absence; the answer, or the problem's text. */
export async function decide(absence: Absence, decision: Decision, reason: string | null): Promise<Absence> {
  return api<Absence>('POST', `/absences/${absence.id}/${decision}`, reason === null ? {} : { reason });
}

/** An employee's balances of a year. */
export function useBalances(employeeId: string, year: string) {
  const [balances, setBalances] = useState<Balance[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setBalances(null);
    if (!employeeId || !/^\d{4}$/.test(year)) return;
    const query = new URLSearchParams({ employeeId, year });
    api<{ items: Balance[] }>('GET', `/leave-balances?${query}`)
      .then((answer) => {
        setBalances(answer.items);
        setError(null);
      })
      .catch((caught: unknown) => setError(messageOf(caught)));
  }, [employeeId, year]);
  return { balances, error };
}
