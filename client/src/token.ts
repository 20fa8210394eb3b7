import createClient from 'openapi-fetch';
import { PunchclockError } from './errors.js';
import type { paths } from './schema.js';
import { createTransport, type TokenSource, type TransportOptions } from './transport.js';

/** Renew this long before `expires_in` runs out (at most a tenth of the lifetime). */
const RENEW_MARGIN_SECONDS = 30;

export interface TokenCacheOptions extends TransportOptions {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
}

/**
 * Exchanges the API key for an access token (OAuth 2.0 client credentials, form body) and keeps it
 * until shortly before `expires_in` runs out. Concurrent callers share one token request. The
 * credentials live in private fields only: they never reach a URL, a log or an error message.
 */
export class TokenCache implements TokenSource {
  readonly #clientId: string;
  readonly #clientSecret: string;
  readonly #now: () => number;
  readonly #api;
  #current: { token: string; renewAt: number } | null = null;
  #pending: Promise<string> | null = null;

  constructor(options: TokenCacheOptions) {
    this.#clientId = options.clientId;
    this.#clientSecret = options.clientSecret;
    this.#now = options.now;
    this.#api = createClient<paths>({ baseUrl: options.baseUrl, fetch: createTransport(options, null) });
  }

  get(): Promise<string> {
    const current = this.#current;
    if (current && this.#now() < current.renewAt) return Promise.resolve(current.token);
    this.#pending ??= this.#request().finally(() => {
      this.#pending = null;
    });
    return this.#pending;
  }

  invalidate(token: string): void {
    if (this.#current?.token === token) this.#current = null;
  }

  async #request(): Promise<string> {
    const requestedAt = this.#now();
    const { data, error, response } = await this.#api.POST('/api/public/v1/oauth/token', {
      body: {
        grant_type: 'client_credentials',
        client_id: this.#clientId,
        client_secret: this.#clientSecret,
      },
      bodySerializer: (body) => new URLSearchParams(body as Record<string, string>).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    });
    if (!response.ok || data === undefined) throw PunchclockError.fromResponse('issueToken', response, error);
    const lifetime = data.expires_in;
    const margin = Math.min(RENEW_MARGIN_SECONDS, lifetime / 10);
    this.#current = { token: data.access_token, renewAt: requestedAt + (lifetime - margin) * 1000 };
    return data.access_token;
  }
}
