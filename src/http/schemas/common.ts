import {
  type Static,
  type TArray,
  type TInteger,
  type TNumber,
  type TSchema,
  type TString,
  Type,
} from '@sinclair/typebox';

/** The same schema with the description the response documents. */
export const described = <T extends TSchema>(schema: T, description: string): T => ({
  ...schema,
  description,
});

// PostgreSQL text cannot hold NUL (the insert fails), so free text refuses it up front with a 422.
const NO_NUL = '^[^\\u0000]*$';
const FreeText = (maxLength: number) => Type.String({ maxLength, pattern: NO_NUL });

/** A closed set of strings, published as one `enum` (generators make real enums of it, not unions). */
const StringEnum = <const T extends string>(values: readonly T[], options: { description?: string } = {}) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });

/** A nullable request field: its Ajv errors (`must be string`, `must be null`, …) are part of the 422 body. */
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/**
 * A nullable response field: the same schema with `null` added to its `type` (`type: ['string', 'null']`),
 * which accepts exactly what `anyOf: [schema, { type: 'null' }]` accepts. fast-json-stringify serialises a
 * type list with a `typeof` / `=== null` test, whereas for `anyOf` it runs Ajv on every value to pick the
 * branch (the `date-time` format check of each `approvedAt` was measurable). The JSON written is the same.
 */
const NullableOut = <T extends TString | TInteger | TNumber | TArray>(schema: T) =>
  Type.Unsafe<Static<T> | null>({
    ...Object.fromEntries(Object.entries(schema)),
    type: [schema.type, 'null'],
  });

export const Guid = Type.String({ format: 'uuid' });
export const DateString = Type.String({ format: 'date', description: 'YYYY-MM-DD' });
export const TimeString = Type.String({
  pattern: '^\\d{2}:\\d{2}:\\d{2}$',
  description: 'HH:MM:SS wall-clock',
  examples: ['09:00:00'],
});
export const DateTimeString = Type.String({ format: 'date-time' });
export const EmployeeStatus = StringEnum(['active', 'inactive', 'on_leave', 'suspended', 'terminated']);

export const FieldErrorSchema = Type.Object({
  field: Type.String(),
  message: Type.String(),
  code: NullableOut(Type.String()),
});

export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: NullableOut(Type.String()),
    instance: NullableOut(Type.String()),
    code: Type.Integer(),
    error: Type.String(),
    correlationId: NullableOut(Type.String()),
    errors: NullableOut(Type.Array(FieldErrorSchema)),
  },
  { description: 'RFC 9457 problem details' },
);

/** OAuth 2.0 error response (RFC 6749 §5.2) with the error names one status can carry. */
export const oauthError = (names: string[]) =>
  Type.Object(
    { error: Type.String({ enum: names }), error_description: Type.String() },
    { description: `OAuth 2.0 error response (RFC 6749 §5.2); error: ${names.join(', ')}` },
  );

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
});

export const TimeEntryBreakSchema = Type.Object(
  {
    startTime: TimeString,
    endTime: NullableOut(TimeString),
    startedAt: DateTimeString,
    endedAt: NullableOut(DateTimeString),
    minutes: NullableOut(Type.Integer({ description: 'whole minutes (nearest); null while the break runs' })),
  },
  {
    description:
      "A break of a clocked entry: wall clocks in the entry's zone, the instants (UTC), whole minutes",
  },
);

export const TimeEntrySchema = Type.Object({
  id: Guid,
  employee: EmployeeRefSchema,
  workDate: DateString,
  startTime: TimeString,
  endTime: NullableOut(TimeString),
  endsNextDay: Type.Boolean(),
  totalHours: Type.Number({ description: 'net working time in hours, rounded to 2 decimals; 0 while open' }),
  breakMinutes: NullableOut(Type.Integer()),
  status: Type.String({ description: 'open, pending_approval, approved, draft, rejected; may grow' }),
  source: Type.String({ description: 'origin of the entry; an open list: time_clock, api_shift; may grow' }),
  approvedAt: NullableOut(DateTimeString),
  createdAt: DateTimeString,
  breaks: Type.Optional(
    Type.Array(TimeEntryBreakSchema, {
      description:
        'Entries of the time clock (source `time_clock`): their punched breaks, oldest first (empty when none); `breakMinutes` is their sum once one has ended. ' +
        'Absent on shifts recorded with POST /time-entries, whose single `breakMinutes` has no place in the day.',
    }),
  ),
});

export const WriteResultSchema = Type.Object({
  timeEntryId: NullableOut(Guid),
  employee: EmployeeRefSchema,
  type: StringEnum(['clock_in', 'clock_out', 'shift', 'break_start', 'break_end'], {
    description:
      'the effective type (a `toggle` answers `clock_in` or `clock_out`); later versions may add values',
  }),
  workDate: DateString,
  time: TimeString,
  timeZone: Type.String({
    description: 'IANA zone id, or the literal `offset` when the sent offset was kept',
  }),
  occurredAt: DateTimeString,
  endsNextDay: Type.Boolean(),
  status: Type.String(),
  dryRun: Type.Boolean(),
  startTime: NullableOut(TimeString),
  endTime: NullableOut(TimeString),
  totalHours: NullableOut(Type.Number()),
});

export const pageOf = <T extends TSchema>(item: T) =>
  Type.Object({ items: Type.Array(item), nextCursor: NullableOut(Type.String()), hasMore: Type.Boolean() });

export const EmployeePageSchema = pageOf(EmployeeListItemSchema);
export const TimeEntryPageSchema = pageOf(TimeEntrySchema);

export const WriteHeadersSchema = Type.Object({
  // Spec, Shared write headers: a boolean. Header schemas are documentation only: the server reads
  // the header's text itself (`true` / `false`, see write-headers.ts).
  'x-service-dry-run': Type.Optional(
    Type.Boolean({
      default: true,
      description:
        '`true`: every check runs, nothing is stored, 200 with dryRun true. The server treats an absent header as a real write.',
    }),
  ),
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 128,
      description:
        'Unique per logical write (a UUID is a good choice); at most 128 characters, sent bare or as a quoted string. A retry with the same key and body gets the stored result; results are kept 24 hours.',
    }),
  ),
});

export const DryRunHeaderSchema = Type.Object({
  'x-service-dry-run': WriteHeadersSchema.properties['x-service-dry-run'],
});

export const ClockEventBodySchema = Type.Object(
  {
    employee: EmployeeSelectorSchema,
    type: StringEnum(['clock_in', 'clock_out', 'toggle', 'break_start', 'break_end'], {
      description:
        '`toggle`: `clock_out` when a session is open, else `clock_in`. `break_start` / `break_end`: a break inside the open session',
    }),
    occurredAt: Type.String({
      format: 'date-time',
      description: 'RFC 3339 with explicit offset; at most 5 minutes in the future and 30 days in the past',
    }),
    deviceId: Type.Optional(Nullable(FreeText(64))),
    note: Type.Optional(Nullable(FreeText(500))),
  },
  { additionalProperties: false },
);

/** One punch of a batch: the single endpoint's body plus its own Idempotency-Key. */
export const ClockEventBatchItemSchema = Type.Object(
  {
    ...ClockEventBodySchema.properties,
    idempotencyKey: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 128,
        description:
          "This punch's Idempotency-Key: the same rules as the header on POST /time-clock/events (same scope, 24 h, replay; 422 when reused with another punch)",
      }),
    ),
  },
  { additionalProperties: false },
);

export const ClockEventBatchBodySchema = Type.Object(
  {
    events: Type.Array(ClockEventBatchItemSchema, {
      minItems: 1,
      maxItems: 100,
      description: 'processed in the order sent',
    }),
  },
  { additionalProperties: false },
);

export const ClockEventBatchResultSchema = Type.Object({
  results: Type.Array(
    Type.Object({
      index: Type.Integer({ minimum: 0, description: "the event's zero-based position in the batch" }),
      status: Type.Integer({
        description: 'the status POST /time-clock/events would have answered for this event',
      }),
      body: Type.Union([WriteResultSchema, ProblemSchema], {
        description:
          'the write result, or the problem document, that POST /time-clock/events would have answered',
      }),
    }),
  ),
});

export const ShiftBodySchema = Type.Object(
  {
    employee: EmployeeSelectorSchema,
    clockIn: Type.String({
      format: 'date-time',
      description: 'RFC 3339 with offset; at most 30 days in the past',
    }),
    clockOut: Type.String({
      format: 'date-time',
      description: 'after clockIn and under 24 hours later; at most 5 minutes in the future',
    }),
    breakMinutes: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 1440 }))),
    note: Type.Optional(Nullable(FreeText(500))),
  },
  { additionalProperties: false },
);

export const LimitQuery = Type.Integer({ minimum: 1, maximum: 100, default: 25 });

export const EmployeesQuerySchema = Type.Object(
  {
    cursor: Type.Optional(Type.String({ maxLength: 1024 })),
    limit: Type.Optional(LimitQuery),
    status: Type.Optional(EmployeeStatus),
  },
  { additionalProperties: false },
);

export const TimeEntriesQuerySchema = Type.Object(
  {
    employeeId: Type.Optional(Guid),
    externalId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    from: Type.Optional(DateString),
    to: Type.Optional(DateString),
    cursor: Type.Optional(Type.String({ maxLength: 1024 })),
    limit: Type.Optional(LimitQuery),
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

export const MeSchema = Type.Object({
  principal: Type.String({ description: 'api_key or user; may grow' }),
  id: Guid,
  publicId: NullableOut(Type.String()),
  companyId: Guid,
  scopes: Type.Array(Type.Object({ id: Type.String(), permission: Type.Integer(), label: Type.String() })),
  tokenExpiresAt: NullableOut(DateTimeString),
  rateLimit: Type.Object({ requestsPerMinute: Type.Integer(), tokenRequestsPerMinute: Type.Integer() }),
  dryRunHeader: Type.String(),
});

export const TokenResponseSchema = Type.Object(
  {
    access_token: Type.String({ description: 'a JWT; send it as `Authorization: Bearer <token>`' }),
    token_type: StringEnum(['Bearer']),
    expires_in: Type.Integer({ description: 'seconds; 900' }),
  },
  { description: 'An access token; there is no refresh token, exchange the key again on expiry' },
);

export const TokenRequestSchema = Type.Object(
  {
    grant_type: StringEnum(['client_credentials']),
    client_id: Type.Optional(
      Type.String({
        description: "the key's public id, with or without the `svc_` prefix; must match the key",
      }),
    ),
    client_secret: Type.Optional(
      Type.String({
        description: 'the whole API key; omit it when the key is sent as the HTTP Basic password',
      }),
    ),
  },
  {
    description:
      'OAuth 2.0 client credentials grant (RFC 6749 §4.4); never send the secret in the query string',
  },
);

export const ChangesQuerySchema = Type.Object(
  {
    cursor: Type.Optional(
      Type.String({ maxLength: 1024, description: 'nextCursor or resumeCursor of an earlier page' }),
    ),
    limit: Type.Optional(LimitQuery),
    types: Type.Optional(
      Type.String({
        maxLength: 1000,
        description: 'comma-separated event types, e.g. `time_entry.completed,time_entry.approved`',
      }),
    ),
    start: Type.Optional(
      StringEnum(['oldest', 'now'], {
        description:
          'without a cursor: `oldest` (default) begins at the oldest retained event, `now` at the head (only newer events)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ChangeEventSchema = Type.Object({
  id: Guid,
  type: Type.String({
    description:
      'An open list: `time_entry.opened`, `time_entry.completed`, `time_entry.approved`, `time_entry.rejected`, ' +
      '`day.confirmed`, `employee.created`, `employee.updated`, `employee.deleted`, `time_entry.break_started`, `time_entry.break_ended`; later versions add types, ignore unknown ones.',
  }),
  occurredAt: DateTimeString,
  data: Type.Unknown({
    description:
      'The public API’s own shape of what changed: a time entry list item (`time_entry.*`), an employee list item ' +
      '(`employee.created`, `employee.updated`), an EmployeeRef (`employee.deleted`), `{employee: EmployeeRef, date}` (`day.confirmed`).',
  }),
});

export const ChangesPageSchema = Type.Object({
  items: Type.Array(ChangeEventSchema),
  nextCursor: NullableOut(Type.String()),
  hasMore: Type.Boolean(),
  resumeCursor: Type.String({
    description:
      'always present: keep it, and ask with it later to receive only newer events, never one twice',
  }),
});

export const ClockStatusQuerySchema = Type.Object(
  {
    workplaceId: Type.Optional(Guid),
    employeeId: Type.Optional(Guid),
    externalId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    cursor: Type.Optional(Type.String({ maxLength: 1024 })),
    limit: Type.Optional(LimitQuery),
  },
  { additionalProperties: false },
);

export const ClockStatusItemSchema = Type.Object({
  employee: EmployeeRefSchema,
  timeEntryId: Guid,
  workplaceId: NullableOut(Type.String({ format: 'uuid' })),
  since: Type.String({ format: 'date-time', description: 'the clock-in instant (UTC)' }),
  sinceTime: Type.String({ description: "the clock-in wall-clock time in the entry's time zone, HH:MM:SS" }),
  onBreak: Type.Boolean(),
  breakSince: NullableOut(
    Type.String({ format: 'date-time', description: 'the start of the break in progress (UTC), else null' }),
  ),
});

export const ClockStatusPageSchema = pageOf(ClockStatusItemSchema);

// GET /reports/timesheets (issue 21, additive within v1).
export const TimesheetsQuerySchema = Type.Object(
  {
    from: Type.Optional(
      Type.String({ format: 'date', description: 'first work date, inclusive; default `to` minus 30 days' }),
    ),
    to: Type.Optional(
      Type.String({ format: 'date', description: 'last work date, inclusive; default today' }),
    ),
    employeeId: Type.Optional(Guid),
    externalId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    workplaceId: Type.Optional(Guid),
    status: Type.Optional(
      StringEnum(['approved', 'all'], {
        description:
          '`all` (default): pending_approval and approved entries count; `approved`: approved only',
      }),
    ),
    cursor: Type.Optional(Type.String({ maxLength: 1024 })),
    limit: Type.Optional(LimitQuery),
    delimiter: Type.Optional(
      StringEnum(['comma', 'semicolon'], { description: 'CSV only: the field separator (default comma)' }),
    ),
    bom: Type.Optional(
      Type.Boolean({ description: 'CSV only: `true` starts the file with a UTF-8 byte-order mark' }),
    ),
  },
  { additionalProperties: false },
);

export const TimesheetFlagSchema = Type.Object({
  rule: Type.String({
    description:
      'de-arbzg.break, de-arbzg.max-daily, de-arbzg.rest, us-ca.daily-overtime, us-ca.double-time, us-ca.meal; may grow',
  }),
  date: DateString,
  message: Type.String({ description: 'the finding with its figures, in English; wording may change' }),
});

export const TimesheetDaySchema = Type.Object({
  date: DateString,
  workedHours: Type.Number({ description: 'net working time of the counted entries, rounded to 2 decimals' }),
  breakMinutes: Type.Integer({ description: 'recorded break minutes of the counted entries' }),
  regularHours: Type.Number(),
  overtimeHours: Type.Number(),
  entries: Type.Integer({
    description: 'the counted entries dated on this day (pending_approval and approved, or approved only)',
  }),
  statuses: Type.Object(
    { pending_approval: Type.Integer(), approved: Type.Integer() },
    {
      additionalProperties: Type.Integer(),
      description: 'the counted entries of the day per status (0 when none); may grow',
    },
  ),
  flags: Type.Array(TimesheetFlagSchema, {
    description: "findings of the company's working-time rule pack; they never change the figures",
  }),
});

export const TimesheetSchema = Type.Object({
  employee: EmployeeRefSchema,
  days: Type.Array(TimesheetDaySchema, {
    description: 'one per work date in the range with at least one counted entry, in date order',
  }),
  totals: Type.Object({
    workedHours: Type.Number(),
    regularHours: Type.Number(),
    overtimeHours: Type.Number(),
    breakMinutes: Type.Integer(),
    approvedHours: Type.Number({ description: 'of workedHours: approved entries' }),
    pendingHours: Type.Number({ description: 'of workedHours: entries pending approval' }),
    openSessions: Type.Integer({ description: 'open sessions dated in the range; they count nowhere else' }),
  }),
});

export const TimesheetPageSchema = pageOf(TimesheetSchema);
