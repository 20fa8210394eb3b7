import { useState } from 'preact/hooks';
import { api, messageOf } from '../../api.js';
import { type Choice, SelectField, TextField } from '../../components/fields.js';
import { type FormProblem, useFormProblem } from '../../components/form-problem.js';
import { Notice } from '../../components/ui.js';
import { hrefOf } from '../../router.js';
import { bodyOf, type Draft, draftOf, type EmployeeDetail, type Named, STATUSES } from './model.js';

interface EmployeeFormProps {
  employee: EmployeeDetail | null;
  workplaces: Named[];
  schedules: Named[];
  canEdit: boolean;
  onSaved: (saved: EmployeeDetail, created: boolean) => void;
  onDelete: (employee: EmployeeDetail) => void;
}

/** A new employee's fields, or an existing one's; a refusal is shown next to its field. */
export function EmployeeForm(props: EmployeeFormProps) {
  const { employee, canEdit } = props;
  const [draft, setDraft] = useState<Draft>(() => draftOf(employee));
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const problem = useFormProblem({ focusId: (field) => `employee-${field}` });

  async function submit(event: Event) {
    event.preventDefault();
    problem.clear();
    setError(null);
    setStatus(null);
    const body = bodyOf(draft, employee);
    if (employee && Object.keys(body).length === 0) {
      setStatus('Nothing to save: no field was changed.');
      return;
    }
    setBusy(true);
    try {
      const saved = employee
        ? await api<EmployeeDetail>('PATCH', `/employees/${employee.id}`, body)
        : await api<EmployeeDetail>('POST', '/employees', body);
      props.onSaved(saved, employee === null);
    } catch (caught) {
      const refused = problem.take(caught);
      setError(
        refused > 0
          ? `Not saved: ${refused === 1 ? 'a field needs' : 'some fields need'} a change (marked below).`
          : `Not saved: ${messageOf(caught)}`,
      );
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="stack employee-form" onSubmit={(event) => void submit(event)} noValidate>
      <Notice tone="error" message={error} />
      <Notice tone="info" message={status} />
      <div class="form-grid">
        <EmployeeFields {...props} draft={draft} setDraft={setDraft} problem={problem} />
      </div>
      {canEdit ? (
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            {busy ? 'Saving…' : employee ? 'Save changes' : 'Create employee'}
          </button>
          <a class="button-link" href={hrefOf(['employees'])}>
            Cancel
          </a>
          {employee ? (
            <button type="button" class="danger-outline" onClick={() => props.onDelete(employee)}>
              Delete employee
            </button>
          ) : null}
        </div>
      ) : (
        <p>
          <a href={hrefOf(['employees'])}>Back to the employees</a>
        </p>
      )}
    </form>
  );
}

interface FieldsProps extends EmployeeFormProps {
  draft: Draft;
  setDraft: (draft: Draft) => void;
  problem: FormProblem;
}

function EmployeeFields({ draft, setDraft, problem, canEdit, workplaces, schedules }: FieldsProps) {
  const select = (key: keyof Draft, label: string, choices: readonly Choice[], withNone: boolean) => (
    <SelectField
      label={label}
      id={`employee-${key}`}
      error={problem.error(key)}
      refusable
      disabled={!canEdit}
      value={draft[key]}
      onChange={(value) => setDraft({ ...draft, [key]: value })}
      choices={choices}
    >
      {withNone ? <option value="">None</option> : null}
    </SelectField>
  );
  const text = (key: keyof Draft, label: string, options: TextOptions = {}) => (
    <TextField
      label={label}
      id={`employee-${key}`}
      hint={options.hint}
      error={problem.error(key)}
      refusable
      value={draft[key]}
      onInput={(value) => setDraft({ ...draft, [key]: value })}
      input={{
        type: options.type ?? 'text',
        'aria-required': options.required ? true : undefined,
        disabled: !canEdit,
        autocomplete: 'off',
      }}
    />
  );
  return (
    <>
      {text('email', 'Email address (required)', { type: 'email', required: true })}
      {text('firstName', 'First name')}
      {text('lastName', 'Last name')}
      {text('externalId', 'Badge id (external id)', {
        hint: 'The id badge terminals and integrations know the employee by; at most 64 characters.',
      })}
      {select('status', 'Status', STATUSES, false)}
      {select('workplaceId', 'Workplace', choicesOf(workplaces), true)}
      {select('scheduleId', 'Schedule', choicesOf(schedules), true)}
      {text('scheduleFrom', 'Schedule applies from', {
        type: 'date',
        hint: 'With a schedule. Left empty, it applies from 60 days ago, as on the command line.',
      })}
      {text('hiredOn', 'Hired on', {
        type: 'date',
        hint: 'First day of employment: the yearly leave entitlement is prorated by the whole months employed.',
      })}
      {text('leftOn', 'Left on', { type: 'date', hint: 'Last day of employment; empty while employed.' })}
    </>
  );
}

const choicesOf = (list: Named[]): Choice[] => list.map((item) => [item.id, item.name]);

interface TextOptions {
  type?: string;
  hint?: string;
  required?: boolean;
}
