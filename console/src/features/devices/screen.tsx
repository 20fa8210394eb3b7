import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, companyZone, messageOf, may, PERMISSIONS } from '../../api.js';
import { SecretOnce } from '../../components/secret-once.js';
import { ConfirmDialog, InfoDialog, Loading, Notice, ScreenHeading, ZoneNote } from '../../components/ui.js';
import { formatInstant } from '../../format.js';
import type { Screen, ScreenProps } from '../../screens/registry.js';
import { DeviceTable } from './device-table.js';
import { BadgeOnlySettings, EnrolForm } from './enrol-form.js';
import type { Device, Enrolment, KioskWorkplace, Refusal } from './model.js';

/** The devices, the workplaces' settings and the messages about them. */
function useDevices() {
  const [data, setData] = useState<{ items: Device[]; workplaces: KioskWorkplace[] } | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const load = useCallback(async () => {
    try {
      setData(await api<{ items: Device[]; workplaces: KioskWorkplace[] }>('GET', '/devices'));
      setLoadError(null);
    } catch (error) {
      setLoadError(messageOf(error));
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);
  return { data, loadError, status, setStatus, actionError, setActionError, load };
}

function RefusalList(props: { refusals: Refusal[]; zone: string }) {
  return (
    <ul class="plain-list">
      {props.refusals.map((r) => (
        <li key={`${r.at}${r.occurredAt}${r.type}`}>
          {r.type} at {formatInstant(r.occurredAt, props.zone)}: {r.detail ?? r.error} ({r.status})
        </li>
      ))}
    </ul>
  );
}

/** Revoking a device and reading its refused punches: the dialogs' state and what they do. */
function useDeviceActions(devices: ReturnType<typeof useDevices>) {
  const [revoking, setRevoking] = useState<Device | null>(null);
  const [refusals, setRefusals] = useState<{ device: Device; items: Refusal[] } | null>(null);
  const opener = useRef<HTMLElement | null>(null);
  const close = () => {
    setRevoking(null);
    setRefusals(null);
    opener.current?.focus();
  };
  async function revoke(device: Device) {
    try {
      await api('POST', `/devices/${encodeURIComponent(device.id)}/revoke`);
      devices.setStatus(`Device “${device.name}” is revoked: it stops at once.`);
      await devices.load();
    } catch (error) {
      devices.setActionError(messageOf(error));
    }
    close();
  }
  async function open(device: Device, kind: 'revoke' | 'refusals', button: HTMLElement) {
    opener.current = button;
    devices.setActionError(null);
    if (kind === 'revoke') return setRevoking(device);
    try {
      const list = await api<{ items: Refusal[] }>(
        'GET',
        `/devices/${encodeURIComponent(device.id)}/refusals`,
      );
      setRefusals({ device, items: list.items });
    } catch (error) {
      devices.setActionError(messageOf(error));
    }
  }
  return { revoking, refusals, close, revoke, open };
}

function DevicesScreen({ person }: ScreenProps) {
  const devices = useDevices();
  const actions = useDeviceActions(devices);
  const [enrolment, setEnrolment] = useState<Enrolment | null>(null);
  const zone = companyZone(person);
  const { revoking, refusals, close } = actions;
  const data = devices.data;
  return (
    <>
      <ScreenHeading title="Kiosk devices">
        <p class="lede">Shared tablets where employees clock in with a badge or their name and PIN.</p>
        <ZoneNote timeZone={person.company.timeZone} />
      </ScreenHeading>
      {enrolment ? (
        <SecretOnce
          headingId="code-heading"
          heading={<>Enrolment code of “{enrolment.name}”</>}
          explanation={`Type it on the tablet at /kiosk before ${formatInstant(enrolment.expiresAt, zone)}; it works once.`}
          label="Enrolment code"
          secret={enrolment.enrolmentCode}
          rows={1}
          onDone={() => setEnrolment(null)}
        />
      ) : null}
      <Notice tone="success" message={devices.status} />
      <Notice tone="error" message={devices.actionError} />
      <section aria-labelledby="devices-heading">
        <h2 id="devices-heading">Devices</h2>
        {devices.loadError ? (
          <Notice tone="error" message={`The devices could not be loaded: ${devices.loadError}`} />
        ) : null}
        {data === null && !devices.loadError ? <Loading what="devices" /> : null}
        {data !== null && data.items.length === 0 ? <p>No kiosk devices yet.</p> : null}
        {data !== null && data.items.length > 0 ? (
          <DeviceTable devices={data.items} zone={zone} onAction={(d, k, b) => void actions.open(d, k, b)} />
        ) : null}
      </section>
      {data !== null ? (
        <>
          <EnrolForm
            workplaces={data.workplaces}
            onEnrolled={(created) => {
              setEnrolment(created);
              devices.setStatus(`Device “${created.name}” waits for its code.`);
              void devices.load();
            }}
          />
          <BadgeOnlySettings
            workplaces={data.workplaces}
            onChanged={(message) => {
              devices.setStatus(message);
              void devices.load();
            }}
          />
        </>
      ) : null}
      <ConfirmDialog
        open={revoking !== null}
        title={`Revoke “${revoking?.name ?? ''}”?`}
        confirmLabel="Revoke"
        danger
        onConfirm={() => revoking && void actions.revoke(revoking)}
        onCancel={close}
      >
        <p>The tablet stops at once. Punches still waiting on it are not sent; enrol it again to use it.</p>
      </ConfirmDialog>
      {refusals ? (
        <InfoDialog title={`Refused punches of “${refusals.device.name}”`} onClose={close}>
          <RefusalList refusals={refusals.items} zone={zone} />
        </InfoDialog>
      ) : null}
    </>
  );
}

export const devicesScreen: Screen = {
  path: 'devices',
  title: 'Kiosk devices',
  allowed: (person) => may(person, PERMISSIONS.manageEmployees),
  component: DevicesScreen,
};
