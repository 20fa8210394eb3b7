import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { deactivateUser } from '../../src/modules/people/users.js';
import { createCompany } from '../../src/modules/companies/service.js';
import { inTransaction } from '../../src/modules/context.js';
import { inviteUser } from '../../src/modules/people/service.js';
import { expectProblem, type Json } from '../support/api.js';
import { AdminClient, createPerson, type Person } from '../support/admin-api.js';
import { testDialects } from '../support/databases.js';
import { startTestProvider, type TestProvider } from '../support/oidc-provider.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { ADMIN, SsoBrowser } from '../support/sso.js';

/*
 * Issue 34, over HTTP against a real OpenID Provider (oidc-provider) on loopback: configuration in the
 * admin API, the whole sign-in (first-time linking, creation, group-mapped permissions), password
 * refusal when single sign-on is required, and every attack of the issue refused without changing anything.
 */

const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe.each(testDialects().map((d) => [d.name, d] as const))('single sign-on on %s', (_name, dialect) => {
  let server: TestServer;
  let provider: TestProvider;
  let client: AdminClient;
  let browser: SsoBrowser;
  let companyId: string;
  let otherCompanyId: string;
  let manager: Person;
  let staff: Person;
  let managerSession: AdminClient;

  const config = (overrides: Json = {}) => ({
    issuer: provider.issuer,
    clientId: provider.clientId,
    clientSecret: provider.clientSecret,
    allowedDomains: ['acme.example', 'acme-corp.example'],
    ...overrides,
  });

  /** Saved by the manager's session of the start (password sign-in is refused once SSO is required). */
  async function configure(overrides: Json = {}) {
    const response = await managerSession.request('/company/sso', { method: 'PUT', json: config(overrides) });
    if (response.status !== 200)
      throw new Error(`PUT /company/sso: ${response.status} ${await response.text()}`);
    return (await response.json()) as Json;
  }

  /** Rows whose count must not change when a sign-in is refused. */
  async function snapshot() {
    const db = server.database.db;
    const count = async (table: 'users' | 'console_sessions' | 'sso_identities') =>
      Number((await db.selectFrom(table).select(db.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const users = await db
      .selectFrom('users')
      .select(['id', 'permissions', 'active'])
      .orderBy('id')
      .execute();
    return {
      users: JSON.stringify(users),
      sessions: await count('console_sessions'),
      identities: await count('sso_identities'),
    };
  }

  async function auditActions(userId: string) {
    const rows = await server.database.db
      .selectFrom('audit_log')
      .select(['action', 'details'])
      .where('target_id', '=', userId)
      .orderBy('created_at')
      .execute();
    return rows.map((row) => ({
      action: row.action,
      details: row.details ? (JSON.parse(row.details) as Json) : null,
    }));
  }

  beforeAll(async () => {
    server = await startTestServer(dialect, {
      env: {
        CONSOLE_SIGN_IN_LIMIT_PER_ADDRESS: '1000',
        CONSOLE_SIGN_IN_LIMIT_PER_ACCOUNT: '1000',
        SSO_ALLOWED_HOSTS: '127.0.0.1',
      },
    });
    provider = await startTestProvider({
      redirectUris: [`${server.listenUrl}${ADMIN}/sso/callback`],
      accounts: [
        { sub: 'sub-staff', email: 'staff@acme.example', groups: ['staff'] },
        { sub: 'sub-new', email: 'new.person@acme.example', groups: ['staff', 'payroll'] },
        { sub: 'sub-unverified', email: 'unverified@acme.example', emailVerified: false },
        { sub: 'sub-outside', email: 'someone@elsewhere.example' },
        { sub: 'sub-shared', email: 'shared@acme.example' },
        { sub: 'sub-twin', email: 'staff@acme.example' },
      ],
    });
    companyId = (await inTransaction(server.ctx, (tx, now) => createCompany(tx, now, { name: 'Acme' }))).id;
    otherCompanyId = (await inTransaction(server.ctx, (tx, now) => createCompany(tx, now, { name: 'Beta' })))
      .id;
    manager = await createPerson(server.ctx, companyId, {
      email: 'manager@acme.example',
      permissions: '47,49,90,93',
    });
    staff = await createPerson(server.ctx, companyId, { email: 'Staff@Acme.example', permissions: '47' });
    // A manager (no super admin) claims only domains where the company's people have addresses (second
    // review, item 4): acme-corp.example is one.
    await createPerson(server.ctx, companyId, { email: 'office@acme-corp.example', permissions: '47' });
    client = await AdminClient.create(server);
    browser = await SsoBrowser.create(server);
    managerSession = await client.fresh().signedIn(manager);
  });
  afterAll(async () => {
    await provider?.stop();
    await server?.stop();
  });
  beforeEach(() => {
    provider.tamperTokens = null;
  });

  describe('configuration (permission 93)', () => {
    it('saves the configuration, keeps the secret encrypted and never shows it; the redirect URI to register', async () => {
      const saved = await configure({ groupsClaim: 'groups', groupPermissions: { payroll: [90, 47] } });
      expect(saved).toEqual({
        companyId,
        redirectUri: `${server.listenUrl}${ADMIN}/sso/callback`,
        configuration: {
          issuer: provider.issuer,
          clientId: provider.clientId,
          clientSecretSet: true,
          allowedDomains: ['acme-corp.example', 'acme.example'],
          groupsClaim: 'groups',
          groupPermissions: { payroll: [47, 90] },
          createPeople: false,
          requireSso: false,
          createdAt: expect.any(String) as string,
          updatedAt: expect.any(String) as string,
        },
      });
      expect(JSON.stringify(saved)).not.toContain(provider.clientSecret);
      const row = await server.database.db
        .selectFrom('sso_configs')
        .select('client_secret')
        .where('company_id', '=', companyId)
        .executeTakeFirstOrThrow();
      expect(row.client_secret).toMatch(/^v1\./);
      expect(row.client_secret).not.toContain('provider secret');
      const audit = await server.database.db
        .selectFrom('audit_log')
        .select(['details', 'actor_id'])
        .where('action', '=', 'sso.configure')
        .executeTakeFirstOrThrow();
      expect(audit.actor_id).toBe(manager.id);
      expect(audit.details).not.toContain('provider secret');
      expect(JSON.parse(audit.details!)).toMatchObject({
        clientSecretChanged: true,
        issuer: provider.issuer,
      });

      const session = await client.fresh().signedIn(manager);
      const shown = await session.request('/company/sso');
      expect(await shown.json()).toEqual(saved);
      // Saved again without a secret: the stored one stays (same issuer and client).
      const again = await session.request('/company/sso', {
        method: 'PUT',
        json: { ...config(), clientSecret: undefined },
      });
      expect(again.status).toBe(200);
      const after = await server.database.db
        .selectFrom('sso_configs')
        .select('client_secret')
        .executeTakeFirstOrThrow();
      expect(after.client_secret).toBe(row.client_secret);
    });

    it('refuses a person without permission 93, and writes without the CSRF token', async () => {
      const session = await client.fresh().signedIn(staff);
      await expectProblem(await session.request('/company/sso'), 403, 'forbidden');
      await expectProblem(
        await session.request('/company/sso', { method: 'PUT', json: config() }),
        403,
        'forbidden',
      );
      const managerSession = await client.fresh().signedIn(manager);
      await expectProblem(
        await managerSession.request('/company/sso', { method: 'PUT', json: config(), csrf: null }),
        403,
        'csrf_failed',
      );
      await expectProblem(await client.fresh().request('/company/sso'), 401, 'session_required');
    });

    it('names each bad field, and changes nothing', async () => {
      const session = await client.fresh().signedIn(manager);
      const before = await (await session.request('/company/sso')).text();
      const cases: [Json, string, RegExp][] = [
        [{ issuer: 'http://idp.example.com' }, 'issuer', /https/],
        [{ issuer: 'https://idp.example.com/?x=1' }, 'issuer', /query/],
        [{ issuer: 'http://127.0.0.1:1' }, 'issuer', /could not be read/],
        [{ allowedDomains: ['not a domain'] }, 'allowedDomains', /not an email domain/],
        [
          { groupsClaim: 'groups', groupPermissions: { x: [12] } },
          'groupPermissions',
          /unknown permission 12/,
        ],
        [
          { groupsClaim: 'groups', groupPermissions: { x: [92] } },
          'groupPermissions',
          /only permissions you hold/,
        ],
        [{ groupPermissions: { x: [47] } }, 'groupsClaim', /needs the groups claim/],
        [
          { issuer: `${provider.issuer}/`, clientSecret: undefined },
          'clientSecret',
          /needs its client secret/,
        ],
      ];
      for (const [overrides, field, message] of cases) {
        const response = await session.request('/company/sso', { method: 'PUT', json: config(overrides) });
        const problem = await expectProblem(response, 422, 'validation_failed');
        const error = problem.errors!.find((e) => e.field === field);
        expect(error?.message, JSON.stringify(overrides)).toMatch(message);
      }
      const unknown = await session.request('/company/sso', {
        method: 'PUT',
        json: { ...config(), extra: 1 },
      });
      await expectProblem(unknown, 422, 'validation_failed');
      expect(await (await session.request('/company/sso')).text()).toBe(before);
    });

    it("refuses a domain another company's single sign-on serves", async () => {
      const other = await createPerson(server.ctx, otherCompanyId, {
        email: 'boss@beta.example',
        superAdmin: true,
      });
      const session = await client.fresh().signedIn(other);
      const response = await session.request('/company/sso', {
        method: 'PUT',
        json: config({ allowedDomains: ['beta.example', 'ACME.example'] }),
      });
      const problem = await expectProblem(response, 409, 'sso_domain_taken');
      expect(problem.code).toBe(3431);
      expect(problem.errors).toEqual([expect.objectContaining({ field: 'allowedDomains' })]);
      const sso = await (await session.request('/company/sso')).json();
      expect((sso as Json).configuration).toBeNull();
    });
  });

  describe('lookup and start', () => {
    beforeAll(async () => configure());

    it('says which email domains sign in with single sign-on', async () => {
      const yes = await browser.fetch(`${ADMIN}/sso/lookup?email=someone%40ACME.example`);
      expect(await yes.json()).toEqual({ singleSignOn: true });
      const no = await browser.fetch(`${ADMIN}/sso/lookup?email=someone%40beta.example`);
      expect(await no.json()).toEqual({ singleSignOn: false });
    });

    it('answers 404 sso_not_configured as a problem document for a domain without it, to a browser too', async () => {
      const problem = await expectProblem(
        await browser.start('someone@beta.example'),
        404,
        'sso_not_configured',
      );
      expect(problem.code).toBe(3420);
      await expectProblem(
        await browser.start('someone@beta.example', undefined, HTML),
        404,
        'sso_not_configured',
      );
    });

    it('sends the browser to the provider: code flow, PKCE S256, state, nonce, the redirect URI; a binding cookie', async () => {
      const fresh = browser.fresh();
      const response = await fresh.start('staff@acme.example', '/console/#/company');
      expect(response.status).toBe(303);
      const location = new URL(response.headers.get('location')!);
      expect(`${location.origin}${location.pathname}`).toBe(`${provider.issuer}/auth`);
      const params = Object.fromEntries(location.searchParams);
      expect(params).toMatchObject({
        response_type: 'code',
        client_id: provider.clientId,
        redirect_uri: `${server.listenUrl}${ADMIN}/sso/callback`,
        code_challenge_method: 'S256',
        login_hint: 'staff@acme.example',
        scope: 'openid email profile',
      });
      expect(params.state).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(params.nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(params.code_challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const cookie = response.headers.get('set-cookie')!;
      expect(cookie).toMatch(
        /^pc_sso=[A-Za-z0-9_-]{43}; Path=\/api\/admin\/v1\/sso; HttpOnly; SameSite=Lax; Max-Age=600$/,
      );
      // Only hashes are kept: neither the state nor the cookie is in the database.
      const rows = await server.database.db.selectFrom('sso_logins').selectAll().execute();
      const stored = JSON.stringify(rows);
      expect(stored).not.toContain(params.state);
      expect(stored).not.toContain(fresh.cookie(fresh.origin, 'pc_sso'));
      expect(stored).not.toContain(params.nonce);
    });
  });

  describe('signing in', () => {
    beforeAll(async () =>
      configure({ groupsClaim: 'groups', groupPermissions: { payroll: [49], staff: [47] } }),
    );

    it('links the existing person with the verified email at the first sign-in, then by (issuer, subject)', async () => {
      const first = browser.fresh();
      const { response } = await first.signIn(provider, 'staff@acme.example', {
        account: 'sub-staff',
        returnTo: '/console/#/time-entries?week=2026-W10',
      });
      expect(response.status).toBe(303);
      expect(response.headers.get('location')).toBe('/console/#/time-entries?week=2026-W10');
      const setCookies = response.headers.getSetCookie();
      expect(
        setCookies.some((c) => /^pc_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax$/.test(c)),
      ).toBe(true);
      expect(setCookies.some((c) => /^pc_sso=; .*Max-Age=0/.test(c))).toBe(true);
      const session = await first.session();
      expect(session.status).toBe(200);
      expect(session.body).toMatchObject({ id: staff.id, companyId, permissions: [47] });
      // The session is the console's usual one: its CSRF token is needed for writes.
      const write = await first.fetch(`${ADMIN}/session`, {
        method: 'DELETE',
        headers: { origin: first.origin },
      });
      await expectProblem(write, 403, 'csrf_failed');

      const identity = await server.database.db
        .selectFrom('sso_identities')
        .selectAll()
        .where('user_id', '=', staff.id)
        .executeTakeFirstOrThrow();
      expect(identity).toMatchObject({
        company_id: companyId,
        issuer: provider.issuer,
        subject: 'sub-staff',
      });
      const actions = await auditActions(staff.id);
      expect(actions.map((a) => a.action)).toContain('sso.link');
      expect(actions.at(-1)).toEqual({
        action: 'console.sign_in',
        details: { method: 'sso', issuer: provider.issuer, subject: 'sub-staff' },
      });

      // The provider changes the address: the link, not the email, says who it is.
      provider.accounts.get('sub-staff')!.email = 'staff@acme-corp.example';
      try {
        const second = browser.fresh();
        const again = await second.signIn(provider, 'staff@acme.example', { account: 'sub-staff' });
        expect(again.response.headers.get('location')).toBe('/console/');
        expect((await second.session()).body).toMatchObject({ id: staff.id });
      } finally {
        provider.accounts.get('sub-staff')!.email = 'staff@acme.example';
      }
    });

    it('maps groups to permissions at every sign-in when a mapping is configured', async () => {
      const account = provider.accounts.get('sub-staff')!;
      account.groups = ['staff', 'payroll'];
      try {
        const signedIn = browser.fresh();
        await signedIn.signIn(provider, 'staff@acme.example', { account: 'sub-staff' });
        expect((await signedIn.session()).body).toMatchObject({ id: staff.id, permissions: [47, 49] });
        const actions = await auditActions(staff.id);
        expect(actions).toContainEqual({
          action: 'user.permissions',
          details: { via: 'sso', from: [47], to: [47, 49] },
        });
      } finally {
        account.groups = ['staff'];
      }
      const back = browser.fresh();
      await back.signIn(provider, 'staff@acme.example', { account: 'sub-staff' });
      expect((await back.session()).body).toMatchObject({ permissions: [47] });
    });

    it('refuses an unknown person when people are not created, and creates them when that is on', async () => {
      const before = await snapshot();
      const refused = await browser
        .fresh()
        .signIn(provider, 'new.person@acme.example', { account: 'sub-new' });
      const problem = await expectProblem(refused.response, 403, 'sso_person_unknown');
      expect(problem.code).toBe(3428);
      expect(await snapshot()).toEqual(before);

      await configure({
        groupsClaim: 'groups',
        groupPermissions: { payroll: [49], staff: [47] },
        createPeople: true,
      });
      const created = browser.fresh();
      const { response } = await created.signIn(provider, 'new.person@acme.example', { account: 'sub-new' });
      expect(response.status).toBe(303);
      const person = (await created.session()).body;
      expect(person).toMatchObject({
        email: 'new.person@acme.example',
        companyId,
        permissions: [47, 49],
        superAdmin: false,
      });
      const actions = await auditActions(person.id as string);
      expect(actions.map((a) => a.action)).toEqual(['user.create', 'sso.link', 'console.sign_in']);
      // Created people have no password: they cannot sign in with one.
      const user = await server.database.db
        .selectFrom('users')
        .select('password_hash')
        .where('id', '=', person.id as string)
        .executeTakeFirstOrThrow();
      expect(user.password_hash).toBeNull();
    });

    it('refuses an email the provider has not verified, one outside the allowed domains, and another company’s person', async () => {
      await configure({ createPeople: true });
      let before = await snapshot();
      const unverified = await browser
        .fresh()
        .signIn(provider, 'unverified@acme.example', { account: 'sub-unverified' });
      await expectProblem(unverified.response, 403, 'sso_email_unverified');
      const outside = await browser.fresh().signIn(provider, 'x@acme.example', { account: 'sub-outside' });
      await expectProblem(outside.response, 403, 'sso_email_domain_not_allowed');
      expect(await snapshot()).toEqual(before);

      // shared@acme.example is a person of the other company (from before its domain was claimed: the
      // domain rule refuses that now): never linked from this one.
      await configure({ createPeople: false });
      const sharedId = '00000000-0000-4000-8000-00000000bbbb';
      await server.database.db
        .insertInto('users')
        .values({
          id: sharedId,
          company_id: otherCompanyId,
          email: 'shared@acme.example',
          permissions: '[93]',
          super_admin: 0,
          active: 1,
          employee_id: null,
          created_at: new Date().toISOString(),
          deactivated_at: null,
          password_hash: null,
        })
        .execute();
      try {
        before = await snapshot();
        const shared = await browser
          .fresh()
          .signIn(provider, 'shared@acme.example', { account: 'sub-shared' });
        await expectProblem(shared.response, 403, 'sso_person_unknown');
        expect(await snapshot()).toEqual(before);
      } finally {
        await server.database.db.deleteFrom('audit_log').where('target_id', '=', sharedId).execute();
        await server.database.db.deleteFrom('users').where('id', '=', sharedId).execute();
      }
    });

    it('refuses a second provider account with the email of a person already linked', async () => {
      await configure();
      const before = await snapshot();
      const twin = await browser.fresh().signIn(provider, 'staff@acme.example', { account: 'sub-twin' });
      await expectProblem(twin.response, 409, 'sso_identity_conflict');
      expect(await snapshot()).toEqual(before);
    });

    it('refuses a deactivated person, and ends nothing else', async () => {
      await configure();
      const leaver = await createPerson(server.ctx, companyId, { email: 'leaver@acme.example' });
      provider.accounts.set('sub-leaver', { sub: 'sub-leaver', email: 'leaver@acme.example' });
      const signedIn = browser.fresh();
      expect(
        (await signedIn.signIn(provider, 'leaver@acme.example', { account: 'sub-leaver' })).response.status,
      ).toBe(303);
      await inTransaction(server.ctx, (tx, now) => deactivateUser(tx, now, leaver.id));
      expect((await signedIn.session()).status).toBe(401);
      const again = await browser.fresh().signIn(provider, 'leaver@acme.example', { account: 'sub-leaver' });
      await expectProblem(again.response, 403, 'sso_person_deactivated');
    });

    it('answers a cancelled sign-in at the provider with sso_denied', async () => {
      const before = await snapshot();
      const cancelled = await browser
        .fresh()
        .signIn(provider, 'staff@acme.example', { account: 'sub-staff', cancel: true });
      await expectProblem(cancelled.response, 401, 'sso_denied');
      expect(await snapshot()).toEqual(before);
    });
  });

  it('limits starts per address under their own count (password sign-in keeps its own)', async () => {
    const limited = await startTestServer(dialect, { env: { CONSOLE_SIGN_IN_LIMIT_PER_ADDRESS: '3' } });
    try {
      const own = await SsoBrowser.create(limited);
      for (let i = 0; i < 3; i++)
        await expectProblem(await own.start('a@beta.example'), 404, 'sso_not_configured');
      const refused = await own.start('a@beta.example');
      const problem = await expectProblem(refused, 429, 'rate_limited');
      expect(problem.detail).toMatch(/single sign-on/);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      // Lookups are not starts; password sign-in has a count of its own.
      expect((await own.fetch(`${ADMIN}/sso/lookup?email=a%40beta.example`)).status).toBe(200);
      const password = await (
        await AdminClient.create(limited)
      ).signIn('nobody@beta.example', 'wrong password');
      await expectProblem(password, 401, 'invalid_credentials');
    } finally {
      await limited.stop();
    }
  });

  describe('password sign-in when single sign-on is required', () => {
    it('refuses the company’s people (after a right password only), never a super admin; invitations too', async () => {
      await configure({ requireSso: true });
      const plain = client.fresh();
      const refused = await plain.signIn(staff.email, staff.password);
      const problem = await expectProblem(refused, 403, 'sso_required');
      expect(problem.code).toBe(3421);
      await expectProblem(
        await plain.signIn(staff.email, 'a wrong password here'),
        401,
        'invalid_credentials',
      );
      // The manager's own password session ended with it (they are no super admin).
      await expectProblem(await managerSession.request('/session'), 401, 'session_required');
      const boss = await createPerson(server.ctx, companyId, {
        email: 'boss@acme.example',
        superAdmin: true,
      });
      const bossSession = client.fresh();
      expect((await bossSession.signIn(boss.email, boss.password)).status).toBe(200);

      const newcomer = await createPerson(server.ctx, companyId, { email: 'newcomer@acme.example' });
      const { url } = await inTransaction(server.ctx, (tx, now) =>
        inviteUser(tx, now, newcomer.id, server.listenUrl),
      );
      const token = url.split('/invite/')[1]!;
      const accepted = await client.fresh().request('/invitations/accept', {
        method: 'POST',
        json: { token, password: 'a brand new password' },
      });
      await expectProblem(accepted, 403, 'sso_required');
      // Single sign-on still works for them.
      const sso = browser.fresh();
      expect((await sso.signIn(provider, staff.email, { account: 'sub-staff' })).response.status).toBe(303);
      const off = await bossSession.request('/company/sso', {
        method: 'PUT',
        json: config({ requireSso: false }),
      });
      expect(off.status).toBe(200);
      expect((await client.fresh().signIn(staff.email, staff.password)).status).toBe(200);
    });
  });
});
