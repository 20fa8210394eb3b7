import { Type } from '@sinclair/typebox';
import { Guid, NO_NUL, NullableOut } from '../../http/schemas/common.js';

/* Signing in to the console: the credentials sent and the person answered. */

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
    employeeId: NullableOut(
      Type.String({
        format: 'uuid',
        description:
          'the employee this person is (self-service: their own time, absences and web clock); null for none',
      }),
    ),
    csrfToken: Type.String({ description: 'send as X-CSRF-Token on every state-changing request' }),
    company: Type.Object({ id: Guid, name: Type.String(), timeZone: NullableOut(Type.String()) }),
    sessionExpiresAt: Type.String({
      format: 'date-time',
      description: "the session's absolute end (the console keeps its offline web clock no longer than this)",
    }),
  },
  { description: 'The signed-in person' },
);
