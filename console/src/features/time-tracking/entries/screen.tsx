import { companyZone, may, PERMISSIONS } from '../../../api.js';
import { ConfirmDialog, Loading, Notice, ScreenHeading } from '../../../components/ui.js';
import { formatDay, isDay, mondayOf, todayIn, weekDays } from '../../../format.js';
import { personName } from '../../../names.js';
import { hrefOf, navigate } from '../../../router.js';
import type { Screen, ScreenProps } from '../../../screens/registry.js';
import { DaysSection } from './days-table.js';
import { EntriesSection } from './entries-table.js';
import { isPending } from './model.js';
import { useEmployeePicker, useEntryWeek, type Week } from './use-entry-week.js';
import { type Go, WeekFilters } from './week-filters.js';
import { useCorrections } from '../../corrections/use-corrections.js';
import { CorrectionRequestsSection } from '../../self-service/requests-section.js';

/** The confirmation that locks a day. */
function ConfirmDayDialog(props: { week: Week; employeeName: string | null }) {
  const { week } = props;
  const day = week.confirming;
  const stillPending = day && (week.week?.items ?? []).some((e) => e.workDate === day && isPending(e));
  return (
    <ConfirmDialog
      open={day !== null}
      title={`Confirm ${day ? formatDay(day) : ''}?`}
      confirmLabel="Confirm day"
      busy={week.busy}
      onConfirm={() => day && void week.confirmDay(day)}
      onCancel={week.cancelConfirm}
    >
      <p>
        The day is locked for {props.employeeName ?? 'this employee'}: no punch or shift can be recorded on it
        afterwards.
        {stillPending ? ' It still has pending entries.' : ''}
      </p>
    </ConfirmDialog>
  );
}

/** `#/time-entries?employee=…&week=…`: one employee's week, its decisions and its confirmed days. */
function TimeEntriesScreen({ person, route }: ScreenProps) {
  const zone = companyZone(person);
  const canDecide = may(person, PERMISSIONS.decideEntries);
  const employeeId = route.query.get('employee') ?? '';
  const weekParam = route.query.get('week') ?? '';
  const monday = mondayOf(isDay(weekParam) ? weekParam : todayIn(zone));
  const days = weekDays(monday);
  const sunday = days[6] ?? monday;
  const picker = useEmployeePicker(may(person, PERMISSIONS.readEmployees));
  const week = useEntryWeek(employeeId, monday, sunday);
  const chosen = picker.employees?.find((e) => e.id === employeeId);
  const go: Go = (query) =>
    navigate(
      hrefOf(['time-entries'], {
        employee: query.employee ?? (employeeId || undefined),
        week: query.week ?? monday,
      }),
    );
  const loaded = week.week;
  const entries = loaded?.items ?? [];
  // Corrections (issue 30): edit, close, add, delete, history, in the entries' zone.
  const entryZone = loaded?.timeZone ?? zone;
  const corrections = useCorrections({
    employeeId,
    zone: entryZone,
    today: todayIn(entryZone),
    reload: week.reload,
    announce: week.announce,
  });

  return (
    <>
      <ScreenHeading title="Time entries">
        <p class="lede">
          {canDecide
            ? "Review an employee's week: approve or reject entries, then confirm the days."
            : "See an employee's week: the entries and which days are confirmed."}
        </p>
      </ScreenHeading>
      <WeekFilters
        picker={may(person, PERMISSIONS.readEmployees) ? picker : null}
        employeeId={employeeId}
        monday={monday}
        sunday={sunday}
        zone={zone}
        week={loaded}
        go={go}
      />
      <Notice tone="success" message={week.status} />
      <Notice tone="error" message={week.actionError} />
      {!employeeId ? <p>Choose an employee to see their week.</p> : null}
      {week.loadError ? (
        <Notice tone="error" message={`The entries could not be loaded: ${week.loadError}`} />
      ) : null}
      {employeeId && !loaded && !week.loadError ? <Loading what="entries" /> : null}
      {loaded ? (
        <>
          <EntriesSection week={week} entries={entries} canDecide={canDecide} correct={corrections.start} />
          <DaysSection
            week={week}
            days={days}
            entries={entries}
            confirmed={new Set(loaded.confirmedDays)}
            canDecide={canDecide}
          />
        </>
      ) : null}
      {canDecide ? <CorrectionRequestsSection zone={zone} onDecided={() => void week.reload()} /> : null}
      {corrections.dialog}
      <ConfirmDayDialog week={week} employeeName={chosen ? personName(chosen) : null} />
    </>
  );
}

export const timeEntriesScreen: Screen = {
  path: 'time-entries',
  title: 'Time entries',
  allowed: (person) => may(person, PERMISSIONS.readEntries),
  component: TimeEntriesScreen,
};
