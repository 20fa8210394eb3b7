import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../domain/errors.js';
import {
  readCookie,
  SESSION_COOKIE,
  sessionSettings,
  setSessionCookie,
} from '../../http/plugins/console-session.js';
import { quotaHeaders } from '../../http/plugins/rate-limit/headers.js';
import { type TypeBoxApp } from '../../http/route-context.js';
import { adminErrors } from '../../http/schemas/responses.js';
import type { Services } from '../../http/services.js';
import { finishSso, LOGIN_MINUTES, ssoLookup, startSso } from './flow.js';
import {
  RedirectSchema,
  SsoCallbackQuerySchema,
  SsoLookupQuerySchema,
  SsoLookupSchema,
  SsoStartQuerySchema,
} from './schemas.js';

/** The browser's binding to a sign-in under way (docs/admin-api-contract.md, "Single sign-on"). */
const BINDING_COOKIE = 'pc_sso';
const BINDING_PATH = '/api/admin/v1/sso';
const START_ERRORS = adminErrors([
  'sso_not_configured',
  'validation_failed',
  'rate_limited',
  'sso_provider_unavailable',
  'sso_configuration_unreadable',
]);
const CALLBACK_ERRORS = adminErrors([
  'sso_state_invalid',
  'sso_not_configured',
  'sso_provider_unavailable',
  'sso_configuration_unreadable',
  'sso_response_invalid',
  'sso_denied',
  'sso_email_unverified',
  'sso_email_domain_not_allowed',
  'sso_person_unknown',
  'sso_person_deactivated',
  'sso_identity_conflict',
  'validation_failed',
]);
const REFUSALS =
  'A refusal is a problem document; a browser (Accept: text/html) is instead sent (303) to the ' +
  "console's sign-in page with the error's name, `/console/#/sign-in?sso-error=<name>`, which explains it.";

/** The public base URL, or this request's own origin when PUBLIC_BASE_URL is unset. */
function baseUrlOf(services: Services, request: FastifyRequest): string {
  return services.config.publicBaseUrlSetting ?? `${request.protocol}://${request.host}`;
}

function bindingCookie(services: Services, request: FastifyRequest, value: string, maxAge: number): string {
  const secure = services.urls.publicBaseUrl.startsWith('https:') || request.protocol === 'https';
  const attributes = [`Path=${BINDING_PATH}`, 'HttpOnly', 'SameSite=Lax', `Max-Age=${maxAge}`];
  return [`${BINDING_COOKIE}=${value}`, ...attributes, ...(secure ? ['Secure'] : [])].join('; ');
}

/** A browser's navigation (it accepts HTML): refusals become a way back to the console's sign-in page. */
function isBrowser(request: FastifyRequest): boolean {
  return /\btext\/html\b/i.test(request.headers.accept ?? '');
}

/**
 * Runs a navigation's handler; an ApiError is counted and logged, then answered as a problem, or for a
 * browser as a 303 to the sign-in page naming it (only the name: the page's words are the console's own).
 */
async function navigation(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  handler: () => Promise<FastifyReply>,
): Promise<FastifyReply> {
  try {
    return await handler();
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    services.metrics.consoleSignIns.inc({ method: 'sso', outcome: error.errorName });
    request.log.info({ error: error.errorName, detail: error.detail }, 'single sign-on refused');
    if (!isBrowser(request) || error.errorName === 'validation_failed') throw error;
    reply.header('set-cookie', bindingCookie(services, request, '', 0));
    return reply.redirect(`/console/#/sign-in?sso-error=${error.errorName}`, 303);
  }
}

type App = TypeBoxApp;

/** Counts a start of this address; 429 rate_limited with Retry-After over the limit. */
async function charge(services: Services, request: FastifyRequest, reply: FastifyReply) {
  const limiter = services.ssoStartLimiter;
  const quota = await limiter.hit(request.ip, services.ctx.now());
  if (quota.allowed) return;
  reply.headers(quotaHeaders(limiter, quota));
  throw new ApiError('rate_limited', 'too many single sign-on attempts; wait before trying again', null, {
    'retry-after': String(quota.retryAfterSeconds),
  });
}

function lookupRoute(app: App, services: Services) {
  app.get(
    '/sso/lookup',
    {
      schema: {
        summary: "Whether an email's domain signs in with single sign-on",
        operationId: 'lookupSso',
        description:
          'The sign-in page asks before sending the browser to `/sso/start`. Domain-level only: it says nothing about a person.',
        tags: ['Single sign-on'],
        querystring: SsoLookupQuerySchema,
        response: { 200: SsoLookupSchema, ...adminErrors(['validation_failed']) },
      },
    },
    async (request) => ssoLookup(services.ctx.database.db, request.query.email),
  );
}

function startRoute(app: App, services: Services) {
  app.get(
    '/sso/start',
    {
      schema: {
        summary: 'Start signing in with the company’s identity provider',
        operationId: 'startSso',
        description:
          "Finds the company by the email's domain and answers 303 to its provider (authorization code flow, " +
          'PKCE S256, state, nonce, login_hint), with a cookie `pc_sso` binding the sign-in to this browser for ' +
          `${LOGIN_MINUTES} minutes. No company with single sign-on for the domain → 404 sso_not_configured. ` +
          `Limited per address, under a count of its own. ${REFUSALS}`,
        tags: ['Single sign-on'],
        querystring: SsoStartQuerySchema,
        response: { 303: RedirectSchema, ...START_ERRORS },
      },
    },
    async (request, reply) =>
      navigation(services, request, reply, async () => {
        await charge(services, request, reply);
        const started = await startSso(services.ctx, services.webhookKey, {
          email: request.query.email,
          returnTo: request.query.returnTo,
          baseUrl: baseUrlOf(services, request),
        });
        reply.header('set-cookie', bindingCookie(services, request, started.binding, LOGIN_MINUTES * 60));
        return reply.redirect(started.location, 303);
      }),
  );
}

function callbackRoute(app: App, services: Services) {
  const settings = sessionSettings(services);
  app.get(
    '/sso/callback',
    {
      schema: {
        summary: 'The provider sends the browser back here',
        operationId: 'ssoCallback',
        description:
          'Checks the state (once, in the browser that started), the response’s issuer (RFC 9207), then ' +
          'exchanges the code with PKCE and checks the ID token (issuer, audience, expiry, nonce, signature). ' +
          'The person is the one linked to the (issuer, subject) pair; the first time, the company’s person ' +
          'with the verified email, or a new person when the configuration says so. Answers 303 to the ' +
          `return address with a fresh console session cookie. ${REFUSALS}`,
        tags: ['Single sign-on'],
        querystring: SsoCallbackQuerySchema,
        response: { 303: RedirectSchema, ...CALLBACK_ERRORS },
      },
    },
    async (request, reply) =>
      navigation(services, request, reply, async () => {
        const question = request.url.indexOf('?');
        const result = await finishSso(services.ctx, services.webhookKey, settings, {
          search: question === -1 ? '' : request.url.slice(question),
          state: request.query.state,
          binding: readCookie(request, BINDING_COOKIE),
          previousSessionId: readCookie(request, SESSION_COOKIE),
        });
        services.metrics.consoleSignIns.inc({ method: 'sso', outcome: 'success' });
        setSessionCookie(services, reply, result.sessionId);
        reply.header('set-cookie', bindingCookie(services, request, '', 0));
        return reply.redirect(result.returnTo, 303);
      }),
  );
}

/** Lookup, start and callback: anyone may call them (the sign-in page); starts are counted per address. */
export const ssoSignInRoutes: FastifyPluginAsyncTypebox = async (app) => {
  lookupRoute(app, app.services);
  startRoute(app, app.services);
  callbackRoute(app, app.services);
};

