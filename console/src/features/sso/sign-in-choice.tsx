import { useState } from 'preact/hooks';
import { ADMIN_API, api, ApiProblem, messageOf } from '../../api.js';
import { parseHash } from '../../router.js';
import { ssoMessage } from './messages.js';

/*
 * Signing in with the company's identity provider (issue 34): the sign-in page asks whether the email's
 * domain uses single sign-on, then sends the browser to the server's start, which sends it on to the
 * provider.
 */

/** Where to come back after signing in: the console page asked for, else its home. */
function returnTo(): string {
  const route = parseHash(location.hash);
  const first = route.segments[0];
  return first === undefined || first === 'sign-in' || first === 'invite'
    ? '/console/'
    : `/console/${location.hash}`;
}

/**
 * Sends the browser to the company's provider when the email's domain uses single sign-on: true then
 * (the page is leaving), false when it does not. Errors are thrown as ApiProblems.
 */
export async function startSingleSignOn(email: string): Promise<boolean> {
  const lookup = await api<{ singleSignOn: boolean }>(
    'GET',
    `/sso/lookup?email=${encodeURIComponent(email)}`,
  );
  if (!lookup.singleSignOn) return false;
  const query = new URLSearchParams({ email, returnTo: returnTo() });
  location.assign(`${ADMIN_API}/sso/start?${query.toString()}`);
  return true;
}

/** "Continue with single sign-on" under the password form; it uses the email typed above. */
export function SsoChoice(props: { email: string; onError: (message: string | null) => void }) {
  const [busy, setBusy] = useState(false);
  async function go() {
    props.onError(null);
    const email = props.email.trim();
    if (!email.includes('@')) {
      props.onError('Enter your work email address above first.');
      document.querySelector<HTMLInputElement>('input[name="email"]')?.focus();
      return;
    }
    setBusy(true);
    try {
      if (await startSingleSignOn(email)) return;
      props.onError(ssoMessage('sso_not_configured'));
    } catch (caught) {
      props.onError(caught instanceof ApiProblem ? ssoMessage(caught.error) : messageOf(caught));
    }
    setBusy(false);
  }
  return (
    <div class="sso-choice">
      <p class="sso-or" aria-hidden="true">
        or
      </p>
      <button type="button" class="sso-button" disabled={busy} onClick={() => void go()}>
        {busy ? 'Opening your company’s sign-in…' : 'Continue with single sign-on'}
      </button>
      <p class="hint">
        For companies that sign in with their identity provider (Entra ID, Google, Okta, Keycloak…).
      </p>
    </div>
  );
}
