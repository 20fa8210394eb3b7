import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiProblem, messageOf } from '../../../api.js';
import { formatDay } from '../../../format.js';
import type { Decision, DecisionResult, Employee, EntryWeek } from './model.js';

/** The picker's employees (searched on the server, 250 ms after the last keystroke). */
export function useEmployeePicker(enabled: boolean) {
  const [employees, setEmployees] = useState<Employee[] | null>(null);
  const [search, setSearch] = useState('');
  const [employeeError, setEmployeeError] = useState<string | null>(null);
  useEffect(() => {
    if (!enabled) return;
    const handle = setTimeout(() => {
      const query = new URLSearchParams({ limit: '100' });
      if (search.trim()) query.set('search', search.trim());
      api<{ items: Employee[] }>('GET', `/employees?${query}`)
        .then((page) => {
          setEmployees(page.items);
          setEmployeeError(null);
        })
        .catch((error: unknown) => setEmployeeError(messageOf(error)));
    }, 250);
    return () => clearTimeout(handle);
  }, [search, enabled]);
  return { employees, search, setSearch, employeeError };
}

/** One employee's week (Monday to Sunday), as the server has it now. */
function useWeekData(employeeId: string, monday: string, sunday: string) {
  const [week, setWeek] = useState<EntryWeek | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const load = useCallback(async () => {
    if (!employeeId) {
      setWeek(null);
      return;
    }
    try {
      const query = new URLSearchParams({ employeeId, from: monday, to: sunday });
      setWeek(await api<EntryWeek>('GET', `/time-entries?${query}`));
      setLoadError(null);
    } catch (error) {
      setWeek(null);
      setLoadError(
        error instanceof ApiProblem && error.status === 404
          ? 'No such employee in this company.'
          : messageOf(error),
      );
    }
  }, [employeeId, monday, sunday]);
  return { week, loadError, load };
}

/** One employee's week and the decisions on it: approving, rejecting, confirming days. */
export function useEntryWeek(employeeId: string, monday: string, sunday: string) {
  const { week, loadError, load } = useWeekData(employeeId, monday, sunday);
  const [selected, setSelected] = useState<string[]>([]);
  const [status, setStatus] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState<string | null>(null);
  const opener = useRef<HTMLElement | null>(null);

  useEffect(() => {
    setSelected([]);
    setStatus(null);
    setActionError(null);
    void load();
  }, [load]);

  /** Runs an action with the buttons disabled and the messages cleared first. */
  async function run(work: () => Promise<void>, after?: () => void) {
    setBusy(true);
    setStatus(null);
    setActionError(null);
    try {
      await work();
    } catch (error) {
      setActionError(messageOf(error));
    } finally {
      setBusy(false);
      after?.();
    }
  }

  const decide = (ids: string[], decision: Decision) =>
    ids.length === 0
      ? Promise.resolve()
      : run(async () => {
          const body = decisionBody(ids, decision, week);
          const { results } = await api<{ results: DecisionResult[] }>(
            'POST',
            '/time-entries/decisions',
            body,
          );
          setSelected([]);
          // The list first, then the message: what the message says is already on the screen.
          await load();
          reportDecisions(results, decision, setStatus, setActionError);
        });

  const confirmDay = (day: string) =>
    run(
      async () => {
        await api('POST', '/confirmed-days', { employeeId, date: day });
        await load();
        setStatus(`${formatDay(day)} is confirmed: it is locked for new punches and shifts.`);
      },
      () => {
        setConfirming(null);
        opener.current?.focus();
      },
    );

  const askToConfirm = (day: string, button: HTMLElement) => {
    opener.current = button;
    setConfirming(day);
  };
  const cancelConfirm = () => {
    setConfirming(null);
    opener.current?.focus();
  };

  return {
    week,
    loadError,
    /** Reads the week again (after a correction, issue 30). */
    reload: load,
    /** Says what was done in the screen's status region. */
    announce: setStatus,
    selected,
    setSelected,
    status,
    actionError,
    busy,
    confirming,
    decide,
    confirmDay,
    askToConfirm,
    cancelConfirm,
  };
}

export type Week = ReturnType<typeof useEntryWeek>;

/** Each entry's version as shown: one changed meanwhile is refused (412), not decided unseen. */
function decisionBody(ids: string[], decision: Decision, week: EntryWeek | null) {
  const versions = ids.map((id) => week?.items.find((e) => e.id === id)?.version);
  return versions.every((v) => v !== undefined) ? { ids, decision, versions } : { ids, decision };
}

function reportDecisions(
  results: DecisionResult[],
  verb: Decision,
  setStatus: (message: string | null) => void,
  setActionError: (message: string | null) => void,
) {
  const done = results.filter((r) => r.status === 200).length;
  const failed = results.filter((r) => r.status !== 200);
  setStatus(done > 0 ? `${done} ${done === 1 ? 'entry' : 'entries'} ${verb}.` : null);
  if (failed.length > 0)
    setActionError(
      `${failed.length} not ${verb}: ${failed
        .map((f) => f.problem?.detail ?? f.problem?.title ?? `status ${f.status}`)
        .join('; ')}`,
    );
}
