import type { FastifyReply } from 'fastify';
import { ApiError } from '../../../domain/errors.js';
import { type RateLimiter } from './limiter.js';

export interface RateLimitHeaderInput {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

/**
 * Emits both the IETF draft fields (RateLimit-Policy / RateLimit) and the legacy X-RateLimit-*
 * trio, because client libraries in the wild read one or the other. The names are lowercase, as
 * Fastify stores and sends them: it lowercases every name it is given, and a mixed-case name would
 * cost a fresh string, and a fresh property key, on every response.
 */
export function rateLimitHeaders(r: RateLimitHeaderInput, windowSeconds: number): Record<string, string> {
  return {
    'ratelimit-policy': `apikey;q=${r.limit};w=${windowSeconds}`,
    ratelimit: `limit=${r.limit}, remaining=${r.remaining}, reset=${r.resetSeconds}`,
    'x-ratelimit-limit': String(r.limit),
    'x-ratelimit-remaining': String(r.remaining),
    'x-ratelimit-reset': String(r.resetSeconds),
  };
}

/** How the names are written where the service writes a response itself, outside Fastify. */
export const RATE_LIMIT_HEADER_DISPLAY_NAMES: Readonly<Record<string, string>> = {
  'ratelimit-policy': 'RateLimit-Policy',
  ratelimit: 'RateLimit',
  'x-ratelimit-limit': 'X-RateLimit-Limit',
  'x-ratelimit-remaining': 'X-RateLimit-Remaining',
  'x-ratelimit-reset': 'X-RateLimit-Reset',
};

/** The headers of `quota`, an answer of `limiter`, whose window is the policy's. */
export function quotaHeaders(
  limiter: Pick<RateLimiter, 'windowMs'>,
  quota: RateLimitHeaderInput,
): Record<string, string> {
  return rateLimitHeaders(quota, limiter.windowMs / 1000);
}

/**
 * The headers of a response that charged no key (no valid token, an unknown route, a request refused
 * before its key is known): the policy, with the quota untouched.
 */
export function unchargedRateLimitHeaders(
  limiter: Pick<RateLimiter, 'windowMs' | 'untouched'>,
): Record<string, string> {
  return quotaHeaders(limiter, limiter.untouched());
}

/**
 * Charges one attempt to `key` (the console's sign-in, single sign-on starts): nothing when allowed;
 * over the limit, the quota's headers on `reply` and 429 rate_limited with Retry-After, saying `what`.
 */
export async function chargeAttempt(
  limiter: RateLimiter,
  key: string,
  nowMs: number,
  reply: FastifyReply,
  what: string,
): Promise<void> {
  const quota = await limiter.hit(key, nowMs);
  if (quota.allowed) return;
  reply.headers(quotaHeaders(limiter, quota));
  throw new ApiError('rate_limited', `too many ${what}; wait before trying again`, null, {
    'retry-after': String(quota.retryAfterSeconds),
  });
}
