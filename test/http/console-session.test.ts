import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/modules/context.js';
import { expectProblem, type Json } from '../support/api.js';
import { AdminClient, createPerson, PASSWORD, type Person } from '../support/admin-api.js';
import { testDialects } from '../support/databases.js';
import { type Fleet, startFleet } from '../support/fleet.js';
import { createCompanyFixture, fetchToken, startTestServer, type TestServer } from '../support/server.js';
import { deactivateUser } from '../../src/modules/people/users.js';
import { inviteUser, setUserPassword } from '../../src/modules/people/service.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe.each(testDialects().map((d) => [d.name, d] as const))('console sessions on %s', (_name, dialect) => {
  let server: TestServer;
  let clock = Date.parse('2026-03-02T08:00:00Z');
  let client: AdminClient;
  let companyId: string;
  let fixture: Awaited<ReturnType<typeof createCompanyFixture>>;
  let serial = 0;

  beforeAll(async () => {
    server = await startTestServer(dialect, {
      now: () => clock,
      env: { CONSOLE_SIGN_IN_LIMIT_PER_ACCOUNT: '4', CONSOLE_SIGN_IN_LIMIT_PER_ADDRESS: '1000' },
    });
    fixture = await createCompanyFixture(server.ctx);
    companyId = fixture.companyId;
    client = await AdminClient.create(server);
  });
  afterAll(async () => server?.stop());

  async function person(options: { permissions?: string; superAdmin?: boolean } = {}): Promise<Person> {
    serial += 1;
    return createPerson(server.ctx, companyId, { email: `person${serial}@acme.example`, ...options });
  }

  it('signs in with email and password: the person, and an HttpOnly SameSite=Lax cookie', async () => {
    const someone = await person({ permissions: '47,90' });
    const browser = client.fresh();
    const response = await browser.signIn(someone.email.toUpperCase(), someone.password);
    expect(response.status).toBe(200);
    const body = (await response.json()) as Json;
    expect(body).toMatchObject({
      id: someone.id,
      email: someone.email,
      companyId,
      permissions: [47, 90],
      superAdmin: false,
      company: { id: companyId, name: 'Acme', timeZone: null },
    });
    expect(typeof body.csrfToken).toBe('string');
    const cookie = browser.lastSetCookie!;
    expect(cookie).toMatch(/^pc_session=[A-Za-z0-9_-]{43}; /);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).toContain('Path=/');
    expect(cookie).not.toContain('Secure');
    expect(response.headers.get('cache-control')).toBe('no-store');

    const again = await browser.request('/session');
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(body);
  });

  it('answers a wrong password and an unknown email with the same 401 invalid_credentials', async () => {
    const someone = await person();
    const browser = client.fresh();
    const wrong = await browser.signIn(someone.email, 'not the password at all');
    const unknown = await browser.signIn('nobody@acme.example', 'not the password at all');
    const strip = (body: Json) => ({ ...body, correlationId: null });
    const a = await expectProblem(wrong, 401, 'invalid_credentials');
    const b = await expectProblem(unknown, 401, 'invalid_credentials');
    expect(a.code).toBe(3401);
    expect(strip(a)).toEqual(strip(b));
    expect(wrong.headers.get('set-cookie')).toBeNull();
    expect(unknown.headers.get('set-cookie')).toBeNull();
    // A person without a password yet cannot sign in either, with the same answer.
    const noPassword = await browser.signIn('admin@acme.example', 'whatever password');
    expect(strip(await expectProblem(noPassword, 401, 'invalid_credentials'))).toEqual(strip(a));
  });

  it('gives a fresh session id at every sign-in, never the one the browser brought', async () => {
    const someone = await person();
    const browser = client.fresh();
    // Session fixation: a cookie planted before sign-in is not adopted.
    browser.cookie = 'pc_session=planted-by-an-attacker-aaaaaaaaaaaaaaaaaaaaaaaaaaa';
    await browser.signedIn(someone);
    const first = browser.cookie!;
    expect(first).not.toContain('planted');
    await browser.signedIn(someone);
    const second = browser.cookie!;
    expect(second).not.toBe(first);
    // The session the second sign-in replaced has ended.
    const old = client.fresh();
    old.cookie = first;
    await expectProblem(await old.request('/session'), 401, 'session_required');
    expect((await browser.request('/session')).status).toBe(200);
  });

  it('ends a session idle for 30 minutes, and any session 12 hours after sign-in', async () => {
    const someone = await person();
    const idle = await client.fresh().signedIn(someone);
    clock += 29 * MINUTE;
    expect((await idle.request('/session')).status).toBe(200);
    clock += 29 * MINUTE;
    expect((await idle.request('/session')).status).toBe(200);
    clock += 30 * MINUTE;
    await expectProblem(await idle.request('/session'), 401, 'session_required');

    const busy = await client.fresh().signedIn(someone);
    for (let elapsed = 0; elapsed < 12 * HOUR - 20 * MINUTE; elapsed += 20 * MINUTE) {
      clock += 20 * MINUTE;
      expect((await busy.request('/session')).status).toBe(200);
    }
    clock += 20 * MINUTE;
    await expectProblem(await busy.request('/session'), 401, 'session_required');

    // A session nobody presents again is cleared out by the next sign-in of anyone.
    const forgotten = await person();
    await client.fresh().signedIn(forgotten);
    clock += 31 * MINUTE;
    await client.fresh().signedIn(someone);
    const rows = await server.database.db
      .selectFrom('console_sessions')
      .select('user_id')
      .where('user_id', 'in', [forgotten.id, someone.id])
      .execute();
    expect(rows.map((r) => r.user_id)).toEqual([someone.id]);
  });

  it("ends a person's sessions at once when they are deactivated", async () => {
    const someone = await person({ permissions: '90' });
    const browser = await client.fresh().signedIn(someone);
    const other = await client.fresh().signedIn(someone);
    expect((await browser.request('/api-keys')).status).toBe(200);
    await inTransaction(server.ctx, (tx, now) => deactivateUser(tx, now, someone.id));
    await expectProblem(await browser.request('/api-keys'), 401, 'session_required');
    await expectProblem(await other.request('/session'), 401, 'session_required');
    await expectProblem(
      await client.fresh().signIn(someone.email, someone.password),
      401,
      'invalid_credentials',
    );

    // Even a deactivation that left the session rows behind (another path) is checked on every request.
    const second = await person({ permissions: '90' });
    const stale = await client.fresh().signedIn(second);
    await server.database.db.updateTable('users').set({ active: 0 }).where('id', '=', second.id).execute();
    await expectProblem(await stale.request('/api-keys'), 401, 'session_required');
  });

  it('signs out: 204, the cookie cleared, the session gone on the server', async () => {
    const someone = await person();
    const browser = await client.fresh().signedIn(someone);
    const cookie = browser.cookie!;
    const response = await browser.request('/session', { method: 'DELETE' });
    expect(response.status).toBe(204);
    expect(response.headers.get('set-cookie')).toMatch(/^pc_session=; .*Max-Age=0/);
    const replay = client.fresh();
    replay.cookie = cookie;
    await expectProblem(await replay.request('/session'), 401, 'session_required');
  });

  it('refuses a state-changing request without the CSRF token, with a wrong one, or from another origin', async () => {
    const someone = await person({ permissions: '90' });
    const browser = await client.fresh().signedIn(someone);
    const elsewhere = await client.fresh().signedIn(someone);
    const attempts: [string, Parameters<AdminClient['request']>[1]][] = [
      ['no token', { csrf: null }],
      ['a wrong token', { csrf: 'x'.repeat(43) }],
      ["another session's token", { csrf: elsewhere.csrfToken }],
      ['another origin', { origin: 'https://evil.example' }],
      ['no origin', { origin: null }],
    ];
    for (const [what, init] of attempts) {
      const response = await browser.request('/api-keys', {
        method: 'POST',
        json: { name: 'k', scopes: ['attendance.record'] },
        ...init,
      });
      const body = await expectProblem(response, 403, 'csrf_failed');
      expect(body.code, what).toBe(3403);
    }
    await expectProblem(
      await browser.request('/session', { method: 'DELETE', csrf: null }),
      403,
      'csrf_failed',
    );
    // Nothing was created; with both the request goes through.
    const keys = (await (await browser.request('/api-keys')).json()) as { items: Json[] };
    expect(keys.items.filter((k) => k.name === 'k')).toEqual([]);
    const ok = await browser.request('/api-keys', {
      method: 'POST',
      json: { name: 'k', scopes: ['attendance.record'] },
    });
    expect(ok.status).toBe(201);
    // Sign-in from another origin is refused too (login CSRF).
    await expectProblem(
      await client.fresh().request('/session', {
        method: 'POST',
        json: { email: someone.email, password: someone.password },
        origin: 'https://evil.example',
      }),
      403,
      'csrf_failed',
    );
  });

  it('rate-limits sign-in per account: 429 with Retry-After, even with the right password', async () => {
    const someone = await person();
    const browser = client.fresh();
    for (let i = 0; i < 4; i++)
      await expectProblem(
        await browser.signIn(someone.email, 'wrong password!!'),
        401,
        'invalid_credentials',
      );
    const limited = await browser.signIn(someone.email, someone.password);
    await expectProblem(limited, 429, 'rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another account from the same address is not affected; the window passes.
    const other = await person();
    expect((await browser.signIn(other.email, other.password)).status).toBe(200);
    clock += 16 * MINUTE;
    expect((await client.fresh().signIn(someone.email, someone.password)).status).toBe(200);
  });

  it('marks the cookie Secure and expects the public origin when PUBLIC_BASE_URL is https', async () => {
    const behindTls = await startTestServer(dialect, {
      env: { PUBLIC_BASE_URL: 'https://punchclock.example' },
    });
    try {
      const f = await createCompanyFixture(behindTls.ctx);
      const someone = await createPerson(behindTls.ctx, f.companyId, { email: 'tls@acme.example' });
      const browser = await AdminClient.create(behindTls);
      // The server's own address is not the console's origin any more.
      await expectProblem(await browser.signIn(someone.email, someone.password), 403, 'csrf_failed');
      const origin = 'https://punchclock.example';
      const response = await browser.request('/session', {
        method: 'POST',
        json: { email: someone.email, password: someone.password },
        origin,
      });
      expect(response.status).toBe(200);
      expect(browser.lastSetCookie).toMatch(/; Secure/);
      const signedOut = await browser.request('/session', { method: 'DELETE', origin });
      expect(signedOut.status).toBe(204);
      expect(signedOut.headers.get('set-cookie')).toMatch(/; Secure/);
    } finally {
      await behindTls.stop();
    }
  });

  it('rate-limits sign-in per address across accounts, known or not', async () => {
    const limited = await startTestServer(dialect, {
      env: { CONSOLE_SIGN_IN_LIMIT_PER_ADDRESS: '3', CONSOLE_SIGN_IN_LIMIT_PER_ACCOUNT: '100' },
    });
    try {
      const f = await createCompanyFixture(limited.ctx);
      const someone = await createPerson(limited.ctx, f.companyId, { email: 'addr@acme.example' });
      const browser = await AdminClient.create(limited);
      for (const email of ['a@nowhere.example', 'b@nowhere.example', 'c@nowhere.example'])
        await expectProblem(await browser.signIn(email, 'whatever password'), 401, 'invalid_credentials');
      // The fourth attempt from this address, for an account never tried, is refused before any check.
      const refused = await browser.signIn(someone.email, someone.password);
      await expectProblem(refused, 429, 'rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(refused.headers.get('set-cookie')).toBeNull();
    } finally {
      await limited.stop();
    }
  });

  it('counts invitation attempts per address with sign-in: random tokens end in 429, not in endless hashing', async () => {
    const limited = await startTestServer(dialect, {
      env: { CONSOLE_SIGN_IN_LIMIT_PER_ADDRESS: '3', CONSOLE_SIGN_IN_LIMIT_PER_ACCOUNT: '100' },
    });
    try {
      const browser = await AdminClient.create(limited);
      const accept = (token: string) =>
        browser.request('/invitations/accept', { method: 'POST', json: { token, password: PASSWORD } });
      for (const token of ['guess-1', 'guess-2', 'guess-3'])
        await expectProblem(await accept(token), 410, 'invitation_invalid');
      const refused = await accept('guess-4');
      await expectProblem(refused, 429, 'rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await limited.stop();
    }
  });

  it('marks the cookie Secure when the request came over https through a trusted proxy', async () => {
    const proxied = await startTestServer(dialect, { env: { TRUST_PROXY: '127.0.0.1' } });
    try {
      const f = await createCompanyFixture(proxied.ctx);
      const someone = await createPerson(proxied.ctx, f.companyId, { email: 'proxied@acme.example' });
      const browser = await AdminClient.create(proxied);
      const plain = await browser.signIn(someone.email, someone.password);
      expect(plain.status).toBe(200);
      expect(browser.lastSetCookie).not.toMatch(/; Secure/);
      const viaTls = await browser.request('/session', {
        method: 'POST',
        json: { email: someone.email, password: someone.password },
        headers: { 'x-forwarded-proto': 'https' },
        // A browser behind the TLS proxy sends the https origin.
        origin: browser.origin.replace(/^http:/, 'https:'),
      });
      expect(viaTls.status).toBe(200);
      expect(browser.lastSetCookie).toMatch(/; Secure/);
    } finally {
      await proxied.stop();
    }
  });

  it('does not take a public API bearer token as a console session', async () => {
    const token = await fetchToken(server, fixture.key.clientId, fixture.key.secret);
    const browser = client.fresh();
    await expectProblem(
      await browser.request('/api-keys', { headers: { authorization: `Bearer ${token}` } }),
      401,
      'session_required',
    );
    await expectProblem(
      await browser.request('/session', { headers: { authorization: `Bearer ${token}` } }),
      401,
      'session_required',
    );
  });

  it('accepts an invitation once: the password chosen, the person signed in', async () => {
    const someone = await createPerson(server.ctx, companyId, { email: `invited${++serial}@acme.example` });
    const invitation = await inTransaction(server.ctx, (tx, now) =>
      inviteUser(tx, now, someone.id, 'https://punchclock.example'),
    );
    expect(invitation.url).toMatch(/^https:\/\/punchclock\.example\/console\/#\/invite\/[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(invitation.expiresAt) - clock).toBe(72 * HOUR);
    const token = invitation.url.split('/').at(-1)!;
    const browser = client.fresh();
    const short = await browser.request('/invitations/accept', {
      method: 'POST',
      json: { token, password: 'short' },
    });
    const problem = await expectProblem(short, 422, 'validation_failed');
    expect(problem.errors!.map((e) => e.field)).toEqual(['password']);
    const newPassword = 'a brand new passphrase';
    const accepted = await browser.request('/invitations/accept', {
      method: 'POST',
      json: { token, password: newPassword },
    });
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toMatchObject({ id: someone.id, email: someone.email });
    expect(browser.cookie).not.toBeNull();
    expect((await browser.request('/session')).status).toBe(200);
    // Used once only.
    await expectProblem(
      await client
        .fresh()
        .request('/invitations/accept', { method: 'POST', json: { token, password: PASSWORD } }),
      410,
      'invitation_invalid',
    );
    // The new password signs in, the old one no more.
    await expectProblem(
      await client.fresh().signIn(someone.email, someone.password),
      401,
      'invalid_credentials',
    );
    expect((await client.fresh().signIn(someone.email, newPassword)).status).toBe(200);
  });

  it("ends older invitations when a newer one is made, one is accepted, or the CLI sets the password; accepting ends the browser's earlier session", async () => {
    const someone = await createPerson(server.ctx, companyId, { email: `reinvited${++serial}@acme.example` });
    const invite = async () =>
      (await inTransaction(server.ctx, (tx, now) => inviteUser(tx, now, someone.id, 'http://x'))).url
        .split('/')
        .at(-1)!;
    const accept = (token: string, browser = client.fresh()) =>
      browser.request('/invitations/accept', { method: 'POST', json: { token, password: PASSWORD } });
    const first = await invite();
    const second = await invite();
    // The newer link replaced the older one.
    await expectProblem(await accept(first), 410, 'invitation_invalid');
    // The browser was signed in as somebody else: accepting ends that session too.
    const other = await person();
    const browser = client.fresh();
    expect((await browser.signIn(other.email, other.password)).status).toBe(200);
    const earlierCookie = browser.cookie;
    expect((await accept(second, browser)).status).toBe(200);
    const stale = client.fresh();
    stale.cookie = earlierCookie;
    await expectProblem(await stale.request('/session'), 401, 'session_required');
    // A link made before the CLI set the password opens nothing afterwards.
    const third = await invite();
    await setUserPassword(server.ctx, someone.id, 'set on the command line');
    await expectProblem(await accept(third), 410, 'invitation_invalid');
  });

  it('refuses an unknown or expired invitation with 410 invitation_invalid', async () => {
    const someone = await createPerson(server.ctx, companyId, { email: `late${++serial}@acme.example` });
    const invitation = await inTransaction(server.ctx, (tx, now) =>
      inviteUser(tx, now, someone.id, 'http://x'),
    );
    clock += 72 * HOUR;
    const token = invitation.url.split('/').at(-1)!;
    // An invitation of a person deactivated since is no good either.
    const leaver = await createPerson(server.ctx, companyId, { email: `leaver${++serial}@acme.example` });
    const leaverInvitation = await inTransaction(server.ctx, (tx, now) =>
      inviteUser(tx, now, leaver.id, 'http://x'),
    );
    await inTransaction(server.ctx, (tx, now) => deactivateUser(tx, now, leaver.id));
    const leaverToken = leaverInvitation.url.split('/').at(-1)!;
    for (const attempt of [token, 'no-such-invitation', leaverToken]) {
      await expectProblem(
        await client
          .fresh()
          .request('/invitations/accept', { method: 'POST', json: { token: attempt, password: PASSWORD } }),
        410,
        'invitation_invalid',
      );
    }
  });
});

/*
 * Two instances on one PostgreSQL database and one Redis: a session made on one is honoured and ended
 * on the other (sessions are rows, not process memory), and sign-in attempts are counted across both.
 */
const postgres = testDialects().find((d) => d.name === 'postgres');

describe.runIf(postgres !== undefined)('console sessions across two instances', () => {
  let fleet: Fleet;

  beforeAll(async () => {
    fleet = await startFleet(postgres!, { redis: true, env: { CONSOLE_SIGN_IN_LIMIT_PER_ACCOUNT: '3' } });
  }, 60_000);
  afterAll(async () => fleet?.stop());

  it('a session of one instance works and ends on the other; sign-in attempts count on both', async () => {
    const { first, second } = fleet;
    const fixture = await createCompanyFixture(first.ctx);
    const email = `fleet-${crypto.randomUUID()}@acme.example`;
    const someone = await createPerson(first.ctx, fixture.companyId, { email });
    const one = await (await AdminClient.create(first)).signedIn(someone);
    const two = await AdminClient.create({ ...first, listenUrl: second.listenUrl });
    two.cookie = one.cookie;
    two.csrfToken = one.csrfToken;
    expect((await two.request('/session')).status).toBe(200);
    expect((await two.request('/session', { method: 'DELETE' })).status).toBe(204);
    await expectProblem(await one.request('/session'), 401, 'session_required');

    // 3 attempts per account in 15 minutes, whichever instance is asked (one was spent above).
    await expectProblem(await two.signIn(email, 'wrong password!!'), 401, 'invalid_credentials');
    await expectProblem(await one.signIn(email, 'wrong password!!'), 401, 'invalid_credentials');
    await expectProblem(await two.signIn(email, someone.password), 429, 'rate_limited');
    await expectProblem(await one.signIn(email, someone.password), 429, 'rate_limited');
  });
});
