import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { ERROR_CATALOGUE, type ErrorName } from '../../domain/errors.js';
import { DateString, DateTimeString, Guid, ProblemSchema, TimeEntrySchema } from './common.js';

/*
 * The admin API's request and response schemas (docs/admin-api-contract.md): they validate the
 * requests, serialise the responses and make its own OpenAPI document (GET /api/admin/v1/openapi.json).
 */

/** A nullable response field as one JSON Schema type list (see NullableOut in common.ts). */
const Nullable = <T extends TSchema>(schema: T) =>
  Type.Unsafe<Static<T> | null>({
    ...Object.fromEntries(Object.entries(schema)),
    type: [schema.type, 'null'],
  });

const NO_NUL = '^[^\\u0000]*$';

export const SignInBodySchema = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 254, pattern: NO_NUL }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  { additionalProperties: false },
);

export const AcceptInvitationBodySchema = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 200 }),
    password: Type.String({ maxLength: 1024, description: 'at least 12 characters' }),
  },
  { additionalProperties: false },
);

export const PersonSchema = Type.Object(
  {
    id: Guid,
    email: Type.String(),
    companyId: Guid,
    permissions: Type.Array(Type.Integer()),
    superAdmin: Type.Boolean(),
    csrfToken: Type.String({ description: 'send as X-CSRF-Token on every state-changing request' }),
    company: Type.Object({ id: Guid, name: Type.String(), timeZone: Nullable(Type.String()) }),
  },
  { description: 'The signed-in person' },
);

export const ApiKeySchema = Type.Object({
  id: Guid,
  name: Type.String(),
  clientId: Type.String(),
  scopes: Type.Array(Type.String()),
  createdBy: Guid,
  createdAt: DateTimeString,
  expiresAt: Nullable(DateTimeString),
  lastUsedAt: Nullable(DateTimeString),
  revokedAt: Nullable(DateTimeString),
  allowedIps: Type.Array(Type.String()),
  previousSecretValidUntil: Nullable(DateTimeString),
});

export const ApiKeyWithSecretSchema = Type.Object(
  {
    ...ApiKeySchema.properties,
    clientSecret: Type.String({ description: 'shown this once; only its hash is stored' }),
  },
  { description: 'The key with its secret, shown once' },
);

export const ApiKeyListSchema = Type.Object({ items: Type.Array(ApiKeySchema) });

export const CreateApiKeyBodySchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, pattern: NO_NUL }),
    scopes: Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: 20 }),
    expiresAt: Type.Optional(
      Type.Union([
        Type.String({ maxLength: 64, description: 'a date or a date-time with offset' }),
        Type.Null(),
      ]),
    ),
    allowedIps: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 100 })),
  },
  { additionalProperties: false },
);

export const RotateApiKeyBodySchema = Type.Object(
  { graceSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 30 * 24 * 3600 })) },
  { additionalProperties: false },
);

export const IdParamsSchema = Type.Object({ id: Guid });

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
  firstName: Nullable(Type.String()),
  lastName: Nullable(Type.String()),
  email: Type.String(),
  externalId: Nullable(Type.String()),
  status: Type.String(),
  workplaceId: Nullable(Guid),
});

export const AdminEmployeePageSchema = Type.Object({
  items: Type.Array(AdminEmployeeSchema),
  nextCursor: Nullable(Type.String()),
  hasMore: Type.Boolean(),
});

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
  },
  { additionalProperties: false },
);

export const DecisionsResultSchema = Type.Object({
  results: Type.Array(
    Type.Object({
      id: Guid,
      status: Type.Integer({ enum: [200, 404, 409] }),
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

export const AdminCompanySchema = Type.Object({
  id: Guid,
  name: Type.String(),
  timeZone: Nullable(Type.String()),
  timeTracking: Type.Boolean(),
  apiAccess: Type.Boolean(),
  // Timesheet settings (issue 21), changed from the console's Company screen (issue 23).
  workweekStart: Type.String({ description: 'the first day of the workweek, monday … sunday' }),
  dailyOvertimeHours: Nullable(
    Type.Number({ description: 'hours a day after which time is overtime; null: none' }),
  ),
  workingTimeRules: Type.String({
    description: 'the working-time rule pack timesheets flag: none, de-arbzg, us-ca',
  }),
});

export const UpdateCompanyBodySchema = Type.Object(
  {
    timeZone: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()])),
    timeTracking: Type.Optional(Type.Boolean()),
    apiAccess: Type.Optional(Type.Boolean()),
    workweekStart: Type.Optional(
      Type.Unsafe<string>({
        type: 'string',
        enum: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'],
      }),
    ),
    dailyOvertimeHours: Type.Optional(
      Type.Union([
        Type.Number({ minimum: 0, maximum: 24, description: 'at most two decimals' }),
        Type.Null(),
      ]),
    ),
    workingTimeRules: Type.Optional(
      Type.Unsafe<string>({ type: 'string', enum: ['none', 'de-arbzg', 'us-ca'] }),
    ),
  },
  { additionalProperties: false },
);

/** Errors every admin operation can answer. */
const ALWAYS: ErrorName[] = ['internal_error', 'service_unavailable', 'storage_full'];

/** Problem responses for `names` (plus the server faults), grouped by status, each with its names as an enum. */
export function adminErrors(names: ErrorName[]) {
  const byStatus = new Map<number, ErrorName[]>();
  for (const name of new Set([...names, ...ALWAYS])) {
    const status = ERROR_CATALOGUE[name].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), name]);
  }
  const responses: Record<number, typeof ProblemSchema> = {};
  for (const [status, list] of byStatus) {
    responses[status] = Type.Object(
      {
        ...ProblemSchema.properties,
        error: Type.String({ enum: list, description: 'stable error name; match on this' }),
        code: Type.Integer({ enum: list.map((name) => ERROR_CATALOGUE[name].code) }),
      },
      { description: `Problem details; error: ${list.join(', ')}` },
    ) as unknown as typeof ProblemSchema;
  }
  return responses;
}

/** Errors of an operation that needs a session; with `write`, also the CSRF check and a JSON body. */
export function sessionErrors(names: ErrorName[], write = false) {
  return adminErrors([
    'session_required',
    ...(write ? (['csrf_failed', 'payload_too_large', 'unsupported_media_type'] as ErrorName[]) : []),
    ...names,
  ]);
}
