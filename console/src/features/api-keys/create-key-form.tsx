import { useState } from 'preact/hooks';
import { api, messageOf, may, type Person } from '../../api.js';
import { type FormProblem, useFormProblem } from '../../components/form-problem.js';
import { FieldsetError, TextField } from '../../components/fields.js';
import { Field, Notice } from '../../components/ui.js';
import { isDay } from '../../format.js';
import { type KeyWithSecret, SCOPES } from './model.js';

const FIELDS = ['name', 'scopes', 'expiresAt', 'allowedIps'] as const;

interface KeyDraft {
  name: string;
  scopes: string[];
  expires: string;
  ips: string;
}

const EMPTY: KeyDraft = { name: '', scopes: [], expires: '', ips: '' };

function bodyOf(draft: KeyDraft) {
  const allowedIps = draft.ips
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return {
    name: draft.name.trim(),
    scopes: draft.scopes,
    ...(draft.expires ? { expiresAt: draft.expires } : {}),
    ...(allowedIps.length > 0 ? { allowedIps } : {}),
  };
}

/** Name, scopes, expiry and address ranges of a new key; checked here first, then by the server. */
export function CreateKeyForm(props: { person: Person; onCreated: (key: KeyWithSecret) => Promise<void> }) {
  const [draft, setDraft] = useState<KeyDraft>(EMPTY);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const problem = useFormProblem();
  const set = (change: (current: KeyDraft) => Partial<KeyDraft>) =>
    setDraft((current) => ({ ...current, ...change(current) }));

  async function submit(event: Event) {
    event.preventDefault();
    setError(null);
    const refused = problem.refuse({
      name: draft.name.trim() === '' ? 'Give the key a name, e.g. the system that will use it.' : undefined,
      scopes: draft.scopes.length === 0 ? 'Choose at least one scope.' : undefined,
      expiresAt: draft.expires !== '' && !isDay(draft.expires) ? 'Use a date like 2027-01-31.' : undefined,
    });
    if (refused) return;
    setBusy(true);
    try {
      const created = await api<KeyWithSecret>('POST', '/api-keys', bodyOf(draft));
      setDraft(EMPTY);
      await props.onCreated(created);
    } catch (caught) {
      setError(
        problem.take(caught, FIELDS) > 0
          ? 'The key was not created: see the fields marked below.'
          : messageOf(caught),
      );
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="create-key-heading" class="card">
      <h2 id="create-key-heading">Create a key</h2>
      <Notice tone="error" message={error} />
      <form onSubmit={(event) => void submit(event)} class="stack" noValidate>
        <KeyFields draft={draft} set={set} problem={problem} person={props.person} />
        <div>
          <button type="submit" class="primary" disabled={busy}>
            {busy ? 'Creating…' : 'Create key'}
          </button>
        </div>
      </form>
    </section>
  );
}

interface KeyFieldsProps {
  draft: KeyDraft;
  set: (change: (current: KeyDraft) => Partial<KeyDraft>) => void;
  problem: FormProblem;
  person: Person;
}

function KeyFields({ draft, set, problem, person }: KeyFieldsProps) {
  return (
    <>
      <TextField
        label="Name"
        hint="Who or what uses the key, e.g. “Payroll export”."
        error={problem.error('name')}
        refusable
        value={draft.name}
        onInput={(name) => set(() => ({ name }))}
        input={{ required: true, maxLength: 200 }}
      />
      <ScopeChoice
        person={person}
        scopes={draft.scopes}
        error={problem.error('scopes')}
        onToggle={(scope, checked) =>
          set((current) => ({
            scopes: checked ? [...current.scopes, scope] : current.scopes.filter((s) => s !== scope),
          }))
        }
      />
      <TextField
        label="Expires on (optional)"
        hint="Leave empty for a key that does not expire."
        error={problem.error('expiresAt')}
        refusable
        value={draft.expires}
        onInput={(expires) => set(() => ({ expires }))}
        input={{ type: 'date' }}
      />
      <Field
        label="Allowed IP ranges (optional)"
        hint="One address or CIDR range per line, e.g. 203.0.113.0/24. Empty allows any address."
        error={problem.error('allowedIps')}
      >
        {({ id, describedBy, invalid }) => (
          <textarea
            id={id}
            aria-describedby={describedBy}
            aria-invalid={invalid}
            rows={3}
            spellcheck={false}
            value={draft.ips}
            onInput={(e) => {
              const value = e.currentTarget.value;
              set(() => ({ ips: value }));
            }}
          />
        )}
      </Field>
    </>
  );
}

/** The scopes as check boxes; one the person may not grant is shown, disabled, with the reason. */
function ScopeChoice(props: {
  person: Person;
  scopes: string[];
  error: string | undefined;
  onToggle: (scope: string, checked: boolean) => void;
}) {
  const { scopes, error } = props;
  return (
    <fieldset
      class={error ? 'field-invalid' : undefined}
      aria-describedby={error ? 'scopes-error' : 'scopes-hint'}
    >
      <legend>Scopes</legend>
      <p class="hint" id="scopes-hint">
        Recording scopes can always be granted; reading scopes need your own permission for the same data.
      </p>
      {SCOPES.map((scope) => {
        const allowed = scope.machine || may(props.person, scope.permission);
        const id = `scope-${scope.id}`;
        return (
          <div class="check" key={scope.id}>
            <input
              type="checkbox"
              id={id}
              checked={scopes.includes(scope.id)}
              disabled={!allowed}
              aria-describedby={allowed ? undefined : `${id}-why`}
              onChange={(e) => props.onToggle(scope.id, e.currentTarget.checked)}
            />
            <label for={id}>
              <code>{scope.id}</code> {scope.label}
            </label>
            {allowed ? null : (
              <span class="sub" id={`${id}-why`}>
                (needs permission {scope.permission}, which you do not have)
              </span>
            )}
          </div>
        );
      })}
      <FieldsetError id="scopes-error" message={error} />
    </fieldset>
  );
}
