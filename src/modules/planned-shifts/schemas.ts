import { type Static, Type } from '@sinclair/typebox';
import {
  DateString,
  DateTimeString,
  Guid,
  LimitQuery,
  NO_NUL,
  Nullable,
  NullableOut,
  ProblemSchema,
  StringEnum,
  pageOf,
} from '../../http/schemas/common.js';
import { EmployeeRefSchema, EmployeeSelectorSchema } from '../employees/schemas.js';

/* The published schemas of planned shifts and attendance exceptions (issue 33, additive within v1). */

export const SHIFT_STATUSES = ['draft', 'published'] as const;
export type ShiftStatus = (typeof SHIFT_STATUSES)[number];
export const EXCEPTION_KINDS = ['late_in', 'early_out', 'no_show', 'missed_clock_out', 'unplanned'] as const;
export type ExceptionKind = (typeof EXCEPTION_KINDS)[number];

const ExternalShiftId = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: NO_NUL,
  description:
    "the scheduler's own id of the shift (case-sensitive, unique per company): an item with it upserts",
});

export const PlannedShiftSchema = Type.Object({
  id: Guid,
  externalId: NullableOut(Type.String({ description: "the scheduler's id of the shift" })),
  employee: EmployeeRefSchema,
  workplaceId: Guid,
  date: Type.String({
    format: 'date',
    description: "the day the shift belongs to: its start's date in the workplace's time zone",
  }),
  start: Type.String({ format: 'date-time', description: "with the workplace zone's offset" }),
  end: Type.String({ format: 'date-time', description: "with the workplace zone's offset" }),
  breakMinutes: Type.Integer({ description: 'unpaid break planned within the shift' }),
  note: NullableOut(Type.String()),
  status: StringEnum(SHIFT_STATUSES, { description: 'draft (not seen by the exceptions job) or published' }),
  version: Type.Integer({ description: 'starts at 1, grows with every change' }),
  createdAt: DateTimeString,
  updatedAt: DateTimeString,
});

export const PlannedShiftPageSchema = pageOf(PlannedShiftSchema);

export const PlannedShiftInputSchema = Type.Object(
  {
    externalId: Type.Optional(Nullable(ExternalShiftId)),
    employee: EmployeeSelectorSchema,
    workplaceId: Type.Optional(Nullable(Guid)),
    start: Type.String({ format: 'date-time', description: 'RFC 3339 with an explicit offset' }),
    end: Type.String({
      format: 'date-time',
      description: 'RFC 3339 with an explicit offset; after start and less than 24 hours later',
    }),
    breakMinutes: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 1440 }))),
    note: Type.Optional(Nullable(Type.String({ maxLength: 500, pattern: NO_NUL }))),
    status: Type.Optional(
      StringEnum(SHIFT_STATUSES, {
        description:
          'a new shift is `draft` unless it says `published`; an existing one keeps its status unless sent',
      }),
    ),
  },
  { additionalProperties: false },
);
export type PlannedShiftInput = Static<typeof PlannedShiftInputSchema>;

export const PlannedShiftBatchBodySchema = Type.Object(
  {
    shifts: Type.Array(PlannedShiftInputSchema, {
      minItems: 1,
      maxItems: 500,
      description: 'processed in the order sent',
    }),
  },
  { additionalProperties: false },
);

export const PlannedShiftBatchResultSchema = Type.Object({
  results: Type.Array(
    Type.Object({
      index: Type.Integer({ minimum: 0, description: "the item's zero-based position in the batch" }),
      status: Type.Integer({
        description: '201 created, 200 updated or unchanged (and on a dry run), else the refusal',
      }),
      body: Type.Union([PlannedShiftSchema, ProblemSchema], {
        description: 'the shift as stored (or as it would be, on a dry run), or the problem document',
      }),
    }),
  ),
});

export const PlannedShiftsQuerySchema = Type.Object(
  {
    from: DateString,
    to: DateString,
    employeeId: Type.Optional(Guid),
    externalId: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: "the employee's external (badge) id" }),
    ),
    workplaceId: Type.Optional(Guid),
    shiftExternalId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    cursor: Type.Optional(Type.String({ maxLength: 1024 })),
    limit: Type.Optional(LimitQuery),
  },
  { additionalProperties: false },
);

export const ShiftIdParamsSchema = Type.Object({ id: Guid });

export const PublishBodySchema = Type.Object(
  {
    from: DateString,
    to: DateString,
    workplaceId: Type.Optional(Guid),
  },
  { additionalProperties: false },
);

export const PublishResultSchema = Type.Object({
  published: Type.Integer({ description: 'draft shifts dated from..to that were published' }),
  dryRun: Type.Boolean(),
});

export const AttendanceExceptionSchema = Type.Object({
  id: Guid,
  kind: StringEnum(EXCEPTION_KINDS, { description: 'may grow' }),
  employee: EmployeeRefSchema,
  plannedShiftId: NullableOut(Guid),
  timeEntryId: NullableOut(Guid),
  date: DateString,
  minutes: Type.Integer({
    description:
      'how late (late_in), how early (early_out), how long past the end (missed_clock_out); 0 for no_show and unplanned',
  }),
  detectedAt: DateTimeString,
  resolvedAt: NullableOut(
    Type.String({
      format: 'date-time',
      description:
        'no_show: the clock-in came; missed_clock_out: the session was closed; also when the shift changed',
    }),
  ),
});

export const AttendanceExceptionPageSchema = pageOf(AttendanceExceptionSchema);

export const AttendanceExceptionsQuerySchema = Type.Object(
  {
    from: Type.Optional(DateString),
    to: Type.Optional(DateString),
    employeeId: Type.Optional(Guid),
    externalId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    workplaceId: Type.Optional(Guid),
    kind: Type.Optional(StringEnum(EXCEPTION_KINDS)),
    cursor: Type.Optional(Type.String({ maxLength: 1024 })),
    limit: Type.Optional(LimitQuery),
  },
  { additionalProperties: false },
);

/* The console's schemas of the Roster screen and the Now screen's attendance (issue 33). */

const WallTime = Type.String({ pattern: '^([01]\\d|2[0-3]):[0-5]\\d$', description: 'HH:MM, wall clock' });

export const RosterQuerySchema = Type.Object(
  {
    workplaceId: Type.Optional(
      Type.Unsafe<string>({ ...Guid, description: "default: the company's first workplace by name" }),
    ),
    from: DateString,
    to: DateString,
  },
  { additionalProperties: false },
);

const RosterEmployeeSchema = Type.Object({
  id: Guid,
  externalId: NullableOut(Type.String()),
  firstName: NullableOut(Type.String()),
  lastName: NullableOut(Type.String()),
  email: NullableOut(Type.String({ description: 'null without permission 47 or 52 (people data)' })),
});

export const RosterSchema = Type.Object({
  workplaces: Type.Array(Type.Object({ id: Guid, name: Type.String() }), {
    description: "the company's, by name",
  }),
  workplace: Type.Union([Type.Object({ id: Guid, name: Type.String() }), Type.Null()], {
    description: 'the workplace shown; null when the company has none',
  }),
  timeZone: Type.String({ description: "the zone of the workplace's days and times" }),
  from: DateString,
  to: DateString,
  employees: Type.Array(RosterEmployeeSchema, {
    description: "the workplace's employees and anyone with a shift there, by name",
  }),
  shifts: Type.Array(
    Type.Object({
      ...PlannedShiftSchema.properties,
      startTime: Type.String({ description: 'HH:MM in the workplace zone' }),
      endTime: Type.String({ description: 'HH:MM in the workplace zone' }),
    }),
  ),
  exceptions: NullableOut(
    Type.Array(AttendanceExceptionSchema, {
      description: "the days' exceptions; null without permission 47 (attendance data)",
    }),
  ),
});

export const RosterShiftBodySchema = Type.Object(
  {
    employeeId: Guid,
    workplaceId: Guid,
    date: DateString,
    startTime: WallTime,
    endTime: Type.String({
      pattern: '^([01]\\d|2[0-3]):[0-5]\\d$',
      description: 'HH:MM; at or before startTime means the next day',
    }),
    breakMinutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 1440 })),
    note: Type.Optional(Nullable(Type.String({ maxLength: 500, pattern: NO_NUL }))),
  },
  { additionalProperties: false },
);

export const CopyWeekBodySchema = Type.Object(
  { workplaceId: Guid, weekStart: DateString },
  { additionalProperties: false },
);

export const CopyWeekResultSchema = Type.Object({
  created: Type.Integer(),
  skipped: Type.Integer({ description: 'shifts not copied: they overlap a shift already planned' }),
});

export const AdminPublishBodySchema = Type.Object(
  { workplaceId: Guid, from: DateString, to: DateString },
  { additionalProperties: false },
);

export const AdminPublishResultSchema = Type.Object({ published: Type.Integer() });

export const AttendanceNowQuerySchema = Type.Object(
  { workplaceId: Type.Optional(Guid) },
  { additionalProperties: false },
);

export const AttendanceNowSchema = Type.Object({
  items: Type.Array(
    Type.Object({
      state: Type.Unsafe<'late' | 'not_yet_in'>({
        type: 'string',
        enum: ['late', 'not_yet_in'],
        description:
          'late: the start and the grace have passed; not_yet_in: the shift starts within the hour or has just started',
      }),
      minutesLate: Type.Integer({ description: 'minutes since the start; 0 before it' }),
      plannedShiftId: Guid,
      start: Type.String({ format: 'date-time' }),
      end: Type.String({ format: 'date-time' }),
      employee: RosterEmployeeSchema,
      workplace: Type.Object({ id: Guid, name: Type.String() }),
    }),
  ),
  timeZone: Type.String(),
});
