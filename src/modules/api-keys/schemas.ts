import { Type } from '@sinclair/typebox';
import { DateTimeString, Guid, NO_NUL, NullableOut } from '../../http/schemas/common.js';

/* API keys as the admin API lists, creates, rotates and revokes them (never a secret but once). */

export const ApiKeySchema = Type.Object({
  id: Guid,
  name: Type.String(),
  clientId: Type.String(),
  scopes: Type.Array(Type.String()),
  createdBy: Guid,
  createdAt: DateTimeString,
  expiresAt: NullableOut(DateTimeString),
  lastUsedAt: NullableOut(DateTimeString),
  revokedAt: NullableOut(DateTimeString),
  allowedIps: Type.Array(Type.String()),
  previousSecretValidUntil: NullableOut(DateTimeString),
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
