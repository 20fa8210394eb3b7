import { useState } from 'preact/hooks';
import { messageOf } from '../../api.js';
import { TextField } from '../../components/fields.js';
import { DataTable } from '../../components/table.js';
import { ConfirmDialog, Loading, Notice } from '../../components/ui.js';
import { formatDay } from '../../format.js';
import { personName } from '../../names.js';
import { type Absence, absenceWhat, formatDays } from './model.js';
import { decide, type useRequests } from './use-absences.js';

type Requests = ReturnType<typeof useRequests>;

function RequestRow(props: {
  absence: Absence;
  canDecide: boolean;
  busy: boolean;
  onApprove: (a: Absence) => void;
  onReject: (a: Absence, opener: HTMLElement) => void;
}) {
  const { absence: a } = props;
  const name = personName(a.person);
  return (
    <tr>
      <th scope="row" data-label="Employee">
        {name}
      </th>
      <td data-label="Absence">{absenceWhat(a)}</td>
      <td data-label="Dates" class="nowrap">
        {formatDay(a.startDate)}
        {a.endDate !== a.startDate ? ` – ${formatDay(a.endDate)}` : ''}
      </td>
      <td data-label="Days">{formatDays(a.days)}</td>
      <td data-label="Note">{a.note ?? '—'}</td>
      <td class="row-actions">
        {props.canDecide ? (
          <>
            <button type="button" disabled={props.busy} onClick={() => props.onApprove(a)}>
              Approve
              <span class="visually-hidden">
                {' '}
                {name}’s {a.type.code}
              </span>
            </button>
            <button
              type="button"
              class="danger-outline"
              disabled={props.busy}
              onClick={(e) => props.onReject(a, e.currentTarget)}
            >
              Reject
              <span class="visually-hidden">
                {' '}
                {name}’s {a.type.code}
              </span>
            </button>
          </>
        ) : null}
      </td>
    </tr>
  );
}

/** Rejecting needs a reason: a dialog asks for it, then focus returns to where it was. */
function RejectDialog(props: {
  absence: Absence | null;
  busy: boolean;
  onReject: (reason: string) => void;
  onCancel: () => void;
}) {
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const name = props.absence ? personName(props.absence.person) : '';
  return (
    <ConfirmDialog
      open={props.absence !== null}
      title={`Reject ${name}’s request`}
      confirmLabel="Reject the request"
      danger
      busy={props.busy}
      onCancel={() => {
        setReason('');
        setError(undefined);
        props.onCancel();
      }}
      onConfirm={() => {
        if (reason.trim() === '') return setError('Say why: the employee sees the reason.');
        setError(undefined);
        props.onReject(reason.trim());
        setReason('');
      }}
    >
      <TextField
        label="Reason"
        id="reject-reason"
        error={error}
        refusable
        value={reason}
        onInput={setReason}
      />
    </ConfirmDialog>
  );
}

/** The requests waiting for a decision, each approved or rejected (with a reason) here. */
export function RequestsSection(props: { requests: Requests; canDecide: boolean; onDecided: () => void }) {
  const { requests } = props;
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [rejecting, setRejecting] = useState<{ absence: Absence; opener: HTMLElement } | null>(null);

  async function run(absence: Absence, decision: 'approve' | 'reject', reason: string | null) {
    setBusy(true);
    setStatus(null);
    setError(null);
    try {
      await decide(absence, decision, reason);
      setStatus(
        `${personName(absence.person)}’s ${absence.type.code} is ${decision === 'approve' ? 'approved' : 'rejected'}.`,
      );
      await requests.load(null);
      props.onDecided();
      // The row decided on is gone: the focus goes to the section's heading, under the status message.
      document.getElementById('requests-heading')?.focus();
    } catch (caught) {
      setError(`Not ${decision === 'approve' ? 'approved' : 'rejected'}: ${messageOf(caught)}`);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="requests-heading" class="card">
      <h2 id="requests-heading" tabIndex={-1}>
        Requests waiting{' '}
        <span class="count">
          ({requests.items?.length ?? 0}
          {requests.nextCursor ? '+' : ''})
        </span>
      </h2>
      {props.canDecide ? null : <p class="hint">Deciding on requests needs permission 96.</p>}
      <Notice tone="success" message={status} />
      <Notice tone="error" message={error ?? requests.error} />
      {requests.items === null && !requests.error ? <Loading what="requests" /> : null}
      {requests.items?.length === 0 ? <p>No request is waiting.</p> : null}
      {requests.items && requests.items.length > 0 ? (
        <DataTable
          caption="Absence requests waiting for a decision"
          columns={['Employee', 'Absence', 'Dates', 'Days', 'Note']}
          actions
        >
          {requests.items.map((a) => (
            <RequestRow
              key={a.id}
              absence={a}
              canDecide={props.canDecide}
              busy={busy}
              onApprove={(target) => void run(target, 'approve', null)}
              onReject={(target, opener) => setRejecting({ absence: target, opener })}
            />
          ))}
        </DataTable>
      ) : null}
      {requests.nextCursor ? (
        <button type="button" onClick={() => void requests.load(requests.nextCursor)}>
          Show more requests
        </button>
      ) : null}
      <RejectDialog
        absence={rejecting?.absence ?? null}
        busy={busy}
        onCancel={() => {
          rejecting?.opener.focus();
          setRejecting(null);
        }}
        onReject={(reason) => {
          const target = rejecting;
          setRejecting(null);
          if (target) void run(target.absence, 'reject', reason);
        }}
      />
    </section>
  );
}
