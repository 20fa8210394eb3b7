import { useEffect, useRef, useState } from 'preact/hooks';
import { ADMIN_API, api, ApiProblem, companyZone, messageOf, may, PERMISSIONS } from '../api.js';
import { Field, Loading, Notice, ScreenHeading } from '../components/ui.js';
import { addDays, formatDay, isDay, todayIn } from '../format.js';
import { hrefOf, navigate } from '../router.js';
import type { Screen, ScreenProps } from './registry.js';

interface Flag {
  rule: string;
  date: string;
  message: string;
}

interface Day {
  date: string;
  workedHours: number;
  breakMinutes: number;
  regularHours: number;
  overtimeHours: number;
  entries: number;
  statuses: Record<string, number>;
  flags: Flag[];
}

interface Timesheet {
  employee: {
    id: string;
    externalId: string | null;
    firstName: string | null;
    lastName: string | null;
    email: string;
  };
  days: Day[];
  totals: {
    workedHours: number;
    regularHours: number;
    overtimeHours: number;
    breakMinutes: number;
    approvedHours: number;
    pendingHours: number;
    openSessions: number;
  };
}

interface TimesheetPage {
  items: Timesheet[];
  nextCursor: string | null;
  from: string;
  to: string;
  settings: { workweekStart: string; dailyOvertimeHours: number | null; workingTimeRules: string };
}

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const RULES: Record<string, string> = {
  none: 'no working-time rules',
  'de-arbzg': 'the German Working Hours Act (ArbZG)',
  'us-ca': "California's rules",
};

const hours = (value: number) => value.toFixed(2);

/** The first day of the workweek (starting `start`) that holds `day`. */
function weekStartOf(day: string, start: string): string {
  const weekday = (new Date(`${day}T00:00:00Z`).getUTCDay() + 6) % 7; // 0 = Monday
  const first = Math.max(0, WEEKDAYS.indexOf(start));
  return addDays(day, -((weekday - first + 7) % 7));
}

function monthOf(day: string): { from: string; to: string } {
  const from = `${day.slice(0, 7)}-01`;
  const next = new Date(`${from}T00:00:00Z`);
  next.setUTCMonth(next.getUTCMonth() + 1);
  return { from, to: addDays(next.toISOString().slice(0, 10), -1) };
}

function nameOf(e: Timesheet['employee']): string {
  return [e.firstName, e.lastName].filter(Boolean).join(' ') || e.email;
}

function TimesheetsScreen({ person, route }: ScreenProps) {
  const zone = companyZone(person);
  const period = route.query.get('period') === 'month' ? 'month' : 'week';
  const dateParam = route.query.get('date') ?? '';
  const anchor = isDay(dateParam) ? dateParam : todayIn(zone);
  const workplaceId = route.query.get('workplace') ?? '';
  const approvedOnly = route.query.get('status') === 'approved';
  const [workweekStart, setWorkweekStart] = useState<string | null>(null);
  const [workplaces, setWorkplaces] = useState<{ id: string; name: string }[]>([]);
  const [page, setPage] = useState<TimesheetPage | null>(null);
  const [sheets, setSheets] = useState<Timesheet[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [forSpreadsheets, setForSpreadsheets] = useState(false);
  // Only the newest request's answer is shown.
  const latest = useRef(0);

  useEffect(() => {
    api<{ workweekStart: string }>('GET', '/company')
      .then((company) => setWorkweekStart(company.workweekStart))
      .catch(() => setWorkweekStart('monday'));
    if (may(person, PERMISSIONS.readEmployees) || may(person, PERMISSIONS.readEntries))
      api<{ items: { id: string; name: string }[] }>('GET', '/workplaces')
        .then((list) => setWorkplaces(list.items))
        .catch(() => setWorkplaces([]));
  }, [person]);

  const range =
    period === 'month'
      ? monthOf(anchor)
      : {
          from: weekStartOf(anchor, workweekStart ?? 'monday'),
          to: addDays(weekStartOf(anchor, workweekStart ?? 'monday'), 6),
        };
  const filters: Record<string, string> = { from: range.from, to: range.to };
  if (workplaceId) filters.workplaceId = workplaceId;
  if (approvedOnly) filters.status = 'approved';
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

  const go = (changes: Record<string, string | undefined>) =>
    navigate(
      hrefOf(['timesheets'], {
        period,
        date: anchor,
        workplace: workplaceId || undefined,
        status: approvedOnly ? 'approved' : undefined,
        ...changes,
      }),
      { replace: true },
    );
  const step = (direction: 1 | -1) => {
    if (period === 'week') return go({ date: addDays(range.from, 7 * direction) });
    const moved = new Date(`${range.from}T00:00:00Z`);
    moved.setUTCMonth(moved.getUTCMonth() + direction);
    return go({ date: moved.toISOString().slice(0, 10) });
  };
  const csvQuery = new URLSearchParams(filters);
  if (forSpreadsheets) {
    csvQuery.set('delimiter', 'semicolon');
    csvQuery.set('bom', 'true');
  }
  const flagged = sheets.reduce((n, s) => n + s.days.reduce((m, d) => m + d.flags.length, 0), 0);
  const withTime = sheets.filter((s) => s.days.length > 0 || s.totals.openSessions > 0);

  return (
    <>
      <ScreenHeading title="Timesheets">
        <p class="lede">
          Worked, regular and overtime hours per employee, and what the working-time rules flag.
        </p>
      </ScreenHeading>
      <section aria-labelledby="timesheet-filter-heading" class="card filters">
        <h2 id="timesheet-filter-heading" class="visually-hidden">
          Period and filters
        </h2>
        <div class="filter-row">
          <Field label="Period">
            {({ id, describedBy }) => (
              <select
                id={id}
                aria-describedby={describedBy}
                value={period}
                onChange={(e) => go({ period: e.currentTarget.value })}
              >
                <option value="week">Week</option>
                <option value="month">Month</option>
              </select>
            )}
          </Field>
          <Field label="Including the day">
            {({ id, describedBy }) => (
              <input
                id={id}
                type="date"
                aria-describedby={describedBy}
                value={anchor}
                onChange={(e) => isDay(e.currentTarget.value) && go({ date: e.currentTarget.value })}
              />
            )}
          </Field>
          <Field label="Workplace">
            {({ id, describedBy }) => (
              <select
                id={id}
                aria-describedby={describedBy}
                value={workplaceId}
                onChange={(e) => go({ workplace: e.currentTarget.value || undefined })}
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
          <div class="check">
            <input
              type="checkbox"
              id="timesheets-approved-only"
              checked={approvedOnly}
              onChange={(e) => go({ status: e.currentTarget.checked ? 'approved' : undefined })}
            />
            <label for="timesheets-approved-only">Approved entries only</label>
          </div>
        </div>
        <div class="week-nav">
          <button type="button" onClick={() => step(-1)}>
            {period === 'week' ? 'Previous week' : 'Previous month'}
          </button>
          <button type="button" onClick={() => step(1)}>
            {period === 'week' ? 'Next week' : 'Next month'}
          </button>
        </div>
      </section>
      <p class="week-label">
        <strong>
          {formatDay(range.from)} – {formatDay(range.to)}
        </strong>
        {page ? (
          <>
            {' '}
            · weeks start on {page.settings.workweekStart}; daily overtime after{' '}
            {page.settings.dailyOvertimeHours === null
              ? 'no threshold'
              : `${page.settings.dailyOvertimeHours} h`}
            ; flags by {RULES[page.settings.workingTimeRules] ?? page.settings.workingTimeRules} (see
            Company).
          </>
        ) : null}
      </p>
      <section aria-labelledby="timesheet-csv-heading" class="card">
        <h2 id="timesheet-csv-heading">Payroll file</h2>
        <p class="hint">
          One row per employee and day of this period, as GET /reports/timesheets gives it with Accept:
          text/csv.
        </p>
        <div class="actions">
          <a class="button-link primary" href={`${ADMIN_API}/timesheets/csv?${csvQuery}`} download>
            Download the payroll CSV
          </a>
          <div class="check">
            <input
              type="checkbox"
              id="timesheets-spreadsheet"
              checked={forSpreadsheets}
              onChange={(e) => setForSpreadsheets(e.currentTarget.checked)}
            />
            <label for="timesheets-spreadsheet">For spreadsheets (semicolons, byte-order mark)</label>
          </div>
        </div>
      </section>
      <Notice tone="error" message={error} />
      {page === null && !error ? <Loading what="timesheets" /> : null}
      {page ? (
        <section aria-labelledby="timesheet-list-heading">
          <h2 id="timesheet-list-heading">
            Timesheets{' '}
            <span class="count">
              ({withTime.length} with time of {sheets.length}
              {page.nextCursor ? '+' : ''} employees; {flagged} {flagged === 1 ? 'flag' : 'flags'})
            </span>
          </h2>
          {sheets.length === 0 ? (
            <p>No employee matches.</p>
          ) : (
            <div class="table-wrap">
              <table class="data-table">
                <caption class="visually-hidden">
                  Timesheets from {formatDay(range.from)} to {formatDay(range.to)}
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Employee</th>
                    <th scope="col">Days</th>
                    <th scope="col">Worked</th>
                    <th scope="col">Regular</th>
                    <th scope="col">Overtime</th>
                    <th scope="col">Working-time flags</th>
                  </tr>
                </thead>
                <tbody>
                  {sheets.map((sheet) => {
                    const flags = sheet.days.flatMap((d) => d.flags);
                    return (
                      <tr key={sheet.employee.id}>
                        <th scope="row" data-label="Employee">
                          {nameOf(sheet.employee)}
                          {sheet.employee.externalId ? (
                            <span class="sub"> badge {sheet.employee.externalId}</span>
                          ) : null}
                        </th>
                        <td data-label="Days">
                          {sheet.days.length === 0 ? (
                            'No time recorded'
                          ) : (
                            <ul class="plain-list">
                              {sheet.days.map((day) => (
                                <li key={day.date}>
                                  {formatDay(day.date)}: {hours(day.workedHours)} h
                                  {day.overtimeHours > 0 ? ` (${hours(day.overtimeHours)} overtime)` : ''}
                                  {day.statuses.pending_approval ? ', pending' : ''}
                                </li>
                              ))}
                            </ul>
                          )}
                          {sheet.totals.openSessions > 0 ? (
                            <p class="sub">
                              {sheet.totals.openSessions} open{' '}
                              {sheet.totals.openSessions === 1 ? 'session' : 'sessions'} (not counted)
                            </p>
                          ) : null}
                        </td>
                        <td data-label="Worked">{hours(sheet.totals.workedHours)} h</td>
                        <td data-label="Regular">{hours(sheet.totals.regularHours)} h</td>
                        <td data-label="Overtime">{hours(sheet.totals.overtimeHours)} h</td>
                        <td data-label="Working-time flags">
                          {flags.length === 0 ? (
                            'None'
                          ) : (
                            <ul class="plain-list flag-list">
                              {flags.map((flag) => (
                                <li key={`${flag.rule}-${flag.date}`}>
                                  <span aria-hidden="true">⚠ </span>
                                  <strong>{flag.rule}</strong> ({formatDay(flag.date)}): {flag.message}
                                </li>
                              ))}
                            </ul>
                          )}
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          )}
          {page.nextCursor ? (
            <button type="button" onClick={() => void load(page.nextCursor)}>
              Show more employees
            </button>
          ) : null}
        </section>
      ) : null}
    </>
  );
}

export const timesheetsScreen: Screen = {
  path: 'timesheets',
  title: 'Timesheets',
  allowed: (person) => may(person, PERMISSIONS.reports),
  component: TimesheetsScreen,
};
