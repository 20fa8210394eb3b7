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
      <div class="table-wrap">
        <table class="data-table">
          <caption class="visually-hidden">Days of the week</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Entries</th>
              <th scope="col">Hours</th>
              <th scope="col">Pending</th>
              <th scope="col">Day status</th>
              {canDecide ? (
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              ) : null}
            </tr>
          </thead>
          <tbody>
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
          </tbody>
        </table>
      </div>
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
