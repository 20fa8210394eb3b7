import { useState } from 'preact/hooks';
import { api, messageOf } from '../../api.js';
import { SelectField, TextField } from '../../components/fields.js';
import { type FormProblem, useFormProblem } from '../../components/form-problem.js';
import { DataTable } from '../../components/table.js';
import { Loading, Notice, ScreenHeading, StatusBadge } from '../../components/ui.js';
import { formatDay } from '../../format.js';
import type { Screen, ScreenProps } from '../../screens/registry.js';
import { isEmployee } from './day-screen.js';
import type { Balance, OwnAbsence } from './model.js';
import { useLoaded } from './use-self.js';

interface AbsenceType {
  code: string;
  name: string;
  active?: boolean;
}

const PORTIONS = [
  ['full', 'Whole days'],
  ['first_half', 'First half of the day'],
  ['second_half', 'Second half of the day'],
] as const;

interface Draft {
  typeCode: string;
  startDate: string;
  endDate: string;
  portion: string;
  note: string;
}

const EMPTY: Draft = { typeCode: '', startDate: '', endDate: '', portion: 'full', note: '' };

function AbsenceFields(props: {
  types: AbsenceType[];
  draft: Draft;
  setDraft: (draft: Draft) => void;
  problem: FormProblem;
}) {
  const { types, draft, problem } = props;
  const { typeCode, startDate, endDate, portion, note } = draft;
  const set = (changes: Partial<Draft>) => props.setDraft({ ...draft, ...changes });
  return (
    <div class="form-grid">
      <SelectField label="Type" id="absence-typeCode" value={typeCode} onChange={(v) => set({ typeCode: v })}>
        {types.map((t) => (
          <option key={t.code} value={t.code}>
            {t.name}
          </option>
        ))}
      </SelectField>
      <TextField
        label="From"
        id="absence-startDate"
        value={startDate}
        onInput={(v) => set({ startDate: v, ...(endDate === '' || endDate < v ? { endDate: v } : {}) })}
        error={problem.error('startDate')}
        refusable
        input={{ type: 'date' }}
      />
      <TextField
        label="To"
        id="absence-endDate"
        value={endDate}
        onInput={(v) => set({ endDate: v })}
        error={problem.error('endDate')}
        refusable
        input={{ type: 'date' }}
      />
      <SelectField label="Portion" id="absence-portion" value={portion} onChange={(v) => set({ portion: v })}>
        {PORTIONS.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </SelectField>
      <TextField
        label="Note (optional)"
        id="absence-note"
        value={note}
        onInput={(v) => set({ note: v })}
        error={problem.error('note')}
        input={{ maxLength: 500 }}
      />
    </div>
  );
}

function RequestForm(props: { types: AbsenceType[]; onDone: (message: string) => void }) {
  const [draft, setDraft] = useState<Draft>({ ...EMPTY, typeCode: props.types[0]?.code ?? '' });
  const { typeCode, startDate, endDate, portion, note } = draft;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const problem = useFormProblem({ focusId: (field) => `absence-${field}` });
  async function submit(event: Event) {
    event.preventDefault();
    setError(null);
    if (
      problem.refuse({
        startDate: startDate === '' ? 'Choose the first day.' : undefined,
        endDate: endDate === '' ? 'Choose the last day.' : undefined,
      })
    )
      return;
    setBusy(true);
    try {
      const body = { typeCode, startDate, endDate, portion, ...(note.trim() ? { note: note.trim() } : {}) };
      const created = await api<{ status: string; days: number }>('POST', '/self/absences', body);
      props.onDone(
        created.status === 'approved'
          ? `Recorded: ${created.days} day(s).`
          : `Requested: ${created.days} day(s), waiting for your manager.`,
      );
      setDraft({ ...EMPTY, typeCode });
    } catch (caught) {
      if (problem.take(caught) === 0) setError(messageOf(caught));
    } finally {
      setBusy(false);
    }
  }
  return (
    <form class="card" aria-labelledby="absence-form-heading" onSubmit={(e) => void submit(e)}>
      <h2 id="absence-form-heading">Request an absence</h2>
      <AbsenceFields types={props.types} draft={draft} setDraft={setDraft} problem={problem} />
      <Notice tone="error" message={error} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy || typeCode === ''}>
          Send request
        </button>
      </div>
    </form>
  );
}

function AbsenceList(props: { items: OwnAbsence[]; onChanged: (message: string) => void }) {
  const [error, setError] = useState<string | null>(null);
  async function withdraw(id: string) {
    setError(null);
    try {
      await api('POST', `/self/absences/${id}/withdraw`);
      props.onChanged('Your absence request was withdrawn.');
    } catch (caught) {
      setError(messageOf(caught));
    }
  }
  if (props.items.length === 0) return <p>No absences this year.</p>;
  return (
    <>
      <Notice tone="error" message={error} />
      <DataTable caption="My absences this year" columns={['Type', 'From', 'To', 'Days', 'Status']} actions>
        {props.items.map((a) => (
          <tr key={a.id}>
            <td data-label="Type">{a.type.code}</td>
            <td data-label="From">{formatDay(a.startDate)}</td>
            <td data-label="To">{formatDay(a.endDate)}</td>
            <td data-label="Days">{a.days}</td>
            <td data-label="Status">
              <StatusBadge status={a.status === 'requested' ? 'pending_approval' : a.status} />
            </td>
            <td>
              {a.status === 'requested' ? (
                <button type="button" onClick={() => void withdraw(a.id)}>
                  Withdraw<span class="visually-hidden"> the absence from {formatDay(a.startDate)}</span>
                </button>
              ) : null}
            </td>
          </tr>
        ))}
      </DataTable>
    </>
  );
}

/** `#/my-absences`: the person's balances, absences and the request form. */
function AbsencesScreen(_props: ScreenProps) {
  const types = useLoaded<{ items: AbsenceType[] }>('/absence-types');
  const balances = useLoaded<{ year: number; items: Balance[] }>('/self/leave-balances');
  const absences = useLoaded<{ items: OwnAbsence[] }>('/self/absences');
  const [message, setMessage] = useState<string | null>(null);
  const changed = (text: string) => {
    setMessage(text);
    balances.reload();
    absences.reload();
  };
  return (
    <>
      <ScreenHeading title="My absences">
        <p class="lede">Your leave balances and absences; request time off.</p>
      </ScreenHeading>
      <Notice tone="success" message={message} />
      <Notice tone="error" message={types.error ?? balances.error ?? absences.error} />
      <section class="card" aria-labelledby="balances-heading">
        <h2 id="balances-heading">Balances {balances.data ? balances.data.year : ''}</h2>
        {balances.data === null && !balances.error ? <Loading what="your balances" /> : null}
        {balances.data && balances.data.items.length === 0 ? <p>No type of leave with a balance.</p> : null}
        {balances.data && balances.data.items.length > 0 ? (
          <DataTable
            caption="My leave balances"
            columns={['Type', 'Entitlement', 'Taken', 'Planned', 'Waiting', 'Left']}
          >
            {balances.data.items.map((b) => (
              <tr key={b.type.code}>
                <td data-label="Type">{b.type.code}</td>
                <td data-label="Entitlement">{b.entitlement + b.carriedOver}</td>
                <td data-label="Taken">{b.taken}</td>
                <td data-label="Planned">{b.planned}</td>
                <td data-label="Waiting">{b.requested}</td>
                <td data-label="Left">
                  <strong>{b.remaining}</strong>
                </td>
              </tr>
            ))}
          </DataTable>
        ) : null}
      </section>
      {types.data ? (
        <RequestForm types={types.data.items.filter((t) => t.active !== false)} onDone={changed} />
      ) : null}
      <section class="card" aria-labelledby="absences-heading">
        <h2 id="absences-heading">My absences</h2>
        {absences.data === null && !absences.error ? <Loading what="your absences" /> : null}
        {absences.data ? <AbsenceList items={absences.data.items} onChanged={changed} /> : null}
      </section>
    </>
  );
}

export const myAbsencesScreen: Screen = {
  path: 'my-absences',
  title: 'My absences',
  allowed: isEmployee,
  component: AbsencesScreen,
};
