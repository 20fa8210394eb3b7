import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { type RateLimitResult, SlidingWindowLimiter } from './sliding-window.js';

/**
 * A rate limit as the routes use it: the spec's sliding window of `limit` requests per `windowMs` per
 * key. Counted in this process, or, with REDIS_URL, across every instance (see SharedLimiter).
 */
export interface RateLimiter {
  readonly name: string;
  readonly limit: number;
  readonly windowMs: number;
  /** Counts a request of `key` and says whether it is allowed. */
  hit(key: string, nowMs: number): Promise<RateLimitResult>;
  /** The quota of `key` as it stands, counting nothing. */
  peek(key: string, nowMs: number): Promise<RateLimitResult>;
  /** The quota of a key that has made no request. */
  untouched(): RateLimitResult;
  /** Forgets what no longer counts (in-process counters only). */
  sweep(nowMs: number): void;
}

export class LocalLimiter implements RateLimiter {
  private readonly window: SlidingWindowLimiter;

  constructor(
    readonly name: string,
    options: { limit: number; windowMs: number },
  ) {
    this.window = new SlidingWindowLimiter(options);
  }

  get limit() {
    return this.window.limit;
  }

  get windowMs() {
    return this.window.windowMs;
  }

  async hit(key: string, nowMs: number) {
    return this.window.hit(key, nowMs);
  }

  async peek(key: string, nowMs: number) {
    return this.window.peek(key, nowMs);
  }

  untouched() {
    return this.window.untouched();
  }

  sweep(nowMs: number) {
    this.window.sweep(nowMs);
  }
}

/*
 * The same sliding window in Redis, one sorted set per key (members: request instants), changed by
 * one atomic script: drop what left the window, then count; below the limit, add this request.
 * Returns the count after the call, whether it was allowed, and the oldest instant still counted.
 */
const HIT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1] - ARGV[2])
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if ARGV[4] == '1' and count < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[5])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  count = count + 1
  allowed = 1
elseif ARGV[4] == '0' then
  allowed = count < tonumber(ARGV[3]) and 1 or 0
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return { count, allowed, oldest[2] or '' }
`;

/**
 * Counts across every instance that shares `redis`. When Redis cannot answer, each instance falls back
 * to counting on its own (`fallback`), says so once in the log (and in `onStateChange`), and never
 * fails a request for it; it counts in Redis again as soon as Redis answers.
 */
export class SharedLimiter implements RateLimiter {
  private usingFallback = false;

  constructor(
    private readonly redis: Redis,
    private readonly fallback: LocalLimiter,
    private readonly onStateChange: (shared: boolean, error?: unknown) => void,
  ) {}

  get name() {
    return this.fallback.name;
  }

  get limit() {
    return this.fallback.limit;
  }

  get windowMs() {
    return this.fallback.windowMs;
  }

  untouched() {
    return this.fallback.untouched();
  }

  sweep(nowMs: number) {
    this.fallback.sweep(nowMs);
  }

  hit(key: string, nowMs: number) {
    return this.run(key, nowMs, true);
  }

  peek(key: string, nowMs: number) {
    return this.run(key, nowMs, false);
  }

  private async run(key: string, nowMs: number, count: boolean): Promise<RateLimitResult> {
    try {
      // Unique across every instance: a pid and a per-limiter count are not (two apps in one process,
      // or containers that all run as pid 1, hitting in the same millisecond would count once).
      const member = `${nowMs}:${randomUUID()}`;
      const [current, allowed, oldest] = (await this.redis.eval(
        HIT,
        1,
        `punchclock:rate:${this.name}:${key}`,
        String(nowMs),
        String(this.windowMs),
        String(this.limit),
        count ? '1' : '0',
        member,
      )) as [number, number, string];
      if (this.usingFallback) {
        this.usingFallback = false;
        this.onStateChange(true);
      }
      let resetSeconds = 0;
      if (current > 0 && oldest !== '') {
        const untilFree = Math.min(Number(oldest) + this.windowMs - nowMs, this.windowMs);
        resetSeconds = Math.max(1, Math.ceil(untilFree / 1000));
      }
      const ok = allowed === 1;
      return {
        allowed: ok,
        limit: this.limit,
        remaining: Math.max(0, this.limit - current),
        resetSeconds,
        retryAfterSeconds: ok ? 0 : resetSeconds,
      };
    } catch (error) {
      if (!this.usingFallback) {
        this.usingFallback = true;
        this.onStateChange(false, error);
      }
      return count ? this.fallback.hit(key, nowMs) : this.fallback.peek(key, nowMs);
    }
  }
}

/** A Redis client that fails fast instead of queueing commands while it is away. */
export function connectRedis(url: string): Redis {
  const redis = new Redis(url, {
    lazyConnect: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 1_000,
    commandTimeout: 500,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  // Errors are answered per command (see SharedLimiter); the client keeps reconnecting.
  redis.on('error', () => {});
  return redis;
}

/**
 * The service's three limits: resource requests per key, token requests per key, token requests per
 * address for unknown clients. With `redisUrl`, counted across the fleet; `report` hears when the
 * count falls back to this instance (Redis away) and when it is shared again.
 */
export function createLimiters(
  options: {
    resourcePerMinute: number;
    tokenPerMinute: number;
    redisUrl: string | null;
    /** Console sign-in attempts per account and per address, in a window of 15 minutes. */
    signInPerAccount?: number;
    signInPerAddress?: number;
  },
  report: (shared: boolean, error?: unknown) => void,
) {
  const windowMs = 60_000;
  const signInWindowMs = 15 * 60_000;
  const local = {
    resource: new LocalLimiter('resource', { limit: options.resourcePerMinute, windowMs }),
    token: new LocalLimiter('token', { limit: options.tokenPerMinute, windowMs }),
    unknownClient: new LocalLimiter('unknown-client', { limit: options.tokenPerMinute, windowMs }),
    signInAccount: new LocalLimiter('sign-in-account', {
      limit: options.signInPerAccount ?? 10,
      windowMs: signInWindowMs,
    }),
    signInAddress: new LocalLimiter('sign-in-address', {
      limit: options.signInPerAddress ?? 50,
      windowMs: signInWindowMs,
    }),
    // Single sign-on starts, per address like sign-in, under a count of their own.
    ssoStartAddress: new LocalLimiter('sso-start-address', {
      limit: options.signInPerAddress ?? 50,
      windowMs: signInWindowMs,
    }),
    // Kiosk devices (issue 35), per address in 15 minutes: enrolment codes tried, and PINs tried
    // (a workplace's kiosks share an address; the per-device and per-employee lock-outs are the database's).
    kioskEnrolAddress: new LocalLimiter('kiosk-enrol-address', { limit: 20, windowMs: signInWindowMs }),
    kioskPinAddress: new LocalLimiter('kiosk-pin-address', { limit: 300, windowMs: signInWindowMs }),
    // A person's own kiosk PIN (PUT /self/pin, a slow hash each): per person and per address, in 15 minutes.
    selfPinPerson: new LocalLimiter('self-pin-person', { limit: 5, windowMs: signInWindowMs }),
    selfPinAddress: new LocalLimiter('self-pin-address', { limit: 50, windowMs: signInWindowMs }),
  };
  if (options.redisUrl === null)
    return {
      resourceLimiter: local.resource as RateLimiter,
      tokenLimiter: local.token as RateLimiter,
      unknownClientLimiter: local.unknownClient as RateLimiter,
      signInAccountLimiter: local.signInAccount as RateLimiter,
      signInAddressLimiter: local.signInAddress as RateLimiter,
      ssoStartLimiter: local.ssoStartAddress as RateLimiter,
      kioskEnrolLimiter: local.kioskEnrolAddress as RateLimiter,
      kioskPinLimiter: local.kioskPinAddress as RateLimiter,
      selfPinPersonLimiter: local.selfPinPerson as RateLimiter,
      selfPinAddressLimiter: local.selfPinAddress as RateLimiter,
      close: async () => {},
    };
  const redis = connectRedis(options.redisUrl);
  // One report for the three: they share the connection, so they fall back and recover together.
  let shared = true;
  const onStateChange = (now: boolean, error?: unknown) => {
    if (now === shared) return;
    shared = now;
    report(now, error);
  };
  return {
    resourceLimiter: new SharedLimiter(redis, local.resource, onStateChange) as RateLimiter,
    tokenLimiter: new SharedLimiter(redis, local.token, onStateChange) as RateLimiter,
    unknownClientLimiter: new SharedLimiter(redis, local.unknownClient, onStateChange) as RateLimiter,
    signInAccountLimiter: new SharedLimiter(redis, local.signInAccount, onStateChange) as RateLimiter,
    signInAddressLimiter: new SharedLimiter(redis, local.signInAddress, onStateChange) as RateLimiter,
    ssoStartLimiter: new SharedLimiter(redis, local.ssoStartAddress, onStateChange) as RateLimiter,
    kioskEnrolLimiter: new SharedLimiter(redis, local.kioskEnrolAddress, onStateChange) as RateLimiter,
    kioskPinLimiter: new SharedLimiter(redis, local.kioskPinAddress, onStateChange) as RateLimiter,
    selfPinPersonLimiter: new SharedLimiter(redis, local.selfPinPerson, onStateChange) as RateLimiter,
    selfPinAddressLimiter: new SharedLimiter(redis, local.selfPinAddress, onStateChange) as RateLimiter,
    close: async () => {
      redis.disconnect();
    },
  };
}
