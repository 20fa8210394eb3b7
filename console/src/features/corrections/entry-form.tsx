import { useState } from 'preact/hooks';
import { api, ApiProblem, messageOf } from '../../api.js';
import { TextField } from '../../components/fields.js';
import { type FormProblem, useFormProblem } from '../../components/form-problem.js';
import { ConfirmDialog, Notice } from '../../components/ui.js';
import { addDays, formatDay } from '../../format.js';
import { isPunchedSource } from '../time-tracking/entries/model.js';
import type { EntryLike } from './model.js';
import { zonedInstant } from './zoned.js';

/*
 * The forms of the Time entries screen's corrections (issue 30): edit an entry, close an open
 * session, add a missing shift. Times are typed in the entries' zone; the server checks every rule
 * and names the refused field, shown next to it. A change someone else made meanwhile (412
 * version_mismatch) is said as such, never overwritten.
 */

export interface Draft {
  startDate: string;
  startTime: string;
  endDate: string;
  endTime: string;
  breakMinutes: string;
  note: string;
  reason: string;
}

type Mode = 'edit' | 'close' | 'add';

const hhmm = (time: string | null) => (time ? time.slice(0, 5) : '');

export function draftOf(entry: EntryLike | null, today: string): Draft {
  if (!entry)
    return {
      startDate: today,
      startTime: '',
      endDate: today,
      endTime: '',
      breakMinutes: '',
      note: '',
      reason: '',
    };
  const endDate = entry.endsNextDay ? addDays(entry.workDate, 1) : entry.workDate;
  return {
    startDate: entry.workDate,
    startTime: hhmm(entry.startTime),
    endDate,
    endTime: hhmm(entry.endTime),
    breakMinutes: entry.breakMinutes === null ? '' : String(entry.breakMinutes),
    note: '',
    reason: '',
  };
}

/** The body of the change: only what differs from the entry (a shift: everything). */
export function bodyOf(mode: Mode, entry: EntryLike | null, draft: Draft, zone: string) {
  const before = draftOf(entry, draft.startDate);
  const body: Record<string, unknown> = {};
  if (mode === 'add' || draft.startDate !== before.startDate || draft.startTime !== before.startTime)
    body.clockIn = zonedInstant(draft.startDate, draft.startTime, zone);
  if (mode !== 'edit' || draft.endDate !== before.endDate || draft.endTime !== before.endTime)
    body.clockOut = zonedInstant(draft.endDate, draft.endTime, zone);
  if (
    draft.breakMinutes.trim() !== before.breakMinutes &&
    (mode !== 'close' || draft.breakMinutes.trim() !== '')
  )
    body.breakMinutes = draft.breakMinutes.trim() === '' ? null : Number(draft.breakMinutes);
  if (draft.note.trim() !== '') body.note = draft.note.trim();
  if (mode !== 'add') body.reason = draft.reason.trim();
  return body;
}

const STALE =
  'Someone else changed this entry while you were editing it, so nothing was saved. Close this dialog to see the entry as it is now, then make your change again.';

/** Sends the form; its outcome: done, refused (a problem to show), or stale (changed meanwhile). */
async function send(mode: Mode, entry: EntryLike | null, employeeId: string, body: Record<string, unknown>) {
  if (mode === 'add') return api('POST', '/time-entries', { employee: { id: employeeId }, ...body });
  return api('PATCH', `/time-entries/${entry!.id}`, body, { 'if-match': `"${entry!.version}"` });
}

/** The id of the control of each field the server may refuse (the focus goes to the first refused). */
const CONTROL_IDS: Record<string, string> = {
  clockIn: 'entry-start-time',
  clockOut: 'entry-end-time',
  breakMinutes: 'entry-break',
  breaks: 'entry-break',
  note: 'entry-note',
  reason: 'entry-reason',
};

interface FieldsProps {
  draft: Draft;
  set: (change: Partial<Draft>) => void;
  problem: FormProblem;
  mode: Mode;
}

function TimeFields({ draft, set, problem, mode }: FieldsProps) {
  const day = { type: 'date', required: true };
  const clock = { type: 'time', required: true };
  return (
    <div class="form-grid">
      {mode !== 'close' ? (
        <>
          <TextField
            label="Start day"
            value={draft.startDate}
            onInput={(startDate) => set({ startDate })}
            input={day}
          />
          <TextField
            label="Start time"
            id={CONTROL_IDS.clockIn}
            error={problem.error('clockIn')}
            refusable
            value={draft.startTime}
            onInput={(startTime) => set({ startTime })}
            input={clock}
          />
        </>
      ) : null}
      <TextField label="End day" value={draft.endDate} onInput={(endDate) => set({ endDate })} input={day} />
      <TextField
        label="End time"
        id={CONTROL_IDS.clockOut}
        error={problem.error('clockOut')}
        refusable
        value={draft.endTime}
        onInput={(endTime) => set({ endTime })}
        input={clock}
      />
    </div>
  );
}

function DetailFields({ draft, set, problem, mode, punched }: FieldsProps & { punched: boolean }) {
  const breakHint = punched
    ? 'Punched breaks: a number here replaces them with one break in the middle; leave it to keep them.'
    : 'One unpaid break, in minutes; empty for none.';
  return (
    <>
      <TextField
        label="Break (minutes)"
        id={CONTROL_IDS.breakMinutes}
        hint={breakHint}
        error={problem.error('breakMinutes') ?? problem.error('breaks')}
        refusable
        value={draft.breakMinutes}
        onInput={(breakMinutes) => set({ breakMinutes })}
        input={{ type: 'number', min: '0', max: '1440', inputMode: 'numeric' }}
      />
      <TextField
        label={mode === 'add' ? 'Note (optional)' : 'New note (optional)'}
        id={CONTROL_IDS.note}
        error={problem.error('note')}
        refusable
        value={draft.note}
        onInput={(note) => set({ note })}
        input={{ maxLength: 500 }}
      />
      {mode !== 'add' ? (
        <TextField
          label="Reason"
          id={CONTROL_IDS.reason}
          hint="Kept in the entry's history."
          error={problem.error('reason')}
          refusable
          value={draft.reason}
          onInput={(reason) => set({ reason })}
          input={{ required: true, maxLength: 500 }}
        />
      ) : null}
    </>
  );
}

const TITLES: Record<Mode, string> = {
  edit: 'Edit entry',
  close: 'Close open session',
  add: 'Add missing shift',
};
const DONE: Record<Mode, string> = {
  edit: 'The entry is corrected.',
  close: 'The session is closed and waits for approval.',
  add: 'The shift is added and waits for approval.',
};

/** Edit an entry, close an open session, or add a missing shift. */
export function EntryFormDialog(props: {
  mode: Mode;
  entry: EntryLike | null;
  employeeId: string;
  zone: string;
  today: string;
  onDone: (message: string) => void;
  onStale: () => void;
  onCancel: () => void;
}) {
  const { mode, entry } = props;
  const [draft, setDraft] = useState<Draft>(() => draftOf(entry, props.today));
  const problem = useFormProblem({ focusId: (field) => CONTROL_IDS[field] ?? 'entry-end-time' });
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (change: Partial<Draft>) => setDraft((current) => ({ ...current, ...change }));
  async function submit() {
    setBusy(true);
    setError(null);
    problem.clear();
    try {
      await send(mode, entry, props.employeeId, bodyOf(mode, entry, draft, props.zone));
      props.onDone(DONE[mode]);
    } catch (caught) {
      const stale = caught instanceof ApiProblem && caught.error === 'version_mismatch';
      if (stale) props.onStale();
      problem.take(caught);
      setError(stale ? STALE : messageOf(caught));
    } finally {
      setBusy(false);
    }
  }
  const title = entry
    ? `${TITLES[mode]}: ${formatDay(entry.workDate)} ${hhmm(entry.startTime)}`
    : TITLES[mode];
  return (
    <ConfirmDialog
      open
      title={title}
      confirmLabel={mode === 'add' ? 'Add shift' : 'Save'}
      busy={busy}
      onConfirm={() => void submit()}
      onCancel={props.onCancel}
    >
      <p class="hint">Times in {props.zone}.</p>
      <Notice tone="error" message={error} />
      <TimeFields draft={draft} set={set} problem={problem} mode={mode} />
      <DetailFields
        draft={draft}
        set={set}
        problem={problem}
        mode={mode}
        punched={isPunchedSource(entry?.source)}
      />
    </ConfirmDialog>
  );
}
