import { Type } from '@sinclair/typebox';
import { DateString, Guid, LimitQuery, NullableOut, StringEnum, pageOf } from '../../http/schemas/common.js';
import { EmployeeRefSchema } from '../employees/schemas.js';

/* Timesheets (GET /reports/timesheets, issue 21) and the admin API's view of them. */

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
    days: Type.Optional(
      StringEnum(['listed', 'all'], {
        description:
          '`listed` (default): days with counted entries, an approved absence or a holiday; `all`: every day of the range (JSON and CSV)',
      }),
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
  targetHours: Type.Number({
    description:
      "what the day owes: the schedule's daily hours on a work day, 0 on days off and holidays, half on half-day holidays, less approved absences that do not count as work time",
  }),
  creditedHours: Type.Number({ description: 'the sum of `credited`' }),
  credited: Type.Array(Type.Object({ code: Type.String(), hours: Type.Number() }), {
    description: 'approved absences of types that count as work time: the target, half of it, or their hours',
  }),
  balanceHours: Type.Number({ description: 'workedHours + creditedHours − targetHours' }),
  absences: Type.Array(Type.String(), { description: 'the codes of the approved absences touching the day' }),
  holiday: Type.Union(
    [
      Type.Object({
        name: Type.String(),
        portion: StringEnum(['full', 'half']),
      }),
      Type.Null(),
    ],
    { description: "the public or company holiday of the employee's workplace that day, else null" },
  ),
  plannedHours: Type.Number({
    description: 'the published planned shifts dated this day, less their breaks, rounded to 2 decimals',
  }),
});

export const TimesheetSchema = Type.Object({
  employee: EmployeeRefSchema,
  days: Type.Array(TimesheetDaySchema, {
    description:
      'in date order: each day of the range with at least one counted entry, an approved absence, a holiday or a published planned shift (with `days=all`: every day)',
  }),
  totals: Type.Object({
    workedHours: Type.Number(),
    regularHours: Type.Number(),
    overtimeHours: Type.Number(),
    breakMinutes: Type.Integer(),
    approvedHours: Type.Number({ description: 'of workedHours: approved entries' }),
    pendingHours: Type.Number({ description: 'of workedHours: entries pending approval' }),
    openSessions: Type.Integer({ description: 'open sessions dated in the range; they count nowhere else' }),
    targetHours: Type.Number({ description: 'over every day of the range' }),
    creditedHours: Type.Number({ description: 'over every day of the range' }),
    balanceHours: Type.Number({ description: 'workedHours + creditedHours − targetHours' }),
    plannedHours: Type.Number({
      description: 'the published planned shifts dated in the range, less their breaks',
    }),
    exceptions: Type.Object(
      {
        late_in: Type.Integer(),
        early_out: Type.Integer(),
        no_show: Type.Integer(),
        missed_clock_out: Type.Integer(),
        unplanned: Type.Integer(),
      },
      {
        description:
          'attendance exceptions dated in the range that still stand, per kind (may grow): open ones, and every missed_clock_out; not a no_show made good by a clock-in, nor one whose shift or entry is gone (docs/timesheets.md)',
      },
    ),
  }),
});

export const TimesheetPageSchema = pageOf(TimesheetSchema);

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
