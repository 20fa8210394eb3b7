import { DataTable } from '../../components/table.js';
import { SearchField } from '../../components/fields.js';
import { FilterCard, Loading, Notice, ScreenHeading, StatusBadge } from '../../components/ui.js';
import { personName } from '../../names.js';
import { hrefOf } from '../../router.js';
import type { EmployeeRow } from './model.js';
import type { Employees } from './use-employees.js';
import { InviteEveryone } from '../self-service/invite-all.js';

/** `#/employees`: find, add, change and delete employees. */
export function EmployeeListPage(props: { employees: Employees; canManage: boolean; canInvite: boolean }) {
  const { employees: e, canManage, canInvite } = props;
  return (
    <>
      <ScreenHeading title="Employees">
        <p class="lede">
          {canManage
            ? 'The people badge terminals and integrations know: find, add, change and delete them.'
            : 'The people badge terminals and integrations know.'}
        </p>
      </ScreenHeading>
      <Notice tone="success" message={e.status} />
      <Notice tone="error" message={e.actionError} />
      <FilterCard headingId="employees-find-heading" heading="Find employees">
        <div class="filter-row">
          <SearchField label="Find (name, email or badge id)" value={e.search} onInput={e.setSearch} />
          {canManage ? (
            <div class="toolbar">
              <a class="button-link primary" href={hrefOf(['employees', 'new'])}>
                Add an employee
              </a>
              {canInvite ? <InviteEveryone /> : null}
            </div>
          ) : null}
        </div>
      </FilterCard>
      <Notice tone="error" message={e.listError} />
      {e.rows === null && !e.listError ? <Loading what="employees" /> : null}
      {e.rows ? <EmployeeResults employees={e} rows={e.rows} canManage={canManage} /> : null}
    </>
  );
}

function EmployeeResults(props: { employees: Employees; rows: EmployeeRow[]; canManage: boolean }) {
  const { employees: e, rows } = props;
  const search = e.search.trim();
  return (
    <section aria-labelledby="employees-list-heading">
      <h2 id="employees-list-heading">
        {search ? `Employees matching “${search}”` : 'All employees'}{' '}
        <span class="count">
          ({rows.length}
          {e.nextCursor ? '+' : ''})
        </span>
      </h2>
      {rows.length === 0 ? (
        <p>{search ? 'Nobody matches this search.' : 'There are no employees yet.'}</p>
      ) : (
        <DataTable
          caption="Employees by last name"
          columns={['Name', 'Email', 'Badge id', 'Status', 'Workplace']}
          actions
        >
          {rows.map((row) => (
            <EmployeeTableRow key={row.id} employees={e} row={row} canManage={props.canManage} />
          ))}
        </DataTable>
      )}
      {e.nextCursor ? (
        <button type="button" onClick={() => void e.loadPage(e.nextCursor)}>
          Show more employees
        </button>
      ) : null}
    </section>
  );
}

function EmployeeTableRow(props: { employees: Employees; row: EmployeeRow; canManage: boolean }) {
  const { employees, row } = props;
  const name = personName(row);
  const workplace = row.workplaceId
    ? (employees.workplaces.find((w) => w.id === row.workplaceId)?.name ?? '—')
    : '—';
  return (
    <tr>
      <th scope="row" data-label="Name">
        <a href={hrefOf(['employees', row.id])}>{name}</a>
      </th>
      <td data-label="Email">{row.email}</td>
      <td data-label="Badge id">{row.externalId ?? '—'}</td>
      <td data-label="Status">
        <StatusBadge status={row.status} />
      </td>
      <td data-label="Workplace">{workplace}</td>
      <td data-label="Actions" class="row-actions">
        {props.canManage ? (
          <>
            <a class="button-link" href={hrefOf(['employees', row.id])} aria-label={`Edit ${name}`}>
              Edit
            </a>
            <button
              type="button"
              class="danger-outline"
              aria-label={`Delete ${name}`}
              onClick={(event) => employees.askToDelete(row, event.currentTarget)}
            >
              Delete
            </button>
          </>
        ) : null}
      </td>
    </tr>
  );
}
