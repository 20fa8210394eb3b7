import { useEffect, useState } from 'preact/hooks';
import { api, ApiProblem, messageOf, may, PERMISSIONS } from '../api.js';
import { Field, Loading, Notice, ScreenHeading } from '../components/ui.js';
import type { Screen, ScreenProps } from './registry.js';

interface CompanySettings {
  id: string;
  name: string;
  timeZone: string | null;
  timeTracking: boolean;
  apiAccess: boolean;
  workweekStart: string;
  dailyOvertimeHours: number | null;
  workingTimeRules: string;
}

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const RULE_PACKS: [string, string][] = [
  ['none', 'None: no working-time flags'],
  ['de-arbzg', 'Germany (ArbZG): breaks, 10 h a day, 11 h rest'],
  ['us-ca', 'California: daily overtime, double time, meal breaks'],
];

const capitalised = (day: string) => day.charAt(0).toUpperCase() + day.slice(1);

function zoneNames(): string[] {
  try {
    return Intl.supportedValuesOf('timeZone');
  } catch {
    return ['UTC'];
  }
}

function CompanyScreen({ person, refreshSession }: ScreenProps) {
  const canEdit = may(person, PERMISSIONS.manageCompany);
  const [company, setCompany] = useState<CompanySettings | null>(null);
  const [draft, setDraft] = useState<CompanySettings | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [zoneError, setZoneError] = useState<string | undefined>(undefined);
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  // The threshold as typed ('' for none), so a half-typed number is not lost.
  const [threshold, setThreshold] = useState('');
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    api<CompanySettings>('GET', '/company')
      .then((loaded) => {
        setCompany(loaded);
        setDraft(loaded);
        setThreshold(loaded.dailyOvertimeHours === null ? '' : String(loaded.dailyOvertimeHours));
      })
      .catch((caught: unknown) => setLoadError(messageOf(caught)));
  }, []);

  async function save(event: Event) {
    event.preventDefault();
    if (!company || !draft) return;
    const changes: Partial<CompanySettings> = {};
    const hours = threshold.trim() === '' ? null : Number(threshold.replace(',', '.'));
    setProblem(null);
    if (hours !== null && !Number.isFinite(hours)) {
      setZoneError(undefined);
      setStatus(null);
      setError('Not saved: the daily overtime threshold must be a number of hours.');
      setProblem(
        new ApiProblem(422, 'validation_failed', 'Invalid', null, [
          {
            field: 'dailyOvertimeHours',
            message: 'must be a number of hours from 0 to 24, or empty for none',
          },
        ]),
      );
      return;
    }
    if (draft.workweekStart !== company.workweekStart) changes.workweekStart = draft.workweekStart;
    if (hours !== company.dailyOvertimeHours) changes.dailyOvertimeHours = hours;
    if (draft.workingTimeRules !== company.workingTimeRules)
      changes.workingTimeRules = draft.workingTimeRules;
    if (draft.timeZone !== company.timeZone) changes.timeZone = draft.timeZone;
    if (draft.timeTracking !== company.timeTracking) changes.timeTracking = draft.timeTracking;
    if (draft.apiAccess !== company.apiAccess) changes.apiAccess = draft.apiAccess;
    setStatus(null);
    setError(null);
    setZoneError(undefined);
    if (Object.keys(changes).length === 0) {
      setStatus('Nothing to save: no setting was changed.');
      return;
    }
    setBusy(true);
    try {
      const saved = await api<CompanySettings>('PATCH', '/company', changes);
      setCompany(saved);
      setDraft(saved);
      setThreshold(saved.dailyOvertimeHours === null ? '' : String(saved.dailyOvertimeHours));
      setStatus('The settings are saved.');
      if (saved.timeZone !== company.timeZone) await refreshSession();
    } catch (caught) {
      if (caught instanceof ApiProblem) {
        setZoneError(caught.fieldError('timeZone'));
        setProblem(caught);
      }
      setError(
        caught instanceof ApiProblem && caught.fieldErrors.length > 0
          ? 'Not saved: a setting needs a change (marked below).'
          : messageOf(caught),
      );
    } finally {
      setBusy(false);
    }
  }

  const zones = zoneNames();
  const current = draft?.timeZone ?? '';
  return (
    <>
      <ScreenHeading title="Company">
        <p class="lede">Settings that apply to everyone in {person.company.name}.</p>
      </ScreenHeading>
      {loadError ? <Notice tone="error" message={`The settings could not be loaded: ${loadError}`} /> : null}
      {!draft && !loadError ? <Loading what="settings" /> : null}
      {draft ? (
        <section aria-labelledby="settings-heading" class="card">
          <h2 id="settings-heading">Settings</h2>
          {canEdit ? null : (
            <p class="hint">
              You can see these settings; changing them needs the permission to manage the company (93).
            </p>
          )}
          <Notice tone="success" message={status} />
          <Notice tone="error" message={error} />
          <form onSubmit={(event) => void save(event)} class="stack">
            <dl class="pairs">
              <dt>Name</dt>
              <dd>{draft.name}</dd>
            </dl>
            <Field
              label="Time zone"
              hint="Work days, reports and the console's dates and times use this zone unless a workplace has its own."
              error={zoneError}
            >
              {({ id, describedBy, invalid }) => (
                <select
                  id={id}
                  aria-describedby={describedBy}
                  aria-invalid={invalid}
                  disabled={!canEdit}
                  value={current}
                  onChange={(e) => setDraft({ ...draft, timeZone: e.currentTarget.value || null })}
                >
                  <option value="">Not set (UTC)</option>
                  {current && !zones.includes(current) ? <option value={current}>{current}</option> : null}
                  {zones.map((zone) => (
                    <option key={zone} value={zone}>
                      {zone}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <div class="check">
              <input
                type="checkbox"
                id="setting-time-tracking"
                aria-describedby="setting-time-tracking-hint"
                disabled={!canEdit}
                checked={draft.timeTracking}
                onChange={(e) => setDraft({ ...draft, timeTracking: e.currentTarget.checked })}
              />
              <label for="setting-time-tracking">Time tracking</label>
              <p class="hint" id="setting-time-tracking-hint">
                Ticked: time is recorded and read through the API. Not ticked: those operations are refused
                for the whole company. Saved now: <strong>{company?.timeTracking ? 'on' : 'off'}</strong>.
              </p>
            </div>
            <div class="check">
              <input
                type="checkbox"
                id="setting-api-access"
                aria-describedby="setting-api-access-hint"
                disabled={!canEdit}
                checked={draft.apiAccess}
                onChange={(e) => setDraft({ ...draft, apiAccess: e.currentTarget.checked })}
              />
              <label for="setting-api-access">API access</label>
              <p class="hint" id="setting-api-access-hint">
                Ticked: the company's API keys get tokens. Not ticked: no key of the company gets one. Saved
                now: <strong>{company?.apiAccess ? 'on' : 'off'}</strong>.
              </p>
            </div>
            <fieldset class="stack">
              <legend>Timesheets</legend>
              <p class="hint">How timesheets count regular and overtime hours, and which rules they flag.</p>
              <Field label="Workweek starts on" error={problem?.fieldError('workweekStart')}>
                {({ id, describedBy, invalid }) => (
                  <select
                    id={id}
                    aria-describedby={describedBy}
                    aria-invalid={invalid}
                    disabled={!canEdit}
                    value={draft.workweekStart}
                    onChange={(e) => setDraft({ ...draft, workweekStart: e.currentTarget.value })}
                  >
                    {WEEKDAYS.map((day) => (
                      <option key={day} value={day}>
                        {capitalised(day)}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
              <Field
                label="Daily overtime after (hours)"
                hint="Hours worked in a day beyond this are overtime. Empty: no daily threshold (only the schedule's weekly hours)."
                error={problem?.fieldError('dailyOvertimeHours')}
              >
                {({ id, describedBy, invalid }) => (
                  <input
                    id={id}
                    type="text"
                    inputMode="decimal"
                    aria-describedby={describedBy}
                    aria-invalid={invalid}
                    disabled={!canEdit}
                    value={threshold}
                    onInput={(e) => setThreshold(e.currentTarget.value)}
                  />
                )}
              </Field>
              <Field label="Working-time rules" error={problem?.fieldError('workingTimeRules')}>
                {({ id, describedBy, invalid }) => (
                  <select
                    id={id}
                    aria-describedby={describedBy}
                    aria-invalid={invalid}
                    disabled={!canEdit}
                    value={draft.workingTimeRules}
                    onChange={(e) => setDraft({ ...draft, workingTimeRules: e.currentTarget.value })}
                  >
                    {RULE_PACKS.map(([value, label]) => (
                      <option key={value} value={value}>
                        {label}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
            </fieldset>
            {canEdit ? (
              <div>
                <button type="submit" class="primary" disabled={busy}>
                  {busy ? 'Saving…' : 'Save settings'}
                </button>
              </div>
            ) : null}
          </form>
        </section>
      ) : null}
    </>
  );
}

export const companyScreen: Screen = {
  path: 'company',
  title: 'Company',
  allowed: () => true,
  component: CompanyScreen,
};
