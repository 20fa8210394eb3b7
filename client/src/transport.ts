import { retryAfterSeconds } from './errors.js';

/** What the client needs of `fetch`: the global one, or a wrapper of it. */
export type FetchLike = (request: Request) => Promise<Response>;

export interface TransportOptions {
  fetch: FetchLike;
  now: () => number;
  sleep: (milliseconds: number) => Promise<void>;
  /** Retries of one call after 429, 502/503/504, 409 idempotency_in_flight or a network error. */
  maxRetries: number;
}

/** Bearer-token source of the resource calls; see TokenCache. */
export interface TokenSource {
  get(): Promise<string>;
  /** Drops `token` from the cache (if it is still the cached one) after the server refused it. */
  invalidate(token: string): void;
}

const RETRIED_STATUSES = new Set([502, 503, 504]);
/** Used when a 429 carries no readable Retry-After (the server always sends one). */
const DEFAULT_RETRY_AFTER_SECONDS = 1;

/**
 * Sends one API call, resending it as needed. Every attempt is a clone of `request`, so a write's
 * body and its `Idempotency-Key` are the same on every attempt, and the server's idempotency
 * record makes the resend safe. With `tokens`: the bearer token is set on each attempt; a 401
 * drops it, a new one is fetched and the call is resent once.
 */
export function createTransport(options: TransportOptions, tokens: TokenSource | null): FetchLike {
  return async function send(request: Request): Promise<Response> {
    let renewed = false;
    let retries = 0;
    for (;;) {
      const attempt = request.clone();
      let token: string | null = null;
      if (tokens) {
        token = await tokens.get();
        attempt.headers.set('authorization', `Bearer ${token}`);
      }
      let response: Response;
      try {
        response = await options.fetch(attempt);
      } catch (error) {
        if (retries < options.maxRetries && isNetworkError(error)) {
          retries++;
          await options.sleep(backoffMs(retries));
          continue;
        }
        throw error;
      }
      if (response.status === 401 && tokens && token !== null && !renewed) {
        // Expired early, revoked key rotated, or a clock skew: exchange the key again, once.
        await discard(response);
        tokens.invalidate(token);
        renewed = true;
        continue;
      }
      if (retries < options.maxRetries) {
        if (response.status === 429) {
          const seconds = retryAfterSeconds(response, options.now) ?? DEFAULT_RETRY_AFTER_SECONDS;
          await discard(response);
          retries++;
          await options.sleep(seconds * 1000);
          continue;
        }
        if (RETRIED_STATUSES.has(response.status) || (await isInFlight(response))) {
          await discard(response);
          retries++;
          await options.sleep(backoffMs(retries));
          continue;
        }
      }
      return response;
    }
  };
}

/** 500 ms, 1 s, 2 s, … capped at 8 s. */
function backoffMs(retry: number): number {
  return Math.min(8000, 500 * 2 ** (retry - 1));
}

/** `fetch` rejects with a TypeError when the connection fails; an abort is not retried. */
function isNetworkError(error: unknown): boolean {
  return error instanceof TypeError;
}

/** 409 idempotency_in_flight: the first request with this key is still running; ask again later. */
async function isInFlight(response: Response): Promise<boolean> {
  if (response.status !== 409) return false;
  try {
    const body = (await response.clone().json()) as { error?: unknown };
    return body.error === 'idempotency_in_flight';
  } catch {
    return false;
  }
}

async function discard(response: Response): Promise<void> {
  try {
    await response.body?.cancel();
  } catch {
    // nothing to free
  }
}
