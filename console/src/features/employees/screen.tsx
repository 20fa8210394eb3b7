import { may, PERMISSIONS } from '../../api.js';
import { ConfirmDialog } from '../../components/ui.js';
import { personName } from '../../names.js';
import type { Screen, ScreenProps } from '../../screens/registry.js';
import { EmployeeDetailPage } from './employee-detail.js';
import { EmployeeListPage } from './employee-list.js';
import { type Employees, useEmployees } from './use-employees.js';

function DeleteDialog(props: { employees: Employees }) {
  const { deleting, busy, remove, cancelDelete } = props.employees;
  return (
    <ConfirmDialog
      open={deleting !== null}
      title={`Delete ${deleting ? personName(deleting) : ''}?`}
      confirmLabel="Delete employee"
      danger
      busy={busy}
      onConfirm={() => void remove()}
      onCancel={cancelDelete}
    >
      <p>
        They disappear from the list and from the API; their recorded time entries stay. The badge id becomes
        free for someone else.
      </p>
    </ConfirmDialog>
  );
}

/** `#/employees`: the list; `#/employees/new` and `#/employees/<id>`: one employee. */
function EmployeesScreen({ person, route }: ScreenProps) {
  const canManage = may(person, PERMISSIONS.manageEmployees);
  // Invite everyone hands out links acting as every employee: 91 and 92 both (review 2, #8).
  const canInvite = canManage && may(person, PERMISSIONS.decideEntries);
  const [, target] = route.segments;
  const employees = useEmployees(target, route.query.get('search') ?? '');
  return (
    <>
      {target !== undefined ? (
        <EmployeeDetailPage employees={employees} target={target} canManage={canManage} />
      ) : (
        <EmployeeListPage employees={employees} canManage={canManage} canInvite={canInvite} />
      )}
      <DeleteDialog employees={employees} />
    </>
  );
}

export const employeesScreen: Screen = {
  path: 'employees',
  title: 'Employees',
  allowed: (person) => may(person, PERMISSIONS.readEmployees),
  component: EmployeesScreen,
};
