import { companyZone, may, PERMISSIONS } from '../../../api.js';
import { SelectField, WorkplaceChoices } from '../../../components/fields.js';
import { FilterCard, Loading, Notice, ScreenHeading, ZoneNote } from '../../../components/ui.js';
import { hrefOf, navigate } from '../../../router.js';
import type { Screen, ScreenProps } from '../../../screens/registry.js';
import { byWorkplace, countText, MAX_PAGES, POLL_SECONDS, timeOf } from './model.js';
import { SessionGroup } from './session-group.js';
import { useOpenSessions } from './use-open-sessions.js';
import { NowAttendance } from '../../planned-shifts/now-attendance.js';

type OpenSessions = ReturnType<typeof useOpenSessions>;

/** The workplace, a refresh, pausing the poll, and when the list was updated last. */
function NowFilters(props: { open: OpenSessions; workplaceId: string; zone: string }) {
  const { open, workplaceId } = props;
  return (
    <FilterCard headingId="now-filter-heading" heading="Workplace and updates">
      <div class="filter-row">
        <SelectField
          label="Workplace"
          value={workplaceId}
          onChange={(value) =>
            navigate(hrefOf(['now'], { workplace: value || undefined }), {
              replace: true,
            })
          }
        >
          <WorkplaceChoices selected={workplaceId} workplaces={open.workplaces} />
        </SelectField>
        <div class="toolbar now-toolbar">
          <button type="button" onClick={() => void open.load()}>
            Refresh now
          </button>
          <button type="button" aria-pressed={open.paused} onClick={() => open.setPaused(!open.paused)}>
            {open.paused ? 'Resume automatic updates' : 'Pause automatic updates'}
          </button>
        </div>
      </div>
      <p class="hint" id="now-updated">
        {open.updatedAt === null
          ? 'Loading…'
          : `Last updated ${timeOf(new Date(open.updatedAt).toISOString(), props.zone)}. `}
        {open.paused ? 'Automatic updates are paused.' : `The list updates every ${POLL_SECONDS} seconds.`}
      </p>
    </FilterCard>
  );
}

/** `#/now?workplace=…`: who is clocked in right now, per workplace, and who is on a break. */
function NowScreen({ person, route }: ScreenProps) {
  const zone = companyZone(person);
  const workplaceId = route.query.get('workplace') ?? '';
  const open = useOpenSessions(workplaceId);
  const { sessions } = open;
  const now = open.updatedAt ?? Date.now();
  return (
    <>
      <ScreenHeading title="Now">
        <p class="lede">Who is clocked in right now, per workplace, and who is on a break.</p>
      </ScreenHeading>
      <ZoneNote timeZone={person.company.timeZone} />
      <NowFilters open={open} workplaceId={workplaceId} zone={zone} />
      <Notice tone="error" message={open.error} />
      {/* Announced only when what it says changes, not at every poll. */}
      <div role="status" class="now-summary">
        {sessions ? countText(sessions) : null}
      </div>
      {sessions === null && !open.error ? <Loading what="who is clocked in" /> : null}
      {open.truncated ? (
        <p class="hint">Only the {MAX_PAGES * 100} longest-running sessions are shown.</p>
      ) : null}
      <NowAttendance workplaceId={workplaceId} paused={open.paused} pollSeconds={POLL_SECONDS} />
      {byWorkplace(sessions ?? []).map(([key, group]) => (
        <SessionGroup
          key={key || 'none'}
          id={key || 'none'}
          name={group.name}
          items={group.items}
          zone={zone}
          now={now}
        />
      ))}
    </>
  );
}

export const nowScreen: Screen = {
  path: 'now',
  title: 'Now',
  allowed: (person) => may(person, PERMISSIONS.readEntries),
  component: NowScreen,
};
