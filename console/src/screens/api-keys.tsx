import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiProblem, companyZone, messageOf, may, PERMISSIONS, type Person } from '../api.js';
import {
  ConfirmDialog,
  Field,
  Loading,
  Notice,
  ScreenHeading,
  StatusBadge,
  ZoneNote,
} from '../components/ui.js';
import { formatInstant, isDay } from '../format.js';
import type { Screen, ScreenProps } from './registry.js';

export interface ApiKey {
  id: string;
  name: string;
  clientId: string;
  scopes: string[];
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
  allowedIps: string[];
  previousSecretValidUntil: string | null;
}

type KeyWithSecret = ApiKey & { clientSecret: string };

/**
 * The specification's scopes (Authentication): machine scopes may always be granted; a human scope
 * needs its permission (or a super admin). The server applies the same rule; this only explains it.
 */
const SCOPES = [
  {
    id: 'attendance.record',
    permission: 86,
    label: 'Record clock events and completed shifts',
    machine: true,
  },
  { id: 'attendance.read', permission: 47, label: 'Read time entries', machine: false },
  { id: 'attendance.reports', permission: 49, label: 'Read time reports', machine: false },
  { id: 'employees.read', permission: 52, label: 'Read employees', machine: false },
  { id: 'leave.read', permission: 72, label: 'Read leave balances and requests', machine: false },
  {
    id: 'webhooks.manage',
    permission: 94,
    label: "Manage the company's webhook endpoints (deliveries carry only events the key can read)",
    machine: true,
  },
] as const;

const GRACE_PERIODS = [
  { seconds: 0, label: 'None: the old secret stops working now' },
  { seconds: 3600, label: '1 hour' },
  { seconds: 86_400, label: '24 hours' },
  { seconds: 7 * 86_400, label: '7 days' },
];

function keyStatus(key: ApiKey, now: number): 'active' | 'revoked' | 'expired' {
  if (key.revokedAt) return 'revoked';
  if (key.expiresAt && Date.parse(key.expiresAt) <= now) return 'expired';
  return 'active';
}

function ApiKeysScreen({ person }: ScreenProps) {
  const zone = companyZone(person);
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const [secret, setSecret] = useState<KeyWithSecret | null>(null);
  const [rotating, setRotating] = useState<ApiKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [grace, setGrace] = useState(86_400);
  const [busy, setBusy] = useState(false);
  const opener = useRef<HTMLElement | null>(null);

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

  function closeDialogs() {
    setRotating(null);
    setRevoking(null);
    opener.current?.focus();
  }

  async function rotate(key: ApiKey) {
    setBusy(true);
    setActionError(null);
    try {
      const rotated = await api<KeyWithSecret>('POST', `/api-keys/${encodeURIComponent(key.id)}/rotate`, {
        graceSeconds: grace,
      });
      setRotating(null);
      setSecret(rotated);
      setStatus(`Key “${key.name}” has a new secret.`);
      await load();
    } catch (error) {
      setRotating(null);
      setActionError(messageOf(error));
    } finally {
      setBusy(false);
    }
  }

  async function revoke(key: ApiKey) {
    setBusy(true);
    setActionError(null);
    try {
      await api<ApiKey>('POST', `/api-keys/${encodeURIComponent(key.id)}/revoke`);
      setStatus(`Key “${key.name}” is revoked: it gets no new tokens.`);
      await load();
      closeDialogs();
    } catch (error) {
      setRevoking(null);
      setActionError(messageOf(error));
    } finally {
      setBusy(false);
    }
  }

  const now = Date.now();
  return (
    <>
      <ScreenHeading title="API keys">
        <p class="lede">
          Keys let other systems (badge terminals, payroll, HR) call the Punchclock API for this company.
        </p>
        <ZoneNote timeZone={person.company.timeZone} />
      </ScreenHeading>
      {secret ? (
        <SecretPanel
          apiKey={secret}
          onDone={() => {
            setSecret(null);
            document.getElementById('keys-heading')?.focus();
          }}
        />
      ) : null}
      <Notice tone="success" message={status} />
      <Notice tone="error" message={actionError} />
      <section aria-labelledby="keys-heading">
        <h2 id="keys-heading" tabIndex={-1}>
          Keys
        </h2>
        {loadError ? <Notice tone="error" message={`The keys could not be loaded: ${loadError}`} /> : null}
        {keys === null && !loadError ? <Loading what="keys" /> : null}
        {keys !== null && keys.length === 0 ? <p>This company has no API keys yet.</p> : null}
        {keys !== null && keys.length > 0 ? (
          <div class="table-wrap">
            <table class="data-table">
              <caption class="visually-hidden">API keys of {person.company.name}</caption>
              <thead>
                <tr>
                  <th scope="col">Key and client id</th>
                  <th scope="col">Scopes</th>
                  <th scope="col">Status</th>
                  <th scope="col">Last used</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Allowed IPs</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {keys.map((key) => {
                  const state = keyStatus(key, now);
                  return (
                    <tr key={key.id}>
                      <th scope="row" data-label="Key">
                        {key.name}
                        <code class="client-id sub">{key.clientId}</code>
                      </th>
                      <td data-label="Scopes">
                        <ul class="plain-list">
                          {key.scopes.map((s) => (
                            <li key={s}>
                              <code>{s}</code>
                            </li>
                          ))}
                        </ul>
                      </td>
                      <td data-label="Status">
                        <StatusBadge status={state} />
                        {state === 'revoked' ? (
                          <span class="sub">since {formatInstant(key.revokedAt, zone)}</span>
                        ) : null}
                        {state === 'active' &&
                        key.previousSecretValidUntil &&
                        Date.parse(key.previousSecretValidUntil) > now ? (
                          <span class="sub">
                            old secret valid until {formatInstant(key.previousSecretValidUntil, zone)}
                          </span>
                        ) : null}
                      </td>
                      <td data-label="Last used">
                        {key.lastUsedAt ? formatInstant(key.lastUsedAt, zone) : 'Never'}
                      </td>
                      <td data-label="Expires">
                        {key.expiresAt ? formatInstant(key.expiresAt, zone) : 'Never'}
                      </td>
                      <td data-label="Allowed IP ranges">
                        {key.allowedIps.length === 0 ? (
                          'Any address'
                        ) : (
                          <ul class="plain-list">
                            {key.allowedIps.map((ip) => (
                              <li key={ip}>
                                <code>{ip}</code>
                              </li>
                            ))}
                          </ul>
                        )}
                      </td>
                      <td data-label="Actions" class="row-actions">
                        {state === 'active' ? (
                          <>
                            <button
                              type="button"
                              aria-label={`Rotate key ${key.name}`}
                              onClick={(event) => {
                                opener.current = event.currentTarget;
                                setActionError(null);
                                setRotating(key);
                              }}
                            >
                              Rotate
                            </button>
                            <button
                              type="button"
                              class="danger-outline"
                              aria-label={`Revoke key ${key.name}`}
                              onClick={(event) => {
                                opener.current = event.currentTarget;
                                setActionError(null);
                                setRevoking(key);
                              }}
                            >
                              Revoke
                            </button>
                          </>
                        ) : (
                          <span class="sub">No actions</span>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        ) : null}
      </section>
      <CreateKeyForm
        person={person}
        onCreated={async (created) => {
          setSecret(created);
          setStatus(`Key “${created.name}” is created.`);
          await load();
        }}
      />
      <ConfirmDialog
        open={rotating !== null}
        title={`Rotate key “${rotating?.name ?? ''}”`}
        confirmLabel="Rotate and show the new secret"
        busy={busy}
        onConfirm={() => rotating && void rotate(rotating)}
        onCancel={closeDialogs}
      >
        <p>The key gets a new secret, shown once. Systems using the old secret must be updated.</p>
        <Field label="Keep the old secret working for">
          {({ id }) => (
            <select id={id} value={String(grace)} onChange={(e) => setGrace(Number(e.currentTarget.value))}>
              {GRACE_PERIODS.map((g) => (
                <option key={g.seconds} value={String(g.seconds)}>
                  {g.label}
                </option>
              ))}
            </select>
          )}
        </Field>
      </ConfirmDialog>
      <ConfirmDialog
        open={revoking !== null}
        title={`Revoke key “${revoking?.name ?? ''}”?`}
        confirmLabel="Revoke key"
        danger
        busy={busy}
        onConfirm={() => revoking && void revoke(revoking)}
        onCancel={closeDialogs}
      >
        <p>
          The key gets no new tokens from now on; tokens it already has stop working within 15 minutes. This
          cannot be undone.
        </p>
      </ConfirmDialog>
    </>
  );
}

/** The secret, once: shown with a copy button until the person says they are done. */
function SecretPanel(props: { apiKey: KeyWithSecret; onDone: () => void }) {
  const ref = useRef<HTMLElement>(null);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const [copied, setCopied] = useState<string | null>(null);
  useEffect(() => ref.current?.focus(), [props.apiKey.clientSecret]);

  async function copy() {
    const value = props.apiKey.clientSecret;
    try {
      await navigator.clipboard.writeText(value);
      setCopied('Copied to the clipboard.');
    } catch {
      // Without clipboard access (plain http on another host), select the text for Ctrl+C.
      inputRef.current?.select();
      setCopied('Selected: press Ctrl+C (or ⌘C) to copy.');
    }
  }

  return (
    <section class="secret-panel" aria-labelledby="secret-heading" tabIndex={-1} ref={ref}>
      <h2 id="secret-heading">Secret of “{props.apiKey.name}”: copy it now</h2>
      <p>
        <strong>This secret is shown only once.</strong> Store it in the system that will use the key. If it
        is lost, rotate the key to get a new one.
      </p>
      <dl class="pairs">
        <dt>Client id</dt>
        <dd>
          <code class="client-id">{props.apiKey.clientId}</code>
        </dd>
      </dl>
      <Field label="Client secret">
        {({ id }) => (
          <div class="copy-row">
            <textarea
              ref={inputRef}
              id={id}
              class="secret-value"
              readOnly
              rows={3}
              value={props.apiKey.clientSecret}
              spellcheck={false}
              autocomplete="off"
              onFocus={(e) => e.currentTarget.select()}
            />
            <button type="button" class="primary" onClick={() => void copy()}>
              Copy secret
            </button>
          </div>
        )}
      </Field>
      <p role="status" class="copy-status">
        {copied}
      </p>
      <button type="button" onClick={props.onDone}>
        I have stored the secret
      </button>
    </section>
  );
}

function CreateKeyForm(props: { person: Person; onCreated: (key: KeyWithSecret) => Promise<void> }) {
  const { person } = props;
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>([]);
  const [expires, setExpires] = useState('');
  const [ips, setIps] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});

  async function submit(event: Event) {
    event.preventDefault();
    setError(null);
    const errors: Record<string, string> = {};
    if (name.trim() === '') errors.name = 'Give the key a name, e.g. the system that will use it.';
    if (scopes.length === 0) errors.scopes = 'Choose at least one scope.';
    if (expires !== '' && !isDay(expires)) errors.expiresAt = 'Use a date like 2027-01-31.';
    setFieldErrors(errors);
    if (Object.keys(errors).length > 0) return;
    const allowedIps = ips
      .split(/[\s,]+/)
      .map((s) => s.trim())
      .filter((s) => s !== '');
    setBusy(true);
    try {
      const created = await api<KeyWithSecret>('POST', '/api-keys', {
        name: name.trim(),
        scopes,
        ...(expires ? { expiresAt: expires } : {}),
        ...(allowedIps.length > 0 ? { allowedIps } : {}),
      });
      setName('');
      setScopes([]);
      setExpires('');
      setIps('');
      await props.onCreated(created);
    } catch (caught) {
      const next: Record<string, string> = {};
      if (caught instanceof ApiProblem)
        for (const field of ['name', 'scopes', 'expiresAt', 'allowedIps']) {
          const message = caught.fieldError(field);
          if (message) next[field] = message;
        }
      setFieldErrors(next);
      setError(
        Object.keys(next).length > 0
          ? 'The key was not created: see the fields marked below.'
          : messageOf(caught),
      );
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="create-key-heading" class="card">
      <h2 id="create-key-heading">Create a key</h2>
      <Notice tone="error" message={error} />
      <form onSubmit={(event) => void submit(event)} class="stack" noValidate>
        <Field label="Name" hint="Who or what uses the key, e.g. “Payroll export”." error={fieldErrors.name}>
          {({ id, describedBy, invalid }) => (
            <input
              id={id}
              aria-describedby={describedBy}
              aria-invalid={invalid}
              type="text"
              required
              maxLength={200}
              value={name}
              onInput={(e) => setName(e.currentTarget.value)}
            />
          )}
        </Field>
        <fieldset
          class={fieldErrors.scopes ? 'field-invalid' : undefined}
          aria-describedby={fieldErrors.scopes ? 'scopes-error' : 'scopes-hint'}
        >
          <legend>Scopes</legend>
          <p class="hint" id="scopes-hint">
            Recording scopes can always be granted; reading scopes need your own permission for the same data.
          </p>
          {SCOPES.map((scope) => {
            const allowed = scope.machine || may(person, scope.permission);
            const id = `scope-${scope.id}`;
            return (
              <div class="check" key={scope.id}>
                <input
                  type="checkbox"
                  id={id}
                  checked={scopes.includes(scope.id)}
                  disabled={!allowed}
                  aria-describedby={allowed ? undefined : `${id}-why`}
                  onChange={(e) =>
                    setScopes((current) =>
                      e.currentTarget.checked
                        ? [...current, scope.id]
                        : current.filter((s) => s !== scope.id),
                    )
                  }
                />
                <label for={id}>
                  <code>{scope.id}</code> {scope.label}
                </label>
                {allowed ? null : (
                  <span class="sub" id={`${id}-why`}>
                    (needs permission {scope.permission}, which you do not have)
                  </span>
                )}
              </div>
            );
          })}
          {fieldErrors.scopes ? (
            <p class="field-error" id="scopes-error">
              <span aria-hidden="true">⚠ </span>
              {fieldErrors.scopes}
            </p>
          ) : null}
        </fieldset>
        <Field
          label="Expires on (optional)"
          hint="Leave empty for a key that does not expire."
          error={fieldErrors.expiresAt}
        >
          {({ id, describedBy, invalid }) => (
            <input
              id={id}
              aria-describedby={describedBy}
              aria-invalid={invalid}
              type="date"
              value={expires}
              onInput={(e) => setExpires(e.currentTarget.value)}
            />
          )}
        </Field>
        <Field
          label="Allowed IP ranges (optional)"
          hint="One address or CIDR range per line, e.g. 203.0.113.0/24. Empty allows any address."
          error={fieldErrors.allowedIps}
        >
          {({ id, describedBy, invalid }) => (
            <textarea
              id={id}
              aria-describedby={describedBy}
              aria-invalid={invalid}
              rows={3}
              spellcheck={false}
              value={ips}
              onInput={(e) => setIps(e.currentTarget.value)}
            />
          )}
        </Field>
        <div>
          <button type="submit" class="primary" disabled={busy}>
            {busy ? 'Creating…' : 'Create key'}
          </button>
        </div>
      </form>
    </section>
  );
}

export const apiKeysScreen: Screen = {
  path: 'api-keys',
  title: 'API keys',
  allowed: (person) => may(person, PERMISSIONS.manageKeys),
  component: ApiKeysScreen,
};
