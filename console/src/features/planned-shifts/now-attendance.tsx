import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, messageOf } from '../../api.js';
import { Notice } from '../../components/ui.js';
import { personName } from '../../names.js';

interface Expected {
  state: 'late' | 'not_yet_in';
  minutesLate: number;
  plannedShiftId: string;
  start: string;
  end: string;
  employee: {
    id: string;
    externalId: string | null;
    firstName: string | null;
    lastName: string | null;
    email: string;
  };
  workplace: { id: string; name: string };
}

/** "09:00" of an instant written with its zone's offset (the planned shift's own wall clock). */
const wallTime = (instant: string) => instant.slice(11, 16);

function summary(items: Expected[]): string {
  const late = items.filter((i) => i.state === 'late').length;
  const waiting = items.length - late;
  if (items.length === 0) return 'Everyone planned so far has clocked in.';
  return `${late} late, ${waiting} not yet in.`;
}

/**
 * Who is expected and not in (at `workplaceId`, or anywhere), asked again with the Now screen's poll
 * while the page is visible and not paused; only the newest request's answer is shown.
 */
function useExpected(workplaceId: string, paused: boolean, pollSeconds: number) {
  const [items, setItems] = useState<Expected[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const latest = useRef(0);
  const load = useCallback(async () => {
    const mine = ++latest.current;
    try {
      const query = workplaceId ? `?${new URLSearchParams({ workplaceId })}` : '';
      const answer = await api<{ items: Expected[] }>('GET', `/attendance/now${query}`);
      if (mine !== latest.current) return;
      setItems(answer.items);
      setError(null);
    } catch (caught) {
      if (mine === latest.current) setError(`Who is late could not be updated: ${messageOf(caught)}`);
    }
  }, [workplaceId]);
  useEffect(() => {
    void load();
  }, [load]);
  useEffect(() => {
    if (paused) return;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') void load();
    }, pollSeconds * 1000);
    return () => clearInterval(timer);
  }, [load, paused, pollSeconds]);
  return { items, error };
}

/** One workplace's late and not yet in; its caption reads as the group's heading. */
function ExpectedGroup(props: { name: string; items: Expected[] }) {
  return (
    <div class="table-wrap">
      <table class="data-table expected-table">
        <caption>
          {props.name} <span class="count">({props.items.length})</span>
        </caption>
        <thead>
          <tr>
            <th scope="col">Employee</th>
            <th scope="col">Shift</th>
            <th scope="col">State</th>
          </tr>
        </thead>
        <tbody>
          {props.items.map((item) => (
            <tr key={item.plannedShiftId}>
              <th scope="row" data-label="Employee">
                {personName(item.employee)}
              </th>
              <td data-label="Shift">
                {wallTime(item.start)}–{wallTime(item.end)}
              </td>
              <td data-label="State">
                <span class={`badge ${item.state === 'late' ? 'badge-bad' : 'badge-pending'}`}>
                  <span aria-hidden="true">{item.state === 'late' ? '⚠ ' : '○ '}</span>
                  {item.state === 'late' ? `Late, ${item.minutesLate} min` : 'Not yet in'}
                </span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * The Now screen's "late" and "not yet in" per workplace (issue 33): published shifts that have
 * started, or start within the hour, without a clock-in for them. Updated with the screen's poll.
 */
export function NowAttendance(props: { workplaceId: string; paused: boolean; pollSeconds: number }) {
  const { items, error } = useExpected(props.workplaceId, props.paused, props.pollSeconds);
  const groups = new Map<string, { name: string; items: Expected[] }>();
  for (const item of items ?? []) {
    const group = groups.get(item.workplace.id) ?? { name: item.workplace.name, items: [] };
    group.items.push(item);
    groups.set(item.workplace.id, group);
  }
  return (
    <section class="card" aria-labelledby="now-expected-heading">
      <h2 id="now-expected-heading">Late and not yet in</h2>
      <Notice tone="error" message={error} />
      <div role="status" class="now-expected-summary">
        {items ? summary(items) : null}
      </div>
      {[...groups.entries()].map(([id, group]) => (
        <ExpectedGroup key={id} name={group.name} items={group.items} />
      ))}
    </section>
  );
}
