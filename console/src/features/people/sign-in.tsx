import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiProblem, messageOf, type Person } from '../../api.js';
import { TextField } from '../../components/fields.js';
import { Notice } from '../../components/ui.js';
import { AuthLayout } from './auth-layout.js';
import { ssoErrorFromAddress, ssoMessage } from '../sso/messages.js';
import { SsoChoice, startSingleSignOn } from '../sso/sign-in-choice.js';

/** The sign-in's refusal in words (single sign-on's own, the rate limit with its wait). */
function signInError(caught: unknown): string {
  if (caught instanceof ApiProblem && caught.error === 'invalid_credentials')
    return 'The email address or the password is not right.';
  if (caught instanceof ApiProblem && caught.error === 'sso_required') return ssoMessage('sso_required');
  if (caught instanceof ApiProblem && caught.status === 429)
    return `Too many sign-in attempts. Try again${caught.retryAfterSeconds ? ` in ${caught.retryAfterSeconds} seconds` : ' later'}.`;
  return messageOf(caught);
}

/**
 * Email and password; or, with the password left empty (or "Continue with single sign-on"), the
 * company's identity provider when the email's domain uses one. A wrong password and an unknown email
 * get the same answer from the server.
 */
export function SignInPage(props: { notice: string | null; onSignedIn: (person: Person) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(ssoErrorFromAddress);
  const emailRef = useRef<HTMLInputElement>(null);
  useEffect(() => emailRef.current?.focus(), []);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      if (password === '') {
        // No password: the company's identity provider, when the domain has one.
        if (await startSingleSignOn(email.trim())) return;
        setError('Enter your password.');
        document.querySelector<HTMLInputElement>('input[name="password"]')?.focus();
        return;
      }
      props.onSignedIn(await api<Person>('POST', '/session', { email: email.trim(), password }));
    } catch (caught) {
      setError(signInError(caught));
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
          hint="Leave it empty if your company signs in with its identity provider."
          value={password}
          onInput={setPassword}
          input={{ type: 'password', name: 'password', autocomplete: 'current-password' }}
        />
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <SsoChoice email={email} onError={setError} />
      <p class="hint auth-footnote">No password yet? Open the invitation link your administrator sent you.</p>
    </AuthLayout>
  );
}
