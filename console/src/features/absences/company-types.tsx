import { useEffect, useState } from 'preact/hooks';
import { api, messageOf } from '../../api.js';
import { DataTable } from '../../components/table.js';
import { Loading, Notice } from '../../components/ui.js';
import { type AbsenceType, formatDays } from './model.js';
import { TypeForm } from './type-form.js';

function rules(t: AbsenceType): string {
  return [
    t.paid ? 'paid' : 'unpaid',
    t.countsAsWorkTime ? 'counts as work time' : 'does not count as work time',
    t.requiresApproval ? 'needs approval' : 'approved at once',
  ].join(', ');
}

function balance(t: AbsenceType): string {
  if (!t.deductsFromBalance) return 'No balance';
  const carry =
    t.carryOverMaxDays > 0
      ? `; up to ${formatDays(t.carryOverMaxDays)} carried over${t.carryOverExpiresOn ? ` until ${t.carryOverExpiresOn}` : ''}`
      : '; no carry-over';
  return `${formatDays(t.yearlyEntitlementDays)} days a year${carry}${t.allowNegative ? '; may go negative' : ''}`;
}

/** The Company screen's absence types: the list, and (permission 93) creating or changing one. */
export function AbsenceTypesSection(props: { canEdit: boolean }) {
  const [types, setTypes] = useState<AbsenceType[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [editing, setEditing] = useState<AbsenceType | 'new' | null>(null);
  const load = () =>
    api<{ items: AbsenceType[] }>('GET', '/absence-types')
      .then((list) => setTypes(list.items))
      .catch((caught: unknown) => setError(messageOf(caught)));
  useEffect(() => void load(), []);
  const close = () => {
    setEditing(null);
    document.getElementById('absence-types-heading')?.focus();
  };
  return (
    <section aria-labelledby="absence-types-heading" class="card">
      <h2 id="absence-types-heading" tabIndex={-1}>
        Absence types
      </h2>
      <Notice tone="success" message={status} />
      <Notice tone="error" message={error} />
      {types === null && !error ? <Loading what="absence types" /> : null}
      {types ? (
        <DataTable
          caption="The company's absence types"
          columns={['Code', 'Name', 'Rules', 'Balance']}
          actions={props.canEdit}
        >
          {types.map((t) => (
            <tr key={t.id}>
              <th scope="row" data-label="Code">
                {t.code}
              </th>
              <td data-label="Name">{t.name}</td>
              <td data-label="Rules">{rules(t)}</td>
              <td data-label="Balance">{balance(t)}</td>
              {props.canEdit ? (
                <td class="row-actions">
                  <button type="button" onClick={() => setEditing(t)}>
                    Change<span class="visually-hidden"> {t.code}</span>
                  </button>
                </td>
              ) : null}
            </tr>
          ))}
        </DataTable>
      ) : null}
      {props.canEdit && editing === null ? (
        <button type="button" onClick={() => setEditing('new')}>
          New absence type
        </button>
      ) : null}
      {editing !== null ? (
        <TypeForm
          key={editing === 'new' ? 'new' : editing.id}
          type={editing === 'new' ? null : editing}
          onCancel={close}
          onSaved={(saved) => {
            setStatus(`The absence type ${saved.code} is saved.`);
            void load();
            close();
          }}
        />
      ) : null}
    </section>
  );
}
