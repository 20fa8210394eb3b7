import { type Static, Type } from '@sinclair/typebox';
import { DateTimeString, Guid, NullableOut } from '../../http/schemas/common.js';

/* The admin API's schemas of single sign-on (docs/admin-api-contract.md, "Single sign-on"). */

const NO_NUL = '^[^\\u0000]*$';

const GroupPermissionsSchema = Type.Record(
  Type.String({ minLength: 1, maxLength: 200 }),
  Type.Array(Type.Integer(), { maxItems: 20 }),
  {
    description:
      'group name (as the groups claim carries it) → permission numbers; the union over the groups a person ' +
      'is in becomes their permissions at every sign-in',
  },
);

export const SsoConfigBodySchema = Type.Object(
  {
    issuer: Type.String({
      minLength: 1,
      maxLength: 500,
      pattern: NO_NUL,
      description:
        "the provider's issuer URL (https; http only on a loopback address); its /.well-known/openid-configuration is read",
    }),
    clientId: Type.String({ minLength: 1, maxLength: 500, pattern: NO_NUL }),
    clientSecret: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2000,
        pattern: NO_NUL,
        description:
          'stored encrypted, never shown again; leave out to keep the stored one (only while the issuer and the client id stay the same)',
      }),
    ),
    allowedDomains: Type.Array(Type.String({ minLength: 1, maxLength: 253 }), {
      minItems: 1,
      maxItems: 50,
      description: 'email domains whose people sign in here; a domain belongs to one company only',
    }),
    groupsClaim: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 200, pattern: NO_NUL }), Type.Null()]),
    ),
    groupPermissions: Type.Optional(GroupPermissionsSchema),
    createPeople: Type.Optional(
      Type.Boolean({ description: 'create unknown people at their first sign-in (default false)' }),
    ),
    requireSso: Type.Optional(
      Type.Boolean({
        description:
          "refuse password sign-in for the company's people, super admins excepted (default false)",
      }),
    ),
  },
  { additionalProperties: false },
);
export type SsoConfigBody = Static<typeof SsoConfigBodySchema>;

export const SsoConfigSchema = Type.Object({
  issuer: Type.String(),
  clientId: Type.String(),
  clientSecretSet: Type.Boolean({ description: 'always true: the secret is stored, never shown' }),
  allowedDomains: Type.Array(Type.String()),
  groupsClaim: NullableOut(Type.String()),
  groupPermissions: GroupPermissionsSchema,
  createPeople: Type.Boolean(),
  requireSso: Type.Boolean(),
  createdAt: DateTimeString,
  updatedAt: DateTimeString,
});

export const SsoSettingsSchema = Type.Object(
  {
    companyId: Guid,
    redirectUri: Type.String({ description: 'the redirect URI to register at the provider' }),
    configuration: Type.Union([SsoConfigSchema, Type.Null()], {
      description: 'null when the company has no single sign-on',
    }),
  },
  { description: "The company's single sign-on" },
);

export const SsoLookupQuerySchema = Type.Object(
  { email: Type.String({ minLength: 1, maxLength: 254, pattern: NO_NUL }) },
  { additionalProperties: false },
);

export const SsoLookupSchema = Type.Object({
  singleSignOn: Type.Boolean({
    description: "whether the email's domain signs in with a company's provider",
  }),
});

export const SsoStartQuerySchema = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 254, pattern: NO_NUL }),
    returnTo: Type.Optional(
      Type.String({
        maxLength: 2000,
        description: 'a path under /console to come back to; anything else gives the console’s home',
      }),
    ),
  },
  { additionalProperties: false },
);

/** What the provider sends back (RFC 6749 4.1.2, RFC 9207); providers may add parameters of their own. */
export const SsoCallbackQuerySchema = Type.Object({
  code: Type.Optional(Type.String({ maxLength: 4000 })),
  state: Type.Optional(Type.String({ maxLength: 200 })),
  iss: Type.Optional(Type.String({ maxLength: 500 })),
  error: Type.Optional(Type.String({ maxLength: 200 })),
  error_description: Type.Optional(Type.String({ maxLength: 2000 })),
});

export const RedirectSchema = Type.Null({ description: 'See Other: Location says where' });

export const SsoLinkStatusSchema = Type.Object(
  {
    available: Type.Boolean({ description: "whether the person's company has single sign-on" }),
    linked: Type.Boolean({
      description: "whether the person is linked to an account of the company's identity provider",
    }),
    issuer: NullableOut(
      Type.String({ description: "the provider's issuer URL (so the person sees where they link)" }),
    ),
  },
  { description: "The signed-in person's link to the company's identity provider" },
);

export const SsoLinkBodySchema = Type.Object(
  {
    returnTo: Type.Optional(
      Type.String({
        maxLength: 2000,
        description: 'a path under /console to come back to; anything else gives the console’s home',
      }),
    ),
  },
  { additionalProperties: false },
);

export const SsoLinkStartedSchema = Type.Object(
  {
    location: Type.String({
      description: "the provider's authorization URL: the console sends the browser there",
    }),
  },
  { description: 'A link under way; the binding cookie is set with it' },
);
