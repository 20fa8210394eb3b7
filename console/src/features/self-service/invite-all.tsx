import { useState } from 'preact/hooks';
import { api, messageOf } from '../../api.js';
import { SecretOnce } from '../../components/secret-once.js';
import { Notice } from '../../components/ui.js';

interface Invited {
  items: { employeeId: string; userId: string; url: string; expiresAt: string }[];
  skipped: { employeeId: string; reason: string }[];
}

const SKIP_REASONS: Record<string, string> = {
  email_in_use: 'another active person already has this email',
  email_domain_signs_in_elsewhere: "the email's domain signs in with another company's single sign-on",
  invalid_email: 'the email is not an address',
};

/** One line per employee left out, with the reason in words. */
function skippedText(skipped: Invited['skipped']): string | null {
  if (skipped.length === 0) return null;
  return `Not invited (${skipped.length}): ${skipped
    .map((s) => `${s.employeeId}: ${SKIP_REASONS[s.reason] ?? s.reason}`)
    .join('; ')}.`;
}

/**
 * "Invite everyone" (issue 35): a self-service person and a one-use link for every employee with an
 * email and no person yet. The links are shown once, to be handed out.
 */
export function InviteEveryone() {
  const [busy, setBusy] = useState(false);
  const [links, setLinks] = useState<Invited['items'] | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [skipped, setSkipped] = useState<string | null>(null);
  async function invite() {
    setBusy(true);
    setError(null);
    setMessage(null);
    setSkipped(null);
    try {
      const answer = await api<Invited>('POST', '/employees/invite-all', {});
      setSkipped(skippedText(answer.skipped));
      if (answer.items.length === 0) setMessage('Nobody left to invite: no employee without a person.');
      else setLinks(answer.items);
    } catch (caught) {
      setError(messageOf(caught));
    } finally {
      setBusy(false);
    }
  }
  return (
    <>
      <button type="button" disabled={busy} onClick={() => void invite()}>
        Invite everyone
      </button>
      <Notice tone="success" message={message} />
      <Notice tone="error" message={error} />
      <Notice tone="error" message={skipped} />
      {links ? (
        <SecretOnce
          headingId="invite-links-heading"
          heading={`${links.length} invitation link(s)`}
          explanation="Each link works once, for 72 hours: give each employee their own (one per line, after their employee id)."
          label="Invitation links"
          secret={links.map((l) => `${l.employeeId} ${l.url}`).join('\n')}
          rows={Math.min(10, links.length + 1)}
          onDone={() => setLinks(null)}
        />
      ) : null}
    </>
  );
}
