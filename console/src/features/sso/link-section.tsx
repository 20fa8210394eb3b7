import { useEffect, useState } from 'preact/hooks';
import { api, ApiProblem, messageOf } from '../../api.js';
import { Notice } from '../../components/ui.js';
import { ssoErrorFromAddress, ssoMessage } from './messages.js';

/*
 * "Your sign-in" on the Company screen, for everyone whose company has single sign-on: whether their
 * account is linked to the company's identity provider, and "Link my account". Super admins and people
 * with rights beyond those of whoever configured the provider link themselves here (the provider may
 * not link them by email at their first single sign-on).
 */

interface LinkStatus {
  available: boolean;
  linked: boolean;
  issuer: string | null;
}

export function SsoLinkSection() {
  const [status, setStatus] = useState<LinkStatus | null>(null);
  const [error, setError] = useState<string | null>(() => ssoErrorFromAddress('company'));
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    api<LinkStatus>('GET', '/sso/link')
      .then(setStatus)
      .catch((caught: unknown) => setError(messageOf(caught)));
  }, []);
  if (!status?.available) return null;

  async function link() {
    setBusy(true);
    setError(null);
    try {
      const started = await api<{ location: string }>('POST', '/sso/link', {
        returnTo: '/console/#/company',
      });
      location.assign(started.location);
    } catch (caught) {
      setError(caught instanceof ApiProblem ? ssoMessage(caught.error) : messageOf(caught));
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="sso-link-heading" class="card">
      <h2 id="sso-link-heading">Your sign-in</h2>
      <Notice tone="error" message={error} />
      {status.linked ? (
        <p>
          <span aria-hidden="true">✓ </span>
          Your account is linked to your company's identity provider: sign in with “Continue with single
          sign-on”.
        </p>
      ) : (
        <>
          <p class="hint">
            Your account is not linked to your company's identity provider yet. Link it to sign in through the
            provider; you sign in there with the account that has your email address. Link only if you trust
            this provider: it will be able to sign you in here.
          </p>
          <dl class="pairs">
            <dt>Identity provider</dt>
            <dd>
              <code>{status.issuer}</code>
            </dd>
          </dl>
          <div class="actions">
            <button type="button" disabled={busy} onClick={() => void link()}>
              {busy ? 'Opening your company’s sign-in…' : 'Link my account'}
            </button>
          </div>
        </>
      )}
    </section>
  );
}
