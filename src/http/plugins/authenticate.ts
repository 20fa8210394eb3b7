import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { ApiError } from '../../domain/errors.js';
import { quotaHeaders } from './rate-limit/headers.js';
import { type RateLimiter } from './rate-limit/limiter.js';
import { type ScopeId } from '../../modules/auth/scopes.js';
import { type Principal, checkPrincipal } from '../../modules/auth/service.js';
import { type TokenService } from '../../modules/auth/tokens.js';
import { type AppContext } from '../../modules/context.js';
import { noteDeviceContact } from '../../modules/devices/sync.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

export interface AuthDependencies {
  ctx: AppContext;
  tokens: TokenService;
  limiter: RateLimiter;
}

function invalidToken(
  detail: string,
  withErrorAttribute: boolean,
  rateLimit: Record<string, string> = {},
): ApiError {
  // RFC 6750 §3.1: a request without any credentials gets the challenge without an error code.
  return new ApiError('invalid_token', detail, null, {
    ...rateLimit,
    'www-authenticate': withErrorAttribute ? 'Bearer error="invalid_token"' : 'Bearer',
  });
}

/**
 * Whether a kiosk device's token (issue 35) may call the route: `refused` (the default: any other
 * operation is 403 insufficient_scope), `allowed` (the time clock's punches, /me) or `only` (the
 * kiosk's own operations, which no other token may call).
 */
export type DeviceAccess = 'refused' | 'allowed' | 'only';

/**
 * Route guard, in the spec's order: token (401), rate limit (429, counted for every authenticated
 * request), then scope (403). Runs before the body is read, so an unauthenticated caller learns nothing
 * about the body rules.
 */
export function authenticate(
  deps: AuthDependencies,
  scope: ScopeId | null,
  devices: DeviceAccess = 'refused',
): onRequestAsyncHookHandler {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const header = request.headers.authorization;
    if (header === undefined || header === '') throw invalidToken('an access token is required', false);
    const match = BEARER.exec(header);
    if (!match) throw invalidToken('the Authorization header must carry a Bearer token', true);
    const claims = await deps.tokens.verify(match[1]!);
    if (!claims) throw invalidToken('the access token is invalid or expired', true);
    const check = await checkPrincipal(deps.ctx, claims);
    if (!check.ok) {
      // Refused before anything is charged: the headers show the quota of the key (or person) the
      // token names as it stands (spec, Limits: rate-limit headers on every response).
      const rateLimit = quotaHeaders(deps.limiter, await deps.limiter.peek(claims.subject, deps.ctx.now()));
      if (check.error === 'forbidden')
        throw new ApiError('forbidden', 'API access is switched off for the company', null, rateLimit);
      throw invalidToken('the access token is no longer valid', true, rateLimit);
    }
    request.principal = check.principal;
    if (check.principal.device) await noteDeviceContact(deps.ctx, check.principal, request.headers);
    const quota = await deps.limiter.hit(check.principal.id, deps.ctx.now());
    reply.headers(quotaHeaders(deps.limiter, quota));
    if (!quota.allowed) {
      request.server.services.metrics.rateLimited.inc({ limiter: 'api' });
      throw new ApiError('rate_limited', `at most ${quota.limit} requests per minute`, null, {
        'retry-after': String(quota.retryAfterSeconds),
      });
    }
    const isDevice = check.principal.kind === 'device';
    if (isDevice ? devices === 'refused' : devices === 'only')
      throw new ApiError(
        'insufficient_scope',
        isDevice
          ? 'a kiosk device may only use the kiosk operations'
          : 'only a kiosk device may use this operation',
      );
    if (!isDevice && scope !== null && !check.principal.scopes.includes(scope))
      throw new ApiError('insufficient_scope', `this operation needs the scope ${scope}`, null, {
        'www-authenticate': `Bearer error="insufficient_scope", scope="${scope}"`,
      });
  };
}

export function requirePrincipal(request: FastifyRequest): Principal {
  if (!request.principal) throw new ApiError('invalid_token', 'an access token is required');
  return request.principal;
}

export function requireTimeTracking(principal: Principal): void {
  if (!principal.company.timeTracking)
    throw new ApiError('time_tracking_disabled', 'time tracking is switched off for this company');
}
