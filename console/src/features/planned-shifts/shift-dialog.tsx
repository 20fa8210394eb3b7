import { useEffect, useId, useRef, useState } from 'preact/hooks';
import type { ApiProblem } from '../../api.js';
import { SelectField, TextField } from '../../components/fields.js';
import { nameOf, type RosterEmployee, type ShiftDraft } from './model.js';

/**
 * The dialog that plans or changes one shift (native <dialog>: focus moves in, Tab stays inside,
 * Escape cancels, focus returns to the button that opened it). Moving a shift is changing its day or
 * times here; everything works with the keyboard alone.
 */
export function ShiftDialog(props: {
  open: boolean;
  editing: boolean;
  initial: ShiftDraft;
  employees: RosterEmployee[];
  timeZone: string;
  busy: boolean;
  problem: ApiProblem | null;
  onSave: (draft: ShiftDraft) => void;
  onDelete: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const [draft, setDraft] = useState(props.initial);
  useEffect(() => {
    if (props.open) setDraft(props.initial);
  }, [props.open, props.initial]);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (props.open && !dialog.open) dialog.showModal();
    if (!props.open && dialog.open) dialog.close();
  }, [props.open]);
  const error = (field: string) => props.problem?.fieldError(field);
  const set = (patch: Partial<ShiftDraft>) => setDraft((before) => ({ ...before, ...patch }));
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      class="shift-dialog"
      onCancel={(event) => {
        event.preventDefault();
        props.onCancel();
      }}
    >
      <form
        method="dialog"
        onSubmit={(event) => {
          event.preventDefault();
          props.onSave(draft);
        }}
      >
        <h2 id={titleId}>{props.editing ? 'Change the shift' : 'Plan a shift'}</h2>
        <p class="hint">Times in {props.timeZone}. An end at or before the start is on the next day.</p>
        <ShiftFields draft={draft} employees={props.employees} error={error} set={set} />
        {props.problem && !props.problem.fieldErrors.length ? (
          <p class="field-error" role="alert">
            <span aria-hidden="true">⚠ </span>
            {props.problem.text}
          </p>
        ) : null}
        <DialogActions
          editing={props.editing}
          busy={props.busy}
          onDelete={props.onDelete}
          onCancel={props.onCancel}
        />
      </form>
    </dialog>
  );
}

function DialogActions(props: {
  editing: boolean;
  busy: boolean;
  onDelete: () => void;
  onCancel: () => void;
}) {
  return (
    <div class="actions">
      <button type="submit" class="primary" disabled={props.busy}>
        {props.editing ? 'Save the shift' : 'Plan the shift'}
      </button>
      {props.editing ? (
        <button type="button" class="danger-outline" disabled={props.busy} onClick={props.onDelete}>
          Delete the shift
        </button>
      ) : null}
      <button type="button" onClick={props.onCancel}>
        Cancel
      </button>
    </div>
  );
}

/** The dialog's fields: who, which day, from when to when, the break, a note. */
function ShiftFields(props: {
  draft: ShiftDraft;
  employees: RosterEmployee[];
  error: (field: string) => string | undefined;
  set: (patch: Partial<ShiftDraft>) => void;
}) {
  const { draft, error, set } = props;
  return (
    <>
      <SelectField
        label="Employee"
        refusable
        value={draft.employeeId}
        error={error('employeeId')}
        onChange={(employeeId) => set({ employeeId })}
        choices={props.employees.map((employee) => [employee.id, nameOf(employee)] as const)}
      />
      <TextField
        label="Day"
        refusable
        input={{ type: 'date', required: true }}
        value={draft.date}
        error={error('date')}
        onInput={(date) => set({ date })}
      />
      <div class="time-pair">
        <TextField
          label="Start"
          refusable
          input={{ type: 'time', required: true }}
          value={draft.startTime}
          error={error('startTime')}
          onInput={(startTime) => set({ startTime })}
        />
        <TextField
          label="End"
          refusable
          input={{ type: 'time', required: true }}
          value={draft.endTime}
          error={error('endTime')}
          onInput={(endTime) => set({ endTime })}
        />
      </div>
      <TextField
        label="Break (minutes)"
        refusable
        input={{ type: 'number', min: 0, max: 1440, step: 5, inputMode: 'numeric' }}
        value={String(draft.breakMinutes)}
        error={error('breakMinutes')}
        onInput={(value) => set({ breakMinutes: Number(value || '0') })}
      />
      <TextField
        label="Note"
        refusable
        hint="Optional, for the employee and the managers."
        input={{ maxLength: 500 }}
        value={draft.note}
        error={error('note')}
        onInput={(note) => set({ note })}
      />
    </>
  );
}
