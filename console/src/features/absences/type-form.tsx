import { useEffect, useState } from 'preact/hooks';
import { api, messageOf } from '../../api.js';
import { SelectField, TextField } from '../../components/fields.js';
import { type FormProblem, useFormProblem } from '../../components/form-problem.js';
import { Notice } from '../../components/ui.js';
import type { AbsenceType } from './model.js';

const CATEGORIES = [
  ['vacation', 'Vacation'],
  ['sick', 'Sick leave'],
  ['unpaid', 'Unpaid leave'],
  ['other', 'Other'],
] as const;

const SWITCHES = [
  ['paid', 'Paid'],
  ['countsAsWorkTime', 'Counts as work time (credited in timesheets)'],
  ['requiresApproval', 'Needs approval'],
  ['deductsFromBalance', 'Deducts from the yearly balance'],
  ['allowNegative', 'The balance may go below zero'],
] as const;

type Switch = (typeof SWITCHES)[number][0];

interface Draft {
  code: string;
  name: string;
  category: string;
  yearly: string;
  carryMax: string;
  carryExpires: string;
  switches: Record<Switch, boolean>;
}

function draftOf(type: AbsenceType | null): Draft {
  return {
    code: type?.code ?? '',
    name: type?.name ?? '',
    category: type?.category ?? 'other',
    yearly: String(type?.yearlyEntitlementDays ?? 0),
    carryMax: String(type?.carryOverMaxDays ?? 0),
    carryExpires: type?.carryOverExpiresOn ?? '',
    switches: {
      paid: type?.paid ?? true,
      countsAsWorkTime: type?.countsAsWorkTime ?? false,
      requiresApproval: type?.requiresApproval ?? true,
      deductsFromBalance: type?.deductsFromBalance ?? false,
      allowNegative: type?.allowNegative ?? false,
    },
  };
}

function bodyOf(draft: Draft, creating: boolean) {
  return {
    ...(creating ? { code: draft.code.trim(), category: draft.category } : {}),
    name: draft.name.trim(),
    yearlyEntitlementDays: Number(draft.yearly.replace(',', '.')),
    carryOverMaxDays: Number(draft.carryMax.replace(',', '.')),
    carryOverExpiresOn: draft.carryExpires.trim() === '' ? null : draft.carryExpires.trim(),
    ...draft.switches,
  };
}

/** A new absence type's fields, or an existing one's rules (its code stays). */
export function TypeForm(props: {
  type: AbsenceType | null;
  onSaved: (saved: AbsenceType) => void;
  onCancel: () => void;
}) {
  const creating = props.type === null;
  const [draft, setDraft] = useState(() => draftOf(props.type));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const problem = useFormProblem({ focusId: (field) => `type-${field}` });
  const prefix = creating ? 'New type' : `Type ${props.type!.code}`;
  useEffect(() => document.getElementById(creating ? 'type-code' : 'type-name')?.focus(), [creating]);

  async function submit(event: Event) {
    event.preventDefault();
    problem.clear();
    setError(null);
    setBusy(true);
    try {
      const body = bodyOf(draft, creating);
      const saved = creating
        ? await api<AbsenceType>('POST', '/absence-types', body)
        : await api<AbsenceType>('PATCH', `/absence-types/${props.type!.id}`, body);
      props.onSaved(saved);
    } catch (caught) {
      setError(
        problem.take(caught) > 0
          ? 'Not saved: a field needs a change (marked below).'
          : `Not saved: ${messageOf(caught)}`,
      );
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="stack" aria-label={prefix} onSubmit={(event) => void submit(event)} noValidate>
      <Notice tone="error" message={error} />
      <TypeFields creating={creating} draft={draft} setDraft={setDraft} problem={problem} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Saving…' : creating ? 'Create type' : 'Save type'}
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** The fields of the form: code, name and category when creating; the rules always. */
function TypeFields(props: {
  creating: boolean;
  draft: Draft;
  setDraft: (draft: Draft) => void;
  problem: FormProblem;
}) {
  const { creating, draft, setDraft, problem } = props;
  const text = (
    key: 'code' | 'name' | 'yearly' | 'carryMax' | 'carryExpires',
    field: string,
    label: string,
    hint?: string,
  ) => (
    <TextField
      label={label}
      id={`type-${field}`}
      hint={hint}
      error={problem.error(field)}
      refusable
      value={draft[key]}
      onInput={(value) => setDraft({ ...draft, [key]: value })}
      input={key === 'yearly' || key === 'carryMax' ? { inputMode: 'decimal' } : {}}
    />
  );
  return (
    <>
      <div class="form-grid">
        {creating ? text('code', 'code', 'Code', 'Lower-case letters, digits, - or _, e.g. parental.') : null}
        {text('name', 'name', 'Name')}
        {creating ? (
          <SelectField
            label="Category"
            id="type-category"
            error={problem.error('category')}
            refusable
            value={draft.category}
            onChange={(value) => setDraft({ ...draft, category: value })}
            choices={CATEGORIES}
          />
        ) : null}
        {text(
          'yearly',
          'yearlyEntitlementDays',
          'Days a year',
          'Prorated by the whole months an employee is employed.',
        )}
        {text('carryMax', 'carryOverMaxDays', 'Carried over at most (days)', "Of last year's remainder.")}
        {text(
          'carryExpires',
          'carryOverExpiresOn',
          'Carried days usable until (MM-DD)',
          'e.g. 03-31; empty: all year.',
        )}
      </div>
      <fieldset>
        <legend>Rules</legend>
        {SWITCHES.map(([key, label]) => (
          <div class="check" key={key}>
            <input
              type="checkbox"
              id={`type-${key}`}
              checked={draft.switches[key]}
              onChange={(e) =>
                setDraft({ ...draft, switches: { ...draft.switches, [key]: e.currentTarget.checked } })
              }
            />
            <label for={`type-${key}`}>{label}</label>
          </div>
        ))}
      </fieldset>
    </>
  );
}
