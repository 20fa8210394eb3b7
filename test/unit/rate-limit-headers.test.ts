import { describe, expect, it } from 'vitest';
import { rateLimitHeaders, unchargedRateLimitHeaders } from '../../src/http/rate-limit/headers.js';
import { SlidingWindowLimiter } from '../../src/http/rate-limit/sliding-window.js';

describe('rateLimitHeaders', () => {
  it('emits exactly the draft and legacy headers', () => {
    expect(rateLimitHeaders({ limit: 100, remaining: 42, resetSeconds: 17 }, 60)).toStrictEqual({
      'RateLimit-Policy': 'apikey;q=100;w=60',
      RateLimit: 'limit=100, remaining=42, reset=17',
      'X-RateLimit-Limit': '100',
      'X-RateLimit-Remaining': '42',
      'X-RateLimit-Reset': '17',
    });
  });

  it('renders zero values and ignores extra fields of a limiter result', () => {
    const limiter = new SlidingWindowLimiter({ limit: 1, windowMs: 30_000 });
    limiter.hit('k', 0);
    const refused = limiter.hit('k', 10_000);
    const headers = rateLimitHeaders(refused, 30);
    expect(Object.keys(headers)).toHaveLength(5);
    expect(headers['RateLimit']).toBe('limit=1, remaining=0, reset=20');
    expect(headers['RateLimit-Policy']).toBe('apikey;q=1;w=30');
    expect(headers['X-RateLimit-Remaining']).toBe('0');
    expect(headers['X-RateLimit-Reset']).toBe('20');
  });

  it("describes an uncharged response with the limiter's policy and its quota untouched", () => {
    const limiter = new SlidingWindowLimiter({ limit: 7, windowMs: 30_000 });
    limiter.hit('k', 0);
    expect(unchargedRateLimitHeaders(limiter)).toStrictEqual({
      'RateLimit-Policy': 'apikey;q=7;w=30',
      RateLimit: 'limit=7, remaining=7, reset=0',
      'X-RateLimit-Limit': '7',
      'X-RateLimit-Remaining': '7',
      'X-RateLimit-Reset': '0',
    });
    expect(limiter.peek('k', 0).remaining).toBe(6);
  });

  it('returns string values only', () => {
    const headers = rateLimitHeaders({ limit: 5, remaining: 5, resetSeconds: 0 }, 1);
    for (const value of Object.values(headers)) expect(typeof value).toBe('string');
    expect(headers['RateLimit']).toBe('limit=5, remaining=5, reset=0');
  });
});
