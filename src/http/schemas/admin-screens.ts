import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { DateString, DateTimeString, Guid, TimesheetSchema } from './common.js';

/*
 * Schemas of the admin API's operations for the console's second set of screens (issue 23): who is
 * in now, employees, the audit log. See docs/admin-api-contract.md.
 */

const NO_NUL = '^[^\\u0000]*$';

/** A nullable response field as one JSON Schema type list (see NullableOut in common.ts). */
const NullableOut = <T extends TSchema>(schema: T) =>
  Type.Unsafe<Static<T> | null>({
    ...Object.fromEntries(Object.entries(schema)),
    type: [schema.type, 'null'],
  });

/** A nullable request field. */
const NullableIn = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const AdminClockStatusQuerySchema = Type.Object(
  {
    workplaceId: Type.Optional(Guid),
    cursor: Type.Optional(Type.String({ maxLength: 1024 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
  },
  { additionalProperties: false },
);

export const AdminClockStatusPageSchema = Type.Object({
  items: Type.Array(
    Type.Object({
      employee: Type.Object({
        id: Guid,
        externalId: NullableOut(Type.String()),
        firstName: NullableOut(Type.String()),
        lastName: NullableOut(Type.String()),
        email: Type.String(),
      }),
      timeEntryId: Guid,
      workplaceId: NullableOut(Type.String({ format: 'uuid' })),
      workplace: Type.Union([Type.Object({ id: Guid, name: Type.String() }), Type.Null()]),
      since: Type.String({ format: 'date-time', description: 'the clock-in instant (UTC)' }),
      sinceTime: Type.String({ description: "the clock-in wall-clock time in the entry's zone, HH:MM:SS" }),
      onBreak: Type.Boolean(),
      breakSince: NullableOut(Type.String({ format: 'date-time' })),
    }),
    { description: 'open sessions, oldest first' },
  ),
  nextCursor: NullableOut(Type.String()),
  hasMore: Type.Boolean(),
  timeZone: Type.String({ description: "the company's zone (UTC when it has none), to show instants in" }),
});

export const WorkplaceListSchema = Type.Object({
  items: Type.Array(Type.Object({ id: Guid, name: Type.String(), timeZone: NullableOut(Type.String()) })),
});

export const ScheduleListSchema = Type.Object({
  items: Type.Array(Type.Object({ id: Guid, name: Type.String(), weeklyHours: NullableOut(Type.Number()) })),
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
});

/**
 * The body of a creation or a change. Strings are checked by the CLI's own rules (422 naming the
 * field); only their type and size are checked here, so the messages are the CLI's.
 */
const employeeFields = {
  email: Type.String({ maxLength: 300, pattern: NO_NUL }),
  firstName: NullableIn(Type.String({ maxLength: 300, pattern: NO_NUL })),
  lastName: NullableIn(Type.String({ maxLength: 300, pattern: NO_NUL })),
  status: Type.String({ maxLength: 32, description: EMPLOYEE_STATUS.join(', ') }),
  externalId: NullableIn(Type.String({ maxLength: 200, pattern: NO_NUL })),
  workplaceId: NullableIn(Type.String({ maxLength: 64, description: 'a workplace of the company, or null' })),
  scheduleId: NullableIn(Type.String({ maxLength: 64, description: 'a schedule of the company, or null' })),
  scheduleFrom: Type.String({
    maxLength: 32,
    description: 'YYYY-MM-DD: the schedule applies from this day (with scheduleId)',
  }),
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
  },
  { additionalProperties: false },
);

export const AuditQuerySchema = Type.Object(
  {
    actorType: Type.Optional(
      Type.Unsafe<'user' | 'api_key' | 'cli'>({ type: 'string', enum: ['user', 'api_key', 'cli'] }),
    ),
    actorId: Type.Optional(Guid),
    action: Type.Optional(
      Type.String({
        maxLength: 64,
        pattern: '^[a-z_.]+$',
        description: 'e.g. employee.update, or a prefix such as employee.',
      }),
    ),
    from: Type.Optional(DateString),
    to: Type.Optional(DateString),
    cursor: Type.Optional(Type.String({ maxLength: 1024 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  },
  { additionalProperties: false },
);

export const AuditPageSchema = Type.Object({
  items: Type.Array(
    Type.Object({
      id: Guid,
      at: DateTimeString,
      actor: Type.Object({
        type: Type.String({ enum: ['user', 'api_key', 'cli'] }),
        id: NullableOut(Type.String()),
        name: NullableOut(Type.String({ description: "the person's email or the key's name" })),
      }),
      action: Type.String(),
      targetType: NullableOut(Type.String()),
      targetId: NullableOut(Type.String()),
      details: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
    }),
    { description: 'newest first' },
  ),
  nextCursor: NullableOut(Type.String()),
  hasMore: Type.Boolean(),
  actions: Type.Array(Type.String(), { description: "every action the company's log holds, to filter by" }),
});

const timesheetFilters = {
  from: Type.String({ format: 'date', description: 'first work date, inclusive' }),
  to: Type.String({ format: 'date', description: 'last work date, inclusive (at most 92 days after from)' }),
  workplaceId: Type.Optional(Guid),
  employeeId: Type.Optional(Guid),
  status: Type.Optional(
    Type.Unsafe<'all' | 'approved'>({
      type: 'string',
      enum: ['all', 'approved'],
      description: 'approved: count approved entries only; all (default): pending and approved',
    }),
  ),
};

export const AdminTimesheetsQuerySchema = Type.Object(
  {
    ...timesheetFilters,
    cursor: Type.Optional(Type.String({ maxLength: 1024 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
  },
  { additionalProperties: false },
);

export const AdminTimesheetsCsvQuerySchema = Type.Object(
  {
    ...timesheetFilters,
    delimiter: Type.Optional(
      Type.Unsafe<'comma' | 'semicolon'>({ type: 'string', enum: ['comma', 'semicolon'] }),
    ),
    bom: Type.Optional(Type.Boolean({ description: 'start with a UTF-8 byte-order mark (spreadsheets)' })),
  },
  { additionalProperties: false },
);

export const AdminTimesheetPageSchema = Type.Object({
  items: Type.Array(
    Type.Object({
      ...TimesheetSchema.properties,
      employee: Type.Object({
        id: Guid,
        externalId: NullableOut(Type.String()),
        firstName: NullableOut(Type.String()),
        lastName: NullableOut(Type.String()),
        email: Type.String(),
      }),
    }),
    { description: "the public operation's timesheets, each employee with names" },
  ),
  nextCursor: NullableOut(Type.String()),
  hasMore: Type.Boolean(),
  from: DateString,
  to: DateString,
  settings: Type.Object({
    workweekStart: Type.String(),
    dailyOvertimeHours: NullableOut(Type.Number()),
    workingTimeRules: Type.String(),
  }),
});
