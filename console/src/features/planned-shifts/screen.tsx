import { useState } from 'preact/hooks';
import { may, PERMISSIONS } from '../../api.js';
import { Loading, Notice, ScreenHeading } from '../../components/ui.js';
import { formatDay, isDay, mondayOf, todayIn, weekDays } from '../../format.js';
import { hrefOf, navigate } from '../../router.js';
import type { Screen, ScreenProps } from '../../screens/registry.js';
import type { Roster } from './model.js';
import { RosterFilters, WeekToolbar } from './roster-filters.js';
import { ExceptionList, RosterGrid } from './roster-grid.js';
import { ShiftDialog } from './shift-dialog.js';
import { draftOf, newDraft, useEditing, useNarrow, useRoster } from './use-roster.js';

function RosterScreen({ person, route }: ScreenProps) {
  const narrow = useNarrow();
  const today = todayIn(person.company.timeZone ?? 'UTC');
  const weekParam = route.query.get('week') ?? '';
  const monday = mondayOf(isDay(weekParam) ? weekParam : today);
  const days = weekDays(monday);
  const dayParam = route.query.get('day') ?? '';
  const day = days.includes(dayParam) ? dayParam : days.includes(today) ? today : monday;
  const workplaceParam = route.query.get('workplace') ?? '';
  const { roster, error, reload } = useRoster(workplaceParam, monday, days[6]!);
  const [status, setStatus] = useState<string | null>(null);
  const edit = useEditing(roster, reload, setStatus);
  const canEdit = may(person, PERMISSIONS.manageShifts) && roster?.workplace != null;
  const go = (query: Record<string, string | undefined>) =>
    navigate(
      hrefOf(['roster'], {
        workplace: workplaceParam || undefined,
        week: monday,
        day: narrow ? day : undefined,
        ...query,
      }),
      { replace: true },
    );
  return (
    <>
      <ScreenHeading title="Roster">
        <p class="lede">
          A workplace's week of planned shifts, and the exceptions found against the punches.
        </p>
      </ScreenHeading>
      <RosterFilters roster={roster} monday={monday} narrow={narrow} day={day} days={days} go={go} />
      {canEdit ? (
        <WeekToolbar workplaceId={roster!.workplace!.id} days={days} reload={reload} say={setStatus} />
      ) : null}
      <Notice tone="error" message={error} />
      <Notice tone="info" message={status} id="roster-status" />
      {roster === null && !error ? <Loading what="the roster" /> : null}
      {roster && roster.workplace === null ? <p class="hint">The company has no workplace yet.</p> : null}
      {roster?.workplace ? (
        <RosterWeek
          roster={roster}
          days={narrow ? [day] : days}
          title={narrow ? formatDay(day) : `week of ${formatDay(monday)}`}
          canEdit={canEdit}
          edit={edit}
        />
      ) : null}
    </>
  );
}

/** The week's (or the day's) grid, its exceptions and the shift dialog. */
function RosterWeek(props: {
  roster: Roster;
  days: string[];
  title: string;
  canEdit: boolean;
  edit: ReturnType<typeof useEditing>;
}) {
  const { roster, edit } = props;
  return (
    <>
      <section class="card" aria-labelledby="roster-week-heading">
        <h2 id="roster-week-heading">
          {roster.workplace!.name}: {props.title}
        </h2>
        <p class="hint">Times in {roster.timeZone}.</p>
        {roster.employees.length === 0 ? <p class="hint">Nobody works at this workplace yet.</p> : null}
        <RosterGrid
          days={props.days}
          employees={roster.employees}
          shifts={roster.shifts}
          exceptions={roster.exceptions ?? []}
          canEdit={props.canEdit}
          onAdd={(employeeId, date) => edit.open(null, newDraft(employeeId, date))}
          onEdit={(shift) => edit.open(shift, draftOf(shift))}
          onMove={(shift, by) => void edit.move(shift, by)}
        />
      </section>
      {roster.exceptions === null ? null : (
        <section class="card" aria-labelledby="roster-exceptions-heading">
          <h2 id="roster-exceptions-heading">Exceptions this week</h2>
          <ExceptionList exceptions={roster.exceptions} employees={roster.employees} />
        </section>
      )}
      <ShiftDialog
        open={edit.editing !== null}
        editing={edit.editing?.shift != null}
        initial={edit.editing?.initial ?? newDraft('', props.days[0]!)}
        employees={roster.employees}
        timeZone={roster.timeZone}
        busy={edit.busy}
        problem={edit.problem}
        onSave={(draft) => void edit.save(draft)}
        onDelete={() => void edit.remove()}
        onCancel={edit.close}
      />
    </>
  );
}

export const rosterScreen: Screen = {
  path: 'roster',
  title: 'Roster',
  allowed: (person) => may(person, PERMISSIONS.readEntries) || may(person, PERMISSIONS.manageShifts),
  component: RosterScreen,
};
