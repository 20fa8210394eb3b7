import { DataTable } from '../../components/table.js';
import { StatusBadge } from '../../components/ui.js';
import { formatInstant } from '../../format.js';
import { type ApiKey, keyStatus } from './model.js';

/** Which button of which key was pressed (the button gets the focus back when its dialog closes). */
export type KeyAction = (key: ApiKey, kind: 'rotate' | 'revoke', button: HTMLElement) => void;

/** The company's keys: scopes, state, use, expiry and address ranges, with their actions. */
export function KeyTable(props: { keys: ApiKey[]; companyName: string; zone: string; onAction: KeyAction }) {
  const now = Date.now();
  return (
    <DataTable
      caption={<>API keys of {props.companyName}</>}
      columns={['Key and client id', 'Scopes', 'Status', 'Last used', 'Expires', 'Allowed IPs']}
      actions
    >
      {props.keys.map((key) => (
        <KeyRow key={key.id} apiKey={key} now={now} zone={props.zone} onAction={props.onAction} />
      ))}
    </DataTable>
  );
}

function CodeList(props: { items: string[] }) {
  return (
    <ul class="plain-list">
      {props.items.map((item) => (
        <li key={item}>
          <code>{item}</code>
        </li>
      ))}
    </ul>
  );
}

function KeyRow(props: { apiKey: ApiKey; now: number; zone: string; onAction: KeyAction }) {
  const { apiKey: key, now, zone } = props;
  const state = keyStatus(key, now);
  return (
    <tr>
      <th scope="row" data-label="Key">
        {key.name}
        <code class="client-id sub">{key.clientId}</code>
      </th>
      <td data-label="Scopes">
        <CodeList items={key.scopes} />
      </td>
      <td data-label="Status">
        <StatusBadge status={state} />
        {state === 'revoked' ? <span class="sub">since {formatInstant(key.revokedAt, zone)}</span> : null}
        {state === 'active' &&
        key.previousSecretValidUntil &&
        Date.parse(key.previousSecretValidUntil) > now ? (
          <span class="sub">old secret valid until {formatInstant(key.previousSecretValidUntil, zone)}</span>
        ) : null}
      </td>
      <td data-label="Last used">{key.lastUsedAt ? formatInstant(key.lastUsedAt, zone) : 'Never'}</td>
      <td data-label="Expires">{key.expiresAt ? formatInstant(key.expiresAt, zone) : 'Never'}</td>
      <td data-label="Allowed IP ranges">
        {key.allowedIps.length === 0 ? 'Any address' : <CodeList items={key.allowedIps} />}
      </td>
      <td data-label="Actions" class="row-actions">
        {state === 'active' ? (
          <KeyActions apiKey={key} onAction={props.onAction} />
        ) : (
          <span class="sub">No actions</span>
        )}
      </td>
    </tr>
  );
}

function KeyActions(props: { apiKey: ApiKey; onAction: KeyAction }) {
  const key = props.apiKey;
  return (
    <>
      <button
        type="button"
        aria-label={`Rotate key ${key.name}`}
        onClick={(event) => props.onAction(key, 'rotate', event.currentTarget)}
      >
        Rotate
      </button>
      <button
        type="button"
        class="danger-outline"
        aria-label={`Revoke key ${key.name}`}
        onClick={(event) => props.onAction(key, 'revoke', event.currentTarget)}
      >
        Revoke
      </button>
    </>
  );
}
