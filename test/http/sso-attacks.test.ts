import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { removeSsoConfig } from '../../src/modules/sso/config.js';
import { expectProblem, type Json } from '../support/api.js';
import { AdminClient, createPerson } from '../support/admin-api.js';
import { testDialects } from '../support/databases.js';
import { startTestProvider, type TestProvider } from '../support/oidc-provider.js';
import { createCompanyFixture, startTestServer, type TestServer } from '../support/server.js';
import { ADMIN, SsoBrowser } from '../support/sso.js';

/*
 * Issue 34, the attacks: each is tried against the real flow with a real provider, is refused, and
 * changes nothing (no person, link or session appears; the people's rows stay as they were).
 */

const HTML = 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8';

function payloadOf(jwt: string): Json {
  return JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as Json;
}

describe.each(testDialects().map((d) => [d.name, d] as const))(
  'single sign-on attacks on %s',
  (_name, dialect) => {
    let server: TestServer;
    let provider: TestProvider;
    let browser: SsoBrowser;
    let companyId: string;
    const email = 'staff@acme.example';
    const account = 'sub-staff';

    async function snapshot() {
      const db = server.database.db;
      const users = await db
        .selectFrom('users')
        .select(['id', 'permissions', 'active'])
        .orderBy('id')
        .execute();
      const sessions = await db.selectFrom('console_sessions').select('id_hash').orderBy('id_hash').execute();
      const identities = await db.selectFrom('sso_identities').selectAll().orderBy('subject').execute();
      return JSON.stringify({ users, sessions, identities });
    }

    /** A sign-in whose ID token the provider's token endpoint swaps for `forge(original)` first. */
    async function withForgedIdToken(forge: (idToken: string) => Promise<string>) {
      provider.tamperTokens = async (body) => ({ ...body, id_token: await forge(body.id_token as string) });
      return (await browser.fresh().signIn(provider, email, { account })).response;
    }

    /** Re-signed with the provider's own key: only the changed claim is wrong. */
    const resigned = (change: (payload: Json) => Json) => async (idToken: string) =>
      provider.sign(change(payloadOf(idToken)));

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
        accounts: [{ sub: account, email, groups: ['staff'] }],
        claimsInIdToken: true,
      });
      const fixture = await createCompanyFixture(server.ctx);
      companyId = fixture.companyId;
      await createPerson(server.ctx, companyId, { email, permissions: '47' });
      const manager = await createPerson(server.ctx, companyId, {
        email: 'manager@acme.example',
        superAdmin: true,
      });
      const session = await (await AdminClient.create(server)).signedIn(manager);
      const saved = await session.request('/company/sso', {
        method: 'PUT',
        json: {
          issuer: provider.issuer,
          clientId: provider.clientId,
          clientSecret: provider.clientSecret,
          allowedDomains: ['acme.example'],
          createPeople: true,
        },
      });
      expect(saved.status).toBe(200);
      browser = await SsoBrowser.create(server);
      // The person is linked once; the attacks below must leave that as it is.
      expect((await browser.fresh().signIn(provider, email, { account })).response.status).toBe(303);
    });
    afterAll(async () => {
      await provider?.stop();
      await server?.stop();
    });
    beforeEach(() => {
      provider.tamperTokens = null;
    });

    it('refuses a wrong state, and a callback opened in another browser (the real one still finishes)', async () => {
      const before = await snapshot();
      const wrong = await browser.fresh().signIn(provider, email, {
        account,
        rewrite: (url) => {
          url.searchParams.set('state', 'a'.repeat(43));
          return url;
        },
      });
      await expectProblem(wrong.response, 400, 'sso_state_invalid');

      const victim = browser.fresh();
      const started = await victim.start(email);
      const callback = await victim.atProvider(provider, started.headers.get('location')!, account);
      const thief = browser.fresh();
      await expectProblem(await thief.fetch(callback), 400, 'sso_state_invalid');
      thief.setCookie(thief.origin, 'pc_sso', 'b'.repeat(43));
      await expectProblem(await thief.fetch(callback), 400, 'sso_state_invalid');
      expect(await snapshot()).toBe(before);
      expect((await victim.fetch(callback)).status).toBe(303);
      expect((await victim.session()).status).toBe(200);
    });

    it('refuses a replayed state, and a code replayed under a fresh state', async () => {
      const first = browser.fresh();
      const started = await first.start(email);
      const binding = first.cookie(first.origin, 'pc_sso')!;
      const callback = await first.atProvider(provider, started.headers.get('location')!, account);
      expect((await first.fetch(callback)).status).toBe(303);
      const before = await snapshot();

      const replay = browser.fresh();
      replay.setCookie(replay.origin, 'pc_sso', binding);
      await expectProblem(await replay.fetch(callback), 400, 'sso_state_invalid');

      // The used code with a new sign-in's state and binding: the provider refuses the code.
      const again = browser.fresh();
      const fresh = new URL((await again.start(email)).headers.get('location')!);
      const forged = new URL(callback);
      forged.searchParams.set('state', fresh.searchParams.get('state')!);
      const problem = await expectProblem(await again.fetch(forged), 401, 'sso_response_invalid');
      expect(problem.detail).toMatch(/invalid_grant/);
      expect(await snapshot()).toBe(before);
    });

    it('refuses an authorization response naming another issuer (RFC 9207), and the provider’s refusal', async () => {
      const before = await snapshot();
      const mixUp = await browser.fresh().signIn(provider, email, {
        account,
        rewrite: (url) => {
          url.searchParams.set('iss', 'https://attacker.example');
          return url;
        },
      });
      const problem = await expectProblem(mixUp.response, 401, 'sso_response_invalid');
      expect(problem.detail).toMatch(/iss/);
      const noCode = await browser.fresh().signIn(provider, email, {
        account,
        rewrite: (url) => {
          url.searchParams.delete('code');
          url.searchParams.set('error', 'access_denied');
          return url;
        },
      });
      await expectProblem(noCode.response, 401, 'sso_denied');
      expect(await snapshot()).toBe(before);
    });

    it('refuses an ID token with a wrong nonce, for another client, from another issuer, expired, tampered or missing', async () => {
      const before = await snapshot();
      const forgeries: [string, (idToken: string) => Promise<string>, RegExp][] = [
        ['wrong nonce', resigned((p) => ({ ...p, nonce: 'another-sign-in-nonce' })), /nonce/],
        ['another client', resigned((p) => ({ ...p, aud: 'another-client' })), /aud/],
        ['another issuer', resigned((p) => ({ ...p, iss: 'https://attacker.example' })), /iss/],
        ['expired', resigned((p) => ({ ...p, exp: Math.floor(Date.now() / 1000) - 3600 })), /exp/],
        [
          'tampered',
          async (idToken) => {
            const [header, , signature] = idToken.split('.');
            const payload = { ...payloadOf(idToken), sub: 'someone-else', email: 'boss@acme.example' };
            return [header, Buffer.from(JSON.stringify(payload)).toString('base64url'), signature].join('.');
          },
          /signature/i,
        ],
      ];
      for (const [what, forge, detail] of forgeries) {
        const problem = await expectProblem(await withForgedIdToken(forge), 401, 'sso_response_invalid');
        expect(problem.code, what).toBe(3424);
        expect(problem.detail, what).toMatch(detail);
      }
      provider.tamperTokens = async (body) => {
        const { id_token: _dropped, ...rest } = body;
        return rest;
      };
      const missing = await browser.fresh().signIn(provider, email, { account });
      await expectProblem(missing.response, 401, 'sso_response_invalid');
      expect(await snapshot()).toBe(before);
    });

    it('never redirects to another site after sign-in', async () => {
      for (const returnTo of [
        'https://evil.example/console/',
        '//evil.example/console/',
        '/console/../api/admin/v1/session',
      ]) {
        const { response } = await browser.fresh().signIn(provider, email, { account, returnTo });
        expect(response.status).toBe(303);
        expect(response.headers.get('location'), returnTo).toBe('/console/');
      }
    });

    it('sends a browser back to the sign-in page with the error’s name; the metrics count by method and outcome', async () => {
      const navigated = await browser.fresh().fetch(`${ADMIN}/sso/callback?state=nothing&code=x`, {
        headers: { accept: HTML },
      });
      expect(navigated.status).toBe(303);
      expect(navigated.headers.get('location')).toBe('/console/#/sign-in?sso-error=sso_state_invalid');
      const metrics = await server.app.services.metrics.registry.getSingleMetricAsString(
        'punchclock_console_sign_ins_total',
      );
      expect(metrics).toMatch(/punchclock_console_sign_ins_total\{method="sso",outcome="success"\} [1-9]/);
      expect(metrics).toMatch(/\{method="sso",outcome="sso_response_invalid"\} [1-9]/);
      expect(metrics).toMatch(/\{method="sso",outcome="sso_state_invalid"\} [1-9]/);
    });

    it('refuses a sign-in under way when the configuration was removed meanwhile', async () => {
      const pending = browser.fresh();
      const started = await pending.start(email);
      const callback = await pending.atProvider(provider, started.headers.get('location')!, account);
      await removeSsoConfig(server.ctx, companyId, { type: 'cli', id: null });
      const before = await snapshot();
      await expectProblem(await pending.fetch(callback), 400, 'sso_state_invalid');
      expect(await snapshot()).toBe(before);
      expect(await (await pending.fetch(`${ADMIN}/sso/lookup?email=${email}`)).json()).toEqual({
        singleSignOn: false,
      });
    });
  },
);
