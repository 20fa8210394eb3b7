import { companyZone, may, PERMISSIONS } from '../../api.js';
import { SelectField, WorkplaceChoices } from '../../components/fields.js';
import { FilterCard, Loading, Notice, ScreenHeading } from '../../components/ui.js';
import { todayIn } from '../../format.js';
import { hrefOf, navigate } from '../../router.js';
import type { Screen, ScreenProps } from '../../screens/registry.js';
import { BalancesSection } from './balances.js';
import { monthLabel, monthOfDay, stepMonth } from './model.js';
import { RequestsSection } from './requests.js';
import { MonthSummary, TeamGrid } from './team-calendar.js';
import { useRequests, useTeamCalendar, useWorkplaces } from './use-absences.js';

type Go = (changes: Record<string, string | undefined>) => void;

function CalendarFilters(props: {
  month: string;
  workplaceId: string;
  workplaces: { id: string; name: string }[];
  go: Go;
}) {
  return (
    <FilterCard headingId="absence-filter-heading" heading="Month and workplace">
      <div class="filter-row">
        <SelectField
          label="Workplace"
          id="absence-workplace"
          value={props.workplaceId}
          onChange={(value) => props.go({ workplace: value || undefined })}
        >
          <WorkplaceChoices selected={props.workplaceId} workplaces={props.workplaces} />
        </SelectField>
      </div>
      <div class="week-nav">
        <button type="button" onClick={() => props.go({ month: stepMonth(props.month, -1) })}>
          Previous month
        </button>
        <button type="button" onClick={() => props.go({ month: stepMonth(props.month, 1) })}>
          Next month
        </button>
      </div>
    </FilterCard>
  );
}

/** `#/absences?month=…&workplace=…&employee=…&year=…`: who is away, requests, balances. */
function AbsencesScreen({ person, route }: ScreenProps) {
  const today = todayIn(companyZone(person));
  const monthParam = route.query.get('month') ?? '';
  const month = /^\d{4}-(0[1-9]|1[0-2])$/.test(monthParam) ? monthParam : monthOfDay(today);
  const workplaceId = route.query.get('workplace') ?? '';
  const employeeId = route.query.get('employee') ?? '';
  const year = route.query.get('year') ?? today.slice(0, 4);
  const workplaces = useWorkplaces(person);
  const { calendar, error, reload } = useTeamCalendar(month, workplaceId);
  const requests = useRequests();
  const go: Go = (changes) =>
    navigate(
      hrefOf(['absences'], {
        month,
        workplace: workplaceId || undefined,
        employee: employeeId || undefined,
        year,
        ...changes,
      }),
      { replace: true },
    );
  return (
    <>
      <ScreenHeading title="Absences">
        <p class="lede">Who is away when, the requests waiting for a decision, and leave balances.</p>
      </ScreenHeading>
      <CalendarFilters month={month} workplaceId={workplaceId} workplaces={workplaces} go={go} />
      <section aria-labelledby="calendar-heading" class="card">
        <h2 id="calendar-heading">{monthLabel(month)}</h2>
        <Notice tone="error" message={error} />
        {calendar === null && !error ? <Loading what="the team calendar" /> : null}
        {calendar?.truncated ? (
          <p class="hint">Only the first 300 employees are shown: choose a workplace.</p>
        ) : null}
        {calendar && calendar.employees.length === 0 ? <p>No employee works here.</p> : null}
        {calendar && calendar.employees.length > 0 ? <TeamGrid calendar={calendar} month={month} /> : null}
        {calendar ? <MonthSummary calendar={calendar} /> : null}
      </section>
      <RequestsSection
        requests={requests}
        canDecide={may(person, PERMISSIONS.manageLeave)}
        onDecided={() => void reload()}
      />
      <BalancesSection employees={calendar?.employees ?? []} employeeId={employeeId} year={year} go={go} />
    </>
  );
}

export const absencesScreen: Screen = {
  path: 'absences',
  title: 'Absences',
  allowed: (person) => may(person, PERMISSIONS.readLeave),
  component: AbsencesScreen,
};
