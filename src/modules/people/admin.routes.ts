import { createHash } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { ApiError } from '../../domain/errors.js';
import {
  SESSION_COOKIE,
  checkOrigin,
  clearSessionCookie,
  consoleGuard,
  readCookie,
  requirePerson,
  sessionSettings,
  setSessionCookie,
} from '../../http/plugins/console-session.js';
import { chargeAttempt } from '../../http/plugins/rate-limit/headers.js';
import { type RateLimiter } from '../../http/plugins/rate-limit/limiter.js';
import { adminErrors, sessionErrors } from '../../http/schemas/responses.js';
import { dummyPasswordHash } from './passwords.js';
import { AcceptInvitationBodySchema, PersonSchema, SignInBodySchema } from './schemas.js';
import { acceptInvitation, resolveSession, signIn, signOut } from './service.js';
import { type TypeBoxApp } from '../../http/route-context.js';

/** Sign-in, the current session, sign-out, and accepting an invitation (docs/admin-api-contract.md). */

/** What the routes below share, made once per registration. */
function sessionRouteContext(app: TypeBoxApp) {
  const { services } = app;
  const settings = sessionSettings(services);
  /** Charges one sign-in attempt to `key`; 429 rate_limited with Retry-After when over the limit. */
  const charge = (limiter: RateLimiter, key: string, reply: FastifyReply) =>
    chargeAttempt(limiter, key, services.ctx.now(), reply, 'sign-in attempts');
  return { services, settings, charge };
}

function signInRoute(
  app: TypeBoxApp,
  { services, settings, charge }: ReturnType<typeof sessionRouteContext>,
) {
  app.post(
    '/session',
    {
      schema: {
        summary: 'Sign in',
        operationId: 'signIn',
        description:
          'Signs in with email and password: the person, and a fresh session cookie `pc_session` (HttpOnly, ' +
          'SameSite=Lax, Secure on https). A wrong password and an unknown email get the same 401. ' +
          'Limited per client address and per account.',
        tags: ['Session'],
        body: SignInBodySchema,
        response: {
          200: PersonSchema,
          ...adminErrors([
            'invalid_credentials',
            'sso_required',
            'csrf_failed',
            'validation_failed',
            'rate_limited',
            'payload_too_large',
            'unsupported_media_type',
          ]),
        },
      },
    },
    async (request, reply) => {
      checkOrigin(request, services, false);
      const count = (outcome: string) => services.metrics.consoleSignIns.inc({ method: 'password', outcome });
      try {
        await charge(services.signInAddressLimiter, request.ip, reply);
        const account = createHash('sha256')
          .update(request.body.email.trim().toLowerCase())
          .digest('base64url');
        await charge(services.signInAccountLimiter, account, reply);
        const { sessionId, person } = await signIn(
          services.ctx,
          settings,
          request.body,
          readCookie(request, SESSION_COOKIE),
        );
        setSessionCookie(services, reply, sessionId);
        count('success');
        return person;
      } catch (error) {
        count(error instanceof ApiError ? error.errorName : 'error');
        throw error;
      }
    },
  );
}

function getSessionRoute(app: TypeBoxApp, { services, settings }: ReturnType<typeof sessionRouteContext>) {
  app.get(
    '/session',
    {
      schema: {
        summary: 'The signed-in person',
        operationId: 'getSession',
        description:
          'The person of the session cookie, with the CSRF token to send on writes; 401 without one.',
        tags: ['Session'],
        response: { 200: PersonSchema, ...sessionErrors([]) },
      },
    },
    async (request) => {
      const session = await resolveSession(services.ctx, settings, readCookie(request, SESSION_COOKIE));
      if (!session) throw new ApiError('session_required', 'not signed in, or the session has ended');
      return session.person;
    },
  );
}

function signOutRoute(app: TypeBoxApp, { services }: ReturnType<typeof sessionRouteContext>) {
  app.delete(
    '/session',
    {
      onRequest: consoleGuard(services),
      schema: {
        summary: 'Sign out',
        operationId: 'signOut',
        description: 'Ends the session everywhere and clears the cookie.',
        tags: ['Session'],
        response: { 204: { type: 'null', description: 'Signed out' }, ...sessionErrors([], true) },
      },
    },
    async (request, reply) => {
      requirePerson(request);
      await signOut(services.ctx, readCookie(request, SESSION_COOKIE));
      clearSessionCookie(services, reply);
      return reply.code(204).send();
    },
  );
}

function acceptInvitationRoute(
  app: TypeBoxApp,
  { services, settings, charge }: ReturnType<typeof sessionRouteContext>,
) {
  app.post(
    '/invitations/accept',
    {
      schema: {
        summary: 'Accept an invitation',
        operationId: 'acceptInvitation',
        description:
          "Chooses the invited person's password (at least 12 characters) and signs them in. " +
          'An invitation is used once and lasts 72 hours.',
        tags: ['Session'],
        body: AcceptInvitationBodySchema,
        response: {
          200: PersonSchema,
          ...adminErrors([
            'invitation_invalid',
            'sso_required',
            'rate_limited',
            'csrf_failed',
            'validation_failed',
            'payload_too_large',
            'unsupported_media_type',
          ]),
        },
      },
    },
    async (request, reply) => {
      checkOrigin(request, services, false);
      // Unauthenticated, like sign-in: counted per address with it.
      await charge(services.signInAddressLimiter, request.ip, reply);
      const { sessionId, person } = await acceptInvitation(
        services.ctx,
        settings,
        request.body,
        readCookie(request, SESSION_COOKIE),
      );
      setSessionCookie(services, reply, sessionId);
      return person;
    },
  );
}

export const sessionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // Made now, not at the first unknown email: that sign-in would otherwise take two scrypts, not one.
  await dummyPasswordHash();
  const context = sessionRouteContext(app);
  signInRoute(app, context);
  getSessionRoute(app, context);
  signOutRoute(app, context);
  acceptInvitationRoute(app, context);
};
