import { type Static, Type } from '@sinclair/typebox';
import {
  DateString,
  DateTimeString,
  Guid,
  NO_NUL,
  NullableOut,
  StringEnum,
} from '../../http/schemas/common.js';
import { ActorSchema } from '../corrections/schemas.js';
import { EmployeeRefSchema } from '../employees/schemas.js';

/* Self-service (issue 35): the console's own area of a person linked to an employee, and correction requests. */

export const CORRECTION_REQUEST_STATUSES = ['requested', 'approved', 'rejected', 'withdrawn'] as const;
export type CorrectionRequestStatus = (typeof CORRECTION_REQUEST_STATUSES)[number];

const Instant = (description: string) => Type.String({ format: 'date-time', description });
const Reason = Type.String({
  minLength: 1,
  maxLength: 500,
  pattern: NO_NUL,
  description: 'why: 1 to 500 characters',
});

export const ProposedSchema = Type.Object({
  clockIn: NullableOut(Instant('the proposed start, RFC 3339 with offset; null: unchanged')),
  clockOut: NullableOut(Instant('the proposed end, RFC 3339 with offset; null: unchanged')),
  breakMinutes: NullableOut(Type.Integer({ minimum: 0, maximum: 1440, description: 'null: unchanged' })),
});

export const CorrectionRequestSchema = Type.Object(
  {
    id: Guid,
    employee: EmployeeRefSchema,
    timeEntryId: NullableOut(Type.String({ format: 'uuid', description: 'null: a missing entry' })),
    date: DateString,
    proposed: ProposedSchema,
    reason: Type.String(),
    status: Type.Unsafe<CorrectionRequestStatus>({
      type: 'string',
      description: 'requested, approved, rejected or withdrawn; may grow',
    }),
    decidedBy: Type.Union([ActorSchema, Type.Null()], {
      description:
        'who approved or rejected it (the employee when withdrawn; `{kind: system}` when its entry or employee was deleted); null while requested',
    }),
    decidedAt: NullableOut(DateTimeString),
    decisionReason: NullableOut(Type.String({ description: "a rejection's reason" })),
    createdAt: DateTimeString,
  },
  { description: "An employee's request to correct a time entry, or to add a missing one (issue 35)" },
);

export type CorrectionRequestView = Static<typeof CorrectionRequestSchema>;

const NextCursor = NullableOut(
  Type.String({ description: 'send it as `cursor` for the next page; null: this was the last page' }),
);
const CursorQuery = Type.Optional(
  Type.String({ maxLength: 1024, description: "the previous page's nextCursor" }),
);

export const CorrectionRequestListSchema = Type.Object({
  items: Type.Array(CorrectionRequestSchema),
  nextCursor: NextCursor,
});

/** GET /self/correction-requests: 100 a page. */
export const OwnRequestsQuerySchema = Type.Object({ cursor: CursorQuery }, { additionalProperties: false });

/** The console's list for managers: each request with the employee's name. */
export const ManagerCorrectionRequestSchema = Type.Object({
  ...CorrectionRequestSchema.properties,
  employeeName: Type.String(),
});
export const ManagerCorrectionRequestListSchema = Type.Object({
  items: Type.Array(ManagerCorrectionRequestSchema),
  nextCursor: NextCursor,
});

export const CorrectionRequestBodySchema = Type.Object(
  {
    timeEntryId: Type.Union([Guid, Type.Null()], {
      description:
        'the entry to correct, one of your own; null: an entry is missing (then `date` is required)',
    }),
    date: Type.Optional(DateString),
    proposed: Type.Object(
      {
        clockIn: Type.Optional(Type.Union([Instant('RFC 3339 with offset'), Type.Null()])),
        clockOut: Type.Optional(Type.Union([Instant('RFC 3339 with offset'), Type.Null()])),
        breakMinutes: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 1440 }), Type.Null()])),
      },
      { additionalProperties: false },
    ),
    reason: Reason,
  },
  { additionalProperties: false },
);

export type CorrectionRequestBody = Static<typeof CorrectionRequestBodySchema>;

export const RejectBodySchema = Type.Object({ reason: Reason }, { additionalProperties: false });

export const ManagerRequestsQuerySchema = Type.Object(
  {
    status: Type.Optional(StringEnum([...CORRECTION_REQUEST_STATUSES])),
    cursor: CursorQuery,
  },
  { additionalProperties: false },
);

/** GET /self: who the person is, today's state and the web clock. */
export const SelfSchema = Type.Object({
  employee: Type.Object({
    id: Guid,
    externalId: NullableOut(Type.String()),
    firstName: NullableOut(Type.String()),
    lastName: NullableOut(Type.String()),
    workplaceId: NullableOut(Type.String({ format: 'uuid' })),
  }),
  timeZone: NullableOut(
    Type.String({ description: "the employee's zone: the workplace's, else the company's" }),
  ),
  today: DateString,
  state: Type.Object({
    clockedIn: Type.Boolean(),
    onBreak: Type.Boolean(),
    since: NullableOut(DateTimeString),
    timeEntryId: NullableOut(Type.String({ format: 'uuid' })),
  }),
  todayHours: Type.Number({
    description:
      'net hours worked today from local midnight: the open session up to now included, a session or shift begun yesterday only from midnight',
  }),
  webClock: Type.Object({
    enabled: Type.Boolean({ description: "the company's switch" }),
    allowedHere: Type.Boolean({ description: "whether this address may punch (the workplace's ranges)" }),
  }),
});

export const WebClockBodySchema = Type.Object(
  {
    type: StringEnum(['clock_in', 'break_start', 'break_end', 'clock_out'], {
      description: 'the punch',
    }),
    occurredAt: Type.Optional(
      Type.String({
        format: 'date-time',
        description:
          "when it happened (RFC 3339 with offset); default: now. At most 2 minutes ahead of the server's time and at most 12 hours behind it (an offline punch sent from the browser's queue, flagged `offline_punch`), else 422 validation_failed (code not_live).",
      }),
    ),
  },
  { additionalProperties: false },
);

export const SelfRangeQuerySchema = Type.Object(
  {
    from: DateString,
    to: DateString,
  },
  { additionalProperties: false },
);

/** GET /self/time-entries: a range, paged (100 a page; `nextCursor` for the next). */
export const SelfEntriesQuerySchema = Type.Object(
  {
    from: DateString,
    to: DateString,
    cursor: Type.Optional(Type.String({ maxLength: 1024, description: "the previous page's nextCursor" })),
  },
  { additionalProperties: false },
);

export const SelfYearQuerySchema = Type.Object(
  { year: Type.Optional(Type.Integer({ minimum: 2000, maximum: 2100 })) },
  { additionalProperties: false },
);

export const SelfAbsenceBodySchema = Type.Object(
  {
    typeCode: Type.String({ minLength: 1, maxLength: 32 }),
    startDate: DateString,
    endDate: DateString,
    portion: Type.Optional(StringEnum(['full', 'first_half', 'second_half', 'hours'])),
    hours: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
    note: Type.Optional(Type.Union([Type.String({ maxLength: 500, pattern: NO_NUL }), Type.Null()])),
  },
  { additionalProperties: false },
);

export const InviteEmployeesBodySchema = Type.Object(
  { workplaceId: Type.Optional(Type.Union([Guid, Type.Null()])) },
  { additionalProperties: false },
);

export const InvitedEmployeesSchema = Type.Object({
  items: Type.Array(
    Type.Object({ employeeId: Guid, userId: Guid, url: Type.String(), expiresAt: DateTimeString }),
  ),
  skipped: Type.Array(
    Type.Object({
      employeeId: Guid,
      reason: Type.Unsafe<string>({
        type: 'string',
        description:
          "email_in_use (an active person of the company has the email), email_domain_signs_in_elsewhere (the email's domain signs in with another company's single sign-on), invalid_email; may grow",
      }),
    }),
    { description: 'employees left out, with the reason' },
  ),
});
