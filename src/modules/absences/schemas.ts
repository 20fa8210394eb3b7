import { type Static, Type } from '@sinclair/typebox';
import {
  DateString,
  DateTimeString,
  FreeText,
  Guid,
  LimitQuery,
  NO_NUL,
  Nullable,
  NullableOut,
  pageOf,
  StringEnum,
  WriteHeadersSchema,
} from '../../http/schemas/common.js';
import { ActorSchema } from '../corrections/schemas.js';
import { EmployeeRefSchema, EmployeeSelectorSchema } from '../employees/schemas.js';

/*
 * The published shapes of absences, leave balances and public holidays (issue 31, additive within v1).
 * Types are `Static<typeof …>` of these, never retyped. The console's shapes: admin-schemas.ts.
 */

export const ABSENCE_CATEGORIES = ['vacation', 'sick', 'unpaid', 'other'] as const;
export const ABSENCE_UNITS = ['days', 'hours'] as const;
export const ABSENCE_PORTIONS = ['full', 'first_half', 'second_half', 'hours'] as const;
export const ABSENCE_STATUSES = ['requested', 'approved', 'rejected', 'cancelled'] as const;
export const HOLIDAY_PORTIONS = ['full', 'half'] as const;

export type AbsencePortion = (typeof ABSENCE_PORTIONS)[number];
export type AbsenceStatus = (typeof ABSENCE_STATUSES)[number];
export type HolidayPortion = (typeof HOLIDAY_PORTIONS)[number];

/** `MM-DD`: the last day carried-over days may be used. */
export const MONTH_DAY = '^(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$';
export const TYPE_CODE = '^[a-z][a-z0-9_-]{0,31}$';

export const AbsenceTypeSchema = Type.Object({
  id: Guid,
  code: Type.String({ description: 'unique in the company, e.g. vacation, sick, unpaid' }),
  name: Type.String(),
  category: StringEnum(ABSENCE_CATEGORIES, { description: 'vacation, sick, unpaid or other; may grow' }),
  unit: StringEnum(ABSENCE_UNITS, { description: 'days or hours' }),
  paid: Type.Boolean(),
  countsAsWorkTime: Type.Boolean({
    description:
      'approved absences are credited in timesheets (the day’s target, half of it, or their hours)',
  }),
  requiresApproval: Type.Boolean({ description: 'false: an absence of this type is approved at once' }),
  deductsFromBalance: Type.Boolean({ description: 'counted against the yearly entitlement' }),
  yearlyEntitlementDays: Type.Number({ description: 'prorated by whole months employed in the year' }),
  allowNegative: Type.Boolean({ description: 'a deducting absence may take the balance below zero' }),
  carryOverMaxDays: Type.Number({
    description: 'at most this much of last year’s remainder is carried over',
  }),
  carryOverExpiresOn: NullableOut(
    Type.String({
      pattern: MONTH_DAY,
      description: 'MM-DD: carried days are usable up to and including this day; null: all year',
    }),
  ),
});
export type AbsenceTypeView = Static<typeof AbsenceTypeSchema>;

export const AbsenceTypeListSchema = Type.Object({ items: Type.Array(AbsenceTypeSchema) });

export const HolidaySchema = Type.Object({
  date: DateString,
  name: Type.String(),
  portion: StringEnum(HOLIDAY_PORTIONS, { description: 'full, or half (e.g. 24 December)' }),
  source: StringEnum(['region', 'company'], {
    description: "region: the workplace's holiday region; company: the company's own (added) holiday",
  }),
});
export type Holiday = Static<typeof HolidaySchema>;

export const HolidayListSchema = Type.Object({ items: Type.Array(HolidaySchema) });

export const HolidaysQuerySchema = Type.Object(
  {
    workplaceId: Guid,
    from: Type.Optional(Type.String({ format: 'date', description: 'default 1 January of this year' })),
    to: Type.Optional(Type.String({ format: 'date', description: 'default 31 December of this year' })),
  },
  { additionalProperties: false },
);

const AbsenceFields = {
  employee: EmployeeRefSchema,
  type: Type.Object({ id: Guid, code: Type.String() }),
  startDate: DateString,
  endDate: DateString,
  portion: StringEnum(ABSENCE_PORTIONS, {
    description: 'full days, the first or second half of one day, or some hours of one day',
  }),
  hours: NullableOut(
    Type.Number({
      description: 'the hours of an `hours` absence, or of a type counted in hours; else null',
    }),
  ),
  days: Type.Number({
    description:
      'working days of the employee in the range less holidays, as counted when requested (a half day 0.5; a half-day holiday halves that day)',
  }),
  status: StringEnum(ABSENCE_STATUSES, { description: 'requested, approved, rejected or cancelled' }),
  note: NullableOut(Type.String()),
  reason: NullableOut(
    Type.String({ description: 'the reason given with the last rejection or cancellation' }),
  ),
  decidedAt: NullableOut(DateTimeString),
  decidedBy: Type.Union([ActorSchema, Type.Null()], {
    description: 'who approved, rejected or cancelled it (`system` when its type needs no approval)',
  }),
  createdAt: DateTimeString,
  version: Type.Integer({ description: 'grows with every change; send it as If-Match ("3") to change it' }),
};

export const AbsenceSchema = Type.Object({ id: Guid, ...AbsenceFields });
export type AbsenceView = Static<typeof AbsenceSchema>;

export const AbsenceResultSchema = Type.Object({
  id: NullableOut(Type.String({ format: 'uuid', description: 'null on a dry run of a creation' })),
  ...AbsenceFields,
  dryRun: Type.Boolean(),
  balanceAfter: NullableOut(
    Type.Number({
      description:
        'types that deduct from the balance: `remaining` of the leave balance once this absence counts as approved (the lowest of its years); else null',
    }),
  ),
});
export type AbsenceResult = Static<typeof AbsenceResultSchema>;

export const AbsencePageSchema = pageOf(AbsenceSchema);

export const AbsencesQuerySchema = Type.Object(
  {
    employeeId: Type.Optional(Guid),
    externalId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    from: Type.Optional(Type.String({ format: 'date', description: 'default 1 January of this year' })),
    to: Type.Optional(Type.String({ format: 'date', description: 'default 31 December of this year' })),
    status: Type.Optional(StringEnum(ABSENCE_STATUSES)),
    typeCode: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
    cursor: Type.Optional(Type.String({ maxLength: 1024 })),
    limit: Type.Optional(LimitQuery),
  },
  { additionalProperties: false },
);
export type AbsencesQuery = Static<typeof AbsencesQuerySchema>;

export const AbsenceCreateSchema = Type.Object(
  {
    employee: EmployeeSelectorSchema,
    typeCode: Type.String({ minLength: 1, maxLength: 32, description: 'the absence type’s code' }),
    startDate: DateString,
    endDate: DateString,
    portion: Type.Optional(StringEnum(ABSENCE_PORTIONS, { description: 'default full' })),
    hours: Type.Optional(
      Nullable(Type.Number({ exclusiveMinimum: 0, maximum: 24, description: 'with portion `hours` only' })),
    ),
    note: Type.Optional(Nullable(FreeText(500))),
  },
  { additionalProperties: false },
);
export type AbsenceCreate = Static<typeof AbsenceCreateSchema>;

export const ReasonBodySchema = Type.Object(
  {
    reason: Type.String({
      minLength: 1,
      maxLength: 500,
      pattern: NO_NUL,
      description: 'why: 1 to 500 characters, kept with the absence',
    }),
  },
  { additionalProperties: false },
);

export const AbsenceParamsSchema = Type.Object({ id: Guid });

export const AbsenceWriteHeadersSchema = Type.Object({
  ...WriteHeadersSchema.properties,
  'if-match': Type.Optional(
    Type.String({
      maxLength: 64,
      description: 'the version the change is meant for ("3" or 3): another is 412 version_mismatch',
    }),
  ),
});

export const LeaveBalancesQuerySchema = Type.Object(
  {
    employeeId: Type.Optional(Guid),
    externalId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    year: Type.Optional(Type.Integer({ minimum: 2000, maximum: 2100, description: 'default this year' })),
  },
  { additionalProperties: false },
);

export const LeaveBalanceSchema = Type.Object({
  type: Type.Object({ id: Guid, code: Type.String() }),
  year: Type.Integer(),
  entitlement: Type.Number({ description: 'set for the year, else the type’s yearly days prorated' }),
  carriedOver: Type.Number({
    description: 'of last year’s remainder, at most the type’s carry-over maximum',
  }),
  carryOverExpiresOn: NullableOut(
    Type.String({ format: 'date', description: 'last day carried days count' }),
  ),
  taken: Type.Number({ description: 'approved days up to today' }),
  planned: Type.Number({ description: 'approved days after today' }),
  requested: Type.Number({ description: 'days waiting for a decision' }),
  remaining: Type.Number({ description: 'entitlement + carried (unexpired) − taken − planned' }),
});
export type LeaveBalance = Static<typeof LeaveBalanceSchema>;

export const LeaveBalancesSchema = Type.Object({
  employee: EmployeeRefSchema,
  year: Type.Integer(),
  items: Type.Array(LeaveBalanceSchema, { description: 'one per type that deducts from the balance' }),
});

/**
 * Published under these names in the description's components (http/plugins/openapi.ts); `decidedBy`
 * is the corrections room's `Actor`, named there.
 */
export const ABSENCE_NAMED_SCHEMAS: Record<string, unknown> = {
  Absence: AbsenceSchema,
  AbsenceResult: AbsenceResultSchema,
  AbsencePage: AbsencePageSchema,
  AbsenceCreate: AbsenceCreateSchema,
  AbsenceType: AbsenceTypeSchema,
  Holiday: HolidaySchema,
  LeaveBalance: LeaveBalanceSchema,
  LeaveBalances: LeaveBalancesSchema,
};
