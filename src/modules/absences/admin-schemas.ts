import { type Static, Type } from '@sinclair/typebox';
import {
  DateString,
  Guid,
  LimitQuery,
  NO_NUL,
  Nullable,
  NullableOut,
  StringEnum,
} from '../../http/schemas/common.js';
import {
  ABSENCE_CATEGORIES,
  ABSENCE_UNITS,
  AbsenceSchema,
  AbsenceTypeSchema,
  HOLIDAY_PORTIONS,
  HolidaySchema,
  MONTH_DAY,
  TYPE_CODE,
} from './schemas.js';

/* The console's shapes of absences (the admin API, issue 31); the public ones are in schemas.ts. */

const Person = {
  firstName: NullableOut(Type.String()),
  lastName: NullableOut(Type.String()),
  email: Type.String(),
};

export const AdminAbsenceSchema = Type.Object({
  ...AbsenceSchema.properties,
  person: Type.Object(Person, { description: "the employee's name and email" }),
});
export type AdminAbsence = Static<typeof AdminAbsenceSchema>;

export const TeamCalendarQuerySchema = Type.Object(
  {
    month: Type.String({
      pattern: '^(20\\d{2}|2100)-(0[1-9]|1[0-2])$',
      description: 'YYYY-MM, of the years 2000 to 2100 (as leave balances)',
    }),
    workplaceId: Type.Optional(Guid),
  },
  { additionalProperties: false },
);

export const TeamCalendarSchema = Type.Object({
  from: DateString,
  to: DateString,
  holidays: Type.Array(HolidaySchema, {
    description: "the workplace's holidays (without a workplace: the company's own)",
  }),
  employees: Type.Array(Type.Object({ id: Guid, externalId: NullableOut(Type.String()), ...Person })),
  truncated: Type.Boolean({ description: 'more employees than the 300 shown (choose a workplace)' }),
  absences: Type.Array(AdminAbsenceSchema, {
    description: 'requested and approved absences touching the month',
  }),
});

export const RequestsQuerySchema = Type.Object(
  { cursor: Type.Optional(Type.String({ maxLength: 1024 })), limit: Type.Optional(LimitQuery) },
  { additionalProperties: false },
);

export const RequestsPageSchema = Type.Object({
  items: Type.Array(AdminAbsenceSchema),
  nextCursor: NullableOut(Type.String()),
  hasMore: Type.Boolean(),
});

export const AdminDecisionBodySchema = Type.Object(
  { reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500, pattern: NO_NUL })) },
  { additionalProperties: false },
);

export const AdminBalancesQuerySchema = Type.Object(
  {
    employeeId: Guid,
    year: Type.Optional(Type.Integer({ minimum: 2000, maximum: 2100 })),
  },
  { additionalProperties: false },
);

const typeFields = {
  name: Type.String({ minLength: 1, maxLength: 100, pattern: NO_NUL }),
  category: StringEnum(ABSENCE_CATEGORIES),
  unit: StringEnum(ABSENCE_UNITS),
  paid: Type.Boolean(),
  countsAsWorkTime: Type.Boolean(),
  requiresApproval: Type.Boolean(),
  deductsFromBalance: Type.Boolean(),
  yearlyEntitlementDays: Type.Number({ minimum: 0, maximum: 366 }),
  allowNegative: Type.Boolean(),
  carryOverMaxDays: Type.Number({ minimum: 0, maximum: 366 }),
  carryOverExpiresOn: Nullable(Type.String({ pattern: MONTH_DAY })),
};

export const AdminTypeCreateSchema = Type.Object(
  {
    code: Type.String({ pattern: TYPE_CODE }),
    name: typeFields.name,
    category: typeFields.category,
    unit: Type.Optional(typeFields.unit),
    paid: Type.Optional(typeFields.paid),
    countsAsWorkTime: Type.Optional(typeFields.countsAsWorkTime),
    requiresApproval: Type.Optional(typeFields.requiresApproval),
    deductsFromBalance: Type.Optional(typeFields.deductsFromBalance),
    yearlyEntitlementDays: Type.Optional(typeFields.yearlyEntitlementDays),
    allowNegative: Type.Optional(typeFields.allowNegative),
    carryOverMaxDays: Type.Optional(typeFields.carryOverMaxDays),
    carryOverExpiresOn: Type.Optional(typeFields.carryOverExpiresOn),
  },
  { additionalProperties: false },
);

export const AdminTypeUpdateSchema = Type.Partial(Type.Omit(AdminTypeCreateSchema, ['code']), {
  additionalProperties: false,
});

export const AbsenceTypeItemsSchema = Type.Object({ items: Type.Array(AbsenceTypeSchema) });

export const HolidayOverrideSchema = Type.Object({
  id: Guid,
  workplaceId: NullableOut(Type.String({ format: 'uuid' })),
  date: DateString,
  kind: StringEnum(['add', 'remove'], { description: 'add: a holiday that day; remove: none that day' }),
  name: NullableOut(Type.String()),
  portion: StringEnum(HOLIDAY_PORTIONS),
});

export const HolidaySettingsSchema = Type.Object({
  workplaces: Type.Array(
    Type.Object({ id: Guid, name: Type.String(), holidayRegion: NullableOut(Type.String()) }),
  ),
  overrides: Type.Array(HolidayOverrideSchema, { description: 'from 1 January of last year on, by date' }),
});

export const HolidayRegionBodySchema = Type.Object(
  {
    holidayRegion: Nullable(
      Type.String({ minLength: 2, maxLength: 16, description: 'DE-BY, US-CA, FR …; null for none' }),
    ),
  },
  { additionalProperties: false },
);

export const HolidayOverrideBodySchema = Type.Object(
  {
    kind: StringEnum(['add', 'remove']),
    date: Type.String({ maxLength: 32 }),
    name: Type.Optional(Nullable(Type.String({ maxLength: 100, pattern: NO_NUL }))),
    portion: Type.Optional(StringEnum(HOLIDAY_PORTIONS)),
    workplaceId: Type.Optional(Nullable(Guid)),
  },
  { additionalProperties: false },
);
