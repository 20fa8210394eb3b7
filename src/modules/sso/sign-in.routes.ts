import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../domain/errors.js';
import {
  readCookie,
  SESSION_COOKIE,
  sessionSettings,
  setSessionCookie,
} from '../../http/plugins/console-session.js';
import { baseUrlOf, secureCookies, type TypeBoxApp } from '../../http/route-context.js';
import { adminErrors } from '../../http/schemas/responses.js';
import { chargeAttempt } from '../../http/plugins/rate-limit/headers.js';
import type { Services } from '../../http/services.js';
import { bindingCookie, bindingCookieName } from './binding.js';
import { finishSso, LinkRefusal, LOGIN_MINUTES, ssoLookup, startSso } from './flow.js';
import { SsoProblem } from './provider.js';
import {
  RedirectSchema,
  SsoCallbackQuerySchema,
  SsoLookupQuerySchema,
  SsoLookupSchema,
  SsoStartQuerySchema,
} from './schemas.js';

/* Single sign-on's sign-in in the admin API: lookup, start and callback, open like sign-in. */

const START_ERRORS = adminErrors([
  'sso_not_configured',
  'csrf_failed',
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
  'sso_link_required',
  'sso_link_mismatch',
  'validation_failed',
]);
const REFUSALS =
  'A refusal is a problem document; a browser (Accept: text/html) is instead sent (303) to the ' +
  "console's sign-in page with the error's name, `/console/#/sign-in?sso-error=<name>`, which explains it " +
  '(a refused "link my account": `/console/#/company?sso-error=<name>`).';

type App = TypeBoxApp;

function keysOf(services: Services) {
  return { key: services.webhookKey, allowedHosts: services.config.ssoAllowedHosts };
}

/** A browser's navigation (it accepts HTML): refusals become a way back to the console's sign-in page. */
function isBrowser(request: FastifyRequest): boolean {
  return /\btext\/html\b/i.test(request.headers.accept ?? '');
}

/**
 * Runs a navigation's handler; an ApiError is counted and logged (its name and, for the provider's
 * failures, what happened; never an email), then answered as a problem, or for a browser as a 303 to
 * the sign-in page naming it (only the name: the page's words are the console's own). `problemOnly`:
 * errors always answered as problems.
 */
async function navigation(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  handler: () => Promise<FastifyReply>,
  problemOnly: readonly string[] = [],
): Promise<FastifyReply> {
  try {
    return await handler();
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    services.metrics.consoleSignIns.inc({ method: 'sso', outcome: error.errorName });
    const reason = error instanceof SsoProblem && error.logDetail ? { reason: error.logDetail } : {};
    request.log.info({ error: error.errorName, ...reason }, 'single sign-on refused');
    const asProblem = ['validation_failed', ...problemOnly].includes(error.errorName);
    if (!isBrowser(request) || asProblem) throw error;
    reply.header('set-cookie', bindingCookie(secureCookies(services, request), '', 0));
    const page = error instanceof LinkRefusal ? 'company' : 'sign-in';
    return reply.redirect(`/console/#/${page}?sso-error=${error.errorName}`, 303);
  }
}

/**
 * A start from another site is refused (login CSRF: a page elsewhere cannot send a browser into a
 * sign-in it did not choose). Browsers say where a navigation comes from in Sec-Fetch-Site; the
 * console's own page is `same-origin`, a typed or bookmarked address `none`.
 */
function refuseCrossSite(request: FastifyRequest): void {
  if (request.headers['sec-fetch-site'] === 'cross-site')
    throw new ApiError('csrf_failed', 'single sign-on is started from the console’s own sign-in page');
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
          'PKCE S256, state, nonce, login_hint), with a cookie binding the sign-in to this browser for ' +
          `${LOGIN_MINUTES} minutes (\`__Host-pc_sso\` on https, \`pc_sso\` on plain http). No company with ` +
          'single sign-on for the domain → 404 sso_not_configured, always as a problem document. A start ' +
          'from another site (`Sec-Fetch-Site: cross-site`) → 403 csrf_failed. Limited per address, under a ' +
          `count of its own. ${REFUSALS}`,
        tags: ['Single sign-on'],
        querystring: SsoStartQuerySchema,
        response: { 303: RedirectSchema, ...START_ERRORS },
      },
    },
    async (request, reply) =>
      navigation(
        services,
        request,
        reply,
        async () => {
          refuseCrossSite(request);
          await chargeAttempt(
            services.ssoStartLimiter,
            request.ip,
            services.ctx.now(),
            reply,
            'single sign-on attempts',
          );
          const started = await startSso(services.ctx, keysOf(services), {
            email: request.query.email,
            returnTo: request.query.returnTo,
            baseUrl: baseUrlOf(services, request),
          });
          const cookie = bindingCookie(secureCookies(services, request), started.binding, LOGIN_MINUTES * 60);
          reply.header('set-cookie', cookie);
          return reply.redirect(started.location, 303);
        },
        ['sso_not_configured', 'csrf_failed'],
      ),
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
          'with the verified email when the configuration may link them (403 sso_link_required for a super ' +
          'admin or someone with rights its author lacked), or a new person when the configuration says so; ' +
          'for "link my account", the signed-in person who started it. Answers 303 to the return address ' +
          `with a fresh console session cookie. Refusals are audited (sso.refused). ${REFUSALS}`,
        tags: ['Single sign-on'],
        querystring: SsoCallbackQuerySchema,
        response: { 303: RedirectSchema, ...CALLBACK_ERRORS },
      },
    },
    async (request, reply) =>
      navigation(services, request, reply, async () => {
        const question = request.url.indexOf('?');
        const isSecure = secureCookies(services, request);
        const result = await finishSso(services.ctx, keysOf(services), settings, {
          search: question === -1 ? '' : request.url.slice(question),
          state: request.query.state,
          binding: readCookie(request, bindingCookieName(isSecure)),
          previousSessionId: readCookie(request, SESSION_COOKIE),
        });
        services.metrics.consoleSignIns.inc({ method: 'sso', outcome: 'success' });
        setSessionCookie(services, reply, result.sessionId);
        reply.header('set-cookie', bindingCookie(isSecure, '', 0));
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
