import { DataTable } from '../../components/table.js';
import { StatusBadge } from '../../components/ui.js';
import { EndpointActions } from './endpoint-actions.js';
import type { Endpoint } from './model.js';
import type { Webhooks } from './use-webhooks.js';

/** The company's endpoints (at most 20), with their actions. */
export function EndpointList(props: { hooks: Webhooks; endpoints: Endpoint[] }) {
  const { endpoints } = props;
  return (
    <section aria-labelledby="webhooks-list-heading">
      <h2 id="webhooks-list-heading">
        Endpoints <span class="count">({endpoints.length} of at most 20)</span>
      </h2>
      {endpoints.length === 0 ? (
        <p>No webhook endpoint yet.</p>
      ) : (
        <DataTable caption="Webhook endpoints" columns={['Receiver', 'Events', 'Status']} actions>
          {endpoints.map((endpoint) => (
            <EndpointRow key={endpoint.id} hooks={props.hooks} endpoint={endpoint} />
          ))}
        </DataTable>
      )}
    </section>
  );
}

function EndpointRow(props: { hooks: Webhooks; endpoint: Endpoint }) {
  const { endpoint } = props;
  return (
    <tr>
      <th scope="row" data-label="Receiver" class="wrap-anywhere">
        {endpoint.url}
        {endpoint.description ? <span class="sub"> {endpoint.description}</span> : null}
      </th>
      <td data-label="Events">
        <ul class="plain-list">
          {endpoint.eventTypes.map((t) => (
            <li key={t}>
              <code>{t}</code>
            </li>
          ))}
        </ul>
      </td>
      <td data-label="Status">
        <StatusBadge status={endpoint.status === 'active' ? 'active' : 'disabled'} />
        {endpoint.disabledReason ? <p class="sub">{endpoint.disabledReason}</p> : null}
      </td>
      <td data-label="Actions" class="row-actions">
        <EndpointActions hooks={props.hooks} endpoint={endpoint} onDetail={false} />
      </td>
    </tr>
  );
}
