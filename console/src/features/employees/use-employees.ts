import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiProblem, messageOf } from '../../api.js';
import { personName } from '../../names.js';
import { hrefOf, navigate } from '../../router.js';
import type { EmployeeDetail, EmployeeRow, Named } from './model.js';

/** The employees matching `search`, page by page; only the newest search's answer is shown. */
function useEmployeeList(search: string, target: string | undefined, generation: number) {
  const [rows, setRows] = useState<EmployeeRow[] | null>(null);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [listError, setListError] = useState<string | null>(null);
  const latest = useRef(0);

  const loadPage = useCallback(
    async (cursor: string | null) => {
      const query = new URLSearchParams({ limit: '50' });
      if (search.trim()) query.set('search', search.trim());
      if (cursor) query.set('cursor', cursor);
      const mine = ++latest.current;
      try {
        const page = await api<{ items: EmployeeRow[]; nextCursor: string | null }>(
          'GET',
          `/employees?${query}`,
        );
        // Typing fast: only the newest search's answer is shown.
        if (mine !== latest.current) return;
        setRows((before) => (cursor ? [...(before ?? []), ...page.items] : page.items));
        setNextCursor(page.nextCursor);
        setListError(null);
      } catch (caught) {
        if (mine === latest.current) setListError(messageOf(caught));
      }
    },
    [search],
  );

  useEffect(() => {
    if (target !== undefined) return;
    const handle = setTimeout(() => void loadPage(null), 250);
    return () => clearTimeout(handle);
  }, [loadPage, target, generation]);

  return { rows, setRows, nextCursor, listError, setListError, loadPage };
}

/** The employee of `#/employees/<id>`. */
function useEmployeeDetail(target: string | undefined) {
  const [detail, setDetail] = useState<EmployeeDetail | null>(null);
  const [detailError, setDetailError] = useState<string | null>(null);
  useEffect(() => {
    setDetail(null);
    setDetailError(null);
    if (target === undefined || target === 'new') return;
    api<EmployeeDetail>('GET', `/employees/${encodeURIComponent(target)}`)
      .then(setDetail)
      .catch((caught: unknown) =>
        setDetailError(
          caught instanceof ApiProblem && (caught.status === 404 || caught.status === 422)
            ? 'No such employee in this company.'
            : messageOf(caught),
        ),
      );
  }, [target]);
  return { detail, detailError };
}

/** The company's workplaces and schedules, for the form's selects and the list's workplace column. */
function useCatalogue(onError: (message: string) => void) {
  const [workplaces, setWorkplaces] = useState<Named[]>([]);
  const [schedules, setSchedules] = useState<Named[]>([]);
  useEffect(() => {
    Promise.all([api<{ items: Named[] }>('GET', '/workplaces'), api<{ items: Named[] }>('GET', '/schedules')])
      .then(([w, s]) => {
        setWorkplaces(w.items);
        setSchedules(s.items);
      })
      .catch((caught: unknown) => onError(messageOf(caught)));
  }, []);
  return { workplaces, schedules };
}

/**
 * Everything the employees screen holds: the search, the list, the employee on screen, the
 * workplaces and schedules, the messages, and the deletion waiting for a confirmation.
 */
export function useEmployees(target: string | undefined, initialSearch: string) {
  const [search, setSearch] = useState(initialSearch);
  const [generation, setGeneration] = useState(0);
  const list = useEmployeeList(search, target, generation);
  const shown = useEmployeeDetail(target);
  const catalogue = useCatalogue(list.setListError);
  const [status, setStatus] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<EmployeeDetail | EmployeeRow | null>(null);
  const [busy, setBusy] = useState(false);
  const opener = useRef<HTMLElement | null>(null);

  /** Shows the list again from its first page. */
  const reload = () => {
    list.setRows(null);
    setGeneration((g) => g + 1);
  };

  async function remove() {
    if (!deleting) return;
    setBusy(true);
    setActionError(null);
    setStatus(null);
    try {
      await api('DELETE', `/employees/${deleting.id}`);
      const name = personName(deleting);
      setDeleting(null);
      if (target !== undefined) navigate(hrefOf(['employees']));
      reload();
      setStatus(`${name} is deleted. Their recorded time stays.`);
    } catch (caught) {
      setActionError(messageOf(caught));
      setDeleting(null);
    } finally {
      setBusy(false);
      opener.current?.focus();
    }
  }

  const askToDelete = (employee: EmployeeDetail | EmployeeRow, button: HTMLElement | null) => {
    opener.current = button;
    setDeleting(employee);
  };
  const cancelDelete = () => {
    setDeleting(null);
    opener.current?.focus();
  };

  return {
    ...list,
    ...shown,
    ...catalogue,
    search,
    setSearch,
    reload,
    status,
    setStatus,
    actionError,
    deleting,
    busy,
    remove,
    askToDelete,
    cancelDelete,
  };
}

export type Employees = ReturnType<typeof useEmployees>;
