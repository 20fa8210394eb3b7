import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPerson, type Person } from '../support/admin-api.js';
import {
  ADMIN,
  capture,
  FLOW_TIMEOUT,
  HAVE_BROWSER,
  keyboardActivate,
  launchChromium,
  openPage,
  type PageLog,
  tabTo,
  UI_TIMEOUT,
} from '../support/browser.js';
import { testDialects } from '../support/databases.js';
import { PROVIDER_PASSWORD, startTestProvider, type TestProvider } from '../support/oidc-provider.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createCompany } from '../../src/modules/companies/service.js';
import { inTransaction } from '../../src/modules/context.js';

/**
 * Single sign-on in the console (issue 34), in a real headless Chromium against a real server and a
 * real OpenID Provider (oidc-provider) on loopback, on both databases: the Company screen's section
 * filled with the keyboard, the sign-in page sending the browser to the provider when the password is
 * left empty, the way back signed in to the page asked for, a refusal explained on the sign-in page,
 * and password sign-in refused when single sign-on is required. axe-core and screenshots at 1280 and
 * 390 px (artifacts/screenshots/sso-*.png).
 */

let browser: Browser | undefined;

beforeAll(async () => {
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

const suite = HAVE_BROWSER ? describe : describe.skip;

suite.each(testDialects().map((d) => [d.name, d] as const))(
  'single sign-on in Chromium on %s',
  (_name, dialect) => {
    let server: TestServer;
    let provider: TestProvider;
    let manager: Person;
    let staff: Person;
    let companyId: string;
    let context: BrowserContext;
    let page: Page;
    let log: PageLog;

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
          { sub: 'sub-stranger', email: 'stranger@acme.example' },
          { sub: 'sub-boss', email: 'boss@acme.example' },
        ],
      });
      const fixture = {
        companyId: (await inTransaction(server.ctx, (tx, now) => createCompany(tx, now, { name: 'Acme' })))
          .id,
      };
      manager = await createPerson(server.ctx, fixture.companyId, {
        email: 'manager@acme.example',
        permissions: '47,49,52,90,91,92,93',
      });
      staff = await createPerson(server.ctx, fixture.companyId, {
        email: 'staff@acme.example',
        permissions: '47',
      });
      // A manager (no super admin) claims only domains where the company's people have addresses (second
      // review, item 4): acme-corp.example is one.
      await createPerson(server.ctx, fixture.companyId, {
        email: 'office@acme-corp.example',
        permissions: '47',
      });
      companyId = fixture.companyId;
      context = await browser!.newContext({ viewport: { width: 1280, height: 900 } });
      ({ page, log } = await openPage(context));
    }, FLOW_TIMEOUT);

    afterAll(async () => {
      await context?.close();
      await provider?.stop();
      await server?.stop();
    });

    /** A new browser: no session here or at the provider (which would otherwise sign the last account in again). */
    async function freshBrowser() {
      await context.close();
      context = await browser!.newContext({ viewport: { width: 1280, height: 900 } });
      ({ page, log } = await openPage(context));
    }

    async function signOut() {
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    }

    it(
      'configures single sign-on on the Company screen with the keyboard',
      async () => {
        await page.goto(`${server.listenUrl}/console/#/company`);
        await page.getByLabel('Email address').fill(manager.email);
        await page.getByLabel('Password').fill(manager.password);
        await page.keyboard.press('Enter');
        await page.getByRole('heading', { level: 1, name: 'Company' }).waitFor({ timeout: UI_TIMEOUT });
        const section = page.getByRole('region', { name: 'Single sign-on' });
        await section.getByText(`${server.listenUrl}${ADMIN}/sso/callback`).waitFor({ timeout: UI_TIMEOUT });
        await capture(page, 'sso-company-empty');

        const type = async (label: string, text: string) => {
          await tabTo(page, section.getByLabel(label, { exact: true }));
          await page.keyboard.type(text);
        };
        await type('Issuer URL', provider.issuer);
        await type('Client ID', provider.clientId);
        await type('Client secret', provider.clientSecret);
        await type('Allowed email domains', 'acme.example, Acme-Corp.example');
        await type('Groups claim (optional)', 'groups');
        await type('Permissions by group (optional)', 'staff = 47');
        await keyboardActivate(page, section.getByRole('button', { name: 'Save single sign-on' }));
        await section.getByText('Single sign-on is saved.').waitFor({ timeout: UI_TIMEOUT });
        await expect(section.getByLabel('Client secret', { exact: true }).inputValue()).resolves.toBe('');
        await expect(section.getByLabel('Allowed email domains').inputValue()).resolves.toBe(
          'acme-corp.example, acme.example',
        );
        expect(await page.content()).not.toContain(provider.clientSecret);
        await capture(page, 'sso-company-saved');

        // A mapping beyond the manager's own permissions is refused next to its field.
        await section.getByLabel('Permissions by group (optional)').fill('staff = 47\nowners = 94');
        await keyboardActivate(page, section.getByRole('button', { name: 'Save single sign-on' }));
        await section
          .getByText(/you may map only permissions you hold yourself; not 94/)
          .waitFor({ timeout: UI_TIMEOUT });
        await capture(page, 'sso-company-refused');
        await section.getByLabel('Permissions by group (optional)').fill('staff = 47');
        await section.getByRole('button', { name: 'Save single sign-on' }).click();
        await section.getByText('Single sign-on is saved.').waitFor({ timeout: UI_TIMEOUT });
        await signOut();
        expect(log.problems).toEqual([]);
      },
      FLOW_TIMEOUT,
    );

    it(
      'signs in through the provider when the password is left empty, back on the page asked for',
      async () => {
        await page.goto(`${server.listenUrl}/console/#/time-entries`);
        await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
        await page.getByLabel('Email address').fill(staff.email);
        await capture(page, 'sso-sign-in');
        await page.keyboard.press('Enter');
        // The provider's own page, the email already filled in (login_hint).
        await page.getByRole('heading', { name: 'Test identity provider' }).waitFor({ timeout: UI_TIMEOUT });
        expect(new URL(page.url()).origin).toBe(provider.issuer);
        await page.getByLabel('Account').fill('sub-staff');
        await page.getByLabel('Password').fill(PROVIDER_PASSWORD);
        await page.getByRole('button', { name: 'Sign in at the provider' }).click();
        await page.getByRole('heading', { level: 1, name: 'Time entries' }).waitFor({ timeout: UI_TIMEOUT });
        expect(page.url()).toBe(`${server.listenUrl}/console/#/time-entries`);
        await expect(page.locator('.account-email').innerText()).resolves.toBe(staff.email);
        await signOut();
        expect(log.problems).toEqual([]);
      },
      FLOW_TIMEOUT,
    );

    it(
      'explains a refusal on the sign-in page; "Continue with single sign-on" says when a domain has none',
      async () => {
        await freshBrowser();
        await page.goto(`${server.listenUrl}/console/`);
        await page.getByLabel('Email address').fill('stranger@acme.example');
        await keyboardActivate(page, page.getByRole('button', { name: 'Continue with single sign-on' }));
        await page.getByRole('heading', { name: 'Test identity provider' }).waitFor({ timeout: UI_TIMEOUT });
        await page.getByLabel('Account').fill('sub-stranger');
        await page.getByLabel('Password').fill(PROVIDER_PASSWORD);
        await page.getByRole('button', { name: 'Sign in at the provider' }).click();
        const alert = page.getByRole('alert').filter({ hasText: 'no access to your company' });
        await alert.waitFor({ timeout: UI_TIMEOUT });
        expect(new URL(page.url()).hash).toBe('#/sign-in?sso-error=sso_person_unknown');
        await capture(page, 'sso-refused');

        await page.getByLabel('Email address').fill('someone@beta.example');
        await page.getByRole('button', { name: 'Continue with single sign-on' }).click();
        await page.getByRole('alert').filter({ hasText: 'not set up for this email address' }).waitFor();
        expect(log.problems).toEqual([]);
      },
      FLOW_TIMEOUT,
    );

    it(
      'a super admin is refused at a first single sign-on, then links their account from the Company screen',
      async () => {
        const boss = await createPerson(server.ctx, companyId, {
          email: 'boss@acme.example',
          superAdmin: true,
        });
        await freshBrowser();
        await page.goto(`${server.listenUrl}/console/`);
        await page.getByLabel('Email address').fill(boss.email);
        await page.keyboard.press('Enter');
        await page.getByRole('heading', { name: 'Test identity provider' }).waitFor({ timeout: UI_TIMEOUT });
        await page.getByLabel('Account').fill('sub-boss');
        await page.getByLabel('Password').fill(PROVIDER_PASSWORD);
        await page.getByRole('button', { name: 'Sign in at the provider' }).click();
        await page.getByRole('alert').filter({ hasText: 'Link my account' }).waitFor({ timeout: UI_TIMEOUT });
        expect(new URL(page.url()).hash).toBe('#/sign-in?sso-error=sso_link_required');
        await capture(page, 'sso-link-required');

        // A new browser (no session at the provider): the password, then "Link my account".
        await freshBrowser();
        await page.goto(`${server.listenUrl}/console/`);
        await page.getByLabel('Email address').fill(boss.email);
        await page.getByLabel('Password').fill(boss.password);
        await page.keyboard.press('Enter');
        await page.getByRole('button', { name: 'Sign out' }).waitFor({ timeout: UI_TIMEOUT });
        await page.goto(`${server.listenUrl}/console/#/company`);
        await page.getByRole('heading', { level: 1, name: 'Company' }).waitFor({ timeout: UI_TIMEOUT });
        const section = page.getByRole('region', { name: 'Your sign-in' });
        await section.getByRole('button', { name: 'Link my account' }).waitFor({ timeout: UI_TIMEOUT });
        await capture(page, 'sso-link-offered');
        await keyboardActivate(page, section.getByRole('button', { name: 'Link my account' }));
        await page.getByRole('heading', { name: 'Test identity provider' }).waitFor({ timeout: UI_TIMEOUT });
        await page.getByLabel('Account').fill('sub-boss');
        await page.getByLabel('Password').fill(PROVIDER_PASSWORD);
        await page.getByRole('button', { name: 'Sign in at the provider' }).click();
        await page.getByRole('heading', { level: 1, name: 'Company' }).waitFor({ timeout: UI_TIMEOUT });
        expect(page.url()).toBe(`${server.listenUrl}/console/#/company`);
        await section.getByText('Your account is linked').waitFor({ timeout: UI_TIMEOUT });
        await capture(page, 'sso-linked');
        expect(log.problems).toEqual([]);
      },
      FLOW_TIMEOUT,
    );

    it(
      'refuses password sign-in when single sign-on is required, and says how to sign in',
      async () => {
        const saved = await server.database.db
          .updateTable('sso_configs')
          .set({ require_sso: 1 })
          .executeTakeFirst();
        expect(Number(saved.numUpdatedRows)).toBe(1);
        await freshBrowser();
        await page.goto(`${server.listenUrl}/console/`);
        await page.getByLabel('Email address').fill(staff.email);
        await page.getByLabel('Password').fill(staff.password);
        await page.keyboard.press('Enter');
        await page
          .getByRole('alert')
          .filter({ hasText: 'signs in with its identity provider' })
          .waitFor({ timeout: UI_TIMEOUT });
        await capture(page, 'sso-required');
        expect(log.problems).toEqual([]);
      },
      FLOW_TIMEOUT,
    );
  },
);
