import { type EmployeeRow } from '../../platform/db/schema.js';
/* An employee as the public API shows it: the list item and the reference. */

export function employeeListItem(
  row: Pick<
    EmployeeRow,
    | 'id'
    | 'external_id'
    | 'first_name'
    | 'last_name'
    | 'email'
    | 'status'
    | 'department_id'
    | 'position_id'
    | 'hired_on'
    | 'left_on'
  >,
) {
  return {
    id: row.id,
    externalId: row.external_id,
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    status: row.status,
    departmentId: row.department_id,
    positionId: row.position_id,
    // Employment dates (issue 31): nullable, always present.
    hiredOn: row.hired_on,
    leftOn: row.left_on,
  };
}

export function employeeRef(row: { id: string; external_id: string | null }) {
  return { id: row.id, externalId: row.external_id };
}
