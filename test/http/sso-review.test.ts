import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/app/logger.js';
import { createCompany } from '../../src/modules/companies/service.js';
import { inTransaction } from '../../src/modules/context.js';
import { setUserPassword } from '../../src/modules/people/service.js';
import { expectProblem, type Json } from '../support/api.js';
import { AdminClient, createPerson, type Person } from '../support/admin-api.js';
import { testDialects } from '../support/databases.js';
import { startTestProvider, type TestProvider } from '../support/oidc-provider.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { ADMIN, SsoBrowser } from '../support/sso.js';

/*
 * Issue 34's security review, items 2 (domain claims), 3 (the provider's addresses), 4 (login CSRF),
 * 7 (the issuer's form), 9 (no emails in the log), 10 (password sign-in per account), 11 (start's 404)
 * and 13 (refusals audited), against a real OpenID Provider on loopback. Each test names its item; each
 * failed on the port before the fix.
 */

const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

async function companyNamed(server: TestServer, name: string): Promise<string> {
  return (await inTransaction(server.ctx, (tx, now) => createCompany(tx, now, { name }))).id;
}

/** A loopback listener that counts the connections it is sent (what the address guard must keep away). */
async function listener(host: string, handler?: Parameters<typeof createServer>[1]) {
  let connections = 0;
  const server: Server = createServer(handler ?? ((_req, res) => res.writeHead(404).end()));
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    url: `http://${host}:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.each(testDialects().map((d) => [d.name, d] as const))(
  'single sign-on review on %s',
  (_name, dialect) => {
    let server: TestServer;
    let provider: TestProvider;
    let client: AdminClient;
    let browser: SsoBrowser;
    let companyId: string;
    let otherCompanyId: string;
    let manager: Person;
    const logLines: string[] = [];

    const config = (overrides: Json = {}) => ({
      issuer: provider.issuer,
      clientId: provider.clientId,
      clientSecret: provider.clientSecret,
      allowedDomains: ['acme.example'],
      ...overrides,
    });
    async function put(person: Person, overrides: Json = {}) {
      const session = await client.fresh().signedIn(person);
      return session.request('/company/sso', { method: 'PUT', json: config(overrides) });
    }

    beforeAll(async () => {
      const stream = new Writable({
        write(chunk: Buffer, _encoding, done) {
          logLines.push(String(chunk));
          done();
        },
      });
      server = await startTestServer(dialect, {
        env: {
          CONSOLE_SIGN_IN_LIMIT_PER_ADDRESS: '1000',
          CONSOLE_SIGN_IN_LIMIT_PER_ACCOUNT: '1000',
          SSO_ALLOWED_HOSTS: '127.0.0.1',
        },
        logger: createLogger('info', stream),
      });
      provider = await startTestProvider({
        redirectUris: [`${server.listenUrl}${ADMIN}/sso/callback`],
        accounts: [
          { sub: 'sub-staff', email: 'staff@acme.example' },
          { sub: 'sub-unverified', email: 'unverified@acme.example', emailVerified: false },
          { sub: 'sub-unknown', email: 'unknown@acme.example' },
          { sub: 'sub-outside', email: 'outside@elsewhere.example' },
        ],
      });
      companyId = await companyNamed(server, 'Acme');
      otherCompanyId = await companyNamed(server, 'Beta');
      manager = await createPerson(server.ctx, companyId, {
        email: 'manager@acme.example',
        permissions: '47,93',
      });
      await createPerson(server.ctx, companyId, { email: 'staff@acme.example', permissions: '47' });
      client = await AdminClient.create(server);
      browser = await SsoBrowser.create(server);
    });
    afterAll(async () => {
      await provider?.stop();
      await server?.stop();
    });

    it('review 2: refuses a domain used by people of another company, or by a super admin (unless a super admin claims it)', async () => {
      await createPerson(server.ctx, otherCompanyId, { email: 'someone@beta-people.example' });
      const taken = await put(manager, { allowedDomains: ['acme.example', 'beta-people.example'] });
      const problem = await expectProblem(taken, 409, 'sso_domain_in_use');
      expect(problem.code).toBe(3433);
      expect(problem.errors).toEqual([expect.objectContaining({ field: 'allowedDomains' })]);
      expect(problem.detail).toMatch(/another company: beta-people\.example/);

      const boss = await createPerson(server.ctx, companyId, {
        email: 'boss@acme-hq.example',
        superAdmin: true,
      });
      await expectProblem(
        await put(manager, { allowedDomains: ['acme-hq.example'] }),
        409,
        'sso_domain_in_use',
      );
      expect((await put(boss, { allowedDomains: ['acme-hq.example'] })).status).toBe(200);
      // Once claimed, another company cannot add a person there (their sign-ins would go to this provider).
      await expect(
        createPerson(server.ctx, otherCompanyId, { email: 'late@acme-hq.example' }),
      ).rejects.toThrow(/another company's single sign-on/);
      expect((await put(manager)).status).toBe(200);
    });

    it('review 3: the provider is reached only at public addresses or those SSO_ALLOWED_HOSTS lists, with fixed words', async () => {
      const closed = await listener('127.0.0.1');
      const port = new URL(closed.url).port;
      await closed.stop();
      const guarded = await startTestServer(dialect, {
        env: { CONSOLE_SIGN_IN_LIMIT_PER_ADDRESS: '1000', CONSOLE_SIGN_IN_LIMIT_PER_ACCOUNT: '1000' },
      });
      try {
        const guardedId = await companyNamed(guarded, 'Guarded');
        const admin = await createPerson(guarded.ctx, guardedId, {
          email: 'a@guarded.example',
          superAdmin: true,
        });
        const session = await (await AdminClient.create(guarded)).signedIn(admin);
        const before = provider.requests;
        const answers: string[] = [];
        for (const issuer of [provider.issuer, `http://127.0.0.1:${port}`]) {
          const response = await session.request('/company/sso', {
            method: 'PUT',
            json: config({ issuer, allowedDomains: ['guarded.example'] }),
          });
          const problem = await expectProblem(response, 422, 'validation_failed');
          answers.push(problem.errors!.find((e) => e.field === 'issuer')!.message);
        }
        // The same words whether something answers there or not: no port-scan oracle.
        expect(answers[0]).toBe(answers[1]);
        expect(answers[0]).toMatch(/could not be read$/);
        expect(provider.requests).toBe(before);
      } finally {
        await guarded.stop();
      }
    });

    it('review 3: a discovery document naming an internal token endpoint is not followed there', async () => {
      const internal = await listener('127.0.0.2');
      let issuer = '';
      const metadata = await listener('127.0.0.1', (req, res) => {
        if (req.url === '/.well-known/openid-configuration')
          res.writeHead(200, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              issuer,
              authorization_endpoint: `${issuer}/auth`,
              token_endpoint: `${internal.url}/token`,
              jwks_uri: `${issuer}/jwks`,
              response_types_supported: ['code'],
              code_challenge_methods_supported: ['S256'],
              subject_types_supported: ['public'],
              id_token_signing_alg_values_supported: ['RS256'],
            }),
          );
        else res.writeHead(404).end();
      });
      issuer = metadata.url;
      const internalId = await companyNamed(server, 'Internal');
      const admin = await createPerson(server.ctx, internalId, {
        email: 'a@internal.example',
        superAdmin: true,
      });
      try {
        const saved = await put(admin, { issuer, allowedDomains: ['internal.example'] });
        expect(saved.status).toBe(200);
        const own = browser.fresh();
        const started = await own.start('a@internal.example');
        expect(started.status).toBe(303);
        const state = new URL(started.headers.get('location')!).searchParams.get('state')!;
        const callback = await own.fetch(`${ADMIN}/sso/callback?code=abc&state=${state}`);
        const problem = await expectProblem(callback, 502, 'sso_provider_unavailable');
        expect(problem.detail).toBe('the identity provider could not be reached');
        expect(internal.connections()).toBe(0);
      } finally {
        await internal.stop();
        await metadata.stop();
      }
    });

    it('review 4: a start from another site is refused; on https the binding cookie is __Host- prefixed', async () => {
      const refused = await browser.fresh().fetch(`${ADMIN}/sso/start?email=staff%40acme.example`, {
        headers: { 'sec-fetch-site': 'cross-site', accept: HTML },
      });
      await expectProblem(refused, 403, 'csrf_failed');
      expect(refused.headers.get('set-cookie')).toBeNull();
      const own = await browser.fresh().fetch(`${ADMIN}/sso/start?email=staff%40acme.example`, {
        headers: { 'sec-fetch-site': 'same-origin' },
      });
      expect(own.status).toBe(303);

      const base = 'https://time.example.com';
      const https = await startTestServer(dialect, {
        env: { PUBLIC_BASE_URL: base, SSO_ALLOWED_HOSTS: '127.0.0.1' },
      });
      const secureProvider = await startTestProvider({
        redirectUris: [`${base}${ADMIN}/sso/callback`],
        accounts: [{ sub: 'sub-s', email: 's@secure.example' }],
      });
      try {
        const secureId = await companyNamed(https, 'Secure');
        const admin = await createPerson(https.ctx, secureId, {
          email: 'a@secure.example',
          superAdmin: true,
        });
        await createPerson(https.ctx, secureId, { email: 's@secure.example' });
        // Sign-in and writes come from the public address's origin.
        const session = (await AdminClient.create(https)).fresh();
        const signedIn = await session.request('/session', {
          method: 'POST',
          json: { email: admin.email, password: admin.password },
          origin: base,
        });
        expect(signedIn.status).toBe(200);
        const saved = await session.request('/company/sso', {
          method: 'PUT',
          origin: base,
          json: {
            issuer: secureProvider.issuer,
            clientId: secureProvider.clientId,
            clientSecret: secureProvider.clientSecret,
            allowedDomains: ['secure.example'],
          },
        });
        expect(saved.status).toBe(200);
        const own = await SsoBrowser.create(https);
        const started = await own.start('s@secure.example');
        expect(started.headers.get('set-cookie')).toMatch(
          /^__Host-pc_sso=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Secure; Max-Age=600$/,
        );
        // The provider sends the browser to the public address; here that is the server's own.
        const callback = await own.atProvider(
          secureProvider,
          started.headers.get('location')!,
          's@secure.example',
        );
        const local = new URL(`${callback.pathname}${callback.search}`, https.listenUrl);
        const finished = await own.fetch(local);
        expect(finished.status).toBe(303);
        expect(
          finished.headers.getSetCookie().some((c) => /^__Host-pc_sso=; Path=\/;.*Max-Age=0/.test(c)),
        ).toBe(true);
      } finally {
        await secureProvider.stop();
        await https.stop();
      }
    });

    it('review 7: refuses an issuer that is a discovery address or not written as the URL standard writes it', async () => {
      const before = await (await (await client.fresh().signedIn(manager)).request('/company/sso')).text();
      for (const issuer of [
        `${provider.issuer}/.well-known/openid-configuration`,
        `${provider.issuer}/x/.well-known/`,
        `${provider.issuer}/a/../`,
        provider.issuer.replace('127.0.0.1', '127.0.0.1.'),
      ]) {
        const problem = await expectProblem(await put(manager, { issuer }), 422, 'validation_failed');
        expect(problem.errors?.[0]?.field, issuer).toBe('issuer');
      }
      expect(await (await (await client.fresh().signedIn(manager)).request('/company/sso')).text()).toBe(
        before,
      );
    });

    it('review 9: refused sign-ins are logged by error name, and no email reaches the log', async () => {
      expect((await put(manager)).status).toBe(200);
      logLines.length = 0;
      const unverified = await browser
        .fresh()
        .signIn(provider, 'unverified@acme.example', { account: 'sub-unverified' });
      await expectProblem(unverified.response, 403, 'sso_email_unverified');
      const unknown = await browser
        .fresh()
        .signIn(provider, 'unknown@acme.example', { account: 'sub-unknown' });
      await expectProblem(unknown.response, 403, 'sso_person_unknown');
      const outside = await browser.fresh().signIn(provider, 'x@acme.example', { account: 'sub-outside' });
      await expectProblem(outside.response, 403, 'sso_email_domain_not_allowed');
      const log = logLines.join('');
      expect(log).toMatch(/single sign-on refused/);
      expect(log).not.toMatch(/@/);
    });

    it('review 13: refusals are audited with who the provider said it was, never a code or token', async () => {
      const rows = await server.database.db
        .selectFrom('audit_log')
        .select(['details', 'company_id', 'actor_type'])
        .where('action', '=', 'sso.refused')
        .where('company_id', '=', companyId)
        .orderBy('created_at')
        .execute();
      expect(rows.map((row) => JSON.parse(row.details!) as Json)).toEqual([
        {
          error: 'sso_email_unverified',
          issuer: provider.issuer,
          subject: 'sub-unverified',
          email: 'unverified@acme.example',
        },
        {
          error: 'sso_person_unknown',
          issuer: provider.issuer,
          subject: 'sub-unknown',
          email: 'unknown@acme.example',
        },
        {
          error: 'sso_email_domain_not_allowed',
          issuer: provider.issuer,
          subject: 'sub-outside',
          email: 'outside@elsewhere.example',
        },
      ]);
      expect(rows.every((row) => row.company_id === companyId && row.actor_type === 'user')).toBe(true);
      expect(rows.map((row) => row.details).join()).not.toMatch(/code|state|token/);
    });

    it('review 10: decides password sign-in by the account found, each by its own company', async () => {
      expect((await put(manager, { requireSso: true })).status).toBe(200);
      // The same address in another company without single sign-on (made before any domain rule could say no).
      const twin = await inTransaction(server.ctx, async (tx, now) => {
        const id = '00000000-0000-4000-8000-0000000000aa';
        await tx
          .insertInto('users')
          .values({
            id,
            company_id: otherCompanyId,
            email: 'staff@acme.example',
            permissions: '[]',
            super_admin: 0,
            active: 1,
            employee_id: null,
            created_at: new Date(now + 60_000).toISOString(),
            deactivated_at: null,
            password_hash: null,
          })
          .execute();
        return id;
      });
      await setUserPassword(server.ctx, twin, 'correct horse battery staple');
      const signedIn = await client.fresh().signIn('staff@acme.example', 'correct horse battery staple');
      expect(signedIn.status).toBe(200);
      expect(await signedIn.json()).toMatchObject({ id: twin, companyId: otherCompanyId });
      await expectProblem(
        await client.fresh().signIn('manager@acme.example', 'correct horse battery staple'),
        403,
        'sso_required',
      );
    });

    it('review 11: a start for a domain without single sign-on is a 404 problem, for a browser too', async () => {
      const problem = await expectProblem(
        await browser.fresh().start('someone@nowhere.example', undefined, HTML),
        404,
        'sso_not_configured',
      );
      expect(problem.code).toBe(3420);
    });
  },
);
