import { Type } from '@sinclair/typebox';
import { DateString, DateTimeString, Guid, NullableOut } from '../../http/schemas/common.js';

/* The audit log as the admin API lists it: who did what, when, filterable. */

export const AuditQuerySchema = Type.Object(
  {
    actorType: Type.Optional(
      Type.Unsafe<'user' | 'api_key' | 'cli' | 'system'>({
        type: 'string',
        enum: ['user', 'api_key', 'cli', 'system'],
      }),
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
        type: Type.String({
          enum: ['user', 'api_key', 'cli', 'system'],
          description: 'system: the automatic clock-out (issue 30)',
        }),
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
