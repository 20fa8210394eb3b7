import { useState } from 'preact/hooks';
import { api, messageOf } from '../../api.js';
import { SecretOnce } from '../../components/secret-once.js';
import { Notice } from '../../components/ui.js';

interface Invited {
  items: { employeeId: string; userId: string; url: string; expiresAt: string }[];
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
  async function invite() {
    setBusy(true);
    setError(null);
    setMessage(null);
    try {
      const answer = await api<Invited>('POST', '/employees/invite-all', {});
      if (answer.items.length === 0) setMessage('Every employee with an email already has a person.');
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
