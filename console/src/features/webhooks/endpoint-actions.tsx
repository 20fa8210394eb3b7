import { ConfirmDialog } from '../../components/ui.js';
import { hrefOf } from '../../router.js';
import type { Endpoint } from './model.js';
import { toggle, type Webhooks } from './use-webhooks.js';

/** Open (from the list), enable or disable, rotate the secret, delete. */
export function EndpointActions(props: { hooks: Webhooks; endpoint: Endpoint; onDetail: boolean }) {
  const { hooks, endpoint } = props;
  const verb = endpoint.status === 'active' ? 'Disable' : 'Enable';
  return (
    <>
      {props.onDetail ? null : (
        <a
          class="button-link"
          href={hrefOf(['webhooks', endpoint.id])}
          aria-label={`Open ${endpoint.url}: deliveries and settings`}
        >
          Open
        </a>
      )}
      <button
        type="button"
        disabled={hooks.busy}
        aria-label={`${verb} ${endpoint.url}`}
        onClick={(event) => {
          hooks.remember(event);
          void toggle(hooks, endpoint);
        }}
      >
        {verb}
      </button>
      <button
        type="button"
        aria-label={`Rotate secret of ${endpoint.url}`}
        onClick={(event) => {
          hooks.remember(event);
          hooks.setPending({ kind: 'rotate', endpoint });
        }}
      >
        Rotate secret
      </button>
      <button
        type="button"
        class="danger-outline"
        aria-label={`Delete ${endpoint.url}`}
        onClick={(event) => {
          hooks.remember(event);
          hooks.setPending({ kind: 'delete', endpoint });
        }}
      >
        Delete
      </button>
    </>
  );
}

/** The confirmation of a deletion or a secret rotation. */
export function PendingDialog(props: { hooks: Webhooks }) {
  const { hooks } = props;
  const pending = hooks.pending;
  const deleting = pending?.kind === 'delete';
  return (
    <ConfirmDialog
      open={pending !== null}
      title={
        deleting ? `Delete ${pending.endpoint.url}?` : `Rotate the secret of ${pending?.endpoint.url ?? ''}?`
      }
      confirmLabel={deleting ? 'Delete endpoint' : 'Rotate and show the new secret'}
      danger={deleting}
      busy={hooks.busy}
      onConfirm={hooks.confirm}
      onCancel={hooks.cancel}
    >
      <p>
        {deleting
          ? 'Nothing more is sent to it, and its delivery history is deleted. This cannot be undone.'
          : 'A new secret, shown once. The current one keeps signing beside it for 24 hours, so the receiver can switch.'}
      </p>
    </ConfirmDialog>
  );
}
