import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, companyZone, messageOf, may, PERMISSIONS, type Person } from '../../api.js';
import { TextField } from '../../components/fields.js';
import { useFormProblem } from '../../components/form-problem.js';
import { ConfirmDialog, Notice } from '../../components/ui.js';
import { formatDay, formatInstant } from '../../format.js';
import type { LockedPeriod } from './model.js';

/*
 * The Timesheets screen's closed periods (issue 30): the periods that touch the range shown, closing
 * the range for payroll (the whole company, or the workplace filtered on), reopening one with a
 * reason. While a period is closed, no punch, shift or correction can land on its days.
 */

interface Props {
  from: string;
  to: string;
  workplace: { id: string; name: string } | null;
  zone: string;
  canManage: boolean;
}

/** Whether one closed period already holds every day shown, for the whole company or this workplace. */
function covers(periods: LockedPeriod[], props: Props): boolean {
  return periods.some(
    (p) =>
      p.from <= props.from &&
      p.to >= props.to &&
      (p.workplaceId === null || p.workplaceId === (props.workplace?.id ?? null)),
  );
}

function whereOf(period: LockedPeriod, workplaceName: string | null): string {
  return period.workplaceId === null ? 'the whole company' : (workplaceName ?? 'one workplace');
}

function CloseDialog(props: Props & { onDone: () => void; onCancel: () => void }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function submit() {
    setBusy(true);
    try {
      await api('POST', '/locked-periods', {
        from: props.from,
        to: props.to,
        workplaceId: props.workplace?.id ?? null,
      });
      props.onDone();
    } catch (caught) {
      setError(messageOf(caught));
    } finally {
      setBusy(false);
    }
  }
  const where = props.workplace ? props.workplace.name : 'the whole company';
  return (
    <ConfirmDialog
      open
      title="Close this period?"
      confirmLabel="Close period"
      busy={busy}
      onConfirm={() => void submit()}
      onCancel={props.onCancel}
    >
      <p>
        {formatDay(props.from)} to {formatDay(props.to)}, {where}: no punch, shift or correction can land on
        these days until the period is reopened.
      </p>
      <Notice tone="error" message={error} />
    </ConfirmDialog>
  );
}

function ReopenDialog(props: { period: LockedPeriod; onDone: () => void; onCancel: () => void }) {
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const problem = useFormProblem({ focusId: () => 'reopen-period-reason' });
  async function submit() {
    setBusy(true);
    setError(null);
    problem.clear();
    try {
      await api('DELETE', `/locked-periods/${props.period.id}`, { reason: reason.trim() });
      props.onDone();
    } catch (caught) {
      problem.take(caught, ['reason']);
      setError(messageOf(caught));
    } finally {
      setBusy(false);
    }
  }
  return (
    <ConfirmDialog
      open
      title={`Reopen ${formatDay(props.period.from)} to ${formatDay(props.period.to)}?`}
      confirmLabel="Reopen period"
      busy={busy}
      onConfirm={() => void submit()}
      onCancel={props.onCancel}
    >
      <Notice tone="error" message={error} />
      <TextField
        label="Reason"
        id="reopen-period-reason"
        hint="Kept with the period."
        error={problem.error('reason')}
        refusable
        value={reason}
        onInput={setReason}
        input={{ required: true, maxLength: 500 }}
      />
    </ConfirmDialog>
  );
}

function PeriodList(props: {
  periods: LockedPeriod[];
  props: Props;
  onReopen: (period: LockedPeriod, from: HTMLElement) => void;
}) {
  const { periods } = props;
  if (periods.length === 0) return <p>No period touching these days is closed.</p>;
  return (
    <ul class="plain-list">
      {periods.map((period) => (
        <li key={period.id}>
          <strong>
            {formatDay(period.from)} to {formatDay(period.to)}
          </strong>
          ,{' '}
          {whereOf(
            period,
            period.workplaceId === props.props.workplace?.id ? props.props.workplace.name : null,
          )}
          <span class="sub">
            {' '}
            closed by {period.closedBy.name ?? period.closedBy.kind},{' '}
            {formatInstant(period.closedAt, props.props.zone)}
          </span>{' '}
          {props.props.canManage ? (
            <button type="button" onClick={(e) => props.onReopen(period, e.currentTarget)}>
              Reopen
              <span class="visually-hidden">
                {' '}
                the period {formatDay(period.from)} to {formatDay(period.to)}
              </span>
            </button>
          ) : null}
        </li>
      ))}
    </ul>
  );
}

export function ClosedPeriods(props: Props) {
  const [periods, setPeriods] = useState<LockedPeriod[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [dialog, setDialog] = useState<{ kind: 'close' } | { kind: 'reopen'; period: LockedPeriod } | null>(
    null,
  );
  const opener = useRef<HTMLElement | null>(null);
  const load = useCallback(async () => {
    try {
      const list = await api<{ items: LockedPeriod[] }>('GET', '/locked-periods');
      setPeriods(list.items.filter((p) => p.from <= props.to && p.to >= props.from));
      setError(null);
    } catch (caught) {
      setError(messageOf(caught));
    }
  }, [props.from, props.to]);
  useEffect(() => void load(), [load]);
  const finish = async (message: string | null) => {
    setDialog(null);
    if (message) await load();
    setStatus(message);
    opener.current?.focus();
  };
  return (
    <section aria-labelledby="closed-periods-heading" class="card closed-periods">
      <h2 id="closed-periods-heading">Closed periods</h2>
      <Notice tone="success" message={status} />
      <Notice tone="error" message={error} />
      {periods ? (
        <PeriodList
          periods={periods}
          props={props}
          onReopen={(period, from) => {
            opener.current = from;
            setDialog({ kind: 'reopen', period });
          }}
        />
      ) : null}
      {props.canManage && periods && !covers(periods, props) ? (
        <div class="actions">
          <button
            type="button"
            onClick={(e) => {
              opener.current = e.currentTarget;
              setDialog({ kind: 'close' });
            }}
          >
            Close {formatDay(props.from)} to {formatDay(props.to)}
            {props.workplace ? ` for ${props.workplace.name}` : ''}
          </button>
        </div>
      ) : null}
      {dialog?.kind === 'close' ? (
        <CloseDialog
          {...props}
          onDone={() => void finish('The period is closed.')}
          onCancel={() => void finish(null)}
        />
      ) : null}
      {dialog?.kind === 'reopen' ? (
        <ReopenDialog
          period={dialog.period}
          onDone={() => void finish('The period is reopened.')}
          onCancel={() => void finish(null)}
        />
      ) : null}
    </section>
  );
}

/**
 * The Timesheets screen's closed periods for the range shown (the workplace filtered on, if any): for
 * a person who reads entries (47); closing and reopening with 91.
 */
export function ClosedPeriodsOf(props: {
  person: Person;
  range: { from: string; to: string };
  workplaceId: string;
  settings: { workplaces: { id: string; name: string }[] };
}) {
  const { person, range } = props;
  if (!may(person, PERMISSIONS.readEntries)) return null;
  return (
    <ClosedPeriods
      from={range.from}
      to={range.to}
      workplace={props.settings.workplaces.find((w) => w.id === props.workplaceId) ?? null}
      zone={companyZone(person)}
      canManage={may(person, PERMISSIONS.decideEntries)}
    />
  );
}
