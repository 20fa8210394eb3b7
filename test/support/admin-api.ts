import { inTransaction } from '../../src/modules/context.js';
import type { AppContext } from '../../src/modules/context.js';
import { ContractChecker } from './contract.js';
import type { TestServer } from './server.js';
import { createUser } from '../../src/modules/people/users.js';
import { setUserPassword } from '../../src/modules/people/service.js';

/** Helpers for the admin API's HTTP tests (the console's API, issue 19). */

export const ADMIN = '/api/admin/v1';
export const PASSWORD = 'correct horse battery staple';

export interface Person {
  id: string;
  email: string;
  password: string;
}

/** A person of `companyId` with a password, made by the same services as `user create` and `user set-password`. */
export async function createPerson(
  ctx: AppContext,
  companyId: string,
  options: { email: string; permissions?: string; superAdmin?: boolean; password?: string },
): Promise<Person> {
  const user = await inTransaction(ctx, (tx, now) =>
    createUser(tx, now, {
      companyId,
      email: options.email,
      ...(options.permissions !== undefined ? { permissions: options.permissions } : {}),
      superAdmin: options.superAdmin ?? false,
    }),
  );
  const password = options.password ?? PASSWORD;
  await setUserPassword(ctx, user.id, password);
  return { id: user.id, email: options.email, password };
}

export interface AdminRequestInit extends RequestInit {
  json?: unknown;
  /** Leave out the X-CSRF-Token header this client would send (or send this one instead). */
  csrf?: string | null;
  /** The Origin header: the server's own by default; null sends none. */
  origin?: string | null;
}

/**
 * A browser-like client of the admin API: it keeps the session cookie, sends the console's Origin and
 * the session's CSRF token on writes, and holds every response to the admin API's own OpenAPI
 * document (status, media type, body schema), as the public API's tests do with theirs.
 */
export class AdminClient {
  cookie: string | null = null;
  csrfToken: string | null = null;
  lastSetCookie: string | null = null;

  private constructor(
    private readonly server: TestServer,
    private readonly contract: ContractChecker,
  ) {}

  static async create(server: TestServer): Promise<AdminClient> {
    const response = await fetch(`${server.listenUrl}${ADMIN}/openapi.json`);
    if (response.status !== 200) throw new Error(`no admin description: ${response.status}`);
    return new AdminClient(server, new ContractChecker((await response.json()) as Record<string, unknown>));
  }

  /** Another client (another browser) checked against the same document. */
  fresh(): AdminClient {
    return new AdminClient(this.server, this.contract);
  }

  get origin(): string {
    return new URL(this.server.listenUrl).origin;
  }

  async request(path: string, init: AdminRequestInit = {}): Promise<Response> {
    const method = (init.method ?? 'GET').toUpperCase();
    const headers = new Headers(init.headers);
    if (this.cookie !== null && !headers.has('cookie')) headers.set('cookie', this.cookie);
    const origin = init.origin === undefined ? this.origin : init.origin;
    if (method !== 'GET' && origin !== null) headers.set('origin', origin);
    const csrf = init.csrf === undefined ? this.csrfToken : init.csrf;
    if (method !== 'GET' && csrf !== null) headers.set('x-csrf-token', csrf);
    let body = init.body;
    if (init.json !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(init.json);
    }
    const url = `${ADMIN}${path}`;
    const response = await fetch(`${this.server.listenUrl}${url}`, { ...init, method, headers, body });
    const setCookie = response.headers.get('set-cookie');
    this.lastSetCookie = setCookie;
    if (setCookie) {
      const value = /^pc_session=([^;]*)/.exec(setCookie)?.[1] ?? '';
      this.cookie = value === '' || /Max-Age=0/i.test(setCookie) ? null : `pc_session=${value}`;
    }
    const text = await response.clone().text();
    const violation = this.contract.check(
      method,
      url,
      response.status,
      response.headers.get('content-type'),
      text,
    );
    if (violation) throw new Error(`response outside the admin API description: ${violation}`);
    if (
      response.status === 200 &&
      (path === '/session' || path === '/invitations/accept') &&
      method !== 'DELETE'
    ) {
      this.csrfToken = (JSON.parse(text) as { csrfToken: string }).csrfToken;
    }
    return response;
  }

  async signIn(email: string, password: string): Promise<Response> {
    return this.request('/session', { method: 'POST', json: { email, password } });
  }

  /** Signs in and fails the test unless it worked. */
  async signedIn(person: Person): Promise<this> {
    const response = await this.signIn(person.email, person.password);
    if (response.status !== 200)
      throw new Error(`sign-in failed: ${response.status} ${await response.text()}`);
    return this;
  }
}
