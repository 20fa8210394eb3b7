import { SelectField, WorkplaceChoices } from '../../components/fields.js';
import { Field, FilterCard } from '../../components/ui.js';
import { isDay } from '../../format.js';

export type Go = (changes: Record<string, string | undefined>) => void;

const PERIODS = [
  ['week', 'Week'],
  ['month', 'Month'],
] as const;

/** Week or month, a day in it, a workplace, approved entries only; and the previous or next period. */
export function TimesheetFilters(props: {
  period: 'week' | 'month';
  anchor: string;
  workplaceId: string;
  approvedOnly: boolean;
  workplaces: { id: string; name: string }[];
  go: Go;
  step: (direction: 1 | -1) => void;
}) {
  const { period, go } = props;
  return (
    <FilterCard headingId="timesheet-filter-heading" heading="Period and filters">
      <div class="filter-row">
        <SelectField
          label="Period"
          value={period}
          onChange={(value) => go({ period: value })}
          choices={PERIODS}
        />
        <Field label="Including the day">
          {({ id, describedBy }) => (
            <input
              id={id}
              type="date"
              aria-describedby={describedBy}
              value={props.anchor}
              onChange={(e) => isDay(e.currentTarget.value) && go({ date: e.currentTarget.value })}
            />
          )}
        </Field>
        <SelectField
          label="Workplace"
          value={props.workplaceId}
          onChange={(value) => go({ workplace: value || undefined })}
        >
          <WorkplaceChoices selected={props.workplaceId} workplaces={props.workplaces} />
        </SelectField>
        <div class="check">
          <input
            type="checkbox"
            id="timesheets-approved-only"
            checked={props.approvedOnly}
            onChange={(e) => go({ status: e.currentTarget.checked ? 'approved' : undefined })}
          />
          <label for="timesheets-approved-only">Approved entries only</label>
        </div>
      </div>
      <div class="week-nav">
        <button type="button" onClick={() => props.step(-1)}>
          {period === 'week' ? 'Previous week' : 'Previous month'}
        </button>
        <button type="button" onClick={() => props.step(1)}>
          {period === 'week' ? 'Next week' : 'Next month'}
        </button>
      </div>
    </FilterCard>
  );
}
