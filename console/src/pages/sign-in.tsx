import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiProblem, messageOf, type Person } from '../api.js';
import { Field, Notice } from '../components/ui.js';

export const MIN_PASSWORD_LENGTH = 12;

function AuthLayout(props: { title: string; children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${props.title} · Punchclock`;
  }, [props.title]);
  return (
    <main class="auth-page" id="main">
      <div class="auth-card">
        <p class="auth-brand" aria-hidden="true">
          Punchclock
        </p>
        <h1 ref={heading} tabIndex={-1}>
          {props.title}
        </h1>
        {props.children}
      </div>
    </main>
  );
}

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
        <Field label="Email address">
          {({ id, describedBy }) => (
            <input
              ref={emailRef}
              id={id}
              aria-describedby={describedBy}
              type="email"
              name="email"
              autocomplete="username"
              required
              value={email}
              onInput={(e) => setEmail(e.currentTarget.value)}
            />
          )}
        </Field>
        <Field label="Password">
          {({ id, describedBy }) => (
            <input
              id={id}
              aria-describedby={describedBy}
              type="password"
              name="password"
              autocomplete="current-password"
              required
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
          )}
        </Field>
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p class="hint auth-footnote">No password yet? Open the invitation link your administrator sent you.</p>
    </AuthLayout>
  );
}

/** `#/invite/<token>`: choose a password (twice), then the person is signed in. */
export function InvitePage(props: { token: string; onSignedIn: (person: Person) => void }) {
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [fieldErrors, setFieldErrors] = useState<{ password?: string; repeat?: string }>({});
  const firstRef = useRef<HTMLInputElement>(null);
  useEffect(() => firstRef.current?.focus(), []);

  async function submit(event: Event) {
    event.preventDefault();
    setError(null);
    const errors: { password?: string; repeat?: string } = {};
    if (password.length < MIN_PASSWORD_LENGTH)
      errors.password = `Use at least ${MIN_PASSWORD_LENGTH} characters (this one has ${password.length}).`;
    else if (password !== repeat) errors.repeat = 'The two passwords are not the same.';
    setFieldErrors(errors);
    if (errors.password || errors.repeat) {
      document.getElementById(errors.password ? 'invite-password' : 'invite-repeat')?.focus();
      return;
    }
    setBusy(true);
    try {
      props.onSignedIn(await api<Person>('POST', '/invitations/accept', { token: props.token, password }));
    } catch (caught) {
      if (caught instanceof ApiProblem && caught.error === 'invitation_invalid')
        setError(
          'This invitation link is no longer valid: it was already used or it has expired. Ask your administrator for a new one.',
        );
      else if (caught instanceof ApiProblem && caught.fieldError('password'))
        setFieldErrors({ password: caught.fieldError('password') });
      else setError(messageOf(caught));
    } finally {
      setBusy(false);
    }
  }

  return (
    <AuthLayout title="Choose your password">
      <p>Welcome to Punchclock. Choose the password you will sign in with.</p>
      <Notice tone="error" message={error} />
      <form onSubmit={(event) => void submit(event)} class="stack" noValidate>
        <Field
          id="invite-password"
          label="New password"
          hint={`At least ${MIN_PASSWORD_LENGTH} characters. A few unrelated words make a strong one.`}
          error={fieldErrors.password}
        >
          {({ id, describedBy, invalid }) => (
            <input
              ref={firstRef}
              id={id}
              aria-describedby={describedBy}
              aria-invalid={invalid}
              type="password"
              name="new-password"
              autocomplete="new-password"
              required
              minLength={MIN_PASSWORD_LENGTH}
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
          )}
        </Field>
        <Field id="invite-repeat" label="Repeat the password" error={fieldErrors.repeat}>
          {({ id, describedBy, invalid }) => (
            <input
              id={id}
              aria-describedby={describedBy}
              aria-invalid={invalid}
              type="password"
              name="repeat-password"
              autocomplete="new-password"
              required
              value={repeat}
              onInput={(e) => setRepeat(e.currentTarget.value)}
            />
          )}
        </Field>
        <button type="submit" class="primary" disabled={busy || props.token === ''}>
          {busy ? 'Saving…' : 'Set password and sign in'}
        </button>
      </form>
    </AuthLayout>
  );
}
