import type { ComponentChildren } from 'preact';
import { Loading, Notice, ScreenHeading, StatusBadge } from '../../components/ui.js';
import { hrefOf } from '../../router.js';
import { DeliveriesCard } from './deliveries.js';
import { EndpointActions } from './endpoint-actions.js';
import { EndpointForm } from './endpoint-form.js';
import type { Endpoint } from './model.js';
import type { Webhooks } from './use-webhooks.js';

/** `#/webhooks/<id>`: one endpoint's state, settings and recent deliveries. */
export function EndpointDetail(props: {
  hooks: Webhooks;
  target: string;
  zone: string;
  timeZone: string | null;
  /** The secret shown once, the dialog: what both pages of the screen show. */
  secretPanel: ComponentChildren;
  dialog: ComponentChildren;
}) {
  const { hooks } = props;
  const endpoint = hooks.endpoints?.find((e) => e.id === props.target) ?? null;
  const missing = hooks.endpoints !== null && endpoint === null;
  return (
    <>
      <ScreenHeading title="Webhook endpoint">
        <p class="lede">{endpoint ? endpoint.url : 'Settings and recent deliveries of one endpoint.'}</p>
      </ScreenHeading>
      <p>
        <a href={hrefOf(['webhooks'])}>Back to all webhook endpoints</a>
      </p>
      {missing ? <Notice tone="error" message="No such webhook endpoint in this company." /> : null}
      {!missing ? <Notice tone="error" message={hooks.deliveryError} /> : null}
      <Notice tone="success" message={hooks.status} />
      <Notice tone="error" message={hooks.actionError} />
      {props.secretPanel}
      {endpoint === null && !missing ? <Loading what="the endpoint" /> : null}
      {endpoint ? (
        <>
          <StateCard hooks={hooks} endpoint={endpoint} />
          <section class="card" aria-labelledby="webhook-edit-heading">
            <h2 id="webhook-edit-heading">Settings</h2>
            <EndpointForm
              key={endpoint.updatedAt}
              endpoint={endpoint}
              onSaved={(saved) => {
                void hooks.load();
                hooks.setStatus(`The changes to ${saved.url} are saved.`);
              }}
            />
          </section>
          <DeliveriesCard hooks={hooks} endpoint={endpoint} zone={props.zone} timeZone={props.timeZone} />
        </>
      ) : null}
      {props.dialog}
    </>
  );
}

function StateCard(props: { hooks: Webhooks; endpoint: Endpoint }) {
  const { endpoint } = props;
  return (
    <section class="card" aria-labelledby="webhook-state-heading">
      <h2 id="webhook-state-heading">State</h2>
      <p>
        <StatusBadge status={endpoint.status === 'active' ? 'active' : 'disabled'} />
        {endpoint.disabledReason ? <span class="sub"> {endpoint.disabledReason}</span> : null}
      </p>
      <div class="actions">
        <EndpointActions hooks={props.hooks} endpoint={endpoint} onDetail={true} />
      </div>
    </section>
  );
}
