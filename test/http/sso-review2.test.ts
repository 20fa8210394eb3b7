import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompany } from '../../src/modules/companies/service.js';
import { inTransaction } from '../../src/modules/context.js';
import { deactivateUser } from '../../src/modules/people/users.js';
import { expectProblem, type Json } from '../support/api.js';
import { AdminClient, createPerson, type Person } from '../support/admin-api.js';
import { testDialects } from '../support/databases.js';
import { startTestProvider, type TestProvider } from '../support/oidc-provider.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { ADMIN, SsoBrowser } from '../support/sso.js';

/*
 * Issue 34's second security review, items 1 (the domain-in-use check spelled around), 2 ("require"
 * locking out people outside the allowed domains), 3 (emails compared in different canonical forms) and
 * 4 (domains claimed first come, first served), against a real OpenID Provider on loopback. Each test
 * names its item; each failed before its fix. The tests run in order on one server per database.
 */

async function companyNamed(server: TestServer, name: string): Promise<string> {
  return (await inTransaction(server.ctx, (tx, now) => createCompany(tx, now, { name }))).id;
}

describe.each(testDialects().map((d) => [d.name, d] as const))(
  'single sign-on second review on %s',
  (_name, dialect) => {
    let server: TestServer;
    let provider: TestProvider;
    let client: AdminClient;
    let browser: SsoBrowser;
    let companyId: string;
    let otherId: string;
    let manager: Person;
    let root: Person;

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
    async function lookup(email: string): Promise<unknown> {
      const response = await browser.fresh().fetch(`${ADMIN}/sso/lookup?email=${encodeURIComponent(email)}`);
      return ((await response.json()) as { singleSignOn: unknown }).singleSignOn;
    }
    function peopleOf(company: string) {
      return server.database.db
        .selectFrom('users')
        .select(['id', 'email'])
        .where('company_id', '=', company)
        .execute();
    }
    function links() {
      return server.database.db.selectFrom('sso_identities').select(['user_id', 'subject']).execute();
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
          { sub: 'sub-kelvin', email: '\u212Aate@acme.example' },
          { sub: 'sub-dot', email: 'dora@ACME.example.' },
          { sub: 'sub-nina', email: 'Nina@ACME.Example.' },
        ],
      });
      companyId = await companyNamed(server, 'Acme');
      otherId = await companyNamed(server, 'Beta');
      manager = await createPerson(server.ctx, companyId, {
        email: 'manager@acme.example',
        permissions: '47,93',
      });
      root = await createPerson(server.ctx, companyId, { email: 'root@root.example', superAdmin: true });
      client = await AdminClient.create(server);
      browser = await SsoBrowser.create(server);
    });
    afterAll(async () => {
      await provider?.stop();
      await server?.stop();
    });

    it('second review 1: a domain in use by another company is seen whatever the spelling of its people’s addresses', async () => {
      await createPerson(server.ctx, otherId, { email: 'bob@bücher.example' });
      await createPerson(server.ctx, otherId, { email: 'carl@beta-dot.example.' });
      await createPerson(server.ctx, otherId, { email: 'fay@\u212Aelvin.example' });
      for (const [domain, shown] of [
        ['bücher.example', 'xn--bcher-kva.example'],
        ['beta-dot.example', 'beta-dot.example'],
        ['kelvin.example', 'kelvin.example'],
      ]) {
        // Not even a super admin (nor the operator) may send another company's people to this provider.
        for (const person of [manager, root]) {
          const problem = await expectProblem(
            await put(person, { allowedDomains: ['acme.example', domain!] }),
            409,
            'sso_domain_in_use',
          );
          expect(problem.detail).toContain(shown);
          expect(problem.errors).toEqual([
            expect.objectContaining({ field: 'allowedDomains', code: 'in_use' }),
          ]);
        }
      }
      for (const email of ['bob@bücher.example', 'carl@beta-dot.example.', 'fay@\u212Aelvin.example'])
        expect(await lookup(email)).toBe(false);

      // `user create`, lookup and start all read the same normalised domain as the configuration.
      expect((await put(root, { allowedDomains: ['acme.example', 'größe.example'] })).status).toBe(200);
      await expect(createPerson(server.ctx, otherId, { email: 'x@GRÖßE.example.' })).rejects.toThrow(
        /signs in with another company's single sign-on/,
      );
      expect(await lookup('x@GRÖßE.example.')).toBe(true);
      expect((await browser.fresh().start('x@xn--gre-6ka8i.example')).status).toBe(303);
    });

    it('second review 4: a public mail provider’s domain is refused for everyone, naming allowedDomains', async () => {
      for (const person of [manager, root]) {
        const problem = await expectProblem(
          await put(person, { allowedDomains: ['acme.example', 'GMail.com.', 'outlook.com'] }),
          422,
          'validation_failed',
        );
        expect(problem.errors).toEqual([
          expect.objectContaining({ field: 'allowedDomains', code: 'public_domain' }),
          expect.objectContaining({ field: 'allowedDomains', code: 'public_domain' }),
        ]);
      }
      expect(await lookup('x@gmail.com')).toBe(false);
    });

    it('second review 4: a console author who is not a super admin claims only domains the company’s active people use', async () => {
      const unproven = await expectProblem(
        await put(manager, { allowedDomains: ['acme.example', 'b-corp.example'] }),
        422,
        'sso_domain_unproven',
      );
      expect(unproven.code).toBe(3436);
      expect(unproven.errors).toEqual([
        expect.objectContaining({ field: 'allowedDomains', code: 'unproven' }),
      ]);
      expect(unproven.detail).toContain('b-corp.example');
      // The other organisation's people are not blocked.
      await createPerson(server.ctx, otherId, { email: 'ceo@b-corp.example' });

      // A deactivated person proves nothing; an active one does.
      const gone = await createPerson(server.ctx, companyId, { email: 'gone@acme-labs.example' });
      await inTransaction(server.ctx, (tx, now) => deactivateUser(tx, now, gone.id));
      await expectProblem(
        await put(manager, { allowedDomains: ['acme.example', 'acme-labs.example'] }),
        422,
        'sso_domain_unproven',
      );
      await createPerson(server.ctx, companyId, { email: 'Lab@ACME-Labs.example.' });
      expect((await put(manager, { allowedDomains: ['acme.example', 'acme-labs.example'] })).status).toBe(
        200,
      );

      // A super admin may claim a domain nobody uses yet.
      expect((await put(root, { allowedDomains: ['acme.example', 'acme-new.example'] })).status).toBe(200);
      // A domain the company already serves stays when the manager saves again.
      expect((await put(manager, { allowedDomains: ['acme.example', 'acme-new.example'] })).status).toBe(200);
      expect((await put(manager)).status).toBe(200);
    });

    it('second review 3: a provider email with a Kelvin sign is never linked to the person with a k', async () => {
      expect((await put(manager)).status).toBe(200);
      const kate = await createPerson(server.ctx, companyId, {
        email: 'kate@acme.example',
        permissions: '47',
      });
      const refused = await browser.fresh().signIn(provider, kate.email, { account: 'sub-kelvin' });
      await expectProblem(refused.response, 403, 'sso_link_required');
      // Nor by "link my account": the provider's address is not the person's.
      const own = browser.fresh();
      const csrf = await own.passwordSignIn(kate.email, kate.password);
      await expectProblem((await own.link(provider, csrf, 'sub-kelvin')).response, 409, 'sso_link_mismatch');
      expect((await links()).some((link) => link.user_id === kate.id)).toBe(false);
    });

    it('second review 3: a provider email spelled in another case with a trailing dot finds the person, and new people are stored canonical', async () => {
      expect((await put(manager, { createPeople: true })).status).toBe(200);
      const dora = await createPerson(server.ctx, companyId, {
        email: 'dora@acme.example',
        permissions: '47',
      });
      const before = (await peopleOf(companyId)).length;
      const signedIn = browser.fresh();
      expect((await signedIn.signIn(provider, dora.email, { account: 'sub-dot' })).response.status).toBe(303);
      expect((await signedIn.session()).body).toMatchObject({ id: dora.id });
      expect((await peopleOf(companyId)).length).toBe(before);

      const created = browser.fresh();
      expect(
        (await created.signIn(provider, 'nina@acme.example', { account: 'sub-nina' })).response.status,
      ).toBe(303);
      const nina = (await peopleOf(companyId)).filter((person) => /nina/i.test(person.email));
      expect(nina.map((person) => person.email)).toEqual(['nina@acme.example']);
      expect((await created.session()).body).toMatchObject({ id: nina[0]!.id });
      expect((await put(manager)).status).toBe(200);
    });

    it('second review 2: "require" refuses a password only to people the provider can sign in', async () => {
      const contractor = await createPerson(server.ctx, companyId, {
        email: 'contractor@elsewhere.example',
        permissions: '47',
      });
      const staff = await createPerson(server.ctx, companyId, {
        email: 'Staff@ACME.example.',
        permissions: '47',
      });
      const contractorBrowser = browser.fresh();
      await contractorBrowser.passwordSignIn(contractor.email, contractor.password);
      const staffBrowser = browser.fresh();
      await staffBrowser.passwordSignIn(staff.email, staff.password);

      expect((await put(manager, { requireSso: true })).status).toBe(200);
      // Outside the allowed domains: their session goes on and their password still signs them in.
      expect((await contractorBrowser.session()).status).toBe(200);
      expect(
        (
          await client.fresh().request('/session', {
            method: 'POST',
            json: { email: contractor.email, password: contractor.password },
          })
        ).status,
      ).toBe(200);
      // Inside them (whatever the spelling of the stored address): refused, their session ended.
      expect((await staffBrowser.session()).status).toBe(401);
      await expectProblem(
        await client
          .fresh()
          .request('/session', { method: 'POST', json: { email: staff.email, password: staff.password } }),
        403,
        'sso_required',
      );
      expect((await put(root, { requireSso: false })).status).toBe(200);
    });
  },
);
