import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';

/**
 * The small set of building blocks every screen uses, so that each screen gets labels, error
 * association, live announcements and focus handling right without thinking about it.
 */

/** The screen's one h1; it takes focus when the screen opens so keyboard and screen-reader users land on it. */
export function ScreenHeading(props: { title: string; children?: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${props.title} · Punchclock`;
    ref.current?.focus({ preventScroll: false });
  }, [props.title]);
  return (
    <header class="screen-header">
      <h1 ref={ref} tabIndex={-1}>
        {props.title}
      </h1>
      {props.children}
    </header>
  );
}

/** "Dates and times in Europe/Berlin (the company's time zone)": the zone is named wherever times are shown. */
export function ZoneNote(props: { timeZone: string | null }) {
  return (
    <p class="zone-note">
      {props.timeZone ? (
        <>
          Dates and times in <strong>{props.timeZone}</strong> (the company's time zone).
        </>
      ) : (
        <>
          Dates and times in <strong>UTC</strong>: the company has no time zone set (see Company).
        </>
      )}
    </p>
  );
}

interface FieldProps {
  label: string;
  /** A fixed id for the control (otherwise one is generated). */
  id?: string;
  hint?: string | undefined;
  error?: string | undefined;
  children: (ids: { id: string; describedBy: string | undefined; invalid: boolean }) => JSX.Element;
}

/** A label, the control, an optional hint and an error, all tied together with ids. */
export function Field(props: FieldProps) {
  const generated = useId();
  const id = props.id ?? generated;
  const hintId = props.hint ? `${id}-hint` : undefined;
  const errorId = props.error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  return (
    <div class={`field${props.error ? ' field-invalid' : ''}`}>
      <label for={id}>{props.label}</label>
      {props.hint ? (
        <p class="hint" id={hintId}>
          {props.hint}
        </p>
      ) : null}
      {props.children({ id, describedBy, invalid: Boolean(props.error) })}
      {props.error ? (
        <p class="field-error" id={errorId}>
          <span aria-hidden="true">⚠ </span>
          {props.error}
        </p>
      ) : null}
    </div>
  );
}

export type Tone = 'info' | 'success' | 'error';

/**
 * A message region. Errors are alerts (announced at once); the rest are polite status messages.
 * The region is always in the page so screen readers notice when its text changes.
 */
export function Notice(props: { tone: Tone; message: string | null; id?: string }) {
  const role = props.tone === 'error' ? 'alert' : 'status';
  const icon = props.tone === 'error' ? '⚠' : props.tone === 'success' ? '✓' : 'ℹ';
  return (
    <div role={role} id={props.id} class={props.message ? `notice notice-${props.tone}` : 'notice-empty'}>
      {props.message ? (
        <>
          <span class="notice-icon" aria-hidden="true">
            {icon}
          </span>
          <span>{props.message}</span>
        </>
      ) : null}
    </div>
  );
}

const STATUS_LABELS: Record<string, { label: string; icon: string; tone: string }> = {
  pending_approval: { label: 'Pending', icon: '●', tone: 'pending' },
  approved: { label: 'Approved', icon: '✓', tone: 'ok' },
  rejected: { label: 'Rejected', icon: '✕', tone: 'bad' },
  open: { label: 'Open (clocked in)', icon: '○', tone: 'neutral' },
  draft: { label: 'Draft', icon: '○', tone: 'neutral' },
  active: { label: 'Active', icon: '✓', tone: 'ok' },
  revoked: { label: 'Revoked', icon: '✕', tone: 'bad' },
  expired: { label: 'Expired', icon: '✕', tone: 'bad' },
  confirmed: { label: 'Confirmed', icon: '✓', tone: 'ok' },
  unconfirmed: { label: 'Not confirmed', icon: '○', tone: 'neutral' },
  working: { label: 'Working', icon: '●', tone: 'ok' },
  on_break: { label: 'On a break', icon: '‖', tone: 'pending' },
  needs_correction: { label: 'Needs correction', icon: '⚠', tone: 'bad' },
  inactive: { label: 'Inactive', icon: '○', tone: 'neutral' },
  on_leave: { label: 'On leave', icon: '○', tone: 'neutral' },
  suspended: { label: 'Suspended', icon: '✕', tone: 'bad' },
  terminated: { label: 'Terminated', icon: '✕', tone: 'bad' },
  disabled: { label: 'Disabled', icon: '○', tone: 'neutral' },
  delivered: { label: 'Delivered', icon: '✓', tone: 'ok' },
  failed: { label: 'Failed', icon: '✕', tone: 'bad' },
  waiting_for_code: { label: 'Waiting for its code', icon: '○', tone: 'pending' },
};

/** A status in words ("Pending" for pending_approval); an unknown one as it is. */
export function statusLabel(status: string): string {
  return STATUS_LABELS[status]?.label ?? status;
}

/** A status as words with a symbol: colour only repeats what the text says. */
export function StatusBadge(props: { status: string }) {
  const known = STATUS_LABELS[props.status] ?? { label: props.status, icon: '•', tone: 'neutral' };
  return (
    <span class={`badge badge-${known.tone}`}>
      <span aria-hidden="true">{known.icon} </span>
      {known.label}
    </span>
  );
}

/**
 * A modal confirmation on the native <dialog>: focus moves into it, Tab stays inside, Escape
 * cancels, and focus returns to the button that opened it.
 */
export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  children?: ComponentChildren;
  confirmLabel: string;
  danger?: boolean;
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (props.open && !dialog.open) dialog.showModal();
    if (!props.open && dialog.open) dialog.close();
  }, [props.open]);
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        props.onCancel();
      }}
    >
      <form
        method="dialog"
        onSubmit={(event) => {
          event.preventDefault();
          props.onConfirm();
        }}
      >
        <h2 id={titleId}>{props.title}</h2>
        {props.children}
        <div class="actions">
          <button type="submit" class={props.danger ? 'danger' : 'primary'} disabled={props.busy}>
            {props.confirmLabel}
          </button>
          <button type="button" onClick={props.onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  );
}

/** Shown while a screen loads its data; announced politely. */
export function Loading(props: { what: string }) {
  return (
    <p role="status" class="loading">
      Loading {props.what}…
    </p>
  );
}

/** The card of a screen's filters: a heading for screen readers only, then the controls. */
export function FilterCard(props: { headingId: string; heading: string; children: ComponentChildren }) {
  return (
    <section aria-labelledby={props.headingId} class="card filters">
      <h2 id={props.headingId} class="visually-hidden">
        {props.heading}
      </h2>
      {props.children}
    </section>
  );
}

/**
 * A modal that only shows something (an entry's history): one Close button, Escape closes it too,
 * the focus inside it; the opener takes the focus back (its caller's job, as for ConfirmDialog).
 */
export function InfoDialog(props: { title: string; children: ComponentChildren; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    if (ref.current && !ref.current.open) ref.current.showModal();
  }, []);
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        props.onClose();
      }}
    >
      <h2 id={titleId}>{props.title}</h2>
      {props.children}
      <div class="actions">
        <button type="button" class="primary" onClick={props.onClose}>
          Close
        </button>
      </div>
    </dialog>
  );
}
