import { useState } from 'preact/hooks';
import { api, ApiProblem, messageOf } from '../../api.js';
import { TextField } from '../../components/fields.js';
import { Notice } from '../../components/ui.js';

/**
 * The kiosk PIN form (issue 35, item 4): 4 to 8 digits, sent once to `path` (PUT /employees/<id>/pin
 * for an administrator with 92, PUT /self/pin for the person's own), never shown again; the server
 * stores only a slow hash.
 */
export function PinForm(props: {
  path: string;
  title: string;
  hint: string;
  idPrefix: string;
  doneText: string;
}) {
  const [pin, setPin] = useState('');
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [fieldError, setFieldError] = useState<string | undefined>(undefined);
  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setDone(null);
    setError(null);
    setFieldError(undefined);
    try {
      await api('PUT', props.path, { pin });
      setPin('');
      setDone(props.doneText);
    } catch (caught) {
      if (caught instanceof ApiProblem && caught.error === 'validation_failed')
        setFieldError(caught.fieldError('pin') ?? caught.text);
      else setError(messageOf(caught));
    } finally {
      setBusy(false);
    }
  }
  const headingId = `${props.idPrefix}-pin-heading`;
  return (
    <section class="card pin-form" aria-labelledby={headingId}>
      <h2 id={headingId}>{props.title}</h2>
      <form aria-labelledby={headingId} onSubmit={(event) => void submit(event)}>
        <TextField
          label="New PIN"
          id={`${props.idPrefix}-pin`}
          hint={props.hint}
          error={fieldError}
          refusable
          value={pin}
          onInput={setPin}
          input={{
            type: 'password',
            inputMode: 'numeric',
            autoComplete: 'new-password',
            pattern: '[0-9]{4,8}',
            maxLength: 8,
            required: true,
          }}
        />
        <button type="submit" class="primary" disabled={busy}>
          Set PIN
        </button>
      </form>
      <Notice tone="success" message={done} />
      <Notice tone="error" message={error} />
    </section>
  );
}
