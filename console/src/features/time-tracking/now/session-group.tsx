import { DataTable } from '../../../components/table.js';
import { StatusBadge } from '../../../components/ui.js';
import { formatInstant } from '../../../format.js';
import { personName } from '../../../names.js';
import { NeedsCorrection } from '../../corrections/needs-correction.js';
import { duration, type OpenSession, timeOf } from './model.js';

/** The people clocked in at one workplace, longest first. */
export function SessionGroup(props: {
  id: string;
  name: string;
  items: OpenSession[];
  zone: string;
  now: number;
}) {
  const { id, name, zone, now } = props;
  return (
    <section class="card" aria-labelledby={`now-group-${id}`}>
      <h2 id={`now-group-${id}`}>
        {name} <span class="count">({props.items.length} clocked in)</span>
      </h2>
      <DataTable
        caption={<>Clocked in at {name}, longest first</>}
        columns={['Employee', 'Clocked in', 'For', 'Status']}
      >
        {props.items.map((session) => (
          <tr key={session.timeEntryId}>
            <th scope="row" data-label="Employee">
              {personName(session.employee)}
              {session.employee.externalId ? (
                <span class="sub"> badge {session.employee.externalId}</span>
              ) : null}
            </th>
            <td data-label="Clocked in">{formatInstant(session.since, zone)}</td>
            <td data-label="For">{duration(session.since, now)}</td>
            <td data-label="Status">
              <StatusBadge status={session.onBreak ? 'on_break' : 'working'} />
              {session.onBreak && session.breakSince ? (
                <span class="sub"> since {timeOf(session.breakSince, zone).slice(0, 5)}</span>
              ) : null}
              {session.needsCorrection ? (
                <NeedsCorrection
                  employeeId={session.employee.id}
                  name={personName(session.employee)}
                  since={session.since}
                  zone={zone}
                />
              ) : null}
            </td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}
