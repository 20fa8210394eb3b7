import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiProblem, messageOf, type Person } from '../../api.js';
import { useFormProblem } from '../../components/form-problem.js';
import { TextField } from '../../components/fields.js';
import { Notice } from '../../components/ui.js';
import { AuthLayout } from './auth-layout.js';

export const MIN_PASSWORD_LENGTH = 12;

/** The form's own check: long enough, and the same twice. */
function passwordProblems(password: string, repeat: string): Record<string, string | undefined> {
  if (password.length < MIN_PASSWORD_LENGTH)
    return { password: `Use at least ${MIN_PASSWORD_LENGTH} characters (this one has ${password.length}).` };
  if (password !== repeat) return { repeat: 'The two passwords are not the same.' };
  return {};
}

/** `#/invite/<token>`: choose a password (twice), then the person is signed in. */
export function InvitePage(props: { token: string; onSignedIn: (person: Person) => void }) {
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const problem = useFormProblem({ focusId: (field) => `invite-${field}` });
  const firstRef = useRef<HTMLInputElement>(null);
  useEffect(() => firstRef.current?.focus(), []);

  async function submit(event: Event) {
    event.preventDefault();
    setError(null);
    if (problem.refuse(passwordProblems(password, repeat))) return;
    setBusy(true);
    try {
      props.onSignedIn(await api<Person>('POST', '/invitations/accept', { token: props.token, password }));
    } catch (caught) {
      if (caught instanceof ApiProblem && caught.error === 'invitation_invalid')
        setError(
          'This invitation link is no longer valid: it was already used or it has expired. Ask your administrator for a new one.',
        );
      else if (problem.take(caught, ['password']) === 0) setError(messageOf(caught));
    } finally {
      setBusy(false);
    }
  }

  return (
    <AuthLayout title="Choose your password">
      <p>Welcome to Punchclock. Choose the password you will sign in with.</p>
      <Notice tone="error" message={error} />
      <form onSubmit={(event) => void submit(event)} class="stack" noValidate>
        <TextField
          id="invite-password"
          label="New password"
          hint={`At least ${MIN_PASSWORD_LENGTH} characters. A few unrelated words make a strong one.`}
          error={problem.error('password')}
          refusable
          value={password}
          onInput={setPassword}
          input={{
            ref: firstRef,
            type: 'password',
            name: 'new-password',
            autocomplete: 'new-password',
            required: true,
            minLength: MIN_PASSWORD_LENGTH,
          }}
        />
        <TextField
          id="invite-repeat"
          label="Repeat the password"
          error={problem.error('repeat')}
          refusable
          value={repeat}
          onInput={setRepeat}
          input={{ type: 'password', name: 'repeat-password', autocomplete: 'new-password', required: true }}
        />
        <button type="submit" class="primary" disabled={busy || props.token === ''}>
          {busy ? 'Saving…' : 'Set password and sign in'}
        </button>
      </form>
    </AuthLayout>
  );
}
