import { DataTable } from '../../components/table.js';
import { api } from '../../api.js';
import { SelectField } from '../../components/fields.js';
import { Loading, StatusBadge, ZoneNote } from '../../components/ui.js';
import { formatInstant } from '../../format.js';
import { DELIVERY_STATUS, type Delivery, type Endpoint } from './model.js';
import type { Webhooks } from './use-webhooks.js';

const REPLAY_WINDOWS = [
  ['1', 'hour'],
  ['24', '24 hours'],
  ['168', '7 days'],
] as const;

/** One endpoint's recent deliveries: a test ping, a refresh, a replay of a window, and each delivery again. */
export function DeliveriesCard(props: {
  hooks: Webhooks;
  endpoint: Endpoint;
  zone: string;
  timeZone: string | null;
}) {
  const { hooks, endpoint } = props;
  const deliveries = hooks.deliveries;
  return (
    <section class="card" aria-labelledby="webhook-deliveries-heading">
      <h2 id="webhook-deliveries-heading">Recent deliveries</h2>
      <ZoneNote timeZone={props.timeZone} />
      <div class="actions">
        <button
          type="button"
          disabled={hooks.busy}
          onClick={(event) => {
            hooks.remember(event);
            void hooks.act(async () => {
              await api('POST', `/webhooks/${endpoint.id}/test`);
              return 'A test delivery (ping) is queued.';
            });
          }}
        >
          Send a test delivery
        </button>
        <button type="button" onClick={() => void hooks.loadDeliveries(endpoint.id)}>
          Refresh deliveries
        </button>
      </div>
      <ReplayForm hooks={hooks} endpoint={endpoint} />
      {deliveries === null && !hooks.deliveryError ? <Loading what="deliveries" /> : null}
      {deliveries && deliveries.length === 0 ? <p>No delivery yet.</p> : null}
      {deliveries && deliveries.length > 0 ? (
        <DeliveryTable hooks={hooks} endpoint={endpoint} deliveries={deliveries} zone={props.zone} />
      ) : null}
    </section>
  );
}

/** Sends again every event of the last hour, day or week. */
function ReplayForm(props: { hooks: Webhooks; endpoint: Endpoint }) {
  const { hooks, endpoint } = props;
  const replayHours = hooks.replayHours;
  return (
    <form
      class="filter-row replay-row"
      onSubmit={(event) => {
        event.preventDefault();
        const to = new Date();
        const from = new Date(to.getTime() - Number(replayHours) * 3_600_000);
        void hooks.act(async () => {
          const { queued } = await api<{ queued: number }>('POST', `/webhooks/${endpoint.id}/replay`, {
            from: from.toISOString(),
            to: to.toISOString(),
          });
          return `${queued} ${queued === 1 ? 'delivery is' : 'deliveries are'} queued again.`;
        });
      }}
    >
      <SelectField
        label="Send the events of the last"
        value={replayHours}
        onChange={hooks.setReplayHours}
        choices={REPLAY_WINDOWS}
      />
      <button type="submit" disabled={hooks.busy}>
        Replay these events
      </button>
    </form>
  );
}

function lastAttempt(d: Delivery, zone: string): string {
  if (!d.lastAttemptAt) return '—';
  const outcome = d.statusCode !== null ? `status ${d.statusCode}` : (d.error ?? '');
  return `${formatInstant(d.lastAttemptAt, zone)}: ${outcome}, ${d.attempts} ${d.attempts === 1 ? 'attempt' : 'attempts'}`;
}

function DeliveryTable(props: { hooks: Webhooks; endpoint: Endpoint; deliveries: Delivery[]; zone: string }) {
  const { hooks, endpoint, zone } = props;
  return (
    <DataTable
      caption="Recent deliveries, newest first"
      columns={['Queued', 'Event', 'Status', 'Last attempt']}
      actions
    >
      {props.deliveries.map((d) => (
        <tr key={d.id}>
          <th scope="row" data-label="Queued" class="nowrap">
            {formatInstant(d.createdAt, zone)}
          </th>
          <td data-label="Event">
            <code>{d.eventType}</code>
            <span class="sub"> {d.origin === 'event' ? '' : `(${d.origin})`}</span>
          </td>
          <td data-label="Status">
            <StatusBadge status={DELIVERY_STATUS[d.status] ?? d.status} />
            {d.status === 'pending' ? <span class="sub"> not sent yet</span> : null}
          </td>
          <td data-label="Last attempt">{lastAttempt(d, zone)}</td>
          <td data-label="Actions" class="row-actions">
            <button
              type="button"
              disabled={hooks.busy}
              aria-label={`Send again: the ${d.eventType} delivery of ${formatInstant(d.createdAt, zone)}`}
              onClick={(event) => {
                hooks.remember(event);
                void hooks.act(async () => {
                  await api('POST', `/webhooks/${endpoint.id}/replay`, { deliveryId: d.id });
                  return `The ${d.eventType} delivery is queued again.`;
                });
              }}
            >
              Send again
            </button>
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
