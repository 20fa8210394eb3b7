import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiProblem, companyZone, messageOf, may, PERMISSIONS } from '../api.js';
import {
  ConfirmDialog,
  Field,
  Loading,
  Notice,
  ScreenHeading,
  StatusBadge,
  ZoneNote,
} from '../components/ui.js';
import { formatInstant } from '../format.js';
import { hrefOf, navigate } from '../router.js';
import type { Screen, ScreenProps } from './registry.js';

interface Endpoint {
  id: string;
  url: string;
  eventTypes: string[];
  description: string | null;
  status: 'active' | 'disabled';
  disabledReason: string | null;
  createdAt: string;
  updatedAt: string;
}

interface WithSecret extends Endpoint {
  secret: string;
  previousSecretValidUntil?: string;
}

interface Delivery {
  id: string;
  eventId: string;
  eventType: string;
  origin: 'event' | 'replay' | 'test';
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  statusCode: number | null;
  error: string | null;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
}

/** The event types an endpoint may ask for (the public API's list). */
const EVENT_TYPES: [string, string][] = [
  ['time_entry.opened', 'a clock-in opened a time entry'],
  ['time_entry.completed', 'a time entry was completed'],
  ['time_entry.approved', 'a time entry was approved'],
  ['time_entry.rejected', 'a time entry was rejected'],
  ['time_entry.break_started', 'a break started'],
  ['time_entry.break_ended', 'a break ended'],
  ['day.confirmed', "an employee's day was confirmed"],
  ['employee.created', 'an employee was created'],
  ['employee.updated', 'an employee was changed'],
  ['employee.deleted', 'an employee was deleted'],
];

const DELIVERY_STATUS: Record<string, string> = {
  succeeded: 'delivered',
  failed: 'failed',
  pending: 'pending_approval',
};

/** The secret, once: with a copy button until the person says they have stored it. */
function SecretPanel(props: { endpoint: WithSecret; onDone: () => void }) {
  const ref = useRef<HTMLElement>(null);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const [copied, setCopied] = useState<string | null>(null);
  useEffect(() => ref.current?.focus(), [props.endpoint.secret]);

  async function copy() {
    try {
      await navigator.clipboard.writeText(props.endpoint.secret);
      setCopied('Copied to the clipboard.');
    } catch {
      inputRef.current?.select();
      setCopied('Selected: press Ctrl+C (or ⌘C) to copy.');
    }
  }

  return (
    <section class="secret-panel" aria-labelledby="webhook-secret-heading" tabIndex={-1} ref={ref}>
      <h2 id="webhook-secret-heading">Signing secret of {props.endpoint.url}: copy it now</h2>
      <p>
        <strong>This secret is shown only once.</strong> The receiver verifies every delivery's signature with
        it (Standard Webhooks). If it is lost, rotate the secret.
        {props.endpoint.previousSecretValidUntil
          ? ` The previous secret keeps signing beside it until ${formatInstant(props.endpoint.previousSecretValidUntil, 'UTC')}.`
          : ''}
      </p>
      <Field label="Signing secret">
        {({ id }) => (
          <div class="copy-row">
            <textarea
              ref={inputRef}
              id={id}
              class="secret-value"
              readOnly
              rows={2}
              value={props.endpoint.secret}
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

/** URL, event types and description: for a new endpoint or an existing one. */
function EndpointForm(props: { endpoint: Endpoint | null; onSaved: (saved: Endpoint | WithSecret) => void }) {
  const { endpoint } = props;
  const [url, setUrl] = useState(endpoint?.url ?? '');
  const [types, setTypes] = useState<string[]>(endpoint?.eventTypes ?? []);
  const [description, setDescription] = useState(endpoint?.description ?? '');
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const prefix = endpoint ? 'edit' : 'new';

  async function submit(event: Event) {
    event.preventDefault();
    setProblem(null);
    setError(null);
    setBusy(true);
    const body = { url: url.trim(), eventTypes: types, description: description.trim() || null };
    try {
      const saved = endpoint
        ? await api<Endpoint>('PATCH', `/webhooks/${endpoint.id}`, body)
        : await api<WithSecret>('POST', '/webhooks', body);
      if (!endpoint) {
        setUrl('');
        setTypes([]);
        setDescription('');
      }
      props.onSaved(saved);
    } catch (caught) {
      if (caught instanceof ApiProblem && caught.fieldErrors.length > 0) {
        setProblem(caught);
        setError('Not saved: a field needs a change (marked below).');
        const first = caught.fieldErrors[0]!.field.split('/').at(-1);
        document.getElementById(`${prefix}-webhook-${first === 'eventTypes' ? 'types' : first}`)?.focus();
      } else setError(`Not saved: ${messageOf(caught)}`);
    } finally {
      setBusy(false);
    }
  }

  const typesError = problem?.fieldError('eventTypes');
  return (
    <form class="stack" onSubmit={(event) => void submit(event)} noValidate>
      <Notice tone="error" message={error} />
      <Field
        label="Receiver URL"
        id={`${prefix}-webhook-url`}
        hint="An https address the receiver answers at; it must resolve to a public address."
        error={problem?.fieldError('url')}
      >
        {({ id, describedBy, invalid }) => (
          <input
            id={id}
            type="text"
            inputMode="url"
            aria-describedby={describedBy}
            aria-invalid={invalid}
            value={url}
            onInput={(e) => setUrl(e.currentTarget.value)}
          />
        )}
      </Field>
      <fieldset
        id={`${prefix}-webhook-types`}
        tabIndex={-1}
        class={typesError ? 'field-invalid' : undefined}
        aria-describedby={typesError ? `${prefix}-webhook-types-error` : undefined}
      >
        <legend>Events to receive</legend>
        <div class="check-grid">
          {EVENT_TYPES.map(([type, label]) => {
            const id = `${prefix}-event-${type}`;
            return (
              <div class="check" key={type}>
                <input
                  type="checkbox"
                  id={id}
                  checked={types.includes(type)}
                  onChange={(e) =>
                    setTypes((current) =>
                      e.currentTarget.checked ? [...current, type] : current.filter((t) => t !== type),
                    )
                  }
                />
                <label for={id}>
                  <code>{type}</code> <span class="sub">{label}</span>
                </label>
              </div>
            );
          })}
        </div>
        {typesError ? (
          <p class="field-error" id={`${prefix}-webhook-types-error`}>
            <span aria-hidden="true">⚠ </span>
            {typesError}
          </p>
        ) : null}
      </fieldset>
      <Field label="Description (optional)" error={problem?.fieldError('description')}>
        {({ id, describedBy, invalid }) => (
          <input
            id={id}
            type="text"
            aria-describedby={describedBy}
            aria-invalid={invalid}
            value={description}
            onInput={(e) => setDescription(e.currentTarget.value)}
          />
        )}
      </Field>
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Saving…' : endpoint ? 'Save changes' : 'Create endpoint'}
        </button>
      </div>
    </form>
  );
}

type Pending = { kind: 'delete' | 'rotate'; endpoint: Endpoint } | null;

function WebhooksScreen({ person, route }: ScreenProps) {
  const zone = companyZone(person);
  const [, target] = route.segments;
  const [endpoints, setEndpoints] = useState<Endpoint[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [secret, setSecret] = useState<WithSecret | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const [pending, setPending] = useState<Pending>(null);
  const [busy, setBusy] = useState(false);
  const [deliveries, setDeliveries] = useState<Delivery[] | null>(null);
  const [deliveryError, setDeliveryError] = useState<string | null>(null);
  const [replayHours, setReplayHours] = useState('24');
  const opener = useRef<HTMLElement | null>(null);

  async function load() {
    try {
      setEndpoints((await api<{ items: Endpoint[] }>('GET', '/webhooks')).items);
      setLoadError(null);
    } catch (caught) {
      setLoadError(messageOf(caught));
    }
  }
  async function loadDeliveries(id: string) {
    try {
      setDeliveries(
        (await api<{ items: Delivery[] }>('GET', `/webhooks/${encodeURIComponent(id)}/deliveries?limit=50`))
          .items,
      );
      setDeliveryError(null);
    } catch (caught) {
      setDeliveries(null);
      setDeliveryError(
        caught instanceof ApiProblem && (caught.status === 404 || caught.status === 400)
          ? 'No such webhook endpoint in this company.'
          : messageOf(caught),
      );
    }
  }

  useEffect(() => {
    void load();
  }, []);
  useEffect(() => {
    setDeliveries(null);
    setDeliveryError(null);
    setStatus(null);
    setActionError(null);
    if (target) void loadDeliveries(target);
  }, [target]);

  async function act(run: () => Promise<string>) {
    setBusy(true);
    setStatus(null);
    setActionError(null);
    try {
      const message = await run();
      await load();
      if (target) await loadDeliveries(target);
      setStatus(message);
    } catch (caught) {
      setActionError(messageOf(caught));
    } finally {
      setBusy(false);
      setPending(null);
      opener.current?.focus();
    }
  }

  const toggle = (endpoint: Endpoint) =>
    act(async () => {
      const next = endpoint.status === 'active' ? 'disabled' : 'active';
      await api('PATCH', `/webhooks/${endpoint.id}`, { status: next });
      return next === 'disabled'
        ? `${endpoint.url} is disabled: nothing more is sent to it.`
        : `${endpoint.url} is active again; replay covers what it missed.`;
    });
  const confirmPending = () => {
    if (!pending) return;
    const { kind, endpoint } = pending;
    if (kind === 'delete')
      void act(async () => {
        await api('DELETE', `/webhooks/${endpoint.id}`);
        if (target) navigate(hrefOf(['webhooks']));
        return `${endpoint.url} is deleted.`;
      });
    else
      void act(async () => {
        setSecret(await api<WithSecret>('POST', `/webhooks/${endpoint.id}/rotate-secret`));
        return `The secret of ${endpoint.url} is rotated.`;
      });
  };
  const remember = (event: Event) => {
    opener.current = event.currentTarget as HTMLElement;
  };

  const actions = (endpoint: Endpoint, onDetail: boolean) => (
    <>
      {onDetail ? null : (
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
        disabled={busy}
        aria-label={`${endpoint.status === 'active' ? 'Disable' : 'Enable'} ${endpoint.url}`}
        onClick={(event) => {
          remember(event);
          void toggle(endpoint);
        }}
      >
        {endpoint.status === 'active' ? 'Disable' : 'Enable'}
      </button>
      <button
        type="button"
        aria-label={`Rotate secret of ${endpoint.url}`}
        onClick={(event) => {
          remember(event);
          setPending({ kind: 'rotate', endpoint });
        }}
      >
        Rotate secret
      </button>
      <button
        type="button"
        class="danger-outline"
        aria-label={`Delete ${endpoint.url}`}
        onClick={(event) => {
          remember(event);
          setPending({ kind: 'delete', endpoint });
        }}
      >
        Delete
      </button>
    </>
  );

  const dialog = (
    <ConfirmDialog
      open={pending !== null}
      title={
        pending?.kind === 'delete'
          ? `Delete ${pending.endpoint.url}?`
          : `Rotate the secret of ${pending?.endpoint.url ?? ''}?`
      }
      confirmLabel={pending?.kind === 'delete' ? 'Delete endpoint' : 'Rotate and show the new secret'}
      danger={pending?.kind === 'delete'}
      busy={busy}
      onConfirm={confirmPending}
      onCancel={() => {
        setPending(null);
        opener.current?.focus();
      }}
    >
      <p>
        {pending?.kind === 'delete'
          ? 'Nothing more is sent to it, and its delivery history is deleted. This cannot be undone.'
          : 'A new secret, shown once. The current one keeps signing beside it for 24 hours, so the receiver can switch.'}
      </p>
    </ConfirmDialog>
  );

  const secretPanel = secret ? (
    <SecretPanel
      endpoint={secret}
      onDone={() => {
        setSecret(null);
        setStatus('The secret is no longer shown.');
      }}
    />
  ) : null;

  if (target) {
    const endpoint = endpoints?.find((e) => e.id === target) ?? null;
    const missing = endpoints !== null && endpoint === null;
    return (
      <>
        <ScreenHeading title="Webhook endpoint">
          <p class="lede">{endpoint ? endpoint.url : 'Settings and recent deliveries of one endpoint.'}</p>
        </ScreenHeading>
        <p>
          <a href={hrefOf(['webhooks'])}>Back to all webhook endpoints</a>
        </p>
        {missing ? <Notice tone="error" message="No such webhook endpoint in this company." /> : null}
        {!missing ? <Notice tone="error" message={deliveryError} /> : null}
        <Notice tone="success" message={status} />
        <Notice tone="error" message={actionError} />
        {secretPanel}
        {endpoint === null && !missing ? <Loading what="the endpoint" /> : null}
        {endpoint ? (
          <>
            <section class="card" aria-labelledby="webhook-state-heading">
              <h2 id="webhook-state-heading">State</h2>
              <p>
                <StatusBadge status={endpoint.status === 'active' ? 'active' : 'disabled'} />
                {endpoint.disabledReason ? <span class="sub"> {endpoint.disabledReason}</span> : null}
              </p>
              <div class="actions">{actions(endpoint, true)}</div>
            </section>
            <section class="card" aria-labelledby="webhook-edit-heading">
              <h2 id="webhook-edit-heading">Settings</h2>
              <EndpointForm
                key={endpoint.updatedAt}
                endpoint={endpoint}
                onSaved={(saved) => {
                  void load();
                  setStatus(`The changes to ${saved.url} are saved.`);
                }}
              />
            </section>
            <section class="card" aria-labelledby="webhook-deliveries-heading">
              <h2 id="webhook-deliveries-heading">Recent deliveries</h2>
              <ZoneNote timeZone={person.company.timeZone} />
              <div class="actions">
                <button
                  type="button"
                  disabled={busy}
                  onClick={(event) => {
                    remember(event);
                    void act(async () => {
                      await api('POST', `/webhooks/${endpoint.id}/test`);
                      return 'A test delivery (ping) is queued.';
                    });
                  }}
                >
                  Send a test delivery
                </button>
                <button type="button" onClick={() => void loadDeliveries(endpoint.id)}>
                  Refresh deliveries
                </button>
              </div>
              <form
                class="filter-row replay-row"
                onSubmit={(event) => {
                  event.preventDefault();
                  const to = new Date();
                  const from = new Date(to.getTime() - Number(replayHours) * 3_600_000);
                  void act(async () => {
                    const { queued } = await api<{ queued: number }>(
                      'POST',
                      `/webhooks/${endpoint.id}/replay`,
                      {
                        from: from.toISOString(),
                        to: to.toISOString(),
                      },
                    );
                    return `${queued} ${queued === 1 ? 'delivery is' : 'deliveries are'} queued again.`;
                  });
                }}
              >
                <Field label="Send the events of the last">
                  {({ id, describedBy }) => (
                    <select
                      id={id}
                      aria-describedby={describedBy}
                      value={replayHours}
                      onChange={(e) => setReplayHours(e.currentTarget.value)}
                    >
                      <option value="1">hour</option>
                      <option value="24">24 hours</option>
                      <option value="168">7 days</option>
                    </select>
                  )}
                </Field>
                <button type="submit" disabled={busy}>
                  Replay these events
                </button>
              </form>
              {deliveries === null && !deliveryError ? <Loading what="deliveries" /> : null}
              {deliveries && deliveries.length === 0 ? <p>No delivery yet.</p> : null}
              {deliveries && deliveries.length > 0 ? (
                <div class="table-wrap">
                  <table class="data-table">
                    <caption class="visually-hidden">Recent deliveries, newest first</caption>
                    <thead>
                      <tr>
                        <th scope="col">Queued</th>
                        <th scope="col">Event</th>
                        <th scope="col">Status</th>
                        <th scope="col">Last attempt</th>
                        <th scope="col">
                          <span class="visually-hidden">Actions</span>
                        </th>
                      </tr>
                    </thead>
                    <tbody>
                      {deliveries.map((d) => (
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
                          <td data-label="Last attempt">
                            {d.lastAttemptAt
                              ? `${formatInstant(d.lastAttemptAt, zone)}: ${d.statusCode !== null ? `status ${d.statusCode}` : (d.error ?? '')}, ${d.attempts} ${d.attempts === 1 ? 'attempt' : 'attempts'}`
                              : '—'}
                          </td>
                          <td data-label="Actions" class="row-actions">
                            <button
                              type="button"
                              disabled={busy}
                              aria-label={`Send again: the ${d.eventType} delivery of ${formatInstant(d.createdAt, zone)}`}
                              onClick={(event) => {
                                remember(event);
                                void act(async () => {
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
                    </tbody>
                  </table>
                </div>
              ) : null}
            </section>
          </>
        ) : null}
        {dialog}
      </>
    );
  }

  return (
    <>
      <ScreenHeading title="Webhooks">
        <p class="lede">
          The systems told about changes in {person.company.name} as they happen, signed per Standard
          Webhooks.
        </p>
      </ScreenHeading>
      <Notice tone="success" message={status} />
      <Notice tone="error" message={actionError} />
      <Notice tone="error" message={loadError} />
      {secretPanel}
      {endpoints === null && !loadError ? <Loading what="webhook endpoints" /> : null}
      {endpoints ? (
        <section aria-labelledby="webhooks-list-heading">
          <h2 id="webhooks-list-heading">
            Endpoints <span class="count">({endpoints.length} of at most 20)</span>
          </h2>
          {endpoints.length === 0 ? (
            <p>No webhook endpoint yet.</p>
          ) : (
            <div class="table-wrap">
              <table class="data-table">
                <caption class="visually-hidden">Webhook endpoints</caption>
                <thead>
                  <tr>
                    <th scope="col">Receiver</th>
                    <th scope="col">Events</th>
                    <th scope="col">Status</th>
                    <th scope="col">
                      <span class="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {endpoints.map((endpoint) => (
                    <tr key={endpoint.id}>
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
                        {actions(endpoint, false)}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      ) : null}
      <section aria-labelledby="webhook-new-heading" class="card">
        <h2 id="webhook-new-heading">Add an endpoint</h2>
        <EndpointForm
          endpoint={null}
          onSaved={(saved) => {
            setSecret(saved as WithSecret);
            void load();
            setStatus(`${saved.url} is created.`);
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
