import { useEffect, useState } from 'preact/hooks';
import { api, messageOf } from '../../api.js';
import { SelectField, TextField } from '../../components/fields.js';
import { type FormProblem, useFormProblem } from '../../components/form-problem.js';
import { DataTable } from '../../components/table.js';
import { Loading, Notice } from '../../components/ui.js';
import { formatDay } from '../../format.js';
import type { HolidayOverride, HolidaySettings } from './model.js';

type Settings = ReturnType<typeof useHolidaySettings>;

function useHolidaySettings() {
  const [settings, setSettings] = useState<HolidaySettings | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const load = () =>
    api<HolidaySettings>('GET', '/holiday-settings')
      .then(setSettings)
      .catch((caught: unknown) => setError(messageOf(caught)));
  useEffect(() => void load(), []);
  return { settings, setSettings, error, setError, status, setStatus, load };
}

/** A workplace's region: typed, saved on its own. */
function RegionForm(props: {
  workplace: HolidaySettings['workplaces'][number];
  canEdit: boolean;
  s: Settings;
}) {
  const { workplace, s } = props;
  const [region, setRegion] = useState(workplace.holidayRegion ?? '');
  const problem = useFormProblem();
  async function save(event: Event) {
    event.preventDefault();
    problem.clear();
    try {
      const body = { holidayRegion: region.trim() === '' ? null : region.trim() };
      s.setSettings(await api<HolidaySettings>('PUT', `/workplaces/${workplace.id}/holiday-region`, body));
      s.setStatus(`${workplace.name}: holidays of ${body.holidayRegion ?? 'no region'}.`);
    } catch (caught) {
      if (problem.take(caught) === 0) s.setError(messageOf(caught));
    }
  }
  return (
    <form class="replay-row" onSubmit={(event) => void save(event)} noValidate>
      <TextField
        label={`Holiday region of ${workplace.name}`}
        id={`region-${workplace.id}`}
        hint="A country (FR), or country and state (DE-BY, US-CA); empty for none."
        error={problem.error('holidayRegion')}
        refusable
        value={region}
        onInput={setRegion}
        input={{ disabled: !props.canEdit, autocomplete: 'off' }}
      />
      {props.canEdit ? (
        <button type="submit">
          Save region<span class="visually-hidden"> of {workplace.name}</span>
        </button>
      ) : null}
    </form>
  );
}

function describe(o: HolidayOverride): string {
  if (o.kind === 'remove') return 'No holiday (the region’s is removed)';
  return `${o.name ?? 'Holiday'}${o.portion === 'half' ? ' (half day)' : ''}`;
}

interface OverrideDraft {
  kind: string;
  date: string;
  name: string;
  portion: string;
  workplaceId: string;
}

function OverrideFields(props: {
  draft: OverrideDraft;
  setDraft: (draft: OverrideDraft) => void;
  problem: FormProblem;
  places: (readonly [string, string])[];
}) {
  const { draft, setDraft, problem, places } = props;
  return (
    <div class="form-grid">
      <SelectField
        label="Change"
        id="override-kind"
        value={draft.kind}
        onChange={(kind) => setDraft({ ...draft, kind })}
        choices={[
          ['add', 'Add a holiday'],
          ['remove', 'Remove a holiday'],
        ]}
      />
      <TextField
        label="Date"
        id="override-date"
        error={problem.error('date')}
        refusable
        value={draft.date}
        onInput={(date) => setDraft({ ...draft, date })}
        input={{ type: 'date' }}
      />
      {draft.kind === 'add' ? (
        <>
          <TextField
            label="Name"
            id="override-name"
            error={problem.error('name')}
            refusable
            value={draft.name}
            onInput={(name) => setDraft({ ...draft, name })}
          />
          <SelectField
            label="Portion"
            id="override-portion"
            value={draft.portion}
            onChange={(portion) => setDraft({ ...draft, portion })}
            choices={[
              ['full', 'Full day'],
              ['half', 'Half day'],
            ]}
          />
        </>
      ) : null}
      <SelectField
        label="Applies to"
        id="override-workplace"
        value={draft.workplaceId}
        onChange={(workplaceId) => setDraft({ ...draft, workplaceId })}
        choices={places}
      >
        <option value="">The whole company</option>
      </SelectField>
    </div>
  );
}

/** Adding a holiday (or a half day), or removing the region's, for the company or one workplace. */
function OverrideForm(props: { s: Settings }) {
  const { s } = props;
  const [draft, setDraft] = useState<OverrideDraft>({
    kind: 'add',
    date: '',
    name: '',
    portion: 'full',
    workplaceId: '',
  });
  const problem = useFormProblem({ focusId: (field) => `override-${field}` });
  async function add(event: Event) {
    event.preventDefault();
    problem.clear();
    try {
      const body = {
        kind: draft.kind,
        date: draft.date,
        ...(draft.kind === 'add' ? { name: draft.name, portion: draft.portion } : {}),
        workplaceId: draft.workplaceId || null,
      };
      await api<HolidayOverride>('POST', '/holiday-overrides', body);
      s.setStatus(`${formatDay(draft.date)} is saved.`);
      setDraft({ ...draft, date: '', name: '' });
      await s.load();
    } catch (caught) {
      if (problem.take(caught) === 0) s.setError(messageOf(caught));
    }
  }
  const places = (s.settings?.workplaces ?? []).map((w) => [w.id, w.name] as const);
  return (
    <form class="stack" aria-label="Add or remove a holiday" onSubmit={(event) => void add(event)} noValidate>
      <OverrideFields draft={draft} setDraft={setDraft} problem={problem} places={places} />
      <div>
        <button type="submit" class="primary">
          Save the holiday
        </button>
      </div>
    </form>
  );
}

/** The Company screen's public holidays: each workplace's region and the company's own changes. */
export function HolidaysSection(props: { canEdit: boolean }) {
  const s = useHolidaySettings();
  const placeName = (id: string | null) =>
    id === null ? 'Whole company' : (s.settings?.workplaces.find((w) => w.id === id)?.name ?? 'A workplace');
  async function drop(o: HolidayOverride) {
    try {
      await api('DELETE', `/holiday-overrides/${o.id}`);
      s.setStatus(`${formatDay(o.date)} follows the region again.`);
      await s.load();
      document.getElementById('holidays-heading')?.focus();
    } catch (caught) {
      s.setError(messageOf(caught));
    }
  }
  return (
    <section aria-labelledby="holidays-heading" class="card">
      <h2 id="holidays-heading" tabIndex={-1}>
        Public holidays
      </h2>
      <p class="hint">
        Each workplace takes the public holidays of its region; the company adds, removes or halves days.
      </p>
      <Notice tone="success" message={s.status} />
      <Notice tone="error" message={s.error} />
      {s.settings === null && !s.error ? <Loading what="holiday settings" /> : null}
      {s.settings?.workplaces.map((w) => (
        <RegionForm key={w.id} workplace={w} canEdit={props.canEdit} s={s} />
      ))}
      {s.settings && s.settings.overrides.length > 0 ? (
        <DataTable
          caption="The company's own holidays"
          columns={['Date', 'Applies to', 'Holiday']}
          actions={props.canEdit}
        >
          {s.settings.overrides.map((o) => (
            <tr key={o.id}>
              <th scope="row" data-label="Date">
                {formatDay(o.date)}
              </th>
              <td data-label="Applies to">{placeName(o.workplaceId)}</td>
              <td data-label="Holiday">{describe(o)}</td>
              {props.canEdit ? (
                <td class="row-actions">
                  <button type="button" class="danger-outline" onClick={() => void drop(o)}>
                    Drop<span class="visually-hidden"> {formatDay(o.date)}</span>
                  </button>
                </td>
              ) : null}
            </tr>
          ))}
        </DataTable>
      ) : null}
      {s.settings && s.settings.overrides.length === 0 ? (
        <p>The company has no holidays of its own.</p>
      ) : null}
      {props.canEdit && s.settings ? <OverrideForm s={s} /> : null}
    </section>
  );
}
