import { type EmployeeRow } from '../../platform/db/schema.js';
/* An employee as the public API shows it: the list item and the reference. */

export function employeeListItem(
  row: Pick<
    EmployeeRow,
    'id' | 'external_id' | 'first_name' | 'last_name' | 'email' | 'status' | 'department_id' | 'position_id'
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
  };
}

export function employeeRef(row: { id: string; external_id: string | null }) {
  return { id: row.id, externalId: row.external_id };
}
