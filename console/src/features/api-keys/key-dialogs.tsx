import { ConfirmDialog, Field } from '../../components/ui.js';
import { type ApiKey, GRACE_PERIODS } from './model.js';

interface DialogProps {
  apiKey: ApiKey | null;
  busy: boolean;
  onConfirm: (key: ApiKey) => void;
  onCancel: () => void;
}

/** Rotating asks how long the old secret keeps working. */
export function RotateDialog(props: DialogProps & { grace: number; onGrace: (seconds: number) => void }) {
  const key = props.apiKey;
  return (
    <ConfirmDialog
      open={key !== null}
      title={`Rotate key “${key?.name ?? ''}”`}
      confirmLabel="Rotate and show the new secret"
      busy={props.busy}
      onConfirm={() => key && props.onConfirm(key)}
      onCancel={props.onCancel}
    >
      <p>The key gets a new secret, shown once. Systems using the old secret must be updated.</p>
      <Field label="Keep the old secret working for">
        {({ id }) => (
          <select
            id={id}
            value={String(props.grace)}
            onChange={(e) => props.onGrace(Number(e.currentTarget.value))}
          >
            {GRACE_PERIODS.map((g) => (
              <option key={g.seconds} value={String(g.seconds)}>
                {g.label}
              </option>
            ))}
          </select>
        )}
      </Field>
    </ConfirmDialog>
  );
}

export function RevokeDialog(props: DialogProps) {
  const key = props.apiKey;
  return (
    <ConfirmDialog
      open={key !== null}
      title={`Revoke key “${key?.name ?? ''}”?`}
      confirmLabel="Revoke key"
      danger
      busy={props.busy}
      onConfirm={() => key && props.onConfirm(key)}
      onCancel={props.onCancel}
    >
      <p>
        The key gets no new tokens from now on; tokens it already has stop working within 15 minutes. This
        cannot be undone.
      </p>
    </ConfirmDialog>
  );
}
