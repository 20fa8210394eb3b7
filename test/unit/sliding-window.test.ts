import { describe, expect, it } from 'vitest';
import { SlidingWindowLimiter } from '../../src/http/plugins/rate-limit/sliding-window.js';

describe('SlidingWindowLimiter', () => {
  it('rejects invalid options', () => {
    expect(() => new SlidingWindowLimiter({ limit: 0, windowMs: 1000 })).toThrow(RangeError);
    expect(() => new SlidingWindowLimiter({ limit: 1.5, windowMs: 1000 })).toThrow(RangeError);
    expect(() => new SlidingWindowLimiter({ limit: 1, windowMs: 0 })).toThrow(RangeError);
    expect(() => new SlidingWindowLimiter({ limit: 1, windowMs: Number.NaN })).toThrow(RangeError);
    expect(() => new SlidingWindowLimiter({ limit: 1, windowMs: 1000, maxKeys: 0 })).toThrow(RangeError);
  });

  it('allows exactly `limit` requests and counts remaining down to zero', () => {
    const limiter = new SlidingWindowLimiter({ limit: 3, windowMs: 60_000 });
    expect(limiter.hit('k', 0)).toEqual({
      allowed: true,
      limit: 3,
      remaining: 2,
      resetSeconds: 60,
      retryAfterSeconds: 0,
    });
    expect(limiter.hit('k', 0).remaining).toBe(1);
    const third = limiter.hit('k', 0);
    expect(third.allowed).toBe(true);
    expect(third.remaining).toBe(0);
    const fourth = limiter.hit('k', 0);
    expect(fourth).toEqual({
      allowed: false,
      limit: 3,
      remaining: 0,
      resetSeconds: 60,
      retryAfterSeconds: 60,
    });
  });

  it('slides continuously: a slot frees exactly when the oldest request is windowMs old', () => {
    const limiter = new SlidingWindowLimiter({ limit: 3, windowMs: 60_000 });
    expect(limiter.hit('k', 0).allowed).toBe(true);
    expect(limiter.hit('k', 10_000).allowed).toBe(true);
    expect(limiter.hit('k', 20_000).allowed).toBe(true);

    const refused = limiter.hit('k', 59_900);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterSeconds).toBe(1);
    expect(refused.resetSeconds).toBe(1);

    expect(limiter.hit('k', 59_999.999).allowed).toBe(false);
    const allowed = limiter.hit('k', 60_001);
    expect(allowed.allowed).toBe(true);
    expect(allowed.remaining).toBe(0);
    // Oldest counted is now t=10s, leaving at t=70s.
    expect(allowed.resetSeconds).toBe(10);

    expect(limiter.hit('k', 60_002).allowed).toBe(false);
    expect(limiter.hit('k', 70_000).allowed).toBe(true);
    expect(limiter.hit('k', 80_000).allowed).toBe(true);
    expect(limiter.hit('k', 80_000).allowed).toBe(false);
  });

  it('treats the window as half-open: a request at t stops counting at t + windowMs', () => {
    const limiter = new SlidingWindowLimiter({ limit: 1, windowMs: 1000 });
    expect(limiter.hit('k', 5000).allowed).toBe(true);
    expect(limiter.hit('k', 5999).allowed).toBe(false);
    expect(limiter.hit('k', 6000).allowed).toBe(true);
  });

  it('does not count refused requests', () => {
    const limiter = new SlidingWindowLimiter({ limit: 2, windowMs: 1000 });
    limiter.hit('k', 0);
    limiter.hit('k', 0);
    for (let t = 1; t < 1000; t += 50) expect(limiter.hit('k', t).allowed).toBe(false);
    expect(limiter.hit('k', 1000)).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('rounds retryAfterSeconds and resetSeconds up to whole seconds', () => {
    const limiter = new SlidingWindowLimiter({ limit: 1, windowMs: 2500 });
    expect(limiter.hit('k', 0).resetSeconds).toBe(3);
    expect(limiter.hit('k', 1).retryAfterSeconds).toBe(3);
    expect(limiter.hit('k', 500).retryAfterSeconds).toBe(2);
    expect(limiter.hit('k', 1500).retryAfterSeconds).toBe(1);
    expect(limiter.hit('k', 2499.5).retryAfterSeconds).toBe(1);
  });

  it('keeps keys independent', () => {
    const limiter = new SlidingWindowLimiter({ limit: 1, windowMs: 1000 });
    expect(limiter.hit('a', 0).allowed).toBe(true);
    expect(limiter.hit('a', 0).allowed).toBe(false);
    expect(limiter.hit('b', 0).allowed).toBe(true);
  });

  it('peek reports without counting', () => {
    const limiter = new SlidingWindowLimiter({ limit: 2, windowMs: 10_000 });
    expect(limiter.peek('k', 0)).toEqual({
      allowed: true,
      limit: 2,
      remaining: 2,
      resetSeconds: 0,
      retryAfterSeconds: 0,
    });
    expect(limiter.size).toBe(0);
    limiter.hit('k', 0);
    expect(limiter.peek('k', 1000)).toEqual({
      allowed: true,
      limit: 2,
      remaining: 1,
      resetSeconds: 9,
      retryAfterSeconds: 0,
    });
    expect(limiter.peek('k', 1000).remaining).toBe(1);
    limiter.hit('k', 2000);
    expect(limiter.peek('k', 3000)).toEqual({
      allowed: false,
      limit: 2,
      remaining: 0,
      resetSeconds: 7,
      retryAfterSeconds: 7,
    });
    expect(limiter.peek('k', 12_000)).toMatchObject({ allowed: true, remaining: 2, resetSeconds: 0 });
  });

  it('handles long runs correctly across ring-buffer growth and wrap-around', () => {
    const limit = 50;
    const windowMs = 1000;
    const limiter = new SlidingWindowLimiter({ limit, windowMs });
    const accepted: number[] = [];
    // Reference model: a plain array of accepted timestamps.
    for (let i = 0; i < 5000; i++) {
      const t = i * 7.3;
      const live = accepted.filter((a) => a + windowMs > t);
      const expected = live.length < limit;
      const result = limiter.hit('k', t);
      expect(result.allowed).toBe(expected);
      if (expected) accepted.push(t);
      expect(result.remaining).toBe(limit - (expected ? live.length + 1 : live.length));
      if (accepted.length > 200) accepted.splice(0, accepted.length - 200);
    }
  });

  it('evicts the least recently used key once maxKeys is exceeded', () => {
    const limiter = new SlidingWindowLimiter({ limit: 1, windowMs: 60_000, maxKeys: 2 });
    limiter.hit('a', 0);
    limiter.hit('b', 1);
    // Touching 'a' makes 'b' the least recently used.
    expect(limiter.hit('a', 2).allowed).toBe(false);
    limiter.hit('c', 3);
    expect(limiter.size).toBe(2);
    // 'a' and 'c' kept their state; 'b' was forgotten and starts afresh.
    expect(limiter.peek('a', 4).allowed).toBe(false);
    expect(limiter.peek('c', 4).allowed).toBe(false);
    expect(limiter.peek('b', 4).remaining).toBe(1);
    expect(limiter.hit('b', 5).allowed).toBe(true);
    expect(limiter.size).toBe(2);
    // 'a' was least recent at that point (peek does not refresh recency).
    expect(limiter.peek('a', 6).remaining).toBe(1);
  });

  it('keeps memory bounded under a flood of distinct keys', () => {
    const limiter = new SlidingWindowLimiter({ limit: 5, windowMs: 1000, maxKeys: 100 });
    for (let i = 0; i < 10_000; i++) limiter.hit(`key-${i}`, i);
    expect(limiter.size).toBe(100);
    expect(limiter.peek('key-9999', 10_000).remaining).toBe(4);
  });

  it('sweep drops keys whose window is empty and keeps active ones', () => {
    const limiter = new SlidingWindowLimiter({ limit: 2, windowMs: 1000 });
    limiter.hit('old', 0);
    limiter.hit('recent', 900);
    expect(limiter.sweep(999)).toBe(0);
    expect(limiter.sweep(1000)).toBe(1);
    expect(limiter.size).toBe(1);
    expect(limiter.peek('recent', 1000).remaining).toBe(1);
    expect(limiter.sweep(1900)).toBe(1);
    expect(limiter.size).toBe(0);
  });

  it('stays consistent when the clock steps backwards', () => {
    const limiter = new SlidingWindowLimiter({ limit: 2, windowMs: 1000 });
    limiter.hit('k', 10_000);
    const back = limiter.hit('k', 5000);
    expect(back.allowed).toBe(true);
    expect(back.resetSeconds).toBe(1);
    expect(limiter.hit('k', 5000)).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    expect(limiter.hit('k', 11_000).remaining).toBe(1);
  });
});
