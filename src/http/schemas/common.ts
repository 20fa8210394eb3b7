import { type Static, type TSchema, Type } from '@sinclair/typebox';

/** The same schema with the description the response documents. */
export const described = <T extends TSchema>(schema: T, description: string): T => ({
  ...schema,
  description,
});

// PostgreSQL text cannot hold NUL (the insert fails), so free text refuses it up front with a 422.
export const NO_NUL = '^[^\\u0000]*$';

export const FreeText = (maxLength: number) => Type.String({ maxLength, pattern: NO_NUL });

/** A closed set of strings, published as one `enum` (generators make real enums of it, not unions). */
export const StringEnum = <const T extends string>(
  values: readonly T[],
  options: { description?: string } = {},
) => Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });

/** A nullable request field: its Ajv errors (`must be string`, `must be null`, …) are part of the 422 body. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/**
 * A nullable response field: the same schema with `null` added to its `type` (`type: ['string', 'null']`),
 * which accepts exactly what `anyOf: [schema, { type: 'null' }]` accepts. fast-json-stringify serialises a
 * type list with a `typeof` / `=== null` test, whereas for `anyOf` it runs Ajv on every value to pick the
 * branch (the `date-time` format check of each `approvedAt` was measurable). The JSON written is the same.
 */
export const NullableOut = <T extends TSchema>(schema: T) =>
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

export const pageOf = <T extends TSchema>(item: T) =>
  Type.Object({ items: Type.Array(item), nextCursor: NullableOut(Type.String()), hasMore: Type.Boolean() });

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

export const LimitQuery = Type.Integer({ minimum: 1, maximum: 100, default: 25 });

/** The path parameter of an operation on one thing named by its id. */
export const IdParamsSchema = Type.Object({ id: Guid });
