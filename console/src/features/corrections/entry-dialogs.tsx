import { useEffect, useState } from 'preact/hooks';
import { api, ApiProblem, messageOf } from '../../api.js';
import { TextField } from '../../components/fields.js';
import { useFormProblem } from '../../components/form-problem.js';
import { ConfirmDialog, InfoDialog, Loading, Notice, statusLabel } from '../../components/ui.js';
import { formatDay, formatInstant } from '../../format.js';
import type { EntryLike, Revision } from './model.js';

/* Deleting an entry with a reason, and an entry's history (issue 30). */

const hhmm = (time: string | null) => (time ? time.slice(0, 5) : '');
const labelOf = (entry: EntryLike) => `${formatDay(entry.workDate)} ${hhmm(entry.startTime)}`;

export function DeleteDialog(props: {
  entry: EntryLike;
  onDone: (message: string) => void;
  onStale: () => void;
  onCancel: () => void;
}) {
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const problem = useFormProblem({ focusId: () => 'delete-entry-reason' });
  async function submit() {
    setBusy(true);
    setError(null);
    problem.clear();
    try {
      await api(
        'DELETE',
        `/time-entries/${props.entry.id}`,
        { reason: reason.trim() },
        { 'if-match': `"${props.entry.version}"` },
      );
      props.onDone('The entry is deleted; its history stays readable.');
    } catch (caught) {
      const stale = caught instanceof ApiProblem && caught.error === 'version_mismatch';
      if (stale) props.onStale();
      problem.take(caught, ['reason']);
      setError(
        stale
          ? 'Someone else changed this entry meanwhile, so it was not deleted. Close this dialog to see it as it is now.'
          : messageOf(caught),
      );
    } finally {
      setBusy(false);
    }
  }
  return (
    <ConfirmDialog
      open
      danger
      title={`Delete the entry of ${labelOf(props.entry)}?`}
      confirmLabel="Delete entry"
      busy={busy}
      onConfirm={() => void submit()}
      onCancel={props.onCancel}
    >
      <p>It disappears from every list and report; its history keeps what it was.</p>
      <Notice tone="error" message={error} />
      <TextField
        label="Reason"
        id="delete-entry-reason"
        hint="Kept in the entry's history."
        error={problem.error('reason')}
        refusable
        value={reason}
        onInput={setReason}
        input={{ required: true, maxLength: 500 }}
      />
    </ConfirmDialog>
  );
}

const ACTIONS: Record<string, string> = {
  recorded: 'Recorded',
  break_started: 'Break started',
  break_ended: 'Break ended',
  completed: 'Clocked out',
  approved: 'Approved',
  rejected: 'Rejected',
  reopened: 'Reopened',
  corrected: 'Corrected',
  deleted: 'Deleted',
  auto_closed: 'Closed automatically',
};

const FIELDS: Record<string, string> = {
  workDate: 'Day',
  startTime: 'Start',
  endTime: 'End',
  endsNextDay: 'Ends next day',
  totalHours: 'Hours',
  breakMinutes: 'Break (min)',
  status: 'Status',
  approvedAt: 'Approved at',
  note: 'Note',
  breaks: 'Breaks',
};

function valueText(field: string, value: unknown, zone: string): string {
  if (value === null || value === undefined || value === '') return '—';
  if (field === 'status' && typeof value === 'string') return statusLabel(value);
  if (Array.isArray(value))
    return value.length === 0
      ? 'none'
      : value
          .map(
            (b: { startedAt: string; endedAt: string | null }) =>
              `${formatInstant(b.startedAt, zone)} – ${b.endedAt ? formatInstant(b.endedAt, zone) : 'running'}`,
          )
          .join('; ');
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'string' && /^\d{2}:\d{2}:\d{2}$/.test(value)) return value.slice(0, 5);
  if (typeof value === 'string' && /T.*Z$/.test(value)) return formatInstant(value, zone);
  return String(value);
}

function RevisionItem(props: { revision: Revision; zone: string }) {
  const { revision, zone } = props;
  const who = revision.actor.name ?? revision.actor.kind;
  return (
    <li>
      <p>
        <strong>{ACTIONS[revision.action] ?? revision.action}</strong> by {who},{' '}
        {formatInstant(revision.at, zone)}
      </p>
      {revision.reason ? <p class="hint">Why: {revision.reason}</p> : null}
      {revision.changes.length > 0 ? (
        <ul class="plain-list">
          {revision.changes.map((change) => (
            <li key={change.field}>
              {FIELDS[change.field] ?? change.field}: {valueText(change.field, change.from, zone)}{' '}
              <span aria-hidden="true">→</span>
              <span class="visually-hidden"> changed to </span> {valueText(change.field, change.to, zone)}
            </li>
          ))}
        </ul>
      ) : null}
    </li>
  );
}

/** Who changed what, when and why: the entry's revisions, oldest first. */
export function HistoryDialog(props: { entry: EntryLike; zone: string; onClose: () => void }) {
  const [revisions, setRevisions] = useState<Revision[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api<{ items: Revision[] }>('GET', `/time-entries/${props.entry.id}/revisions`)
      .then((list) => setRevisions(list.items))
      .catch((caught: unknown) => setError(messageOf(caught)));
  }, [props.entry.id]);
  return (
    <InfoDialog title={`History of the entry of ${labelOf(props.entry)}`} onClose={props.onClose}>
      <Notice tone="error" message={error} />
      {revisions === null && !error ? <Loading what="the history" /> : null}
      {revisions ? (
        <ol class="history">
          {revisions.map((revision) => (
            <RevisionItem key={revision.revision} revision={revision} zone={props.zone} />
          ))}
        </ol>
      ) : null}
    </InfoDialog>
  );
}
