import { useEffect, useState } from 'preact/hooks';
import { api, messageOf, may, PERMISSIONS } from '../../api.js';
import { useFormProblem } from '../../components/form-problem.js';
import { Loading, Notice, ScreenHeading } from '../../components/ui.js';
import { AbsenceTypesSection } from '../absences/company-types.js';
import { HolidaysSection } from '../absences/company-holidays.js';
import type { Screen, ScreenProps } from '../../screens/registry.js';
import { SsoLinkSection } from '../sso/link-section.js';
import { SsoSection } from '../sso/section.js';
import {
  AttendanceFields,
  type CompanySettings,
  GeneralFields,
  type SettingsFieldsProps,
  TimesheetFields,
} from './settings-fields.js';

const thresholdText = (hours: number | null) => (hours === null ? '' : String(hours));

/** Only the settings that differ from what is saved. */
function changesOf(company: CompanySettings, draft: CompanySettings, hours: number | null) {
  const changes: Partial<CompanySettings> = {};
  if (draft.workweekStart !== company.workweekStart) changes.workweekStart = draft.workweekStart;
  if (hours !== company.dailyOvertimeHours) changes.dailyOvertimeHours = hours;
  if (draft.workingTimeRules !== company.workingTimeRules) changes.workingTimeRules = draft.workingTimeRules;
  if (draft.timeZone !== company.timeZone) changes.timeZone = draft.timeZone;
  if (draft.timeTracking !== company.timeTracking) changes.timeTracking = draft.timeTracking;
  if (draft.apiAccess !== company.apiAccess) changes.apiAccess = draft.apiAccess;
  if (draft.webClock !== company.webClock) changes.webClock = draft.webClock;
  for (const field of ['lateGraceMinutes', 'noShowAfterMinutes', 'roundingMinutes'] as const)
    if (draft[field] !== company[field]) changes[field] = draft[field];
  if (draft.rounding !== company.rounding) changes.rounding = draft.rounding;
  return changes;
}

/** The settings as saved and as edited, and saving them (only what changed is sent). */
function useCompanySettings(refreshSession: () => Promise<void>) {
  const [company, setCompany] = useState<CompanySettings | null>(null);
  const [draft, setDraft] = useState<CompanySettings | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [threshold, setThreshold] = useState('');
  const [busy, setBusy] = useState(false);
  const problem = useFormProblem();
  const saved = (settings: CompanySettings) => {
    setCompany(settings);
    setDraft(settings);
    setThreshold(thresholdText(settings.dailyOvertimeHours));
  };

  useEffect(() => {
    api<CompanySettings>('GET', '/company')
      .then(saved)
      .catch((caught: unknown) => setLoadError(messageOf(caught)));
  }, []);

  async function save(event: Event) {
    event.preventDefault();
    if (!company || !draft) return;
    const hours = threshold.trim() === '' ? null : Number(threshold.replace(',', '.'));
    setStatus(null);
    if (hours !== null && !Number.isFinite(hours)) {
      problem.refuse({ dailyOvertimeHours: 'must be a number of hours from 0 to 24, or empty for none' });
      setError('Not saved: the daily overtime threshold must be a number of hours.');
      return;
    }
    problem.clear();
    setError(null);
    const changes = changesOf(company, draft, hours);
    if (Object.keys(changes).length === 0) {
      setStatus('Nothing to save: no setting was changed.');
      return;
    }
    setBusy(true);
    try {
      const settings = await api<CompanySettings>('PATCH', '/company', changes);
      saved(settings);
      setStatus('The settings are saved.');
      if (settings.timeZone !== company.timeZone) await refreshSession();
    } catch (caught) {
      setError(
        problem.take(caught) > 0 ? 'Not saved: a setting needs a change (marked below).' : messageOf(caught),
      );
    } finally {
      setBusy(false);
    }
  }

  return { company, draft, setDraft, loadError, status, error, threshold, setThreshold, busy, problem, save };
}

/** `#/company`: the company's settings; changing them needs permission 93. */
function CompanyScreen({ person, refreshSession }: ScreenProps) {
  const canEdit = may(person, PERMISSIONS.manageCompany);
  const settings = useCompanySettings(refreshSession);
  const { draft, loadError } = settings;
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
          <Notice tone="success" message={settings.status} />
          <Notice tone="error" message={settings.error} />
          <SettingsForm {...settings} draft={draft} canEdit={canEdit} />
        </section>
      ) : null}
      {canEdit ? <SsoSection /> : null}
      <SsoLinkSection />
      <AbsenceTypesSection canEdit={canEdit} />
      <HolidaysSection canEdit={canEdit} />
    </>
  );
}

function SettingsForm(props: SettingsFieldsProps & { save: (event: Event) => Promise<void>; busy: boolean }) {
  return (
    <form onSubmit={(event) => void props.save(event)} class="stack">
      <dl class="pairs">
        <dt>Name</dt>
        <dd>{props.draft.name}</dd>
      </dl>
      <GeneralFields {...props} />
      <TimesheetFields {...props} />
      <AttendanceFields {...props} />
      {props.canEdit ? (
        <div>
          <button type="submit" class="primary" disabled={props.busy}>
            {props.busy ? 'Saving…' : 'Save settings'}
          </button>
        </div>
      ) : null}
    </form>
  );
}

export const companyScreen: Screen = {
  path: 'company',
  title: 'Company',
  // Anyone signed in, except a self-service person (an employee without permissions, issue 35): their
  // console is their own day, time and absences.
  allowed: (person) => person.superAdmin || person.permissions.length > 0 || person.employeeId === null,
  component: CompanyScreen,
};
