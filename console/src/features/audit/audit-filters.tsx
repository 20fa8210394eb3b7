import { SelectField } from '../../components/fields.js';
import { Field, FilterCard } from '../../components/ui.js';
import { hrefOf } from '../../router.js';
import { ACTOR_TYPES, type Filters } from './model.js';

/** Who, which action, from and to which day; whose entries only, and a way back to all of them. */
export function AuditFilters(props: {
  filters: Filters;
  actions: string[];
  actorName: string | null;
  change: (name: keyof Filters, value: string) => void;
  filtered: boolean;
}) {
  const { filters, change } = props;
  const day = (name: 'from' | 'to', label: string) => (
    <Field label={label}>
      {({ id, describedBy }) => (
        <input
          id={id}
          type="date"
          aria-describedby={describedBy}
          value={filters[name]}
          onChange={(e) => change(name, e.currentTarget.value)}
        />
      )}
    </Field>
  );
  return (
    <FilterCard headingId="audit-filter-heading" heading="Filters">
      <div class="filter-row">
        <SelectField
          label="Who"
          value={filters.actorType}
          onChange={(value) => change('actorType', value)}
          choices={ACTOR_TYPES}
        />
        <SelectField
          label="Action"
          value={filters.action}
          onChange={(value) => change('action', value)}
          choices={props.actions.map((action) => [action, action])}
        >
          <option value="">Any action</option>
          {filters.action && !props.actions.includes(filters.action) ? (
            <option value={filters.action}>{filters.action}</option>
          ) : null}
        </SelectField>
        {day('from', 'From (day)')}
        {day('to', 'To (day)')}
      </div>
      {filters.actorId ? (
        <p class="hint">
          Only the entries of <strong>{props.actorName ?? filters.actorId}</strong>.
        </p>
      ) : null}
      {props.filtered ? (
        <p>
          <a href={hrefOf(['audit-log'])}>Clear the filters</a>
        </p>
      ) : null}
    </FilterCard>
  );
}
