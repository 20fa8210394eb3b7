import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompany } from '../../src/modules/companies/service.js';
import { inTransaction } from '../../src/modules/context.js';
import { removeSsoConfig, setSsoConfig } from '../../src/modules/sso/config.js';
import { createPerson, type Person } from '../support/admin-api.js';
import { testDialects } from '../support/databases.js';
import { startTestProvider, type TestProvider } from '../support/oidc-provider.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { ADMIN, SsoBrowser } from '../support/sso.js';

/*
 * Issue 34's security review, item 8, on its own: sessions must not outlive what allowed them. Turning
 * "require" on ends the password sessions of the people it refuses a password (never a super admin's);
 * removing the configuration, or changing its issuer, ends the sessions single sign-on began. The
 * configuration is saved by the operator's services (as `company sso set` does).
 */

describe.each(testDialects().map((d) => [d.name, d] as const))(
  'single sign-on sessions on %s',
  (_name, dialect) => {
    let server: TestServer;
    let idp: TestProvider;
    let other: TestProvider;
    let browser: SsoBrowser;
    let companyId: string;
    let staff: Person;
    let boss: Person;

    /** The operator's `company sso set` (the secret sealed with the server's key). */
    async function operatorSets(provider: TestProvider, requireSso: boolean) {
      const key = server.app.services.webhookKey;
      // The key as a Buffer that also carries the address guard's list: the port's setSsoConfig took the
      // key itself, the fixed one takes { key, allowedHosts }; this runs on both (the test came first).
      const keys = Object.assign(Buffer.from(key), { key, allowedHosts: ['127.0.0.1'] });
      const input = {
        issuer: provider.issuer,
        clientId: provider.clientId,
        clientSecret: provider.clientSecret,
        allowedDomains: ['acme.example'],
        groupsClaim: null,
        groupPermissions: {},
        createPeople: false,
        requireSso,
      };
      await setSsoConfig(server.ctx, keys, companyId, input, { type: 'cli', id: null }, null);
    }

    beforeAll(async () => {
      server = await startTestServer(dialect, {
        env: {
          CONSOLE_SIGN_IN_LIMIT_PER_ADDRESS: '1000',
          CONSOLE_SIGN_IN_LIMIT_PER_ACCOUNT: '1000',
          SSO_ALLOWED_HOSTS: '127.0.0.1',
        },
      });
      const redirectUris = [`${server.listenUrl}${ADMIN}/sso/callback`];
      const accounts = [{ sub: 'sub-staff', email: 'staff@acme.example' }];
      idp = await startTestProvider({ redirectUris, accounts });
      other = await startTestProvider({ redirectUris, accounts });
      companyId = (await inTransaction(server.ctx, (tx, now) => createCompany(tx, now, { name: 'Acme' }))).id;
      staff = await createPerson(server.ctx, companyId, { email: 'staff@acme.example', permissions: '47' });
      boss = await createPerson(server.ctx, companyId, { email: 'boss@acme.example', superAdmin: true });
      browser = await SsoBrowser.create(server);
      await operatorSets(idp, false);
    });
    afterAll(async () => {
      await idp?.stop();
      await other?.stop();
      await server?.stop();
    });

    it('review 8: switching "require" on ends the password sessions it refuses, not a super admin’s nor single sign-on’s', async () => {
      const password = browser.fresh();
      await password.passwordSignIn(staff.email, staff.password);
      const superAdmin = browser.fresh();
      await superAdmin.passwordSignIn(boss.email, boss.password);
      const sso = browser.fresh();
      expect((await sso.signIn(idp, staff.email, { account: 'sub-staff' })).response.status).toBe(303);
      await operatorSets(idp, true);
      expect((await password.session()).status).toBe(401);
      expect((await superAdmin.session()).status).toBe(200);
      expect((await sso.session()).status).toBe(200);
      await operatorSets(idp, false);
    });

    it('review 8: a new issuer ends the sessions single sign-on began', async () => {
      const sso = browser.fresh();
      expect((await sso.signIn(idp, staff.email, { account: 'sub-staff' })).response.status).toBe(303);
      const password = browser.fresh();
      await password.passwordSignIn(staff.email, staff.password);
      await operatorSets(other, false);
      expect((await sso.session()).status).toBe(401);
      expect((await password.session()).status).toBe(200);
    });

    it('review 8: removing the configuration ends the sessions single sign-on began', async () => {
      await operatorSets(idp, false);
      const sso = browser.fresh();
      expect((await sso.signIn(idp, staff.email, { account: 'sub-staff' })).response.status).toBe(303);
      const password = browser.fresh();
      await password.passwordSignIn(boss.email, boss.password);
      await removeSsoConfig(server.ctx, companyId, { type: 'cli', id: null });
      expect((await sso.session()).status).toBe(401);
      expect((await password.session()).status).toBe(200);
    });
  },
);
