import type { FastifyReply, FastifyRequest } from 'fastify';
import { type CursorCodec } from '../domain/cursor.js';
import { type ApiError } from '../domain/errors.js';
import { type Metrics } from './metrics.js';
import { type OverloadGate } from './overload-gate.js';
import { type RateLimiter } from './plugins/rate-limit/limiter.js';
import { type ProblemBody } from './problem.js';
import { type TokenService } from '../modules/auth/tokens.js';
import { type AppContext } from '../modules/context.js';
import { type Config, type resolveUrls } from '../platform/config.js';

/** Everything a route needs, created once per app and decorated onto it as `app.services`. */
export interface Services {
  config: Config;
  ctx: AppContext;
  tokens: TokenService;
  resourceLimiter: RateLimiter;
  tokenLimiter: RateLimiter;
  unknownClientLimiter: RateLimiter;
  /** Console sign-in attempts per account (email) and per client address. */
  signInAccountLimiter: RateLimiter;
  signInAddressLimiter: RateLimiter;
  /** Single sign-on starts per client address (their own count, the sign-in's limit). */
  ssoStartLimiter: RateLimiter;
  /** Kiosk enrolment codes and PINs tried, per client address (issue 35). */
  kioskEnrolLimiter: RateLimiter;
  kioskPinLimiter: RateLimiter;
  /** A person's own kiosk PIN changes (PUT /self/pin), per person and per client address. */
  selfPinPersonLimiter: RateLimiter;
  selfPinAddressLimiter: RateLimiter;
  cursors: CursorCodec;
  /** The key that encrypts webhook secrets at rest (WEBHOOK_ENCRYPTION_KEY or the database's). */
  webhookKey: Buffer;
  metrics: Metrics;
  /** Sheds overload before Fastify routes a request (http/overload-gate.ts). */
  overloadGate: OverloadGate;
  urls: ReturnType<typeof resolveUrls>;
  problemFor(request: FastifyRequest, error: ApiError): ProblemBody;
  /**
   * Spec, Limits: rate-limit headers on every response. A response that has none by now charged no
   * key; it gets its route's policy with the quota untouched.
   */
  ensureRateLimitHeaders(request: FastifyRequest, reply: FastifyReply): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
}
