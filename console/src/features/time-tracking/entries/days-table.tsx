import { DataTable } from '../../../components/table.js';
import { StatusBadge } from '../../../components/ui.js';
import { formatDay, formatHours } from '../../../format.js';
import { isPending, type TimeEntry } from './model.js';
import type { Week } from './use-entry-week.js';

/** The seven days: entries, hours, pending ones, and whether the day is confirmed (locked). */
export function DaysSection(props: {
  week: Week;
  days: string[];
  entries: TimeEntry[];
  confirmed: Set<string>;
  canDecide: boolean;
}) {
  const { canDecide } = props;
  return (
    <section aria-labelledby="days-heading">
      <h2 id="days-heading">Days</h2>
      <p class="hint">A confirmed day is locked: no punch or shift can be recorded on it any more.</p>
      <DataTable
        caption="Days of the week"
        columns={['Day', 'Entries', 'Hours', 'Pending', 'Day status']}
        actions={canDecide}
      >
        {props.days.map((day) => (
          <DayRow
            key={day}
            week={props.week}
            day={day}
            entries={props.entries.filter((e) => e.workDate === day)}
            isConfirmed={props.confirmed.has(day)}
            canDecide={canDecide}
          />
        ))}
      </DataTable>
    </section>
  );
}

function DayRow(props: {
  week: Week;
  day: string;
  entries: TimeEntry[];
  isConfirmed: boolean;
  canDecide: boolean;
}) {
  const { week, day, entries } = props;
  const hours = entries.reduce((sum, e) => sum + e.totalHours, 0);
  return (
    <tr>
      <th scope="row" data-label="Day">
        {formatDay(day)}
      </th>
      <td data-label="Entries">{entries.length}</td>
      <td data-label="Hours">{formatHours(hours)}</td>
      <td data-label="Pending">{entries.filter(isPending).length}</td>
      <td data-label="Day status">
        <StatusBadge status={props.isConfirmed ? 'confirmed' : 'unconfirmed'} />
      </td>
      {props.canDecide ? (
        <td data-label="Actions" class="row-actions">
          {props.isConfirmed ? null : (
            <button
              type="button"
              disabled={week.busy}
              aria-label={`Confirm day ${formatDay(day)}`}
              onClick={(event) => week.askToConfirm(day, event.currentTarget)}
            >
              Confirm day
            </button>
          )}
        </td>
      ) : null}
    </tr>
  );
}
