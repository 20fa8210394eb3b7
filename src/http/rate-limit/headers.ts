import type { SlidingWindowLimiter } from './sliding-window.js';

export interface RateLimitHeaderInput {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

/**
 * Emits both the IETF draft fields (RateLimit-Policy / RateLimit) and the legacy X-RateLimit-*
 * trio, because client libraries in the wild read one or the other.
 */
export function rateLimitHeaders(r: RateLimitHeaderInput, windowSeconds: number): Record<string, string> {
  return {
    'RateLimit-Policy': `apikey;q=${r.limit};w=${windowSeconds}`,
    RateLimit: `limit=${r.limit}, remaining=${r.remaining}, reset=${r.resetSeconds}`,
    'X-RateLimit-Limit': String(r.limit),
    'X-RateLimit-Remaining': String(r.remaining),
    'X-RateLimit-Reset': String(r.resetSeconds),
  };
}

/** The headers of `quota`, an answer of `limiter`, whose window is the policy's. */
export function quotaHeaders(
  limiter: SlidingWindowLimiter,
  quota: RateLimitHeaderInput,
): Record<string, string> {
  return rateLimitHeaders(quota, limiter.windowMs / 1000);
}

/**
 * The headers of a response that charged no key (no valid token, an unknown route, a request refused
 * before its key is known): the policy, with the quota untouched.
 */
export function unchargedRateLimitHeaders(limiter: SlidingWindowLimiter): Record<string, string> {
  return quotaHeaders(limiter, limiter.untouched());
}
