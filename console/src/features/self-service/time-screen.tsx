import { useState } from 'preact/hooks';
import { api, companyZone, messageOf } from '../../api.js';
import { DataTable } from '../../components/table.js';
import { Loading, Notice, ScreenHeading, StatusBadge } from '../../components/ui.js';
import { addDays, formatDay, formatHours, formatInstant, isDay, mondayOf, todayIn } from '../../format.js';
import { hrefOf, navigate } from '../../router.js';
import type { Screen, ScreenProps } from '../../screens/registry.js';
import { CorrectionForm } from './correction-form.js';
import { isEmployee } from './day-screen.js';
import { type CorrectionRequest, type OwnEntry, REQUEST_STATUS, type SelfToday } from './model.js';
import { useLoaded } from './use-self.js';

interface TimesheetPage {
  items: { days: { date: string; workedHours: number; targetHours: number; balanceHours: number }[] }[];
}

function WeekTable(props: {
  entries: OwnEntry[];
  onCorrect: (entry: OwnEntry) => void;
  waiting: Set<string>;
}) {
  if (props.entries.length === 0) return <p>No entries this week.</p>;
  return (
    <DataTable
      caption="My entries this week"
      columns={['Day', 'From', 'To', 'Break', 'Hours', 'Status']}
      actions
    >
      {props.entries.map((entry) => (
        <tr key={entry.id}>
          <td data-label="Day">{formatDay(entry.workDate)}</td>
          <td data-label="From">{entry.startTime.slice(0, 5)}</td>
          <td data-label="To">
            {entry.endTime ? `${entry.endTime.slice(0, 5)}${entry.endsNextDay ? ' (+1)' : ''}` : '—'}
          </td>
          <td data-label="Break">{entry.breakMinutes === null ? '—' : `${entry.breakMinutes} min`}</td>
          <td data-label="Hours">{formatHours(entry.totalHours)}</td>
          <td data-label="Status">
            <StatusBadge status={entry.status} />
          </td>
          <td>
            {props.waiting.has(entry.id) ? (
              <span class="hint">Correction requested</span>
            ) : (
              <button type="button" onClick={() => props.onCorrect(entry)}>
                Request a correction<span class="visually-hidden"> of {formatDay(entry.workDate)}</span>
              </button>
            )}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

function DaysTable(props: { sheet: TimesheetPage | null }) {
  const days = props.sheet?.items[0]?.days ?? [];
  if (days.length === 0) return null;
  const total = days.reduce((sum, d) => sum + d.workedHours, 0);
  const target = days.reduce((sum, d) => sum + d.targetHours, 0);
  return (
    <section class="card" aria-labelledby="sheet-heading">
      <h2 id="sheet-heading">Timesheet</h2>
      <p>
        Worked <strong>{formatHours(total)}</strong> of {formatHours(target)} this week.
      </p>
      <DataTable caption="My timesheet this week" columns={['Day', 'Worked', 'Target', 'Balance']}>
        {days.map((d) => (
          <tr key={d.date}>
            <td data-label="Day">{formatDay(d.date)}</td>
            <td data-label="Worked">{formatHours(d.workedHours)}</td>
            <td data-label="Target">{formatHours(d.targetHours)}</td>
            <td data-label="Balance">{formatHours(d.balanceHours)}</td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}

function RequestsList(props: {
  requests: CorrectionRequest[];
  zone: string;
  onChanged: (message: string) => void;
}) {
  const [error, setError] = useState<string | null>(null);
  async function withdraw(id: string) {
    setError(null);
    try {
      await api('POST', `/self/correction-requests/${id}/withdraw`);
      props.onChanged('Your request was withdrawn.');
    } catch (caught) {
      setError(messageOf(caught));
    }
  }
  return (
    <section class="card" aria-labelledby="requests-heading">
      <h2 id="requests-heading">My correction requests</h2>
      <Notice tone="error" message={error} />
      {props.requests.length === 0 ? <p>You have not asked for a correction.</p> : null}
      <ul class="plain-list">
        {props.requests.map((r) => (
          <li key={r.id}>
            <strong>{formatDay(r.date)}</strong>: {REQUEST_STATUS[r.status]}
            {r.proposed.clockIn ? `, clock in at ${formatInstant(r.proposed.clockIn, props.zone)}` : ''}
            {r.proposed.clockOut ? `, clock out at ${formatInstant(r.proposed.clockOut, props.zone)}` : ''}
            {r.proposed.breakMinutes !== null ? `, break ${r.proposed.breakMinutes} min` : ''}. “{r.reason}”
            {r.decisionReason ? ` Manager: “${r.decisionReason}”` : ''}
            {r.status === 'requested' ? (
              <>
                {' '}
                <button type="button" onClick={() => void withdraw(r.id)}>
                  Withdraw<span class="visually-hidden"> the request of {formatDay(r.date)}</span>
                </button>
              </>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** `#/my-time?week=YYYY-MM-DD`: the person's entries and timesheet week by week, and correction requests. */
function TimeScreen({ person, route }: ScreenProps) {
  const self = useLoaded<SelfToday>('/self').data;
  const zone = self?.timeZone ?? companyZone(person);
  const weekParam = route.query.get('week') ?? '';
  const monday = mondayOf(isDay(weekParam) ? weekParam : todayIn(zone));
  const sunday = addDays(monday, 6);
  const entries = useLoaded<{ items: OwnEntry[] }>(`/self/time-entries?from=${monday}&to=${sunday}`);
  const sheet = useLoaded<TimesheetPage>(`/self/timesheet?from=${monday}&to=${sunday}`);
  const requests = useLoaded<{ items: CorrectionRequest[] }>('/self/correction-requests');
  const [editing, setEditing] = useState<OwnEntry | null | 'missing'>(null);
  const [message, setMessage] = useState<string | null>(null);
  const go = (week: string) => navigate(hrefOf(['my-time'], { week }), { replace: true });
  const waiting = new Set(
    (requests.data?.items ?? []).filter((r) => r.status === 'requested').flatMap((r) => r.timeEntryId ?? []),
  );
  const changed = (text: string) => {
    setEditing(null);
    setMessage(text);
    entries.reload();
    requests.reload();
  };
  return (
    <>
      <ScreenHeading title="My time">
        <p class="lede">Your entries and timesheet, week by week. Something wrong? Request a correction.</p>
      </ScreenHeading>
      <div class="week-nav" role="group" aria-label="Week">
        <button type="button" onClick={() => go(addDays(monday, -7))}>
          Previous week
        </button>
        <span class="week-label">
          {formatDay(monday)} – {formatDay(sunday)}
        </span>
        <button type="button" onClick={() => go(addDays(monday, 7))}>
          Next week
        </button>
      </div>
      <Notice tone="success" message={message} />
      <Notice tone="error" message={entries.error ?? sheet.error ?? requests.error} />
      <section class="card" aria-labelledby="entries-heading">
        <h2 id="entries-heading">Entries</h2>
        {entries.data === null && !entries.error ? <Loading what="your entries" /> : null}
        {entries.data ? (
          <WeekTable
            entries={entries.data.items}
            onCorrect={(entry) => setEditing(entry)}
            waiting={waiting}
          />
        ) : null}
        <button type="button" onClick={() => setEditing('missing')}>
          Report a missing entry
        </button>
      </section>
      {editing !== null ? (
        <CorrectionForm
          key={editing === 'missing' ? 'missing' : editing.id}
          entry={editing === 'missing' ? null : editing}
          day={todayIn(zone) < sunday ? todayIn(zone) : sunday}
          zone={zone}
          onDone={changed}
          onCancel={() => setEditing(null)}
        />
      ) : null}
      <DaysTable sheet={sheet.data} />
      {requests.data ? <RequestsList requests={requests.data.items} zone={zone} onChanged={changed} /> : null}
    </>
  );
}

export const timeScreen: Screen = {
  path: 'my-time',
  title: 'My time',
  allowed: isEmployee,
  component: TimeScreen,
};
