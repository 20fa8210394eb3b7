import { useState } from 'preact/hooks';
import { api, messageOf } from '../../api.js';
import { FieldsetError, TextField } from '../../components/fields.js';
import { useFormProblem } from '../../components/form-problem.js';
import { Notice } from '../../components/ui.js';
import { type Endpoint, EVENT_TYPES, type WithSecret } from './model.js';

/** URL, event types and description: for a new endpoint or an existing one. */
export function EndpointForm(props: {
  endpoint: Endpoint | null;
  onSaved: (saved: Endpoint | WithSecret) => void;
}) {
  const { endpoint } = props;
  const [url, setUrl] = useState(endpoint?.url ?? '');
  const [types, setTypes] = useState<string[]>(endpoint?.eventTypes ?? []);
  const [description, setDescription] = useState(endpoint?.description ?? '');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const prefix = endpoint ? 'edit' : 'new';
  const problem = useFormProblem({
    focusId: (field) => `${prefix}-webhook-${field === 'eventTypes' ? 'types' : field}`,
  });

  async function submit(event: Event) {
    event.preventDefault();
    problem.clear();
    setError(null);
    setBusy(true);
    const body = { url: url.trim(), eventTypes: types, description: description.trim() || null };
    try {
      const saved = endpoint
        ? await api<Endpoint>('PATCH', `/webhooks/${endpoint.id}`, body)
        : await api<WithSecret>('POST', '/webhooks', body);
      if (!endpoint) {
        setUrl('');
        setTypes([]);
        setDescription('');
      }
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
    <form class="stack" onSubmit={(event) => void submit(event)} noValidate>
      <Notice tone="error" message={error} />
      <TextField
        label="Receiver URL"
        id={`${prefix}-webhook-url`}
        hint="An https address the receiver answers at; it must resolve to a public address."
        error={problem.error('url')}
        refusable
        value={url}
        onInput={setUrl}
        input={{ inputMode: 'url' }}
      />
      <EventTypeChoice
        prefix={prefix}
        types={types}
        setTypes={setTypes}
        error={problem.error('eventTypes')}
      />
      <TextField
        label="Description (optional)"
        error={problem.error('description')}
        refusable
        value={description}
        onInput={setDescription}
      />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Saving…' : endpoint ? 'Save changes' : 'Create endpoint'}
        </button>
      </div>
    </form>
  );
}

/** The event types as check boxes in a fieldset that takes the focus when the types are refused. */
function EventTypeChoice(props: {
  prefix: string;
  types: string[];
  setTypes: (update: (current: string[]) => string[]) => void;
  error: string | undefined;
}) {
  const { prefix, error } = props;
  return (
    <fieldset
      id={`${prefix}-webhook-types`}
      tabIndex={-1}
      class={error ? 'field-invalid' : undefined}
      aria-describedby={error ? `${prefix}-webhook-types-error` : undefined}
    >
      <legend>Events to receive</legend>
      <div class="check-grid">
        {EVENT_TYPES.map(([type, label]) => {
          const id = `${prefix}-event-${type}`;
          return (
            <div class="check" key={type}>
              <input
                type="checkbox"
                id={id}
                checked={props.types.includes(type)}
                onChange={(e) => {
                  const checked = e.currentTarget.checked;
                  props.setTypes((current) =>
                    checked ? [...current, type] : current.filter((t) => t !== type),
                  );
                }}
              />
              <label for={id}>
                <code>{type}</code> <span class="sub">{label}</span>
              </label>
            </div>
          );
        })}
      </div>
      <FieldsetError id={`${prefix}-webhook-types-error`} message={error} />
    </fieldset>
  );
}
