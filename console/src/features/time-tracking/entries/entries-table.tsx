import { DataTable } from '../../../components/table.js';
import { StatusBadge } from '../../../components/ui.js';
import { formatDay, formatHours } from '../../../format.js';
import { EntryButtons, EntryMarks, type StartCorrection } from '../../corrections/use-corrections.js';
import { isPending, SOURCES, time, type TimeEntry } from './model.js';
import type { Week } from './use-entry-week.js';

/**
 * The week's entries, pending first; with permission 91, approve or reject them one by one or
 * together, and correct them (issue 30): edit, close an open session, delete, add a missing shift.
 * Everyone who reads them opens an entry's history.
 */
export function EntriesSection(props: {
  week: Week;
  entries: TimeEntry[];
  canDecide: boolean;
  correct: StartCorrection;
}) {
  const { week, entries, canDecide, correct } = props;
  const pending = entries.filter(isPending);
  const selected = week.selected;
  return (
    <section aria-labelledby="entries-heading">
      <h2 id="entries-heading" tabIndex={-1}>
        Entries{' '}
        <span class="count">
          ({entries.length}, {pending.length} pending)
        </span>
      </h2>
      {canDecide ? (
        <p>
          <button type="button" onClick={(e) => correct('add', null, e.currentTarget)}>
            Add missing shift
          </button>
        </p>
      ) : null}
      {canDecide && pending.length > 0 ? (
        <div class="toolbar" role="group" aria-label="Selected entries">
          <button
            type="button"
            class="primary"
            disabled={week.busy || selected.length === 0}
            onClick={() => void week.decide(selected, 'approved')}
          >
            Approve selected ({selected.length})
          </button>
          <button
            type="button"
            class="danger-outline"
            disabled={week.busy || selected.length === 0}
            onClick={() => void week.decide(selected, 'rejected')}
          >
            Reject selected ({selected.length})
          </button>
        </div>
      ) : null}
      {entries.length === 0 ? (
        <p>No entries in this week.</p>
      ) : (
        <EntriesTable
          week={week}
          entries={entries}
          pending={pending}
          canDecide={canDecide}
          correct={correct}
        />
      )}
    </section>
  );
}

function EntriesTable(props: {
  week: Week;
  entries: TimeEntry[];
  pending: TimeEntry[];
  canDecide: boolean;
  correct: StartCorrection;
}) {
  const { week, pending, canDecide } = props;
  const allSelected = pending.length > 0 && pending.every((e) => week.selected.includes(e.id));
  return (
    <DataTable
      caption="Time entries, pending first"
      columns={['Day', 'Time', 'Break', 'Hours', 'Status', 'Source']}
      actions
      first={
        canDecide ? (
          <th scope="col" class="select-col">
            <input
              type="checkbox"
              aria-label="Select all pending entries"
              checked={allSelected}
              disabled={pending.length === 0}
              onChange={(e) => week.setSelected(e.currentTarget.checked ? pending.map((p) => p.id) : [])}
            />
          </th>
        ) : null
      }
    >
      {props.entries.map((entry) => (
        <EntryRow key={entry.id} week={week} entry={entry} canDecide={canDecide} correct={props.correct} />
      ))}
    </DataTable>
  );
}

function EntryRow(props: { week: Week; entry: TimeEntry; canDecide: boolean; correct: StartCorrection }) {
  const { week, entry, canDecide } = props;
  const pending = isPending(entry);
  const label = `${formatDay(entry.workDate)} ${time(entry.startTime)}`;
  return (
    <tr class={pending ? 'row-pending' : undefined}>
      {canDecide ? (
        <td class="select-col" data-label="Select">
          {pending ? (
            <input
              type="checkbox"
              aria-label={`Select entry ${label}`}
              checked={week.selected.includes(entry.id)}
              onChange={(e) => {
                const checked = e.currentTarget.checked;
                week.setSelected((current) =>
                  checked ? [...current, entry.id] : current.filter((id) => id !== entry.id),
                );
              }}
            />
          ) : null}
        </td>
      ) : null}
      <th scope="row" data-label="Day">
        {formatDay(entry.workDate)}
      </th>
      <td data-label="Time">
        {time(entry.startTime)} – {entry.endTime ? time(entry.endTime) : 'still clocked in'}
        {entry.endsNextDay ? <span class="sub"> (ends next day)</span> : null}
      </td>
      <td data-label="Break">{entry.breakMinutes ? `${entry.breakMinutes} min` : '—'}</td>
      <td data-label="Hours">{formatHours(entry.totalHours)}</td>
      <td data-label="Status">
        <StatusBadge status={entry.status} />
        <EntryMarks entry={entry} />
      </td>
      <td data-label="Source">{SOURCES[entry.source] ?? entry.source}</td>
      <td data-label="Actions" class="row-actions">
        {canDecide && pending ? <DecisionButtons week={week} entry={entry} label={label} /> : null}
        <EntryButtons entry={entry} canManage={canDecide} start={props.correct} />
      </td>
    </tr>
  );
}

function DecisionButtons(props: { week: Week; entry: TimeEntry; label: string }) {
  const { week, entry, label } = props;
  return (
    <>
      <button
        type="button"
        disabled={week.busy}
        aria-label={`Approve entry ${label}`}
        onClick={() => void week.decide([entry.id], 'approved')}
      >
        Approve
      </button>
      <button
        type="button"
        class="danger-outline"
        disabled={week.busy}
        aria-label={`Reject entry ${label}`}
        onClick={() => void week.decide([entry.id], 'rejected')}
      >
        Reject
      </button>
    </>
  );
}
