import { describe, expect, it } from 'vitest';
import { rateLimitHeaders, unchargedRateLimitHeaders } from '../../src/http/plugins/rate-limit/headers.js';
import { SlidingWindowLimiter } from '../../src/http/plugins/rate-limit/sliding-window.js';

describe('rateLimitHeaders', () => {
  it('emits exactly the draft and legacy headers', () => {
    expect(rateLimitHeaders({ limit: 100, remaining: 42, resetSeconds: 17 }, 60)).toStrictEqual({
      'ratelimit-policy': 'apikey;q=100;w=60',
      ratelimit: 'limit=100, remaining=42, reset=17',
      'x-ratelimit-limit': '100',
      'x-ratelimit-remaining': '42',
      'x-ratelimit-reset': '17',
    });
  });

  it('renders zero values and ignores extra fields of a limiter result', () => {
    const limiter = new SlidingWindowLimiter({ limit: 1, windowMs: 30_000 });
    limiter.hit('k', 0);
    const refused = limiter.hit('k', 10_000);
    const headers = rateLimitHeaders(refused, 30);
    expect(Object.keys(headers)).toHaveLength(5);
    expect(headers['ratelimit']).toBe('limit=1, remaining=0, reset=20');
    expect(headers['ratelimit-policy']).toBe('apikey;q=1;w=30');
    expect(headers['x-ratelimit-remaining']).toBe('0');
    expect(headers['x-ratelimit-reset']).toBe('20');
  });

  it("describes an uncharged response with the limiter's policy and its quota untouched", () => {
    const limiter = new SlidingWindowLimiter({ limit: 7, windowMs: 30_000 });
    limiter.hit('k', 0);
    expect(unchargedRateLimitHeaders(limiter)).toStrictEqual({
      'ratelimit-policy': 'apikey;q=7;w=30',
      ratelimit: 'limit=7, remaining=7, reset=0',
      'x-ratelimit-limit': '7',
      'x-ratelimit-remaining': '7',
      'x-ratelimit-reset': '0',
    });
    expect(limiter.peek('k', 0).remaining).toBe(6);
  });

  it('returns string values only', () => {
    const headers = rateLimitHeaders({ limit: 5, remaining: 5, resetSeconds: 0 }, 1);
    for (const value of Object.values(headers)) expect(typeof value).toBe('string');
    expect(headers['ratelimit']).toBe('limit=5, remaining=5, reset=0');
  });
});
