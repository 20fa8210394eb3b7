import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiProblem, messageOf, may, PERMISSIONS } from '../api.js';
import { ConfirmDialog, Field, Loading, Notice, ScreenHeading, StatusBadge } from '../components/ui.js';
import { formatDay } from '../format.js';
import { hrefOf, navigate } from '../router.js';
import type { Screen, ScreenProps } from './registry.js';

interface EmployeeRow {
  id: string;
  firstName: string | null;
  lastName: string | null;
  email: string;
  externalId: string | null;
  status: string;
  workplaceId: string | null;
}

interface EmployeeDetail extends EmployeeRow {
  scheduleId: string | null;
  scheduleFrom: string | null;
}

interface Named {
  id: string;
  name: string;
}

const STATUSES: [string, string][] = [
  ['active', 'Active'],
  ['inactive', 'Inactive'],
  ['on_leave', 'On leave'],
  ['suspended', 'Suspended'],
  ['terminated', 'Terminated'],
];

function nameOf(e: Pick<EmployeeRow, 'firstName' | 'lastName' | 'email'>): string {
  return [e.firstName, e.lastName].filter(Boolean).join(' ') || e.email;
}

/** The form's values: strings as typed ('' for none). */
interface Draft {
  email: string;
  firstName: string;
  lastName: string;
  status: string;
  externalId: string;
  workplaceId: string;
  scheduleId: string;
  scheduleFrom: string;
}

function draftOf(e: EmployeeDetail | null): Draft {
  return {
    email: e?.email ?? '',
    firstName: e?.firstName ?? '',
    lastName: e?.lastName ?? '',
    status: e?.status ?? 'active',
    externalId: e?.externalId ?? '',
    workplaceId: e?.workplaceId ?? '',
    scheduleId: e?.scheduleId ?? '',
    scheduleFrom: e?.scheduleFrom ?? '',
  };
}

/** What to send: every field for a new employee, only the changed ones for an existing one. */
function bodyOf(draft: Draft, before: EmployeeDetail | null): Record<string, string | null> {
  const was = draftOf(before);
  const body: Record<string, string | null> = {};
  const orNull = (value: string) => (value.trim() === '' ? null : value);
  if (!before || draft.email !== was.email) body.email = draft.email;
  for (const key of ['firstName', 'lastName', 'externalId', 'workplaceId'] as const)
    if (draft[key] !== was[key] && !(before === null && draft[key] === '')) body[key] = orNull(draft[key]);
  if (!before || draft.status !== was.status) body.status = draft.status;
  const scheduleChanged = draft.scheduleId !== was.scheduleId || draft.scheduleFrom !== was.scheduleFrom;
  if (scheduleChanged && !(before === null && draft.scheduleId === '' && draft.scheduleFrom === '')) {
    body.scheduleId = orNull(draft.scheduleId);
    if (draft.scheduleFrom !== '') body.scheduleFrom = draft.scheduleFrom;
  }
  return body;
}

function EmployeeForm(props: {
  employee: EmployeeDetail | null;
  workplaces: Named[];
  schedules: Named[];
  canEdit: boolean;
  onSaved: (saved: EmployeeDetail, created: boolean) => void;
  onDelete: (employee: EmployeeDetail) => void;
}) {
  const { employee, canEdit } = props;
  const [draft, setDraft] = useState<Draft>(() => draftOf(employee));
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const firstInvalid = useRef<string | null>(null);

  const set = (key: keyof Draft) => (event: { currentTarget: { value: string } }) =>
    setDraft({ ...draft, [key]: event.currentTarget.value });

  async function submit(event: Event) {
    event.preventDefault();
    setProblem(null);
    setError(null);
    setStatus(null);
    const body = bodyOf(draft, employee);
    if (employee && Object.keys(body).length === 0) {
      setStatus('Nothing to save: no field was changed.');
      return;
    }
    setBusy(true);
    try {
      const saved = employee
        ? await api<EmployeeDetail>('PATCH', `/employees/${employee.id}`, body)
        : await api<EmployeeDetail>('POST', '/employees', body);
      props.onSaved(saved, employee === null);
    } catch (caught) {
      if (caught instanceof ApiProblem && caught.fieldErrors.length > 0) {
        setProblem(caught);
        setError(
          `Not saved: ${caught.fieldErrors.length === 1 ? 'a field needs' : 'some fields need'} a change (marked below).`,
        );
        firstInvalid.current = caught.fieldErrors[0]?.field.split('/').at(-1) ?? null;
      } else setError(`Not saved: ${messageOf(caught)}`);
    } finally {
      setBusy(false);
    }
  }

  // After a refusal, the focus goes to the first field it names.
  useEffect(() => {
    if (!problem || !firstInvalid.current) return;
    document.getElementById(`employee-${firstInvalid.current}`)?.focus();
    firstInvalid.current = null;
  }, [problem]);

  const fieldError = (field: string) => problem?.fieldError(field);
  const text = (
    key: keyof Draft,
    label: string,
    options: { type?: string; hint?: string; required?: boolean } = {},
  ) => (
    <Field label={label} id={`employee-${key}`} hint={options.hint} error={fieldError(key)}>
      {({ id, describedBy, invalid }) => (
        <input
          id={id}
          type={options.type ?? 'text'}
          aria-describedby={describedBy}
          aria-invalid={invalid}
          aria-required={options.required ? true : undefined}
          disabled={!canEdit}
          value={draft[key]}
          onInput={set(key)}
          autocomplete="off"
        />
      )}
    </Field>
  );

  return (
    <form class="stack employee-form" onSubmit={(event) => void submit(event)} noValidate>
      <Notice tone="error" message={error} />
      <Notice tone="info" message={status} />
      <div class="form-grid">
        {text('email', 'Email address (required)', { type: 'email', required: true })}
        {text('firstName', 'First name')}
        {text('lastName', 'Last name')}
        {text('externalId', 'Badge id (external id)', {
          hint: 'The id badge terminals and integrations know the employee by; at most 64 characters.',
        })}
        <Field label="Status" id="employee-status" error={fieldError('status')}>
          {({ id, describedBy, invalid }) => (
            <select
              id={id}
              aria-describedby={describedBy}
              aria-invalid={invalid}
              disabled={!canEdit}
              value={draft.status}
              onChange={set('status')}
            >
              {STATUSES.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Workplace" id="employee-workplaceId" error={fieldError('workplaceId')}>
          {({ id, describedBy, invalid }) => (
            <select
              id={id}
              aria-describedby={describedBy}
              aria-invalid={invalid}
              disabled={!canEdit}
              value={draft.workplaceId}
              onChange={set('workplaceId')}
            >
              <option value="">None</option>
              {props.workplaces.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Schedule" id="employee-scheduleId" error={fieldError('scheduleId')}>
          {({ id, describedBy, invalid }) => (
            <select
              id={id}
              aria-describedby={describedBy}
              aria-invalid={invalid}
              disabled={!canEdit}
              value={draft.scheduleId}
              onChange={set('scheduleId')}
            >
              <option value="">None</option>
              {props.schedules.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        {text('scheduleFrom', 'Schedule applies from', {
          type: 'date',
          hint: 'With a schedule. Left empty, it applies from 60 days ago, as on the command line.',
        })}
      </div>
      {canEdit ? (
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            {busy ? 'Saving…' : employee ? 'Save changes' : 'Create employee'}
          </button>
          <a class="button-link" href={hrefOf(['employees'])}>
            Cancel
          </a>
          {employee ? (
            <button type="button" class="danger-outline" onClick={() => props.onDelete(employee)}>
              Delete employee
            </button>
          ) : null}
        </div>
      ) : (
        <p>
          <a href={hrefOf(['employees'])}>Back to the employees</a>
        </p>
      )}
    </form>
  );
}

function EmployeesScreen({ person, route }: ScreenProps) {
  const canManage = may(person, PERMISSIONS.manageEmployees);
  const [, target] = route.segments;
  const [search, setSearch] = useState(route.query.get('search') ?? '');
  const [rows, setRows] = useState<EmployeeRow[] | null>(null);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [listError, setListError] = useState<string | null>(null);
  const [workplaces, setWorkplaces] = useState<Named[]>([]);
  const [schedules, setSchedules] = useState<Named[]>([]);
  const [detail, setDetail] = useState<EmployeeDetail | null>(null);
  const [detailError, setDetailError] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<EmployeeDetail | EmployeeRow | null>(null);
  const [busy, setBusy] = useState(false);
  const [generation, setGeneration] = useState(0);
  const opener = useRef<HTMLElement | null>(null);
  const latest = useRef(0);

  useEffect(() => {
    Promise.all([api<{ items: Named[] }>('GET', '/workplaces'), api<{ items: Named[] }>('GET', '/schedules')])
      .then(([w, s]) => {
        setWorkplaces(w.items);
        setSchedules(s.items);
      })
      .catch((caught: unknown) => setListError(messageOf(caught)));
  }, []);

  const loadPage = useCallback(
    async (cursor: string | null) => {
      const query = new URLSearchParams({ limit: '50' });
      if (search.trim()) query.set('search', search.trim());
      if (cursor) query.set('cursor', cursor);
      const mine = ++latest.current;
      try {
        const page = await api<{ items: EmployeeRow[]; nextCursor: string | null }>(
          'GET',
          `/employees?${query}`,
        );
        // Typing fast: only the newest search's answer is shown.
        if (mine !== latest.current) return;
        setRows((before) => (cursor ? [...(before ?? []), ...page.items] : page.items));
        setNextCursor(page.nextCursor);
        setListError(null);
      } catch (caught) {
        if (mine === latest.current) setListError(messageOf(caught));
      }
    },
    [search],
  );

  useEffect(() => {
    if (target !== undefined) return;
    const handle = setTimeout(() => void loadPage(null), 250);
    return () => clearTimeout(handle);
  }, [loadPage, target, generation]);

  useEffect(() => {
    setDetail(null);
    setDetailError(null);
    if (target === undefined || target === 'new') return;
    api<EmployeeDetail>('GET', `/employees/${encodeURIComponent(target)}`)
      .then(setDetail)
      .catch((caught: unknown) =>
        setDetailError(
          caught instanceof ApiProblem && (caught.status === 404 || caught.status === 422)
            ? 'No such employee in this company.'
            : messageOf(caught),
        ),
      );
  }, [target]);

  async function remove() {
    if (!deleting) return;
    setBusy(true);
    setActionError(null);
    setStatus(null);
    try {
      await api('DELETE', `/employees/${deleting.id}`);
      const name = nameOf(deleting);
      setDeleting(null);
      if (target !== undefined) navigate(hrefOf(['employees']));
      setRows(null);
      setGeneration((g) => g + 1);
      setStatus(`${name} is deleted. Their recorded time stays.`);
    } catch (caught) {
      setActionError(messageOf(caught));
      setDeleting(null);
    } finally {
      setBusy(false);
      opener.current?.focus();
    }
  }

  const workplaceName = (id: string | null) =>
    id ? (workplaces.find((w) => w.id === id)?.name ?? '—') : '—';

  const dialog = (
    <ConfirmDialog
      open={deleting !== null}
      title={`Delete ${deleting ? nameOf(deleting) : ''}?`}
      confirmLabel="Delete employee"
      danger
      busy={busy}
      onConfirm={() => void remove()}
      onCancel={() => {
        setDeleting(null);
        opener.current?.focus();
      }}
    >
      <p>
        They disappear from the list and from the API; their recorded time entries stay. The badge id becomes
        free for someone else.
      </p>
    </ConfirmDialog>
  );

  if (target !== undefined) {
    const creating = target === 'new';
    const title = creating ? 'New employee' : detail ? `Employee ${nameOf(detail)}` : 'Employee';
    return (
      <>
        <ScreenHeading title={title}>
          <p class="lede">
            {creating
              ? 'The same checks as `punchclock employee create`; a refusal is shown next to its field.'
              : canManage
                ? 'Change any field and save; only what you changed is sent.'
                : 'Your permissions let you see this employee; changing needs permission 92.'}
          </p>
        </ScreenHeading>
        <Notice tone="error" message={detailError} />
        <Notice tone="error" message={actionError} />
        {creating && !canManage ? (
          <p>Your permissions do not include creating employees (92).</p>
        ) : creating || detail ? (
          <section class="card" aria-label={title}>
            <EmployeeForm
              key={detail?.id ?? 'new'}
              employee={creating ? null : detail}
              workplaces={workplaces}
              schedules={schedules}
              canEdit={canManage}
              onSaved={(saved, created) => {
                setStatus(
                  created ? `${nameOf(saved)} is created.` : `The changes to ${nameOf(saved)} are saved.`,
                );
                setSearch('');
                setRows(null);
                setGeneration((g) => g + 1);
                navigate(hrefOf(['employees']));
              }}
              onDelete={(employee) => {
                opener.current = document.activeElement as HTMLElement | null;
                setDeleting(employee);
              }}
            />
            {detail?.scheduleFrom ? (
              <p class="hint">The schedule assigned last applies from {formatDay(detail.scheduleFrom)}.</p>
            ) : null}
          </section>
        ) : !detailError ? (
          <Loading what="the employee" />
        ) : (
          <p>
            <a href={hrefOf(['employees'])}>Back to the employees</a>
          </p>
        )}
        {dialog}
      </>
    );
  }

  return (
    <>
      <ScreenHeading title="Employees">
        <p class="lede">
          {canManage
            ? 'The people badge terminals and integrations know: find, add, change and delete them.'
            : 'The people badge terminals and integrations know.'}
        </p>
      </ScreenHeading>
      <Notice tone="success" message={status} />
      <Notice tone="error" message={actionError} />
      <section aria-labelledby="employees-find-heading" class="card filters">
        <h2 id="employees-find-heading" class="visually-hidden">
          Find employees
        </h2>
        <div class="filter-row">
          <Field label="Find (name, email or badge id)">
            {({ id, describedBy }) => (
              <input
                id={id}
                aria-describedby={describedBy}
                type="search"
                value={search}
                onInput={(e) => setSearch(e.currentTarget.value)}
              />
            )}
          </Field>
          {canManage ? (
            <div class="toolbar">
              <a class="button-link primary" href={hrefOf(['employees', 'new'])}>
                Add an employee
              </a>
            </div>
          ) : null}
        </div>
      </section>
      <Notice tone="error" message={listError} />
      {rows === null && !listError ? <Loading what="employees" /> : null}
      {rows ? (
        <section aria-labelledby="employees-list-heading">
          <h2 id="employees-list-heading">
            {search.trim() ? `Employees matching “${search.trim()}”` : 'All employees'}{' '}
            <span class="count">
              ({rows.length}
              {nextCursor ? '+' : ''})
            </span>
          </h2>
          {rows.length === 0 ? (
            <p>{search.trim() ? 'Nobody matches this search.' : 'There are no employees yet.'}</p>
          ) : (
            <div class="table-wrap">
              <table class="data-table">
                <caption class="visually-hidden">Employees by last name</caption>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Email</th>
                    <th scope="col">Badge id</th>
                    <th scope="col">Status</th>
                    <th scope="col">Workplace</th>
                    <th scope="col">
                      <span class="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((e) => (
                    <tr key={e.id}>
                      <th scope="row" data-label="Name">
                        <a href={hrefOf(['employees', e.id])}>{nameOf(e)}</a>
                      </th>
                      <td data-label="Email">{e.email}</td>
                      <td data-label="Badge id">{e.externalId ?? '—'}</td>
                      <td data-label="Status">
                        <StatusBadge status={e.status} />
                      </td>
                      <td data-label="Workplace">{workplaceName(e.workplaceId)}</td>
                      <td data-label="Actions" class="row-actions">
                        {canManage ? (
                          <>
                            <a
                              class="button-link"
                              href={hrefOf(['employees', e.id])}
                              aria-label={`Edit ${nameOf(e)}`}
                            >
                              Edit
                            </a>
                            <button
                              type="button"
                              class="danger-outline"
                              aria-label={`Delete ${nameOf(e)}`}
                              onClick={(event) => {
                                opener.current = event.currentTarget;
                                setDeleting(e);
                              }}
                            >
                              Delete
                            </button>
                          </>
                        ) : null}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {nextCursor ? (
            <button type="button" onClick={() => void loadPage(nextCursor)}>
              Show more employees
            </button>
          ) : null}
        </section>
      ) : null}
      {dialog}
    </>
  );
}

export const employeesScreen: Screen = {
  path: 'employees',
  title: 'Employees',
  allowed: (person) => may(person, PERMISSIONS.readEmployees),
  component: EmployeesScreen,
};
