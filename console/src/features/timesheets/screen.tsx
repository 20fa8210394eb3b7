import { useState } from 'preact/hooks';
import { ADMIN_API, companyZone, may, PERMISSIONS } from '../../api.js';
import { Loading, Notice, ScreenHeading } from '../../components/ui.js';
import { addDays, formatDay, isDay, todayIn } from '../../format.js';
import { hrefOf, navigate } from '../../router.js';
import type { Screen, ScreenProps } from '../../screens/registry.js';
import { rangeOf, RULES, type TimesheetPage } from './model.js';
import { type Go, TimesheetFilters } from './timesheet-filters.js';
import { TimesheetTable } from './timesheet-table.js';
import { useTimesheetSettings, useTimesheets } from './use-timesheets.js';
import { ClosedPeriodsOf } from '../corrections/closed-periods.js';

/** The period, and the company settings the timesheets were counted with. */
function PeriodLine(props: { from: string; to: string; page: TimesheetPage | null }) {
  const settings = props.page?.settings;
  return (
    <p class="week-label">
      <strong>
        {formatDay(props.from)} – {formatDay(props.to)}
      </strong>
      {settings ? (
        <>
          {' '}
          · weeks start on {settings.workweekStart}; daily overtime after{' '}
          {settings.dailyOvertimeHours === null ? 'no threshold' : `${settings.dailyOvertimeHours} h`}; flags
          by {RULES[settings.workingTimeRules] ?? settings.workingTimeRules} (see Company).
        </>
      ) : null}
    </p>
  );
}

/** The payroll CSV of the same filters, optionally for spreadsheets. */
function PayrollFile(props: { filters: Record<string, string> }) {
  const [forSpreadsheets, setForSpreadsheets] = useState(false);
  const csvQuery = new URLSearchParams(props.filters);
  if (forSpreadsheets) {
    csvQuery.set('delimiter', 'semicolon');
    csvQuery.set('bom', 'true');
  }
  return (
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
  );
}

/** `#/timesheets?period=…&date=…&workplace=…&status=…`: worked, regular and overtime hours. */
function TimesheetsScreen({ person, route }: ScreenProps) {
  const period = route.query.get('period') === 'month' ? 'month' : 'week';
  const dateParam = route.query.get('date') ?? '';
  const anchor = isDay(dateParam) ? dateParam : todayIn(companyZone(person));
  const workplaceId = route.query.get('workplace') ?? '';
  const approvedOnly = route.query.get('status') === 'approved';
  const settings = useTimesheetSettings(person);
  const range = rangeOf(period, anchor, settings.workweekStart);
  const filters: Record<string, string> = { from: range.from, to: range.to };
  if (workplaceId) filters.workplaceId = workplaceId;
  if (approvedOnly) filters.status = 'approved';
  const { page, sheets, error, load } = useTimesheets(filters, settings.workweekStart);

  const go: Go = (changes) =>
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
  const flagged = sheets.reduce((n, s) => n + s.days.reduce((m, d) => m + d.flags.length, 0), 0);
  const withTime = sheets.filter((s) => s.days.length > 0 || s.totals.openSessions > 0);

  return (
    <>
      <ScreenHeading title="Timesheets">
        <p class="lede">
          Worked, regular and overtime hours per employee, and what the working-time rules flag.
        </p>
      </ScreenHeading>
      <TimesheetFilters
        period={period}
        anchor={anchor}
        workplaceId={workplaceId}
        approvedOnly={approvedOnly}
        workplaces={settings.workplaces}
        go={go}
        step={step}
      />
      <PeriodLine from={range.from} to={range.to} page={page} />
      <PayrollFile filters={filters} />
      <ClosedPeriodsOf person={person} range={range} workplaceId={workplaceId} settings={settings} />
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
            <TimesheetTable sheets={sheets} from={range.from} to={range.to} />
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
