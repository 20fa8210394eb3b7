import { ContractChecker } from './contract.js';
import { PROVIDER_PASSWORD, type TestProvider } from './oidc-provider.js';
import type { TestServer } from './server.js';

/**
 * A browser over HTTP for the single sign-on tests: it keeps cookies per origin (ours and the
 * provider's), follows nothing by itself, and holds every answer of our server to the admin API's
 * OpenAPI document. `signIn` walks the whole flow: start → provider → its sign-in page → callback.
 */

export const ADMIN = '/api/admin/v1';

export class SsoBrowser {
  private readonly jar = new Map<string, Map<string, string>>();

  private constructor(
    private readonly server: TestServer,
    private readonly contract: ContractChecker,
  ) {}

  static async create(server: TestServer): Promise<SsoBrowser> {
    const response = await fetch(`${server.listenUrl}${ADMIN}/openapi.json`);
    return new SsoBrowser(server, new ContractChecker((await response.json()) as Record<string, unknown>));
  }

  /** Another browser: no cookies. */
  fresh(): SsoBrowser {
    return new SsoBrowser(this.server, this.contract);
  }

  cookie(origin: string, name: string): string | undefined {
    return this.jar.get(origin)?.get(name);
  }

  setCookie(origin: string, name: string, value: string | null): void {
    const cookies = this.jar.get(origin) ?? new Map<string, string>();
    if (value === null) cookies.delete(name);
    else cookies.set(name, value);
    this.jar.set(origin, cookies);
  }

  get origin(): string {
    return new URL(this.server.listenUrl).origin;
  }

  /** One request with this browser's cookies; our server's answers are checked against the admin document. */
  async fetch(url: string | URL, init: RequestInit & { json?: unknown } = {}): Promise<Response> {
    const target = new URL(url, this.server.listenUrl);
    const headers = new Headers(init.headers);
    const cookies = this.jar.get(target.origin);
    if (cookies && cookies.size > 0)
      headers.set('cookie', [...cookies].map(([name, value]) => `${name}=${value}`).join('; '));
    let body = init.body;
    if (init.json !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(init.json);
    }
    const response = await fetch(target, { ...init, headers, body, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const eq = pair!.indexOf('=');
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a));
      this.setCookie(target.origin, pair!.slice(0, eq).trim(), expired ? null : pair!.slice(eq + 1).trim());
    }
    if (target.origin === this.origin) {
      const violation = this.contract.check(
        init.method ?? 'GET',
        target.pathname + target.search,
        response.status,
        response.headers.get('content-type'),
        await response.clone().text(),
      );
      if (violation) throw new Error(`response outside the admin API description: ${violation}`);
    }
    return response;
  }

  /** `GET /sso/start`: the answer (303 to the provider, or a refusal). */
  start(email: string, returnTo?: string, accept?: string): Promise<Response> {
    const query = new URLSearchParams({ email, ...(returnTo !== undefined ? { returnTo } : {}) });
    return this.fetch(`${ADMIN}/sso/start?${query}`, accept ? { headers: { accept } } : {});
  }

  /**
   * From the provider's authorization URL to the callback URL it sends the browser to: its sign-in
   * page, the account's password, and the redirects in between.
   */
  async atProvider(
    provider: TestProvider,
    authorizationUrl: string,
    account: string,
    options: { password?: string; cancel?: boolean } = {},
  ): Promise<URL> {
    let response = await this.fetch(authorizationUrl);
    for (let hops = 0; hops < 10; hops++) {
      const location = response.headers.get('location');
      if (response.status === 200 && new URL(response.url).pathname.startsWith('/interaction/')) {
        const form = new URLSearchParams({
          login: account,
          password: options.password ?? PROVIDER_PASSWORD,
          action: options.cancel ? 'abort' : 'login',
        });
        response = await this.fetch(response.url, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: form.toString(),
        });
        continue;
      }
      if (!location) throw new Error(`the provider answered ${response.status}: ${await response.text()}`);
      const next = new URL(location, response.url || provider.issuer);
      if (next.origin !== provider.issuer) return next;
      response = await this.fetch(next);
    }
    throw new Error('too many redirects at the provider');
  }

  /** The whole sign-in: start, the provider, and the callback (optionally rewritten first). */
  async signIn(
    provider: TestProvider,
    email: string,
    options: {
      account?: string;
      returnTo?: string;
      password?: string;
      cancel?: boolean;
      rewrite?: (callback: URL) => URL;
    } = {},
  ): Promise<{ response: Response; callback: URL }> {
    const started = await this.start(email, options.returnTo);
    if (started.status !== 303) throw new Error(`start answered ${started.status}: ${await started.text()}`);
    let callback = await this.atProvider(
      provider,
      started.headers.get('location')!,
      options.account ?? email,
      options,
    );
    if (options.rewrite) callback = options.rewrite(callback);
    return { response: await this.fetch(callback), callback };
  }

  /** Signs in with a password in this browser: its session cookie kept, the CSRF token for writes returned. */
  async passwordSignIn(email: string, password: string): Promise<string> {
    const response = await this.fetch(`${ADMIN}/session`, {
      method: 'POST',
      headers: { origin: this.origin },
      json: { email, password },
    });
    if (response.status !== 200)
      throw new Error(`sign-in answered ${response.status}: ${await response.text()}`);
    return ((await response.json()) as { csrfToken: string }).csrfToken;
  }

  /** "Link my account" (POST /sso/link) in this signed-in browser: the answer (200 with the provider's URL). */
  startLink(csrfToken: string, returnTo?: string): Promise<Response> {
    return this.fetch(`${ADMIN}/sso/link`, {
      method: 'POST',
      headers: { origin: this.origin, 'x-csrf-token': csrfToken },
      json: returnTo === undefined ? {} : { returnTo },
    });
  }

  /** The whole link: POST /sso/link, the provider, the callback. */
  async link(
    provider: TestProvider,
    csrfToken: string,
    account: string,
  ): Promise<{ response: Response; callback: URL }> {
    const started = await this.startLink(csrfToken, '/console/#/company');
    if (started.status !== 200) throw new Error(`link answered ${started.status}: ${await started.text()}`);
    const { location } = (await started.json()) as { location: string };
    const callback = await this.atProvider(provider, location, account);
    return { response: await this.fetch(callback), callback };
  }

  /** The signed-in person, or the status when there is none. */
  async session(): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await this.fetch(`${ADMIN}/session`);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }
}
