import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { authenticate, requirePrincipal } from '../../http/plugins/authenticate.js';
import { bearerSecurity } from '../../http/plugins/openapi.js';
import { quotaHeaders } from '../../http/plugins/rate-limit/headers.js';
import { described } from '../../http/schemas/common.js';
import { errorResponses } from '../../http/schemas/responses.js';
import { normaliseClientId } from './key-secrets.js';
import { parseBasicAuthorization, parseFormBody } from './oauth-request.js';
import { MeSchema, TokenResponseSchema, oauthErrorSchema } from './schemas.js';
import { scopeInfo } from './scopes.js';
import { exchangeKeyForToken, findKeyForCredentials, keySecretProven } from './service.js';
import { exchangeDeviceForToken, findDeviceForCredentials } from '../devices/credentials.js';
import { isDeviceCredential } from '../devices/secrets.js';

const FORM_BODY_LIMIT = 8 * 1024;

/** Spec, POST /oauth/token and Authentication: OAuth 2.0 client credentials (RFC 6749 §4.4). */

type TokenRequestRead =
  | { ok: false; status: 400 | 401; error: string; description: string; headers?: Record<string, string> }
  | { ok: true; clientId: string | null; secret: string; basicChallenge: Record<string, string> };

function refuse(
  status: 400 | 401,
  error: string,
  description: string,
  headers?: Record<string, string>,
): TokenRequestRead {
  return { ok: false, status, error, description, ...(headers ? { headers } : {}) };
}

/** The credentials of a token request (form body or HTTP Basic), or its refusal, checked in this order. */
function readTokenRequest(request: FastifyRequest): TokenRequestRead {
  const query = request.query as Record<string, unknown>;
  if (query && typeof query === 'object' && 'client_secret' in query)
    return refuse(400, 'invalid_request', 'the client secret must never be sent in the query string');
  if (typeof request.body !== 'string')
    return refuse(400, 'invalid_request', 'the body must be application/x-www-form-urlencoded');
  const form = parseFormBody(request.body);
  if (!form.ok)
    return refuse(
      400,
      'invalid_request',
      form.reason === 'repeated_parameter'
        ? `the parameter ${form.parameter ?? ''} is repeated`.replace('  ', ' ')
        : 'the request body cannot be read',
    );
  const params = form.params;
  const basic = parseBasicAuthorization(request.headers.authorization);
  const basicChallenge: Record<string, string> = basic.present
    ? { 'www-authenticate': 'Basic realm="punchclock"' }
    : {};
  if (basic.present && params.has('client_secret'))
    return refuse(400, 'invalid_request', 'use one authentication mechanism: HTTP Basic or client_secret');
  const grantType = params.get('grant_type');
  if (grantType === undefined) return refuse(400, 'invalid_request', 'grant_type is required');
  if (grantType !== 'client_credentials')
    return refuse(400, 'unsupported_grant_type', 'only client_credentials is supported');
  if (basic.present && !basic.ok)
    return refuse(401, 'invalid_client', 'client authentication failed', basicChallenge);

  let clientId = params.get('client_id') ?? null;
  let secret = params.get('client_secret') ?? null;
  if (basic.present && basic.ok) {
    // Either may carry the svc_ prefix or not (spec: with or without); they must name the same key.
    if (clientId !== null && normaliseClientId(clientId) !== normaliseClientId(basic.clientId))
      return refuse(401, 'invalid_client', 'client authentication failed', basicChallenge);
    clientId = basic.clientId;
    secret = basic.clientSecret;
  }
  if (secret === null || secret === '')
    return refuse(401, 'invalid_client', 'client authentication is required', basicChallenge);
  return { ok: true, clientId, secret, basicChallenge };
}

/** What the routes below share, made once per registration. */
function tokenRouteContext(app: FastifyInstance) {
  const { services } = app;
  const oauthError = (
    reply: FastifyReply,
    status: 400 | 401 | 429,
    error: string,
    description: string,
    extraHeaders: Record<string, string> = {},
  ) => {
    // A request refused before its key is known charged nothing.
    services.ensureRateLimitHeaders(reply.request, reply);
    services.metrics.tokensRefused.inc({ reason: error });
    if (error === 'rate_limited') services.metrics.rateLimited.inc({ limiter: 'token' });
    return reply
      .code(status)
      .headers({ 'cache-control': 'no-store', pragma: 'no-cache', ...extraHeaders })
      .send({ error, error_description: description });
  };
  return { services, oauthError };
}

function issueTokenRoute(
  app: FastifyInstance,
  { services, oauthError }: ReturnType<typeof tokenRouteContext>,
) {
  app.post(
    '/oauth/token',
    {
      schema: {
        summary: 'Exchange an API key for an access token',
        operationId: 'issueToken',
        description:
          'OAuth 2.0 client credentials (RFC 6749 §4.4). Send the API key as `client_secret` in the form body or as the HTTP Basic password. ' +
          'The token lives 15 minutes; there is no refresh token: cache it and exchange the key again on expiry or on a 401. ' +
          "Errors use OAuth's own JSON form `{error, error_description}`. At most 60 requests per minute per key. " +
          'A kiosk device (issue 35) exchanges its device credential (client id `dev_…`, from POST /devices/enrol) the same way, for a token whose principal is `device`: ' +
          'it may call only GET /kiosk/employees, POST /kiosk/identify, POST /time-clock/events and /time-clock/events/batch (for employees of its workplace) and GET /me; any other operation is `403 insufficient_scope`. ' +
          'A revoked device is refused here (`401 invalid_client`) and its token stops at once (`401 invalid_token`). ' +
          "While the company's API access is switched off a device's credential is answered `400 unauthorized_client` (it stays valid: keep it and try again later; a token already issued is `403 forbidden`).",
        tags: ['Authentication'],
        // The secret goes in the form body or as the HTTP Basic password.
        security: [{ clientBasic: [] }, {}],
        response: {
          200: described(TokenResponseSchema, 'An access token'),
          400: oauthErrorSchema(['invalid_request', 'unsupported_grant_type', 'unauthorized_client']),
          401: oauthErrorSchema(['invalid_client']),
          429: oauthErrorSchema(['rate_limited']),
          500: oauthErrorSchema(['server_error']),
          503: oauthErrorSchema(['temporarily_unavailable']),
        },
      },
    },
    async (request, reply) => {
      const read = readTokenRequest(request);
      if (!read.ok) return oauthError(reply, read.status, read.error, read.description, read.headers);
      const { clientId, secret, basicChallenge } = read;
      if (isDeviceCredential(clientId, secret))
        return deviceToken(request, reply, { services, oauthError }, { clientId, secret, basicChallenge });

      const lookup = await findKeyForCredentials(services.ctx, { clientId, secret });
      const nowMs = services.ctx.now();
      // Only a caller holding the secret spends the key's quota: client ids are public, and charging
      // failed attempts to the key would let anyone who knows one lock the real client out.
      // The secret is hashed once per request: this answer also goes to exchangeKeyForToken below.
      const proven = lookup.kind === 'found' && keySecretProven(services.ctx, lookup.key, secret);
      const limiter = proven ? services.tokenLimiter : services.unknownClientLimiter;
      const quota = await limiter.hit(proven ? lookup.key.id : `ip:${request.ip}`, nowMs);
      reply.headers(quotaHeaders(limiter, quota));
      if (!quota.allowed)
        return oauthError(reply, 429, 'rate_limited', `at most ${quota.limit} token requests per minute`, {
          'retry-after': String(quota.retryAfterSeconds),
        });
      if (lookup.kind === 'unknown')
        return oauthError(reply, 401, 'invalid_client', 'client authentication failed', basicChallenge);

      const result = await exchangeKeyForToken(
        services.ctx,
        services.tokens,
        lookup,
        secret,
        request.ip,
        proven,
      );
      if (!result.ok) return oauthError(reply, 401, 'invalid_client', result.description, basicChallenge);
      services.metrics.tokensIssued.inc();
      return reply
        .code(200)
        .headers({ 'cache-control': 'no-store', pragma: 'no-cache' })
        .send({ access_token: result.accessToken, token_type: 'Bearer', expires_in: result.expiresIn });
    },
  );
}

/** A kiosk device's credential (issue 35): the same limits and refusals as a key's, a `device` token. */
async function deviceToken(
  request: FastifyRequest,
  reply: FastifyReply,
  { services, oauthError }: ReturnType<typeof tokenRouteContext>,
  read: { clientId: string | null; secret: string; basicChallenge: Record<string, string> },
) {
  const lookup = await findDeviceForCredentials(services.ctx, read);
  const proven = lookup.kind === 'found' && lookup.proven;
  const limiter = proven ? services.tokenLimiter : services.unknownClientLimiter;
  const quota = await limiter.hit(proven ? lookup.device.id : `ip:${request.ip}`, services.ctx.now());
  reply.headers(quotaHeaders(limiter, quota));
  if (!quota.allowed)
    return oauthError(reply, 429, 'rate_limited', `at most ${quota.limit} token requests per minute`, {
      'retry-after': String(quota.retryAfterSeconds),
    });
  if (!proven)
    return oauthError(reply, 401, 'invalid_client', 'client authentication failed', read.basicChallenge);
  const result = await exchangeDeviceForToken(services.ctx, services.tokens, lookup.device);
  if (!result.ok)
    return oauthError(
      reply,
      result.status,
      result.error,
      result.description,
      result.status === 401 ? read.basicChallenge : {},
    );
  services.metrics.tokensIssued.inc();
  return reply
    .code(200)
    .headers({ 'cache-control': 'no-store', pragma: 'no-cache' })
    .send({ access_token: result.accessToken, token_type: 'Bearer', expires_in: result.expiresIn });
}

export const tokenRoutes: FastifyPluginAsync = async (app) => {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
    (_request, body, done) => done(null, body),
  );
  const context = tokenRouteContext(app);
  issueTokenRoute(app, context);
};

export const DRY_RUN_HEADER = 'X-Service-Dry-Run';

export const meRoutes: FastifyPluginAsync = async (app) => {
  const { services } = app;
  app.get(
    '/me',
    {
      onRequest: authenticate({ ...services, limiter: services.resourceLimiter }, null, 'allowed'),
      schema: {
        summary: 'Describe the calling token',
        operationId: 'describeToken',
        description:
          'Any valid token (API key, person or kiosk device). Returns who the token acts for (`principal`: `api_key`, `user` or `device`), its company, its scopes and its expiry; ' +
          "a device's token has no scopes and names its workplace (`workplaceId`).",
        tags: ['Token'],
        security: bearerSecurity(null),
        response: {
          200: described(MeSchema, 'The calling token'),
          ...errorResponses(['invalid_token', 'forbidden', 'rate_limited']),
        },
      },
    },
    async (request) => {
      const principal = requirePrincipal(request);
      return {
        principal: principal.kind,
        id: principal.id,
        publicId: principal.clientId,
        companyId: principal.companyId,
        scopes: principal.scopes.map((id) => {
          const info = scopeInfo(id);
          return { id, permission: info.permission, label: info.label };
        }),
        tokenExpiresAt: principal.tokenExpiresAt.toISOString(),
        rateLimit: {
          requestsPerMinute: services.config.rateLimitPerMinute,
          tokenRequestsPerMinute: services.config.tokenRateLimitPerMinute,
        },
        dryRunHeader: DRY_RUN_HEADER,
        ...(principal.device ? { workplaceId: principal.device.workplaceId } : {}),
      };
    },
  );
};
