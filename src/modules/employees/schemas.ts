import { Type } from '@sinclair/typebox';
import {
  Guid,
  LimitQuery,
  NO_NUL,
  Nullable,
  NullableOut,
  StringEnum,
  pageOf,
} from '../../http/schemas/common.js';

/* Employees: the public list and external ids, and the admin API's directory and changes. */

export const EmployeeStatus = StringEnum(['active', 'inactive', 'on_leave', 'suspended', 'terminated']);

export const EmployeeRefSchema = Type.Object({ id: Guid, externalId: NullableOut(Type.String()) });

export const EmployeeSelectorSchema = Type.Object(
  {
    id: Type.Optional(Nullable(Guid)),
    externalId: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 64 }))),
  },
  {
    additionalProperties: false,
    description: 'At least one of id / externalId; both must name the same person',
  },
);

export const EmployeeListItemSchema = Type.Object({
  id: Guid,
  externalId: NullableOut(Type.String()),
  firstName: NullableOut(Type.String()),
  lastName: NullableOut(Type.String()),
  email: Type.String(),
  status: Type.String({ description: 'active, inactive, on_leave, suspended, terminated; may grow' }),
  departmentId: NullableOut(Guid),
  positionId: NullableOut(Guid),
  hiredOn: NullableOut(
    Type.String({ format: 'date', description: 'first day of employment; null when unknown' }),
  ),
  leftOn: NullableOut(
    Type.String({ format: 'date', description: 'last day of employment; null when unknown' }),
  ),
});

export const EmployeePageSchema = pageOf(EmployeeListItemSchema);

export const EmployeesQuerySchema = Type.Object(
  {
    cursor: Type.Optional(Type.String({ maxLength: 1024 })),
    limit: Type.Optional(LimitQuery),
    status: Type.Optional(EmployeeStatus),
  },
  { additionalProperties: false },
);

export const ExternalIdParamsSchema = Type.Object({ id: Guid });

export const ExternalIdBodySchema = Type.Object(
  { externalId: Nullable(Type.String({ maxLength: 64 })) },
  { additionalProperties: false },
);

export const ExternalIdResultSchema = Type.Object({
  id: Guid,
  externalId: NullableOut(Type.String()),
  dryRun: Type.Boolean(),
});

export const AdminEmployeesQuerySchema = Type.Object(
  {
    search: Type.Optional(Type.String({ maxLength: 200, pattern: NO_NUL })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
    cursor: Type.Optional(Type.String({ maxLength: 1024 })),
  },
  { additionalProperties: false },
);

export const AdminEmployeeSchema = Type.Object({
  id: Guid,
  firstName: NullableOut(Type.String()),
  lastName: NullableOut(Type.String()),
  email: Type.String(),
  externalId: NullableOut(Type.String()),
  status: Type.String(),
  workplaceId: NullableOut(Guid),
});

export const AdminEmployeePageSchema = Type.Object({
  items: Type.Array(AdminEmployeeSchema),
  nextCursor: NullableOut(Type.String()),
  hasMore: Type.Boolean(),
});

const EMPLOYEE_STATUS = ['active', 'inactive', 'on_leave', 'suspended', 'terminated'];

export const AdminEmployeeDetailSchema = Type.Object({
  id: Guid,
  firstName: NullableOut(Type.String()),
  lastName: NullableOut(Type.String()),
  email: Type.String(),
  externalId: NullableOut(Type.String()),
  status: Type.String({ enum: EMPLOYEE_STATUS }),
  workplaceId: NullableOut(Type.String({ format: 'uuid' })),
  scheduleId: NullableOut(Type.String({ format: 'uuid' })),
  scheduleFrom: NullableOut(
    Type.String({ format: 'date', description: 'the day the schedule applies from' }),
  ),
  hiredOn: NullableOut(Type.String({ format: 'date', description: 'first day of employment (issue 31)' })),
  leftOn: NullableOut(Type.String({ format: 'date', description: 'last day of employment (issue 31)' })),
});

/**
 * The body of a creation or a change. Strings are checked by the CLI's own rules (422 naming the
 * field); only their type and size are checked here, so the messages are the CLI's.
 */
const employeeFields = {
  email: Type.String({ maxLength: 300, pattern: NO_NUL }),
  firstName: Nullable(Type.String({ maxLength: 300, pattern: NO_NUL })),
  lastName: Nullable(Type.String({ maxLength: 300, pattern: NO_NUL })),
  status: Type.String({ maxLength: 32, description: EMPLOYEE_STATUS.join(', ') }),
  externalId: Nullable(Type.String({ maxLength: 200, pattern: NO_NUL })),
  workplaceId: Nullable(Type.String({ maxLength: 64, description: 'a workplace of the company, or null' })),
  scheduleId: Nullable(Type.String({ maxLength: 64, description: 'a schedule of the company, or null' })),
  scheduleFrom: Type.String({
    maxLength: 32,
    description: 'YYYY-MM-DD: the schedule applies from this day (with scheduleId)',
  }),
  hiredOn: Nullable(Type.String({ maxLength: 32, description: 'YYYY-MM-DD, or null for unknown' })),
  leftOn: Nullable(Type.String({ maxLength: 32, description: 'YYYY-MM-DD, or null for unknown' })),
};

export const CreateEmployeeBodySchema = Type.Object(
  {
    email: Type.String({ maxLength: 300, pattern: NO_NUL, description: 'required' }),
    firstName: Type.Optional(employeeFields.firstName),
    lastName: Type.Optional(employeeFields.lastName),
    status: Type.Optional(employeeFields.status),
    externalId: Type.Optional(employeeFields.externalId),
    workplaceId: Type.Optional(employeeFields.workplaceId),
    scheduleId: Type.Optional(employeeFields.scheduleId),
    scheduleFrom: Type.Optional(employeeFields.scheduleFrom),
    hiredOn: Type.Optional(employeeFields.hiredOn),
    leftOn: Type.Optional(employeeFields.leftOn),
  },
  { additionalProperties: false },
);

export const UpdateEmployeeBodySchema = Type.Object(
  {
    email: Type.Optional(employeeFields.email),
    firstName: Type.Optional(employeeFields.firstName),
    lastName: Type.Optional(employeeFields.lastName),
    status: Type.Optional(employeeFields.status),
    externalId: Type.Optional(employeeFields.externalId),
    workplaceId: Type.Optional(employeeFields.workplaceId),
    scheduleId: Type.Optional(employeeFields.scheduleId),
    scheduleFrom: Type.Optional(employeeFields.scheduleFrom),
    hiredOn: Type.Optional(employeeFields.hiredOn),
    leftOn: Type.Optional(employeeFields.leftOn),
  },
  { additionalProperties: false },
);
