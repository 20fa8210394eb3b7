import { useState } from 'preact/hooks';
import { ConfirmDialog, Loading, Notice } from '../../components/ui.js';
import { SsoFields } from './settings-fields.js';
import { useSso } from './use-sso.js';

/*
 * The Company screen's single sign-on section (issue 34, permission 93): the redirect URI to register
 * at the provider, the configuration (the client secret is written, never shown), and removal.
 */

export function SsoSection() {
  const sso = useSso();
  const { settings, draft } = sso;
  const [confirming, setConfirming] = useState(false);
  return (
    <section aria-labelledby="sso-heading" class="card sso-settings">
      <h2 id="sso-heading">Single sign-on</h2>
      <p class="hint">People sign in with your company's identity provider (OpenID Connect).</p>
      <Notice tone="success" message={sso.status} />
      <Notice tone="error" message={sso.error} />
      {settings === null && sso.error === null ? <Loading what="single sign-on" /> : null}
      {settings ? (
        <>
          <dl class="pairs">
            <dt>Redirect URI to register at the provider</dt>
            <dd>
              <code>{settings.redirectUri}</code>
            </dd>
            <dt>Status</dt>
            <dd>{settings.configuration ? 'Configured' : 'Not configured'}</dd>
          </dl>
          <form
            onSubmit={(event) => {
              event.preventDefault();
              void sso.save();
            }}
            class="stack"
            noValidate
          >
            <SsoFields
              draft={draft}
              configured={settings.configuration !== null}
              problem={sso.problem}
              set={(change) => sso.setDraft({ ...draft, ...change })}
            />
            <div class="actions">
              <button type="submit" class="primary" disabled={sso.busy}>
                {sso.busy ? 'Saving…' : 'Save single sign-on'}
              </button>
              {settings.configuration ? (
                <button
                  type="button"
                  class="danger-outline"
                  disabled={sso.busy}
                  onClick={() => setConfirming(true)}
                >
                  Remove single sign-on
                </button>
              ) : null}
            </div>
          </form>
        </>
      ) : null}
      <ConfirmDialog
        open={confirming}
        title="Remove single sign-on?"
        confirmLabel="Remove"
        danger
        busy={sso.busy}
        onConfirm={() => {
          setConfirming(false);
          void sso.remove();
        }}
        onCancel={() => setConfirming(false)}
      >
        <p>
          People will have to sign in with a password again, and their links to the provider are forgotten.
        </p>
      </ConfirmDialog>
    </section>
  );
}
