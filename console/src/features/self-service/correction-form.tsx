import { useState } from 'preact/hooks';
import { api, messageOf } from '../../api.js';
import { TextField } from '../../components/fields.js';
import { type FormProblem, useFormProblem } from '../../components/form-problem.js';
import { Field, Notice } from '../../components/ui.js';
import { formatDay } from '../../format.js';
import { zonedInstant } from '../corrections/zoned.js';
import type { OwnEntry } from './model.js';

/** What the form asks for: the entry's day (a missing entry: any day), times and break, and why. */
interface Draft {
  date: string;
  clockIn: string;
  clockOut: string;
  breakMinutes: string;
  reason: string;
}

function draftOf(entry: OwnEntry | null, day: string): Draft {
  return {
    date: entry?.workDate ?? day,
    clockIn: entry?.startTime.slice(0, 5) ?? '',
    clockOut: entry?.endTime?.slice(0, 5) ?? '',
    breakMinutes: entry?.breakMinutes === null || entry === null ? '' : String(entry.breakMinutes),
    reason: '',
  };
}

/** The body of POST /self/correction-requests: only what changed is proposed. */
function bodyOf(entry: OwnEntry | null, draft: Draft, zone: string) {
  const nextDay = (time: string) =>
    entry?.endsNextDay || (draft.clockIn !== '' && time < draft.clockIn) ? 1 : 0;
  const endDate = (time: string) => {
    const date = new Date(`${draft.date}T00:00:00Z`);
    date.setUTCDate(date.getUTCDate() + nextDay(time));
    return date.toISOString().slice(0, 10);
  };
  const clockIn =
    draft.clockIn !== '' && draft.clockIn !== entry?.startTime.slice(0, 5)
      ? zonedInstant(draft.date, draft.clockIn, zone)
      : null;
  const clockOut =
    draft.clockOut !== '' && draft.clockOut !== entry?.endTime?.slice(0, 5)
      ? zonedInstant(endDate(draft.clockOut), draft.clockOut, zone)
      : null;
  const minutes = draft.breakMinutes === '' ? null : Number(draft.breakMinutes);
  const breakMinutes = minutes !== null && minutes !== entry?.breakMinutes ? minutes : null;
  return {
    timeEntryId: entry?.id ?? null,
    ...(entry === null ? { date: draft.date } : {}),
    proposed: { clockIn, clockOut, breakMinutes },
    reason: draft.reason.trim(),
  };
}

/** The day (a missing entry only), the times and the break. */
function TimeFields(props: {
  entry: OwnEntry | null;
  draft: Draft;
  set: (field: keyof Draft) => (value: string) => void;
  problem: FormProblem;
}) {
  const { entry, draft, set, problem } = props;
  return (
    <div class="form-grid">
      {entry === null ? (
        <TextField
          label="Day"
          id="correction-date"
          value={draft.date}
          onInput={set('date')}
          error={problem.error('date')}
          refusable
          input={{ type: 'date', required: true }}
        />
      ) : null}
      <TextField
        label="Clock in"
        id="correction-clockIn"
        value={draft.clockIn}
        onInput={set('clockIn')}
        error={problem.error('clockIn')}
        refusable
        input={{ type: 'time', required: entry === null }}
      />
      <TextField
        label="Clock out"
        id="correction-clockOut"
        value={draft.clockOut}
        onInput={set('clockOut')}
        error={problem.error('clockOut')}
        refusable
        input={{ type: 'time', required: entry === null }}
      />
      <TextField
        label="Break (minutes)"
        id="correction-breakMinutes"
        value={draft.breakMinutes}
        onInput={set('breakMinutes')}
        error={problem.error('breakMinutes')}
        refusable
        input={{ type: 'number', min: 0, max: 1440, inputMode: 'numeric' }}
      />
    </div>
  );
}

/** "Request a correction" of one of the person's entries, or of a missing one (`entry` null). */
export function CorrectionForm(props: {
  entry: OwnEntry | null;
  day: string;
  zone: string;
  onDone: (message: string) => void;
  onCancel: () => void;
}) {
  const { entry } = props;
  const [draft, setDraft] = useState<Draft>(() => draftOf(entry, props.day));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const problem = useFormProblem({ focusId: (field) => `correction-${field}` });
  const set = (field: keyof Draft) => (value: string) => setDraft({ ...draft, [field]: value });
  async function submit(event: Event) {
    event.preventDefault();
    setError(null);
    if (
      problem.refuse({ reason: draft.reason.trim() === '' ? 'Say why (the manager reads it).' : undefined })
    )
      return;
    setBusy(true);
    try {
      await api('POST', '/self/correction-requests', bodyOf(entry, draft, props.zone));
      props.onDone('Your correction request was sent to your manager.');
    } catch (caught) {
      if (problem.take(caught) === 0) setError(messageOf(caught));
    } finally {
      setBusy(false);
    }
  }
  const heading = entry ? `Request a correction of ${formatDay(entry.workDate)}` : 'Report a missing entry';
  return (
    <form class="card" aria-labelledby="correction-heading" onSubmit={(e) => void submit(e)}>
      <h2 id="correction-heading">{heading}</h2>
      <p class="hint">Times in {props.zone}. Change what was wrong; your manager decides.</p>
      <TimeFields entry={entry} draft={draft} set={set} problem={problem} />
      <Field label="Reason" id="correction-reason" error={problem.error('reason')}>
        {({ id, describedBy, invalid }) => (
          <textarea
            id={id}
            rows={2}
            maxLength={500}
            aria-describedby={describedBy}
            aria-invalid={invalid}
            value={draft.reason}
            onInput={(e) => set('reason')(e.currentTarget.value)}
          />
        )}
      </Field>
      <Notice tone="error" message={error} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          Send request
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
