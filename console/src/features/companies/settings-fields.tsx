import type { ComponentChildren } from 'preact';
import type { Choice } from '../../components/fields.js';
import { SelectField, TextField } from '../../components/fields.js';
import type { FormProblem } from '../../components/form-problem.js';
import { WEEKDAYS, weekdayLabel } from '../../names.js';

export interface CompanySettings {
  id: string;
  name: string;
  timeZone: string | null;
  timeTracking: boolean;
  apiAccess: boolean;
  workweekStart: string;
  dailyOvertimeHours: number | null;
  workingTimeRules: string;
  lateGraceMinutes: number;
  noShowAfterMinutes: number;
  rounding: string;
  roundingMinutes: number;
  /** The personal web clock of self-service (issue 35). */
  webClock: boolean;
}

const RULE_PACKS: Choice[] = [
  ['none', 'None: no working-time flags'],
  ['de-arbzg', 'Germany (ArbZG): breaks, 10 h a day, 11 h rest'],
  ['us-ca', 'California: daily overtime, double time, meal breaks'],
];

const WEEKDAY_CHOICES: Choice[] = WEEKDAYS.map((day) => [day, weekdayLabel(day)]);

function zoneNames(): string[] {
  try {
    return Intl.supportedValuesOf('timeZone');
  } catch {
    return ['UTC'];
  }
}

export interface SettingsFieldsProps {
  /** What is saved now (the switches say so beside their box). */
  company: CompanySettings | null;
  draft: CompanySettings;
  setDraft: (draft: CompanySettings) => void;
  /** The overtime threshold as typed ('' for none), so a half-typed number is not lost. */
  threshold: string;
  setThreshold: (value: string) => void;
  problem: FormProblem;
  canEdit: boolean;
}

/** The company's zone, whether time tracking and API access are on. */
export function GeneralFields({ draft, setDraft, problem, canEdit, company }: SettingsFieldsProps) {
  const zones = zoneNames();
  const current = draft.timeZone ?? '';
  return (
    <>
      <SelectField
        label="Time zone"
        hint="Work days, reports and the console's dates and times use this zone unless a workplace has its own."
        error={problem.error('timeZone')}
        refusable
        disabled={!canEdit}
        value={current}
        onChange={(value) => setDraft({ ...draft, timeZone: value || null })}
        choices={zones.map((zone) => [zone, zone])}
      >
        <option value="">Not set (UTC)</option>
        {current && !zones.includes(current) ? <option value={current}>{current}</option> : null}
      </SelectField>
      <Switch
        id="setting-time-tracking"
        label="Time tracking"
        disabled={!canEdit}
        checked={draft.timeTracking}
        onChange={(checked) => setDraft({ ...draft, timeTracking: checked })}
      >
        Ticked: time is recorded and read through the API. Not ticked: those operations are refused for the
        whole company. Saved now: <strong>{company?.timeTracking ? 'on' : 'off'}</strong>.
      </Switch>
      <Switch
        id="setting-api-access"
        label="API access"
        disabled={!canEdit}
        checked={draft.apiAccess}
        onChange={(checked) => setDraft({ ...draft, apiAccess: checked })}
      >
        Ticked: the company's API keys get tokens. Not ticked: no key of the company gets one. Saved now:{' '}
        <strong>{company?.apiAccess ? 'on' : 'off'}</strong>.
      </Switch>
      <Switch
        id="setting-web-clock"
        label="Web clock"
        disabled={!canEdit}
        checked={draft.webClock}
        onChange={(checked) => setDraft({ ...draft, webClock: checked })}
      >
        Ticked: employees signed in to their own console (My day) clock in and out from their browser or
        phone. Saved now: <strong>{company?.webClock ? 'on' : 'off'}</strong>.
      </Switch>
    </>
  );
}

/** A check box with its label and a hint that says what ticking it does. */
function Switch(props: {
  id: string;
  label: string;
  disabled: boolean;
  checked: boolean;
  onChange: (checked: boolean) => void;
  children: ComponentChildren;
}) {
  return (
    <div class="check">
      <input
        type="checkbox"
        id={props.id}
        aria-describedby={`${props.id}-hint`}
        disabled={props.disabled}
        checked={props.checked}
        onChange={(e) => props.onChange(e.currentTarget.checked)}
      />
      <label for={props.id}>{props.label}</label>
      <p class="hint" id={`${props.id}-hint`}>
        {props.children}
      </p>
    </div>
  );
}

/** How timesheets count regular and overtime hours, and which rules they flag. */
export function TimesheetFields({
  draft,
  setDraft,
  threshold,
  setThreshold,
  problem,
  canEdit,
}: SettingsFieldsProps) {
  return (
    <fieldset class="stack">
      <legend>Timesheets</legend>
      <p class="hint">How timesheets count regular and overtime hours, and which rules they flag.</p>
      <SelectField
        label="Workweek starts on"
        error={problem.error('workweekStart')}
        refusable
        disabled={!canEdit}
        value={draft.workweekStart}
        onChange={(value) => setDraft({ ...draft, workweekStart: value })}
        choices={WEEKDAY_CHOICES}
      />
      <TextField
        label="Daily overtime after (hours)"
        hint="Hours worked in a day beyond this are overtime. Empty: no daily threshold (only the schedule's weekly hours)."
        error={problem.error('dailyOvertimeHours')}
        refusable
        value={threshold}
        onInput={setThreshold}
        input={{ inputMode: 'decimal', disabled: !canEdit }}
      />
      <SelectField
        label="Working-time rules"
        error={problem.error('workingTimeRules')}
        refusable
        disabled={!canEdit}
        value={draft.workingTimeRules}
        onChange={(value) => setDraft({ ...draft, workingTimeRules: value })}
        choices={RULE_PACKS}
      />
    </fieldset>
  );
}

const ROUNDINGS: Choice[] = [
  ['none', 'None: reports show the punched times'],
  ['nearest', 'To the nearest step (neutral)'],
  ['up', "Up: in the employee's favour"],
  ['down', "Down: in the employer's favour (not lawful in the US)"],
];

/** Minutes as choices: the usual ones and the value saved now, in order. */
function minuteChoices(usual: readonly number[], current: number): Choice[] {
  return [...new Set([...usual, current])]
    .sort((a, b) => a - b)
    .map((minutes) => [String(minutes), `${minutes} min`]);
}

/** The margins of the attendance exceptions (issue 33) and the rounding of reported time. */
export function AttendanceFields({ draft, setDraft, problem, canEdit }: SettingsFieldsProps) {
  type MinutesField = 'lateGraceMinutes' | 'noShowAfterMinutes' | 'roundingMinutes';
  const minutes = (field: MinutesField, label: string, usual: number[], hint: string) => (
    <SelectField
      label={label}
      hint={hint}
      error={problem.error(field)}
      refusable
      disabled={!canEdit}
      value={String(draft[field])}
      onChange={(value) => setDraft({ ...draft, [field]: Number(value) })}
      choices={minuteChoices(usual, draft[field])}
    />
  );
  return (
    <fieldset class="stack">
      <legend>Attendance and rounding</legend>
      <p class="hint">How the plan is compared with the punches, and how reports round worked time.</p>
      {minutes(
        'lateGraceMinutes',
        'Late after (grace)',
        [0, 1, 2, 3, 5, 10, 15, 20, 30],
        'A clock-in this long after a shift starts is not yet late; the same margin applies to leaving early.',
      )}
      {minutes(
        'noShowAfterMinutes',
        'No-show after',
        [5, 10, 15, 20, 30, 45, 60, 90, 120],
        'No clock-in this long after a shift starts: a no-show (resolved when the clock-in comes).',
      )}
      <SelectField
        label="Rounding of reported time"
        hint="Reports only: punches never change, and breaks and working-time rules use the punched times."
        error={problem.error('rounding')}
        refusable
        disabled={!canEdit}
        value={draft.rounding}
        onChange={(value) => setDraft({ ...draft, rounding: value })}
        choices={ROUNDINGS}
      />
      {minutes('roundingMinutes', 'Rounding step', [1, 5, 6, 10, 15, 30], 'The grid times are rounded to.')}
    </fieldset>
  );
}
