import { DataTable } from '../../components/table.js';
import { StatusBadge } from '../../components/ui.js';
import { formatInstant } from '../../format.js';
import { type Device, deviceState, offsetWords } from './model.js';

export type DeviceAction = (device: Device, kind: 'revoke' | 'refusals', button: HTMLElement) => void;

/** The company's devices: workplace, state, last contact, what waits in their queue and what was refused. */
export function DeviceTable(props: { devices: Device[]; zone: string; onAction: DeviceAction }) {
  const now = Date.now();
  return (
    <DataTable
      caption={<>Kiosk devices</>}
      columns={['Device', 'Status', 'Last contact', 'Waiting to send', 'Refused', 'Clock']}
      actions
    >
      {props.devices.map((device) => {
        const state = deviceState(device, now);
        return (
          <tr key={device.id}>
            <th scope="row" data-label="Device">
              {device.name}
              <span class="sub">{device.workplaceName}</span>
            </th>
            <td data-label="Status">
              <StatusBadge status={state} />
              {state === 'waiting_for_code' && device.enrolmentExpiresAt ? (
                <span class="sub">
                  code valid until {formatInstant(device.enrolmentExpiresAt, props.zone)}
                </span>
              ) : null}
            </td>
            <td data-label="Last contact">
              {device.lastSeenAt ? formatInstant(device.lastSeenAt, props.zone) : 'Never'}
            </td>
            <td data-label="Waiting to send">{device.queued}</td>
            <td data-label="Refused">
              {device.refused > 0 ? (
                <button
                  type="button"
                  aria-label={`${device.refused}: show the refused punches of ${device.name}`}
                  onClick={(event) => props.onAction(device, 'refusals', event.currentTarget)}
                >
                  {device.refused}: show
                </button>
              ) : (
                '0'
              )}
            </td>
            <td data-label="Clock">{offsetWords(device.clockOffsetSeconds)}</td>
            <td data-label="Actions" class="row-actions">
              {state === 'revoked' ? (
                <span class="sub">No actions</span>
              ) : (
                <button
                  type="button"
                  class="danger-outline"
                  aria-label={`Revoke device ${device.name}`}
                  onClick={(event) => props.onAction(device, 'revoke', event.currentTarget)}
                >
                  Revoke
                </button>
              )}
            </td>
          </tr>
        );
      })}
    </DataTable>
  );
}
