export interface SlidingWindowOptions {
  limit: number;
  windowMs: number;
  maxKeys?: number;
}

export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /**
   * Whole seconds (rounded up) until the oldest counted request leaves the window; at least 1 while
   * anything is counted, 0 only when the window is empty (possible from `peek`, never after an
   * allowed `hit`).
   */
  resetSeconds: number;
  /** 0 when allowed; otherwise whole seconds (rounded up, at least 1) until a slot frees. */
  retryAfterSeconds: number;
}

const INITIAL_CAPACITY = 8;

// Timestamps are kept oldest-first in a ring so expiry only ever looks at the head.
class TimestampRing {
  private buffer: Float64Array;
  private head = 0;
  count = 0;

  constructor(private readonly maxCapacity: number) {
    // Start small and double up to the limit: most keys never come close to a large limit, and
    // pre-allocating `limit` slots for each of maxKeys keys would dwarf the data actually held.
    this.buffer = new Float64Array(Math.min(maxCapacity, INITIAL_CAPACITY));
  }

  oldest(): number {
    return this.buffer[this.head]!;
  }

  newest(): number {
    return this.buffer[(this.head + this.count - 1) % this.buffer.length]!;
  }

  push(value: number): void {
    if (this.count === this.buffer.length) this.grow();
    this.buffer[(this.head + this.count) % this.buffer.length] = value;
    this.count++;
  }

  shift(): void {
    this.head = (this.head + 1) % this.buffer.length;
    this.count--;
  }

  private grow(): void {
    const next = new Float64Array(Math.min(this.maxCapacity, this.buffer.length * 2));
    for (let i = 0; i < this.count; i++) {
      next[i] = this.buffer[(this.head + i) % this.buffer.length]!;
    }
    this.buffer = next;
    this.head = 0;
  }
}

function assertPositiveInteger(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a positive integer, got ${value}`);
  }
}

/**
 * Exact sliding-log limiter: a request made at `t` occupies a slot for `t <= now < t + windowMs`.
 * State lives in this instance only, so each server process enforces its own budget.
 */
export class SlidingWindowLimiter {
  readonly limit: number;
  readonly windowMs: number;
  readonly maxKeys: number;
  // Map iteration follows insertion order; re-inserting on each hit keeps the least recently used
  // key first, which makes LRU eviction O(1).
  private readonly logs = new Map<string, TimestampRing>();

  constructor(options: SlidingWindowOptions) {
    assertPositiveInteger('limit', options.limit);
    if (!Number.isFinite(options.windowMs) || options.windowMs <= 0) {
      throw new RangeError(`windowMs must be a positive number, got ${options.windowMs}`);
    }
    const maxKeys = options.maxKeys ?? 100_000;
    assertPositiveInteger('maxKeys', maxKeys);
    this.limit = options.limit;
    this.windowMs = options.windowMs;
    this.maxKeys = maxKeys;
  }

  get size(): number {
    return this.logs.size;
  }

  hit(key: string, nowMs: number = Date.now()): RateLimitResult {
    let log = this.logs.get(key);
    if (log === undefined) {
      log = new TimestampRing(this.limit);
      // Evicting forgets that key's history (it starts afresh if it returns); that is the price of
      // bounded memory, and only the least recently active keys pay it.
      while (this.logs.size >= this.maxKeys) {
        const lru = this.logs.keys().next();
        if (lru.done) break;
        this.logs.delete(lru.value);
      }
    } else {
      this.logs.delete(key);
    }
    this.logs.set(key, log);

    this.expire(log, nowMs);
    if (log.count >= this.limit) return this.describe(log, nowMs, false);
    // A clock that steps backwards must not break the oldest-first order the ring relies on.
    log.push(log.count > 0 ? Math.max(nowMs, log.newest()) : nowMs);
    return this.describe(log, nowMs, true);
  }

  /** The quota of a key that has nothing counted in its window. */
  untouched(): RateLimitResult {
    return { allowed: true, limit: this.limit, remaining: this.limit, resetSeconds: 0, retryAfterSeconds: 0 };
  }

  /** Reports what `hit` would return without counting a request or refreshing the key's recency. */
  peek(key: string, nowMs: number = Date.now()): RateLimitResult {
    const log = this.logs.get(key);
    if (log === undefined) return this.untouched();
    this.expire(log, nowMs);
    return this.describe(log, nowMs, log.count < this.limit);
  }

  /** Drops keys whose window is empty; returns how many were dropped. */
  sweep(nowMs: number = Date.now()): number {
    let dropped = 0;
    for (const [key, log] of this.logs) {
      this.expire(log, nowMs);
      if (log.count === 0) {
        this.logs.delete(key);
        dropped++;
      }
    }
    return dropped;
  }

  private expire(log: TimestampRing, nowMs: number): void {
    while (log.count > 0 && log.oldest() + this.windowMs <= nowMs) log.shift();
  }

  private describe(log: TimestampRing, nowMs: number, allowed: boolean): RateLimitResult {
    let resetSeconds = 0;
    if (log.count > 0) {
      const untilFree = Math.min(log.oldest() + this.windowMs - nowMs, this.windowMs);
      resetSeconds = Math.max(1, Math.ceil(untilFree / 1000));
    }
    return {
      allowed,
      limit: this.limit,
      remaining: Math.max(0, this.limit - log.count),
      resetSeconds,
      retryAfterSeconds: allowed ? 0 : resetSeconds,
    };
  }
}
