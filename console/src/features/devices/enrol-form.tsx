import { useState } from 'preact/hooks';
import { api, messageOf } from '../../api.js';
import { SelectField, TextField } from '../../components/fields.js';
import { Notice } from '../../components/ui.js';
import type { Enrolment, KioskWorkplace } from './model.js';

/** Enrol a tablet: a workplace and a name give a single-use code, valid 15 minutes. */
export function EnrolForm(props: {
  workplaces: KioskWorkplace[];
  onEnrolled: (enrolment: Enrolment) => void;
}) {
  const [workplaceId, setWorkplaceId] = useState(props.workplaces[0]?.id ?? '');
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const enrolment = await api<Enrolment>('POST', '/devices', { workplaceId, name });
      setName('');
      props.onEnrolled(enrolment);
    } catch (problem) {
      setError(messageOf(problem));
    } finally {
      setBusy(false);
    }
  }
  return (
    <section aria-labelledby="enrol-heading" class="card">
      <h2 id="enrol-heading">Enrol a tablet</h2>
      <p>
        Open <code>/kiosk</code> on the tablet and type the code it gets here. The code works once, for 15
        minutes.
      </p>
      <form onSubmit={(event) => void submit(event)}>
        <SelectField
          label="Workplace"
          value={workplaceId}
          onChange={setWorkplaceId}
          choices={props.workplaces.map((w) => [w.id, w.name] as const)}
        />
        <TextField label="Device name" hint="For example: Front door tablet" value={name} onInput={setName} />
        <Notice tone="error" message={error} />
        <button type="submit" class="primary" disabled={busy || workplaceId === ''}>
          Make an enrolment code
        </button>
      </form>
    </section>
  );
}

/** Each workplace's kiosk setting: a list of names to choose from, or badges only. */
export function BadgeOnlySettings(props: {
  workplaces: KioskWorkplace[];
  onChanged: (message: string) => void;
}) {
  const [error, setError] = useState<string | null>(null);
  async function toggle(workplace: KioskWorkplace, badgeOnly: boolean) {
    setError(null);
    try {
      await api('PUT', `/workplaces/${encodeURIComponent(workplace.id)}/kiosk`, {
        kioskBadgeOnly: badgeOnly,
      });
      props.onChanged(
        badgeOnly
          ? `Kiosks at ${workplace.name} list no names now: badges only.`
          : `Kiosks at ${workplace.name} list names for PIN sign-in again.`,
      );
    } catch (problem) {
      setError(messageOf(problem));
    }
  }
  return (
    <section aria-labelledby="badge-heading" class="card">
      <h2 id="badge-heading">Badge only</h2>
      <p>
        A badge-only workplace's kiosks list no names; employees identify with their badge (their external
        id).
      </p>
      <Notice tone="error" message={error} />
      <ul class="plain-list">
        {props.workplaces.map((workplace) => (
          <li key={workplace.id}>
            <label>
              <input
                type="checkbox"
                checked={workplace.kioskBadgeOnly}
                onChange={(event) => void toggle(workplace, event.currentTarget.checked)}
              />{' '}
              {workplace.name}: badges only
            </label>
          </li>
        ))}
      </ul>
    </section>
  );
}
