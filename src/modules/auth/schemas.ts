import { Type } from '@sinclair/typebox';
import { DateTimeString, Guid, NullableOut, StringEnum } from '../../http/schemas/common.js';

/* The token exchange (OAuth 2.0 client credentials) and GET /me. */

/** OAuth 2.0 error response (RFC 6749 §5.2) with the error names one status can carry. */
export const oauthErrorSchema = (names: string[]) =>
  Type.Object(
    { error: Type.String({ enum: names }), error_description: Type.String() },
    { description: `OAuth 2.0 error response (RFC 6749 §5.2); error: ${names.join(', ')}` },
  );

export const MeSchema = Type.Object({
  principal: Type.String({ description: 'api_key, user or device (a kiosk, issue 35); may grow' }),
  id: Guid,
  publicId: NullableOut(Type.String()),
  companyId: Guid,
  scopes: Type.Array(Type.Object({ id: Type.String(), permission: Type.Integer(), label: Type.String() })),
  tokenExpiresAt: NullableOut(DateTimeString),
  rateLimit: Type.Object({ requestsPerMinute: Type.Integer(), tokenRequestsPerMinute: Type.Integer() }),
  dryRunHeader: Type.String(),
  workplaceId: Type.Optional(Guid),
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
