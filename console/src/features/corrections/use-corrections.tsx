import { useRef, useState } from 'preact/hooks';
import { formatDay } from '../../format.js';
import { DeleteDialog, HistoryDialog } from './entry-dialogs.js';
import { EntryFormDialog } from './entry-form.js';
import type { CorrectionKind, EntryLike } from './model.js';

/*
 * The Time entries screen's corrections (issue 30), in one piece the screen plugs in: the buttons of
 * an entry's row, the "Add missing shift" button, and the dialog that is open. Focus goes back to the
 * button that opened a dialog (or to the entries' heading when the list changed under it).
 */

export interface CorrectionsOptions {
  employeeId: string;
  zone: string;
  today: string;
  /** Reads the week again. */
  reload: () => Promise<void>;
  /** Says what was done, in the screen's status region. */
  announce: (message: string) => void;
}

/** Opens a dialog of the corrections from the button `from` (which takes the focus back after). */
export type StartCorrection = (kind: CorrectionKind, entry: EntryLike | null, from: HTMLElement) => void;

export function useCorrections(options: CorrectionsOptions) {
  const [open, setOpen] = useState<{ kind: CorrectionKind; entry: EntryLike | null } | null>(null);
  const opener = useRef<HTMLElement | null>(null);
  const refocus = () => {
    const target = opener.current;
    if (target?.isConnected) target.focus();
    else document.getElementById('entries-heading')?.focus();
  };
  const close = () => {
    setOpen(null);
    refocus();
  };
  const done = async (message: string) => {
    setOpen(null);
    await options.reload();
    options.announce(message);
    refocus();
  };
  const start: StartCorrection = (kind, entry, from) => {
    opener.current = from;
    setOpen({ kind, entry });
  };
  const stale = () => void options.reload();
  let dialog = null;
  if (open?.kind === 'history' && open.entry)
    dialog = <HistoryDialog entry={open.entry} zone={options.zone} onClose={close} />;
  else if (open?.kind === 'delete' && open.entry)
    dialog = (
      <DeleteDialog entry={open.entry} onDone={(m) => void done(m)} onStale={stale} onCancel={close} />
    );
  else if (open && open.kind !== 'history' && open.kind !== 'delete')
    dialog = (
      <EntryFormDialog
        mode={open.kind}
        entry={open.entry}
        employeeId={options.employeeId}
        zone={options.zone}
        today={options.today}
        onDone={(m) => void done(m)}
        onStale={stale}
        onCancel={close}
      />
    );
  return { start, dialog };
}

/** An entry's buttons: Edit or Close session, Delete (with 91), History (for everyone who reads it). */
export function EntryButtons(props: { entry: EntryLike; canManage: boolean; start: StartCorrection }) {
  const { entry, canManage, start } = props;
  const label = `${formatDay(entry.workDate)} ${entry.startTime.slice(0, 5)}`;
  const open = entry.status === 'open';
  const button = (kind: CorrectionKind, text: string, danger = false) => (
    <button
      type="button"
      class={danger ? 'danger-outline' : undefined}
      aria-label={`${text} for the entry of ${label}`}
      onClick={(event) => start(kind, entry, event.currentTarget)}
    >
      {text}
    </button>
  );
  return (
    <>
      {canManage ? button(open ? 'close' : 'edit', open ? 'Close session' : 'Edit') : null}
      {canManage ? button('delete', 'Delete', true) : null}
      {button('history', 'History')}
    </>
  );
}

/** "Edited" and "Closed automatically" next to an entry's status. */
export function EntryMarks(props: { entry: Pick<EntryLike, 'edited' | 'autoClosed'> }) {
  return (
    <>
      {props.entry.autoClosed ? <span class="sub"> closed automatically</span> : null}
      {props.entry.edited ? <span class="sub"> edited</span> : null}
    </>
  );
}
