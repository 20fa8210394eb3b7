import { useEffect, useState } from 'preact/hooks';
import { SelectField, TextField } from '../../components/fields.js';
import { DataTable } from '../../components/table.js';
import { Loading, Notice } from '../../components/ui.js';
import { formatDay } from '../../format.js';
import { personName } from '../../names.js';
import { type Balance, formatDays, type TeamMember } from './model.js';
import { useBalances } from './use-absences.js';

function BalanceRow({ balance: b }: { balance: Balance }) {
  return (
    <tr>
      <th scope="row" data-label="Type">
        {b.type.code}
      </th>
      <td data-label="Entitlement">{formatDays(b.entitlement)}</td>
      <td data-label="Carried over">
        {formatDays(b.carriedOver)}
        {b.carryOverExpiresOn && b.carriedOver > 0 ? (
          <span class="sub"> usable until {formatDay(b.carryOverExpiresOn)}</span>
        ) : null}
      </td>
      <td data-label="Taken">{formatDays(b.taken)}</td>
      <td data-label="Planned">{formatDays(b.planned)}</td>
      <td data-label="Requested">{formatDays(b.requested)}</td>
      <td data-label="Remaining">
        <strong>{formatDays(b.remaining)}</strong>
      </td>
    </tr>
  );
}

/** An employee's balances of a year: entitlement, carried over, taken, planned, requested, remaining. */
export function BalancesSection(props: {
  employees: TeamMember[];
  employeeId: string;
  year: string;
  go: (changes: Record<string, string | undefined>) => void;
}) {
  const { balances, error } = useBalances(props.employeeId, props.year);
  // The year as typed; the view follows once it is a year.
  const [yearDraft, setYearDraft] = useState(props.year);
  useEffect(() => setYearDraft(props.year), [props.year]);
  const chosen = props.employees.find((e) => e.id === props.employeeId);
  return (
    <section aria-labelledby="balances-heading" class="card filters">
      <h2 id="balances-heading">Leave balances</h2>
      <div class="filter-row">
        <SelectField
          label="Employee"
          id="balance-employee"
          value={props.employeeId}
          onChange={(value) => props.go({ employee: value || undefined })}
          choices={props.employees.map((e) => [e.id, personName(e)] as const)}
        >
          <option value="">Choose an employee</option>
        </SelectField>
        <TextField
          label="Year"
          id="balance-year"
          value={yearDraft}
          onInput={(value) => {
            setYearDraft(value);
            if (/^\d{4}$/.test(value)) props.go({ year: value });
          }}
          input={{ type: 'number', min: 2000, max: 2100, inputMode: 'numeric' }}
        />
      </div>
      <Notice tone="error" message={error} />
      {!props.employeeId ? <p>Choose an employee to see their balances.</p> : null}
      {props.employeeId && balances === null && !error ? <Loading what="balances" /> : null}
      {balances && balances.length === 0 ? (
        <p>No absence type of the company deducts from a balance.</p>
      ) : null}
      {balances && balances.length > 0 ? (
        <DataTable
          caption={`Leave balances of ${chosen ? personName(chosen) : 'the employee'} in ${props.year}`}
          columns={['Type', 'Entitlement', 'Carried over', 'Taken', 'Planned', 'Requested', 'Remaining']}
        >
          {balances.map((b) => (
            <BalanceRow key={b.type.id} balance={b} />
          ))}
        </DataTable>
      ) : null}
      <p class="hint">
        Remaining = entitlement + carried over (until it lapses) − taken − planned; requested days are not yet
        counted.
      </p>
    </section>
  );
}
