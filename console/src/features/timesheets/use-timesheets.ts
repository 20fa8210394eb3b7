import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiProblem, messageOf, may, type Person, PERMISSIONS } from '../../api.js';
import type { Timesheet, TimesheetPage } from './model.js';

/** The company's workweek start (for the week's first day) and its workplaces (for the filter). */
export function useTimesheetSettings(person: Person) {
  const [workweekStart, setWorkweekStart] = useState<string | null>(null);
  const [workplaces, setWorkplaces] = useState<{ id: string; name: string }[]>([]);
  useEffect(() => {
    api<{ workweekStart: string }>('GET', '/company')
      .then((company) => setWorkweekStart(company.workweekStart))
      .catch(() => setWorkweekStart('monday'));
    if (may(person, PERMISSIONS.readEmployees) || may(person, PERMISSIONS.readEntries))
      api<{ items: { id: string; name: string }[] }>('GET', '/workplaces')
        .then((list) => setWorkplaces(list.items))
        .catch(() => setWorkplaces([]));
  }, [person]);
  return { workweekStart, workplaces };
}

/** The timesheets of the filters, page by page, once the workweek start is known. */
export function useTimesheets(filters: Record<string, string>, workweekStart: string | null) {
  const [page, setPage] = useState<TimesheetPage | null>(null);
  const [sheets, setSheets] = useState<Timesheet[]>([]);
  const [error, setError] = useState<string | null>(null);
  // Only the newest request's answer is shown.
  const latest = useRef(0);
  const filterKey = new URLSearchParams(filters).toString();

  async function load(cursor: string | null) {
    const query = new URLSearchParams({ ...filters, limit: '50' });
    if (cursor) query.set('cursor', cursor);
    const mine = ++latest.current;
    try {
      const loaded = await api<TimesheetPage>('GET', `/timesheets?${query}`);
      if (mine !== latest.current) return;
      setPage(loaded);
      setSheets((before) => (cursor ? [...before, ...loaded.items] : loaded.items));
      setError(null);
    } catch (caught) {
      if (mine !== latest.current) return;
      setPage(null);
      setSheets([]);
      setError(
        caught instanceof ApiProblem && caught.status === 404
          ? 'No such workplace in this company.'
          : messageOf(caught),
      );
    }
  }

  useEffect(() => {
    if (workweekStart === null) return;
    setPage(null);
    void load(null);
    // filterKey spells out every filter.
  }, [filterKey, workweekStart]);

  return { page, sheets, error, load };
}
