import { messageOf } from '../../api.js';
import { SelectField } from '../../components/fields.js';
import { FilterCard } from '../../components/ui.js';
import { addDays, formatDay } from '../../format.js';
import { copyPreviousWeek, publishWeek, type Roster } from './model.js';

/** Copy the previous week, publish the week: each says what it did in the status line. */
export function WeekToolbar(props: {
  workplaceId: string;
  days: string[];
  reload: () => Promise<void>;
  say: (message: string) => void;
}) {
  const { workplaceId, days } = props;
  const action = (work: () => Promise<string>) => () => {
    void (async () => {
      try {
        props.say(await work());
        await props.reload();
      } catch (caught) {
        props.say(`Not done: ${messageOf(caught)}`);
      }
    })();
  };
  return (
    <div class="toolbar roster-toolbar">
      <button
        type="button"
        onClick={action(async () => {
          const r = await copyPreviousWeek(workplaceId, days[0]!);
          return `${r.created} shift(s) copied from the previous week as drafts${r.skipped ? `, ${r.skipped} skipped (they overlap shifts already planned)` : ''}.`;
        })}
      >
        Copy the previous week
      </button>
      <button
        type="button"
        class="primary"
        onClick={action(async () => {
          const r = await publishWeek(workplaceId, days[0]!, days[6]!);
          return `${r.published} shift(s) published.`;
        })}
      >
        Publish the week
      </button>
    </div>
  );
}

/** The workplace, the week (and at phone width the day) shown. */
export function RosterFilters(props: {
  roster: Roster | null;
  monday: string;
  narrow: boolean;
  day: string;
  days: string[];
  go: (query: Record<string, string | undefined>) => void;
}) {
  const { roster, monday, go } = props;
  return (
    <FilterCard headingId="roster-filter-heading" heading="Workplace and week">
      <div class="filter-row">
        <SelectField
          label="Workplace"
          value={roster?.workplace?.id ?? ''}
          onChange={(value) => go({ workplace: value || undefined })}
          choices={(roster?.workplaces ?? []).map((w) => [w.id, w.name] as const)}
        />
        <div class="week-nav">
          <button type="button" onClick={() => go({ week: addDays(monday, -7), day: undefined })}>
            Previous week
          </button>
          <span class="week-label">Week of {formatDay(monday)}</span>
          <button type="button" onClick={() => go({ week: addDays(monday, 7), day: undefined })}>
            Next week
          </button>
        </div>
        {props.narrow ? (
          <div class="week-nav day-nav">
            <button
              type="button"
              onClick={() =>
                go(
                  props.day === props.days[0]
                    ? { week: addDays(monday, -7), day: addDays(props.day, -1) }
                    : { day: addDays(props.day, -1) },
                )
              }
            >
              Previous day
            </button>
            <button
              type="button"
              onClick={() =>
                go(
                  props.day === props.days[6]
                    ? { week: addDays(monday, 7), day: addDays(props.day, 1) }
                    : { day: addDays(props.day, 1) },
                )
              }
            >
              Next day
            </button>
          </div>
        ) : null}
      </div>
    </FilterCard>
  );
}
