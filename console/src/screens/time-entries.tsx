import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiProblem, companyZone, messageOf, may, PERMISSIONS } from '../api.js';
import { ConfirmDialog, Field, Loading, Notice, ScreenHeading, StatusBadge } from '../components/ui.js';
import { addDays, formatDay, formatHours, isDay, mondayOf, todayIn, weekDays } from '../format.js';
import { hrefOf, navigate } from '../router.js';
import type { Screen, ScreenProps } from './registry.js';

interface Employee {
  id: string;
  firstName: string | null;
  lastName: string | null;
  email: string;
  externalId: string | null;
  status: string;
}

export interface TimeEntry {
  id: string;
  employee: { id: string; externalId: string | null };
  workDate: string;
  startTime: string;
  endTime: string | null;
  endsNextDay: boolean;
  totalHours: number;
  breakMinutes: number | null;
  status: string;
  source: string;
  approvedAt: string | null;
  createdAt: string;
}

interface EntryWeek {
  items: TimeEntry[];
  confirmedDays: string[];
  timeZone: string;
}

interface DecisionResult {
  id: string;
  status: number;
  problem?: { detail?: string | null; title?: string };
}

const SOURCES: Record<string, string> = { time_clock: 'Time clock', api_shift: 'Shift (API)' };

function employeeName(e: Employee): string {
  const name = [e.firstName, e.lastName].filter(Boolean).join(' ');
  return name || e.email;
}

function time(value: string | null): string {
  return value ? value.slice(0, 5) : '';
}

function TimeEntriesScreen({ person, route }: ScreenProps) {
  const zone = companyZone(person);
  const canDecide = may(person, PERMISSIONS.decideEntries);
  const canListEmployees = may(person, PERMISSIONS.readEmployees);
  const employeeId = route.query.get('employee') ?? '';
  const weekParam = route.query.get('week') ?? '';
  const monday = mondayOf(isDay(weekParam) ? weekParam : todayIn(zone));
  const days = weekDays(monday);
  const sunday = days[6] ?? monday;

  const [employees, setEmployees] = useState<Employee[] | null>(null);
  const [search, setSearch] = useState('');
  const [employeeError, setEmployeeError] = useState<string | null>(null);
  const [week, setWeek] = useState<EntryWeek | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [selected, setSelected] = useState<string[]>([]);
  const [status, setStatus] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState<string | null>(null);
  const opener = useRef<HTMLElement | null>(null);

  const go = (query: { employee?: string; week?: string }) =>
    navigate(
      hrefOf(['time-entries'], {
        employee: query.employee ?? (employeeId || undefined),
        week: query.week ?? monday,
      }),
    );

  // The picker: the company's employees (searched on the server).
  useEffect(() => {
    if (!canListEmployees) return;
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
  }, [search, canListEmployees]);

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
  useEffect(() => {
    setSelected([]);
    setStatus(null);
    setActionError(null);
    void load();
  }, [load]);

  async function decide(ids: string[], decision: 'approved' | 'rejected') {
    if (ids.length === 0) return;
    setBusy(true);
    setStatus(null);
    setActionError(null);
    try {
      const { results } = await api<{ results: DecisionResult[] }>('POST', '/time-entries/decisions', {
        ids,
        decision,
      });
      const done = results.filter((r) => r.status === 200).length;
      const failed = results.filter((r) => r.status !== 200);
      const verb = decision === 'approved' ? 'approved' : 'rejected';
      setSelected([]);
      // The list first, then the message: what the message says is already on the screen.
      await load();
      setStatus(done > 0 ? `${done} ${done === 1 ? 'entry' : 'entries'} ${verb}.` : null);
      if (failed.length > 0)
        setActionError(
          `${failed.length} not ${verb}: ${failed
            .map((f) => f.problem?.detail ?? f.problem?.title ?? `status ${f.status}`)
            .join('; ')}`,
        );
    } catch (error) {
      setActionError(messageOf(error));
    } finally {
      setBusy(false);
    }
  }

  async function confirmDay(day: string) {
    setBusy(true);
    setStatus(null);
    setActionError(null);
    try {
      await api('POST', '/confirmed-days', { employeeId, date: day });
      await load();
      setStatus(`${formatDay(day)} is confirmed: it is locked for new punches and shifts.`);
    } catch (error) {
      setActionError(messageOf(error));
    } finally {
      setConfirming(null);
      setBusy(false);
      opener.current?.focus();
    }
  }

  const entries = week?.items ?? [];
  const pending = entries.filter((e) => e.status === 'pending_approval');
  const confirmed = new Set(week?.confirmedDays ?? []);
  const allSelected = pending.length > 0 && pending.every((e) => selected.includes(e.id));
  const chosen = employees?.find((e) => e.id === employeeId);

  return (
    <>
      <ScreenHeading title="Time entries">
        <p class="lede">
          {canDecide
            ? "Review an employee's week: approve or reject entries, then confirm the days."
            : "See an employee's week: the entries and which days are confirmed."}
        </p>
      </ScreenHeading>
      <section aria-labelledby="filter-heading" class="card filters">
        <h2 id="filter-heading" class="visually-hidden">
          Employee and week
        </h2>
        <div class="filter-row">
          {canListEmployees ? (
            <>
              <Field label="Find (name, email or badge id)">
                {({ id, describedBy }) => (
                  <input
                    id={id}
                    aria-describedby={describedBy}
                    type="search"
                    value={search}
                    onInput={(e) => setSearch(e.currentTarget.value)}
                  />
                )}
              </Field>
              <Field label="Employee" error={employeeError ?? undefined}>
                {({ id, describedBy }) => (
                  <select
                    id={id}
                    aria-describedby={describedBy}
                    value={employeeId}
                    onChange={(e) => go({ employee: e.currentTarget.value })}
                  >
                    <option value="">Choose an employee…</option>
                    {employeeId && !chosen ? (
                      <option value={employeeId}>Unknown employee {employeeId}</option>
                    ) : null}
                    {(employees ?? []).map((e) => (
                      <option key={e.id} value={e.id}>
                        {employeeName(e)}
                        {e.externalId ? ` (${e.externalId})` : ''}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
            </>
          ) : (
            <Field label="Employee id" hint="Your permissions do not include the employee list.">
              {({ id, describedBy }) => (
                <input
                  id={id}
                  aria-describedby={describedBy}
                  type="text"
                  value={employeeId}
                  onChange={(e) => go({ employee: e.currentTarget.value.trim() })}
                />
              )}
            </Field>
          )}
          <Field label="Week of">
            {({ id }) => (
              <input
                id={id}
                type="date"
                value={monday}
                onChange={(e) =>
                  isDay(e.currentTarget.value) && go({ week: mondayOf(e.currentTarget.value) })
                }
              />
            )}
          </Field>
          <div class="week-nav" role="group" aria-label="Change week">
            <button type="button" onClick={() => go({ week: addDays(monday, -7) })}>
              <span aria-hidden="true">← </span>Previous week
            </button>
            <button type="button" onClick={() => go({ week: mondayOf(todayIn(zone)) })}>
              This week
            </button>
            <button type="button" onClick={() => go({ week: addDays(monday, 7) })}>
              Next week<span aria-hidden="true"> →</span>
            </button>
          </div>
        </div>
        <p class="week-label">
          Week of <strong>{formatDay(monday)}</strong> to <strong>{formatDay(sunday)}</strong>
          {week ? (
            <>
              . Times in <strong>{week.timeZone}</strong>; overnight shifts are listed on the day they
              started.
            </>
          ) : null}
        </p>
      </section>

      <Notice tone="success" message={status} />
      <Notice tone="error" message={actionError} />
      {!employeeId ? <p>Choose an employee to see their week.</p> : null}
      {loadError ? <Notice tone="error" message={`The entries could not be loaded: ${loadError}`} /> : null}
      {employeeId && !week && !loadError ? <Loading what="entries" /> : null}

      {week ? (
        <>
          <section aria-labelledby="entries-heading">
            <h2 id="entries-heading">
              Entries{' '}
              <span class="count">
                ({entries.length}, {pending.length} pending)
              </span>
            </h2>
            {canDecide && pending.length > 0 ? (
              <div class="toolbar" role="group" aria-label="Selected entries">
                <button
                  type="button"
                  class="primary"
                  disabled={busy || selected.length === 0}
                  onClick={() => void decide(selected, 'approved')}
                >
                  Approve selected ({selected.length})
                </button>
                <button
                  type="button"
                  class="danger-outline"
                  disabled={busy || selected.length === 0}
                  onClick={() => void decide(selected, 'rejected')}
                >
                  Reject selected ({selected.length})
                </button>
              </div>
            ) : null}
            {entries.length === 0 ? (
              <p>No entries in this week.</p>
            ) : (
              <div class="table-wrap">
                <table class="data-table">
                  <caption class="visually-hidden">Time entries, pending first</caption>
                  <thead>
                    <tr>
                      {canDecide ? (
                        <th scope="col" class="select-col">
                          <input
                            type="checkbox"
                            aria-label="Select all pending entries"
                            checked={allSelected}
                            disabled={pending.length === 0}
                            onChange={(e) =>
                              setSelected(e.currentTarget.checked ? pending.map((p) => p.id) : [])
                            }
                          />
                        </th>
                      ) : null}
                      <th scope="col">Day</th>
                      <th scope="col">Time</th>
                      <th scope="col">Break</th>
                      <th scope="col">Hours</th>
                      <th scope="col">Status</th>
                      <th scope="col">Source</th>
                      {canDecide ? (
                        <th scope="col">
                          <span class="visually-hidden">Actions</span>
                        </th>
                      ) : null}
                    </tr>
                  </thead>
                  <tbody>
                    {entries.map((entry) => {
                      const isPending = entry.status === 'pending_approval';
                      const label = `${formatDay(entry.workDate)} ${time(entry.startTime)}`;
                      return (
                        <tr key={entry.id} class={isPending ? 'row-pending' : undefined}>
                          {canDecide ? (
                            <td class="select-col" data-label="Select">
                              {isPending ? (
                                <input
                                  type="checkbox"
                                  aria-label={`Select entry ${label}`}
                                  checked={selected.includes(entry.id)}
                                  onChange={(e) => {
                                    const checked = e.currentTarget.checked;
                                    setSelected((current) =>
                                      checked
                                        ? [...current, entry.id]
                                        : current.filter((id) => id !== entry.id),
                                    );
                                  }}
                                />
                              ) : null}
                            </td>
                          ) : null}
                          <th scope="row" data-label="Day">
                            {formatDay(entry.workDate)}
                          </th>
                          <td data-label="Time">
                            {time(entry.startTime)} –{' '}
                            {entry.endTime ? time(entry.endTime) : 'still clocked in'}
                            {entry.endsNextDay ? <span class="sub"> (ends next day)</span> : null}
                          </td>
                          <td data-label="Break">{entry.breakMinutes ? `${entry.breakMinutes} min` : '—'}</td>
                          <td data-label="Hours">{formatHours(entry.totalHours)}</td>
                          <td data-label="Status">
                            <StatusBadge status={entry.status} />
                          </td>
                          <td data-label="Source">{SOURCES[entry.source] ?? entry.source}</td>
                          {canDecide ? (
                            <td data-label="Actions" class="row-actions">
                              {isPending ? (
                                <>
                                  <button
                                    type="button"
                                    disabled={busy}
                                    aria-label={`Approve entry ${label}`}
                                    onClick={() => void decide([entry.id], 'approved')}
                                  >
                                    Approve
                                  </button>
                                  <button
                                    type="button"
                                    class="danger-outline"
                                    disabled={busy}
                                    aria-label={`Reject entry ${label}`}
                                    onClick={() => void decide([entry.id], 'rejected')}
                                  >
                                    Reject
                                  </button>
                                </>
                              ) : null}
                            </td>
                          ) : null}
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              </div>
            )}
          </section>

          <section aria-labelledby="days-heading">
            <h2 id="days-heading">Days</h2>
            <p class="hint">A confirmed day is locked: no punch or shift can be recorded on it any more.</p>
            <div class="table-wrap">
              <table class="data-table">
                <caption class="visually-hidden">Days of the week</caption>
                <thead>
                  <tr>
                    <th scope="col">Day</th>
                    <th scope="col">Entries</th>
                    <th scope="col">Hours</th>
                    <th scope="col">Pending</th>
                    <th scope="col">Day status</th>
                    {canDecide ? (
                      <th scope="col">
                        <span class="visually-hidden">Actions</span>
                      </th>
                    ) : null}
                  </tr>
                </thead>
                <tbody>
                  {days.map((day) => {
                    const ofDay = entries.filter((e) => e.workDate === day);
                    const hours = ofDay.reduce((sum, e) => sum + e.totalHours, 0);
                    const pendingOfDay = ofDay.filter((e) => e.status === 'pending_approval').length;
                    const isConfirmed = confirmed.has(day);
                    return (
                      <tr key={day}>
                        <th scope="row" data-label="Day">
                          {formatDay(day)}
                        </th>
                        <td data-label="Entries">{ofDay.length}</td>
                        <td data-label="Hours">{formatHours(hours)}</td>
                        <td data-label="Pending">{pendingOfDay}</td>
                        <td data-label="Day status">
                          <StatusBadge status={isConfirmed ? 'confirmed' : 'unconfirmed'} />
                        </td>
                        {canDecide ? (
                          <td data-label="Actions" class="row-actions">
                            {isConfirmed ? null : (
                              <button
                                type="button"
                                disabled={busy}
                                aria-label={`Confirm day ${formatDay(day)}`}
                                onClick={(event) => {
                                  opener.current = event.currentTarget;
                                  setConfirming(day);
                                }}
                              >
                                Confirm day
                              </button>
                            )}
                          </td>
                        ) : null}
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          </section>
        </>
      ) : null}
      <ConfirmDialog
        open={confirming !== null}
        title={`Confirm ${confirming ? formatDay(confirming) : ''}?`}
        confirmLabel="Confirm day"
        busy={busy}
        onConfirm={() => confirming && void confirmDay(confirming)}
        onCancel={() => {
          setConfirming(null);
          opener.current?.focus();
        }}
      >
        <p>
          The day is locked for {chosen ? employeeName(chosen) : 'this employee'}: no punch or shift can be
          recorded on it afterwards.
          {confirming && entries.some((e) => e.workDate === confirming && e.status === 'pending_approval')
            ? ' It still has pending entries.'
            : ''}
        </p>
      </ConfirmDialog>
    </>
  );
}

export const timeEntriesScreen: Screen = {
  path: 'time-entries',
  title: 'Time entries',
  allowed: (person) => may(person, PERMISSIONS.readEntries),
  component: TimeEntriesScreen,
};
