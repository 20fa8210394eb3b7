import { SearchField, SelectField } from '../../../components/fields.js';
import { Field, FilterCard } from '../../../components/ui.js';
import { addDays, formatDay, isDay, mondayOf, todayIn } from '../../../format.js';
import { personName } from '../../../names.js';
import type { EntryWeek } from './model.js';
import type { useEmployeePicker } from './use-entry-week.js';

export type Go = (query: { employee?: string; week?: string }) => void;

interface WeekFiltersProps {
  picker: ReturnType<typeof useEmployeePicker> | null;
  employeeId: string;
  monday: string;
  sunday: string;
  zone: string;
  week: EntryWeek | null;
  go: Go;
}

/** Which employee and which week: a searchable picker (or an id), a day, and week by week. */
export function WeekFilters(props: WeekFiltersProps) {
  const { monday, go } = props;
  return (
    <FilterCard headingId="filter-heading" heading="Employee and week">
      <div class="filter-row">
        {props.picker ? (
          <EmployeePicker picker={props.picker} employeeId={props.employeeId} go={go} />
        ) : (
          <Field label="Employee id" hint="Your permissions do not include the employee list.">
            {({ id, describedBy }) => (
              <input
                id={id}
                aria-describedby={describedBy}
                type="text"
                value={props.employeeId}
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
              onChange={(e) => isDay(e.currentTarget.value) && go({ week: mondayOf(e.currentTarget.value) })}
            />
          )}
        </Field>
        <div class="week-nav" role="group" aria-label="Change week">
          <button type="button" onClick={() => go({ week: addDays(monday, -7) })}>
            <span aria-hidden="true">← </span>Previous week
          </button>
          <button type="button" onClick={() => go({ week: mondayOf(todayIn(props.zone)) })}>
            This week
          </button>
          <button type="button" onClick={() => go({ week: addDays(monday, 7) })}>
            Next week<span aria-hidden="true"> →</span>
          </button>
        </div>
      </div>
      <p class="week-label">
        Week of <strong>{formatDay(monday)}</strong> to <strong>{formatDay(props.sunday)}</strong>
        {props.week ? (
          <>
            . Times in <strong>{props.week.timeZone}</strong>; overnight shifts are listed on the day they
            started.
          </>
        ) : null}
      </p>
    </FilterCard>
  );
}

function EmployeePicker(props: { picker: ReturnType<typeof useEmployeePicker>; employeeId: string; go: Go }) {
  const { picker, employeeId } = props;
  const chosen = picker.employees?.find((e) => e.id === employeeId);
  return (
    <>
      <SearchField label="Find (name, email or badge id)" value={picker.search} onInput={picker.setSearch} />
      <SelectField
        label="Employee"
        error={picker.employeeError ?? undefined}
        value={employeeId}
        onChange={(value) => props.go({ employee: value })}
        choices={(picker.employees ?? []).map((e) => [
          e.id,
          `${personName(e)}${e.externalId ? ` (${e.externalId})` : ''}`,
        ])}
      >
        <option value="">Choose an employee…</option>
        {employeeId && !chosen ? <option value={employeeId}>Unknown employee {employeeId}</option> : null}
      </SelectField>
    </>
  );
}
