import { companyZone, may, PERMISSIONS } from '../../api.js';
import { SecretOnce } from '../../components/secret-once.js';
import { Loading, Notice, ScreenHeading } from '../../components/ui.js';
import { formatInstant } from '../../format.js';
import type { Screen, ScreenProps } from '../../screens/registry.js';
import { PendingDialog } from './endpoint-actions.js';
import { EndpointDetail } from './endpoint-detail.js';
import { EndpointForm } from './endpoint-form.js';
import { EndpointList } from './endpoint-list.js';
import type { WithSecret } from './model.js';
import { useWebhooks, type Webhooks } from './use-webhooks.js';

/** The signing secret of a new endpoint, or of one whose secret was rotated, shown once. */
function EndpointSecret(props: { hooks: Webhooks; endpoint: WithSecret }) {
  const { endpoint } = props;
  return (
    <SecretOnce
      headingId="webhook-secret-heading"
      heading={<>Signing secret of {endpoint.url}: copy it now</>}
      explanation="The receiver verifies every delivery's signature with it (Standard Webhooks). If it is lost, rotate the secret."
      more={
        endpoint.previousSecretValidUntil
          ? ` The previous secret keeps signing beside it until ${formatInstant(endpoint.previousSecretValidUntil, 'UTC')}.`
          : ''
      }
      label="Signing secret"
      secret={endpoint.secret}
      rows={2}
      onDone={() => {
        props.hooks.setSecret(null);
        props.hooks.setStatus('The secret is no longer shown.');
      }}
    />
  );
}

/** `#/webhooks`: the endpoints and a form for a new one; `#/webhooks/<id>`: one endpoint. */
function WebhooksScreen({ person, route }: ScreenProps) {
  const [, target] = route.segments;
  const hooks = useWebhooks(target);
  const secretPanel = hooks.secret ? <EndpointSecret hooks={hooks} endpoint={hooks.secret} /> : null;
  const dialog = <PendingDialog hooks={hooks} />;
  if (target)
    return (
      <EndpointDetail
        hooks={hooks}
        target={target}
        zone={companyZone(person)}
        timeZone={person.company.timeZone}
        secretPanel={secretPanel}
        dialog={dialog}
      />
    );
  return (
    <>
      <ScreenHeading title="Webhooks">
        <p class="lede">
          The systems told about changes in {person.company.name} as they happen, signed per Standard
          Webhooks.
        </p>
      </ScreenHeading>
      <Notice tone="success" message={hooks.status} />
      <Notice tone="error" message={hooks.actionError} />
      <Notice tone="error" message={hooks.loadError} />
      {secretPanel}
      {hooks.endpoints === null && !hooks.loadError ? <Loading what="webhook endpoints" /> : null}
      {hooks.endpoints ? <EndpointList hooks={hooks} endpoints={hooks.endpoints} /> : null}
      <section aria-labelledby="webhook-new-heading" class="card">
        <h2 id="webhook-new-heading">Add an endpoint</h2>
        <EndpointForm
          endpoint={null}
          onSaved={(saved) => {
            hooks.setSecret(saved as WithSecret);
            void hooks.load();
            hooks.setStatus(`${saved.url} is created.`);
          }}
        />
      </section>
      {dialog}
    </>
  );
}

export const webhooksScreen: Screen = {
  path: 'webhooks',
  title: 'Webhooks',
  allowed: (person) => may(person, PERMISSIONS.manageCompany),
  component: WebhooksScreen,
};
