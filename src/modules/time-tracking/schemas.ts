import { Type } from '@sinclair/typebox';
import {
  DateString,
  DateTimeString,
  FreeText,
  Guid,
  LimitQuery,
  Nullable,
  NullableOut,
  ProblemSchema,
  StringEnum,
  TimeString,
  pageOf,
} from '../../http/schemas/common.js';
import { EmployeeRefSchema, EmployeeSelectorSchema } from '../employees/schemas.js';

/*
 * Time tracking: punches, shifts, entries and their breaks, who is clocked in; and the admin API's
 * views of an employee's days (entries, decisions, confirmed days).
 */

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
  source: Type.String({
    description:
      'origin of the entry; an open list: time_clock, api_shift, kiosk (a kiosk device), web_clock (the personal web clock); may grow',
  }),
  approvedAt: NullableOut(DateTimeString),
  createdAt: DateTimeString,
  version: Type.Integer({
    minimum: 1,
    description: 'the number of its revisions: 1 when recorded, one more with every change; its ETag',
  }),
  edited: Type.Boolean({ description: 'true once a correction changed it (see its revisions)' }),
  autoClosed: Type.Boolean({
    description: "true when the automatic clock-out closed it (the company's autoClockOutAfterHours)",
  }),
  deviceId: NullableOut(
    Type.String({
      description: 'the kiosk device that recorded it (source `kiosk`, issue 35); null otherwise',
    }),
  ),
  reviewFlags: Type.Array(Type.String(), {
    description:
      'what a reviewer should look at; an open list: `device_clock_skew` (a kiosk, or the web clock of a browser, whose clock was more than 2 minutes off when it sent the punch), `offline_punch` (a web-clock punch taken offline and sent later: more than 2 minutes before the server received it); empty when nothing',
  }),
  breaks: Type.Optional(
    Type.Array(TimeEntryBreakSchema, {
      description:
        'Entries of the time clock (source `time_clock` or `web_clock`): their punched breaks, oldest first (empty when none); `breakMinutes` is their sum once one has ended. ' +
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

export const TimeEntryPageSchema = pageOf(TimeEntrySchema);

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
  needsCorrection: Type.Boolean({
    description:
      'true once the session is open 24 hours or more: no punch can close it any more, a manager corrects it (PATCH /time-entries/{id} with a clockOut)',
  }),
});

export const ClockStatusPageSchema = pageOf(ClockStatusItemSchema);

export const AdminTimeEntriesQuerySchema = Type.Object(
  { employeeId: Guid, from: DateString, to: DateString },
  { additionalProperties: false },
);

export const AdminTimeEntryListSchema = Type.Object({
  items: Type.Array(TimeEntrySchema, {
    description: 'pending_approval first, then by day and start; overnight entries on the day they started',
  }),
  confirmedDays: Type.Array(DateString),
  timeZone: Type.String({ description: "the IANA zone the entries' wall-clock times are in" }),
});

export const DecisionsBodySchema = Type.Object(
  {
    ids: Type.Array(Guid, { minItems: 1, maxItems: 100 }),
    decision: Type.Unsafe<'approved' | 'rejected'>({ type: 'string', enum: ['approved', 'rejected'] }),
    versions: Type.Optional(
      Type.Array(Type.Integer({ minimum: 1 }), {
        minItems: 1,
        maxItems: 100,
        description:
          'The version of each entry in `ids` (same order) the person saw; an entry at another version is ' +
          'refused with 412 version_mismatch in its result. Without it, any version.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const DecisionsResultSchema = Type.Object({
  results: Type.Array(
    Type.Object({
      id: Guid,
      status: Type.Integer({ enum: [200, 403, 404, 409, 412] }),
      entry: Type.Optional(TimeEntrySchema),
      problem: Type.Optional(ProblemSchema),
    }),
  ),
});

export const ConfirmDayBodySchema = Type.Object(
  { employeeId: Guid, date: DateString },
  { additionalProperties: false },
);

export const ConfirmedDaySchema = Type.Object({
  employeeId: Guid,
  date: DateString,
  confirmedAt: DateTimeString,
});

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
      needsCorrection: Type.Boolean({ description: 'open 24 hours or more: only a correction closes it' }),
    }),
    { description: 'open sessions, oldest first' },
  ),
  nextCursor: NullableOut(Type.String()),
  hasMore: Type.Boolean(),
  timeZone: Type.String({ description: "the company's zone (UTC when it has none), to show instants in" }),
});

/**
 * The refusals of a punch by the time clock's rules (the public endpoints, a kiosk's, the web clock's):
 * every door that records punches lists them among its errors.
 */
export const PUNCH_REFUSALS = [
  'already_clocked_in',
  'no_open_session',
  'clock_out_before_clock_in',
  'session_too_long',
  'overlaps_existing_entry',
  'day_locked',
  'business_rule_violation',
  'already_on_break',
  'not_on_break',
  'break_out_of_order',
] as const;
