import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiProblem, messageOf, type Person } from '../../api.js';
import { TextField } from '../../components/fields.js';
import { Notice } from '../../components/ui.js';
import { AuthLayout } from './auth-layout.js';

/** Email and password. A wrong password and an unknown email get the same answer from the server. */
export function SignInPage(props: { notice: string | null; onSignedIn: (person: Person) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const emailRef = useRef<HTMLInputElement>(null);
  useEffect(() => emailRef.current?.focus(), []);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      props.onSignedIn(await api<Person>('POST', '/session', { email: email.trim(), password }));
    } catch (caught) {
      if (caught instanceof ApiProblem && caught.error === 'invalid_credentials')
        setError('The email address or the password is not right.');
      else if (caught instanceof ApiProblem && caught.status === 429)
        setError(
          `Too many sign-in attempts. Try again${caught.retryAfterSeconds ? ` in ${caught.retryAfterSeconds} seconds` : ' later'}.`,
        );
      else setError(messageOf(caught));
      setPassword('');
    } finally {
      setBusy(false);
    }
  }

  return (
    <AuthLayout title="Sign in">
      <Notice tone="info" message={error ? null : props.notice} />
      <Notice tone="error" message={error} />
      <form onSubmit={(event) => void submit(event)} class="stack">
        <TextField
          label="Email address"
          value={email}
          onInput={setEmail}
          input={{ ref: emailRef, type: 'email', name: 'email', autocomplete: 'username', required: true }}
        />
        <TextField
          label="Password"
          value={password}
          onInput={setPassword}
          input={{ type: 'password', name: 'password', autocomplete: 'current-password', required: true }}
        />
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p class="hint auth-footnote">No password yet? Open the invitation link your administrator sent you.</p>
    </AuthLayout>
  );
}
