import { useState } from 'preact/hooks';
import { api, messageOf } from '../../api.js';
import { Field, Loading, Notice } from '../../components/ui.js';
import { formatDay, formatInstant } from '../../format.js';
import type { CorrectionRequest } from './model.js';
import { usePaged } from './use-paged.js';

/** One waiting request: what was asked, why, and the manager's two answers. */
function RequestItem(props: {
  request: CorrectionRequest;
  zone: string;
  onDecided: (message: string) => void;
}) {
  const { request: r } = props;
  const [rejecting, setRejecting] = useState(false);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function decide(decision: 'approve' | 'reject') {
    setBusy(true);
    setError(null);
    try {
      await api('POST', `/correction-requests/${r.id}/${decision}`, decision === 'reject' ? { reason } : {});
      props.onDecided(
        decision === 'approve'
          ? `The correction of ${r.employeeName ?? ''} for ${formatDay(r.date)} was applied.`
          : `The request of ${r.employeeName ?? ''} for ${formatDay(r.date)} was rejected.`,
      );
    } catch (caught) {
      setError(messageOf(caught));
    } finally {
      setBusy(false);
    }
  }
  const what = [
    r.timeEntryId === null ? 'a missing entry' : null,
    r.proposed.clockIn ? `clock in at ${formatInstant(r.proposed.clockIn, props.zone)}` : null,
    r.proposed.clockOut ? `clock out at ${formatInstant(r.proposed.clockOut, props.zone)}` : null,
    r.proposed.breakMinutes !== null ? `break ${r.proposed.breakMinutes} min` : null,
  ].filter(Boolean);
  return (
    <li class="card">
      <p>
        <strong>{r.employeeName}</strong>, {formatDay(r.date)}: {what.join(', ')}. “{r.reason}”
      </p>
      <Notice tone="error" message={error} />
      {rejecting ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void decide('reject');
          }}
        >
          <Field label="Reason for the employee" id={`reject-${r.id}`}>
            {({ id, describedBy }) => (
              <input
                id={id}
                required
                maxLength={500}
                aria-describedby={describedBy}
                value={reason}
                onInput={(e) => setReason(e.currentTarget.value)}
              />
            )}
          </Field>
          <div class="actions">
            <button type="submit" class="primary" disabled={busy || reason.trim() === ''}>
              Reject request
            </button>
            <button type="button" onClick={() => setRejecting(false)}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <div class="actions">
          <button type="button" class="primary" disabled={busy} onClick={() => void decide('approve')}>
            Approve and apply<span class="visually-hidden"> the request of {r.employeeName}</span>
          </button>
          <button type="button" disabled={busy} onClick={() => setRejecting(true)}>
            Reject…<span class="visually-hidden"> the request of {r.employeeName}</span>
          </button>
        </div>
      )}
    </li>
  );
}

/** The Time entries screen's waiting correction requests (permission 91), 100 a page, "Load more" for the rest. */
export function CorrectionRequestsSection(props: { zone: string; onDecided: () => void }) {
  const requests = usePaged<CorrectionRequest>('/correction-requests');
  const [message, setMessage] = useState<string | null>(null);
  const items = requests.items ?? [];
  return (
    <section class="card" aria-labelledby="correction-requests-heading">
      <h2 id="correction-requests-heading">
        Correction requests ({items.length}
        {requests.more ? '+' : ''})
      </h2>
      <Notice tone="success" message={message} />
      <Notice tone="error" message={requests.error} />
      {requests.items === null && !requests.error ? <Loading what="correction requests" /> : null}
      {requests.items && items.length === 0 ? <p>No correction request is waiting.</p> : null}
      <ul class="plain-list stack">
        {items.map((r) => (
          <RequestItem
            key={r.id}
            request={r}
            zone={props.zone}
            onDecided={(text) => {
              setMessage(text);
              requests.reload();
              props.onDecided();
            }}
          />
        ))}
      </ul>
      {requests.more ? (
        <button type="button" disabled={requests.loadingMore} onClick={() => void requests.loadMore()}>
          Load more correction requests
        </button>
      ) : null}
    </section>
  );
}
