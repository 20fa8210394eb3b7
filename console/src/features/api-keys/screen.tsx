import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, companyZone, messageOf, may, PERMISSIONS } from '../../api.js';
import { SecretOnce } from '../../components/secret-once.js';
import { Loading, Notice, ScreenHeading, ZoneNote } from '../../components/ui.js';
import type { Screen, ScreenProps } from '../../screens/registry.js';
import { CreateKeyForm } from './create-key-form.js';
import { RevokeDialog, RotateDialog } from './key-dialogs.js';
import { KeyTable } from './key-table.js';
import type { ApiKey, KeyWithSecret } from './model.js';

/** The keys, the messages about them and the secret shown once. */
function useKeys() {
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const [secret, setSecret] = useState<KeyWithSecret | null>(null);
  const load = useCallback(async () => {
    try {
      setKeys((await api<{ items: ApiKey[] }>('GET', '/api-keys')).items);
      setLoadError(null);
    } catch (error) {
      setLoadError(messageOf(error));
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);
  return { keys, loadError, status, setStatus, actionError, setActionError, secret, setSecret, load };
}

type Keys = ReturnType<typeof useKeys>;

/** Rotating and revoking a key: the dialogs' state and what confirming does. */
function useKeyActions(keys: Keys) {
  const [rotating, setRotating] = useState<ApiKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [grace, setGrace] = useState(86_400);
  const [busy, setBusy] = useState(false);
  const opener = useRef<HTMLElement | null>(null);

  function closeDialogs() {
    setRotating(null);
    setRevoking(null);
    opener.current?.focus();
  }

  async function run(work: () => Promise<void>, onError: () => void) {
    setBusy(true);
    keys.setActionError(null);
    try {
      await work();
    } catch (error) {
      onError();
      keys.setActionError(messageOf(error));
    } finally {
      setBusy(false);
    }
  }

  const rotate = (key: ApiKey) =>
    run(
      async () => {
        const path = `/api-keys/${encodeURIComponent(key.id)}/rotate`;
        const rotated = await api<KeyWithSecret>('POST', path, { graceSeconds: grace });
        setRotating(null);
        keys.setSecret(rotated);
        keys.setStatus(`Key “${key.name}” has a new secret.`);
        await keys.load();
      },
      () => setRotating(null),
    );

  const revoke = (key: ApiKey) =>
    run(
      async () => {
        await api<ApiKey>('POST', `/api-keys/${encodeURIComponent(key.id)}/revoke`);
        keys.setStatus(`Key “${key.name}” is revoked: it gets no new tokens.`);
        await keys.load();
        closeDialogs();
      },
      () => setRevoking(null),
    );

  function open(key: ApiKey, kind: 'rotate' | 'revoke', button: HTMLElement) {
    opener.current = button;
    keys.setActionError(null);
    (kind === 'rotate' ? setRotating : setRevoking)(key);
  }

  return { rotating, revoking, grace, setGrace, busy, closeDialogs, rotate, revoke, open };
}

function ApiKeysScreen({ person }: ScreenProps) {
  const keys = useKeys();
  const actions = useKeyActions(keys);
  const list = keys.keys;
  return (
    <>
      <ScreenHeading title="API keys">
        <p class="lede">
          Keys let other systems (badge terminals, payroll, HR) call the Punchclock API for this company.
        </p>
        <ZoneNote timeZone={person.company.timeZone} />
      </ScreenHeading>
      {keys.secret ? (
        <SecretOnce
          headingId="secret-heading"
          heading={<>Secret of “{keys.secret.name}”: copy it now</>}
          explanation="Store it in the system that will use the key. If it is lost, rotate the key to get a new one."
          label="Client secret"
          secret={keys.secret.clientSecret}
          rows={3}
          onDone={() => {
            keys.setSecret(null);
            document.getElementById('keys-heading')?.focus();
          }}
        >
          <dl class="pairs">
            <dt>Client id</dt>
            <dd>
              <code class="client-id">{keys.secret.clientId}</code>
            </dd>
          </dl>
        </SecretOnce>
      ) : null}
      <Notice tone="success" message={keys.status} />
      <Notice tone="error" message={keys.actionError} />
      <section aria-labelledby="keys-heading">
        <h2 id="keys-heading" tabIndex={-1}>
          Keys
        </h2>
        {keys.loadError ? (
          <Notice tone="error" message={`The keys could not be loaded: ${keys.loadError}`} />
        ) : null}
        {list === null && !keys.loadError ? <Loading what="keys" /> : null}
        {list !== null && list.length === 0 ? <p>This company has no API keys yet.</p> : null}
        {list !== null && list.length > 0 ? (
          <KeyTable
            keys={list}
            companyName={person.company.name}
            zone={companyZone(person)}
            onAction={actions.open}
          />
        ) : null}
      </section>
      <CreateKeyForm
        person={person}
        onCreated={async (created) => {
          keys.setSecret(created);
          keys.setStatus(`Key “${created.name}” is created.`);
          await keys.load();
        }}
      />
      <RotateDialog
        apiKey={actions.rotating}
        busy={actions.busy}
        grace={actions.grace}
        onGrace={actions.setGrace}
        onConfirm={(key) => void actions.rotate(key)}
        onCancel={actions.closeDialogs}
      />
      <RevokeDialog
        apiKey={actions.revoking}
        busy={actions.busy}
        onConfirm={(key) => void actions.revoke(key)}
        onCancel={actions.closeDialogs}
      />
    </>
  );
}

export const apiKeysScreen: Screen = {
  path: 'api-keys',
  title: 'API keys',
  allowed: (person) => may(person, PERMISSIONS.manageKeys),
  component: ApiKeysScreen,
};
