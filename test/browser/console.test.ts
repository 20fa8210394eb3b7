import { DateTime } from 'luxon';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/modules/context.js';
import { expectProblem, type Json } from '../support/api.js';
import { createPerson, type Person } from '../support/admin-api.js';
import {
  capture,
  fetchInPage,
  FLOW_TIMEOUT,
  HAVE_BROWSER,
  keyboardActivate,
  MINUTE,
  openPage,
  type PageLog,
  PUBLIC,
  tabTo,
  UI_TIMEOUT,
  useChromium,
} from '../support/browser.js';
import { testDialects } from '../support/databases.js';
import { runCli } from '../support/processes.js';
import {
  type CompanyFixture,
  createCompanyFixture,
  fetchToken,
  startTestServer,
  type TestServer,
} from '../support/server.js';
import { createUser } from '../../src/modules/people/users.js';

/**
 * The console (issue 19) in a real headless Chromium against a real server, on both databases:
 * invitation, sign-in, the API keys, time entries and company screens, sign-out and an ended
 * session, each main flow driven with the keyboard alone (Tab, Enter, Space, arrows), axe-core on
 * every screen at 1280 and 390 px, and a screenshot of every screen at both widths in
 * artifacts/screenshots/. The server-side refusals (CSRF, another company's ids, permissions) are
 * also tried from inside the signed-in page, as a script running there would.
 *
 * Chromium is Debian's package; without it the suite fails under CI=true and is skipped elsewhere.
 */

const ZONE = 'Europe/Berlin';

// The functions passed to page.evaluate run in the browser; the test project has no DOM types, so the
// few browser names used here are declared (module scope, no global DOM in the server's program).
declare const document: { activeElement: { id: string; textContent: string | null } | null };
declare const navigator: { clipboard: { readText(): Promise<string> } };

const browser = useChromium();

const suite = HAVE_BROWSER ? describe : describe.skip;

suite.each(testDialects().map((d) => [d.name, d] as const))(
  'the console in Chromium on %s',
  (_name, dialect) => {
    let server: TestServer;
    let offset = 0;
    let acme: CompanyFixture;
    let beta: CompanyFixture;
    let adminId: string;
    let admin: Person;
    let viewer: Person;
    let context: BrowserContext;
    let page: Page;
    let log: PageLog;
    let csrfToken: string;
    const password = 'a long enough passphrase';

    // Last week (Monday to Sunday) in the company's zone: entries there are within the 30 days the API takes.
    const today = DateTime.now().setZone(ZONE).startOf('day');
    const lastMonday = today.minus({ weeks: 1 }).startOf('week');
    const day = (offsetDays: number) => lastMonday.plus({ days: offsetDays }).toISODate()!;
    const at = (offsetDays: number, time: string) =>
      DateTime.fromISO(`${day(offsetDays)}T${time}`, { zone: ZONE }).toISO({ suppressMilliseconds: true })!;

    async function recordShift(fixture: CompanyFixture, clockIn: string, clockOut: string): Promise<string> {
      const token = await fetchToken(server, fixture.key.clientId, fixture.key.secret);
      const response = await server.request(`${PUBLIC}/time-entries`, {
        method: 'POST',
        token,
        headers: { 'idempotency-key': crypto.randomUUID() },
        json: { employee: { id: fixture.employees[0]!.id }, clockIn, clockOut },
      });
      expect(response.status, await response.clone().text()).toBe(201);
      return ((await response.json()) as Json).timeEntryId as string;
    }

    async function tokenStatus(clientId: string, secret: string): Promise<number> {
      const response = await fetch(`${server.listenUrl}${PUBLIC}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: clientId,
          client_secret: secret,
        }),
      });
      return response.status;
    }

    beforeAll(async () => {
      server = await startTestServer(dialect, { now: () => Date.now() + offset });
      acme = await createCompanyFixture(server.ctx, { name: 'Acme Logistics', timeZone: ZONE });
      beta = await createCompanyFixture(server.ctx, { name: 'Beta Foods', timeZone: 'America/New_York' });
      // Acme's console administrator: keys, entries, company settings, but not reports (49) or leave (72).
      const created = await inTransaction(server.ctx, (tx, now) =>
        createUser(tx, now, {
          companyId: acme.companyId,
          email: 'maria.admin@acme.example',
          permissions: '47,52,86,90,91,93',
        }),
      );
      adminId = created.id;
      admin = { id: adminId, email: 'maria.admin@acme.example', password };
      // Someone who may read entries and employees, nothing more.
      viewer = await createPerson(server.ctx, acme.companyId, {
        email: 'sam.viewer@acme.example',
        permissions: '47,52',
      });
      context = await browser().newContext({ viewport: { width: 1280, height: 900 } });
      context.setDefaultTimeout(UI_TIMEOUT);
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.listenUrl });
      ({ page, log } = await openPage(context));
    });

    afterAll(async () => {
      await context?.close();
      await server?.stop();
    });

    it(
      'accepts an invitation from `punchclock user invite` with the keyboard alone, and is signed in',
      async () => {
        const invite = await runCli(server.testDatabase.url, 'user', 'invite', adminId, '--json');
        expect(invite.code, invite.stderr).toBe(0);
        const { url } = JSON.parse(invite.stdout) as { url: string; expiresAt: string };
        const token = /#\/invite\/([A-Za-z0-9_-]+)$/.exec(url)?.[1];
        expect(token).toBeDefined();

        await page.goto(`${server.listenUrl}/console/#/invite/${token}`);
        await page.getByRole('heading', { level: 1, name: 'Choose your password' }).waitFor();
        await capture(page, 'invitation');
        // The first field has the focus: type a short password, Tab, the same again, Enter.
        await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('invite-password');
        await page.keyboard.type('too short');
        await page.keyboard.press('Tab');
        await page.keyboard.type('too short');
        await page.keyboard.press('Enter');
        await expect(page.getByText('Use at least 12 characters').innerText()).resolves.toContain(
          'this one has 9',
        );
        await capture(page, 'invitation-short-password');
        // Focus went back to the password: fix both fields.
        await page.keyboard.press('Control+A');
        await page.keyboard.type(password);
        await page.keyboard.press('Tab');
        await page.keyboard.press('Control+A');
        await page.keyboard.type(password);
        await page.keyboard.press('Enter');

        await page.getByRole('heading', { level: 1, name: 'Time entries' }).waitFor();
        expect(new URL(page.url()).hash).toBe('#/time-entries');
        expect(await page.title()).toBe('Time entries · Punchclock');
        const nav = page.getByRole('navigation', { name: 'Main' });
        await expect(nav.getByRole('link').allInnerTexts()).resolves.toEqual([
          'Time entries',
          'Now',
          'Roster',
          'Employees',
          'API keys',
          'Company',
          'Webhooks',
          'Audit log',
        ]);
        await expect(page.getByRole('banner').innerText()).resolves.toContain('maria.admin@acme.example');
        const session = await fetchInPage(page, 'GET', '/session');
        expect(session.status).toBe(200);
        csrfToken = session.body!.csrfToken as string;

        // The link works once.
        const again = await browser().newContext();
        try {
          const { page: second } = await openPage(again);
          await second.goto(`${server.listenUrl}/console/#/invite/${token}`);
          await second.locator('#invite-password').fill(password);
          await second.locator('#invite-repeat').fill(password);
          await second.keyboard.press('Enter');
          await second.getByRole('alert').filter({ hasText: 'no longer valid' }).waitFor();
        } finally {
          await again.close();
        }
      },
      FLOW_TIMEOUT,
    );

    it(
      'refuses a wrong password without saying which part was wrong, then signs in with the keyboard',
      async () => {
        const other = await browser().newContext({ viewport: { width: 1280, height: 900 } });
        try {
          const { page: fresh, log: freshLog } = await openPage(other);
          await fresh.goto(`${server.listenUrl}/console`);
          await fresh.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
          expect(new URL(fresh.url()).pathname).toBe('/console/');
          await capture(fresh, 'sign-in');
          // The email field has the focus.
          await fresh.keyboard.type(admin.email);
          await fresh.keyboard.press('Tab');
          await fresh.keyboard.type('not the right password');
          await fresh.keyboard.press('Enter');
          const alert = fresh.getByRole('alert').filter({ hasText: 'not right' });
          await expect(alert.innerText()).resolves.toContain(
            'The email address or the password is not right.',
          );
          await capture(fresh, 'sign-in-wrong-password');
          // An unknown email gets the very same message.
          await fresh.locator('input[type=email]').fill('nobody@acme.example');
          await fresh.locator('input[type=password]').fill('not the right password');
          await fresh.keyboard.press('Enter');
          await expect(alert.innerText()).resolves.toContain(
            'The email address or the password is not right.',
          );

          await tabTo(fresh, fresh.locator('input[type=email]'), { shift: true });
          await fresh.keyboard.press('Control+A');
          await fresh.keyboard.type(admin.email);
          await fresh.keyboard.press('Tab');
          await fresh.keyboard.type(admin.password);
          await fresh.keyboard.press('Enter');
          await fresh.getByRole('heading', { level: 1, name: 'Time entries' }).waitFor();
          expect(freshLog.problems).toEqual([]);
        } finally {
          await other.close();
        }
      },
      FLOW_TIMEOUT,
    );

    it(
      'creates a key with the keyboard: its secret once (copied), a token with it, then only its client id; rotates and revokes it',
      async () => {
        await keyboardActivate(page, page.getByRole('link', { name: 'API keys' }));
        await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
        await page.getByRole('table').waitFor();
        await page.getByText(`Dates and times in ${ZONE}`).first().waitFor();

        // The scope rule: reading scopes the person lacks are offered but cannot be chosen.
        await expect(page.locator('#scope-attendance\\.reports').isDisabled()).resolves.toBe(true);
        await expect(page.locator('#scope-leave\\.read').isDisabled()).resolves.toBe(true);
        await expect(page.locator('#scope-attendance\\.read').isDisabled()).resolves.toBe(false);

        await tabTo(page, page.getByLabel('Name', { exact: true }));
        await page.keyboard.type('Payroll export');
        await keyboardActivate(page, page.locator('#scope-attendance\\.record'), 'Space');
        await keyboardActivate(page, page.locator('#scope-attendance\\.read'), 'Space');
        await tabTo(page, page.getByLabel('Allowed IP ranges (optional)'));
        await page.keyboard.type('127.0.0.1/32');
        await page.keyboard.press('Enter');
        await page.keyboard.type('::1');
        await keyboardActivate(page, page.getByRole('button', { name: 'Create key' }));

        const panel = page.getByRole('region', { name: /Secret of “Payroll export”/ });
        await panel.waitFor();
        const secret = await panel.getByLabel('Client secret').inputValue();
        const clientId = await panel.locator('.client-id').innerText();
        expect(clientId).toMatch(/^svc_/);
        expect(secret.startsWith(`${clientId}_`)).toBe(true);
        await capture(page, 'api-keys-secret-shown-once');
        await keyboardActivate(page, panel.getByRole('button', { name: 'Copy secret' }));
        await expect(panel.getByRole('status').innerText()).resolves.toBe('Copied to the clipboard.');
        await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(secret);

        // The key works at the public API's token endpoint.
        expect(await fetchToken(server, clientId, secret)).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);

        // Done: the secret is gone from the page, and neither a reload nor the API shows it again.
        await keyboardActivate(page, panel.getByRole('button', { name: 'I have stored the secret' }));
        await panel.waitFor({ state: 'detached' });
        const row = page.getByRole('row').filter({ hasText: 'Payroll export' });
        await expect(row.innerText()).resolves.toContain(clientId);
        await expect(row.innerText()).resolves.toContain('127.0.0.1/32');
        expect(await page.content()).not.toContain(secret);
        await page.reload();
        await row.waitFor();
        expect(await page.content()).not.toContain(secret);
        const listed = await fetchInPage(page, 'GET', '/api-keys');
        expect(JSON.stringify(listed.body)).not.toContain(secret);
        expect(JSON.stringify(listed.body)).toContain(clientId);
        await capture(page, 'api-keys');

        // Rotate with a grace period: a new secret once; the old one keeps working meanwhile.
        await keyboardActivate(page, page.getByRole('button', { name: 'Rotate key Payroll export' }));
        const rotateDialog = page.getByRole('dialog', { name: 'Rotate key “Payroll export”' });
        await rotateDialog.waitFor();
        // A modal's backdrop covers the viewport: the screenshot shows what a person sees.
        await capture(page, 'api-keys-rotate-dialog', { fullPage: false });
        await tabTo(page, rotateDialog.getByLabel('Keep the old secret working for'));
        await page.keyboard.press('ArrowDown'); // 24 hours → 7 days
        await expect(rotateDialog.getByLabel('Keep the old secret working for').inputValue()).resolves.toBe(
          '604800',
        );
        await keyboardActivate(
          page,
          rotateDialog.getByRole('button', { name: 'Rotate and show the new secret' }),
        );
        await panel.waitFor();
        const rotated = await panel.getByLabel('Client secret').inputValue();
        expect(rotated).not.toBe(secret);
        expect(await tokenStatus(clientId, rotated)).toBe(200);
        expect(await tokenStatus(clientId, secret)).toBe(200);
        await keyboardActivate(page, panel.getByRole('button', { name: 'I have stored the secret' }));
        await expect(row.innerText()).resolves.toContain('old secret valid until');

        // Revoke: the dialog's confirm button has the focus; the token endpoint refuses the key from now on.
        await keyboardActivate(page, page.getByRole('button', { name: 'Revoke key Payroll export' }));
        const revokeDialog = page.getByRole('dialog', { name: 'Revoke key “Payroll export”?' });
        await revokeDialog.waitFor();
        // Escape cancels and gives the focus back to the button that opened the dialog; Enter opens it again.
        await page.keyboard.press('Escape');
        await revokeDialog.waitFor({ state: 'hidden' });
        await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Revoke');
        await page.keyboard.press('Enter');
        await revokeDialog.waitFor();
        // A modal's backdrop covers the viewport: the screenshot shows what a person sees.
        await capture(page, 'api-keys-revoke-dialog', { fullPage: false });
        await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Revoke key');
        await page.keyboard.press('Enter');
        await revokeDialog.waitFor({ state: 'hidden' });
        await expect(row.innerText()).resolves.toContain('Revoked');
        await page.getByRole('status').filter({ hasText: 'is revoked' }).first().waitFor();
        for (const tried of [rotated, secret]) expect(await tokenStatus(clientId, tried)).toBe(401);
        await capture(page, 'api-keys-revoked');
        expect(log.problems).toEqual([]);
      },
      FLOW_TIMEOUT,
    );

    it(
      "shows an employee's week (pending first, overnight on its start day), approves one and many, rejects one, confirms a day that then refuses punches",
      async () => {
        const monday = await recordShift(acme, at(0, '08:00'), at(0, '16:30'));
        const overnight = await recordShift(acme, at(1, '22:00'), at(2, '06:00'));
        const wednesday = await recordShift(acme, at(2, '09:00'), at(2, '13:00'));
        const thursday = await recordShift(acme, at(3, '09:00'), at(3, '17:00'));
        const employee = acme.employees[0]!;

        // Employee and week chosen with the keyboard: the select with the arrow keys, then "Previous week".
        await keyboardActivate(page, page.getByRole('link', { name: 'Time entries' }));
        await page.getByRole('heading', { level: 1, name: 'Time entries' }).waitFor();
        await capture(page, 'time-entries-choose-employee');
        const picker = page.getByLabel('Employee', { exact: true });
        await expect.poll(() => picker.locator('option').count()).toBe(3);
        await tabTo(page, picker);
        await page.keyboard.press('ArrowDown');
        await expect.poll(() => new URL(page.url()).hash).toContain(`employee=${employee.id}`);
        await keyboardActivate(page, page.getByRole('button', { name: 'Previous week' }));
        await expect.poll(() => new URL(page.url()).hash).toContain(`week=${day(0)}`);
        const entries = page.getByRole('table', { name: 'Time entries, pending first' });
        await entries.waitFor();
        await page.getByText(`Times in ${ZONE}`).first().waitFor();
        const rows = entries.locator('tbody tr');
        await expect.poll(() => rows.count()).toBe(4);
        const overnightRow = rows.filter({ hasText: '22:00' });
        await expect(overnightRow.innerText()).resolves.toContain('(ends next day)');
        await expect(overnightRow.locator('th').innerText()).resolves.toMatch(/^Tue/);
        await capture(page, 'time-entries-week');

        // One at a time: approve Monday's with its own button.
        await keyboardActivate(
          page,
          rows.filter({ hasText: '08:00' }).getByRole('button', { name: /^Approve entry/ }),
        );
        await page.getByRole('status').filter({ hasText: '1 entry approved.' }).first().waitFor();
        // Pending first: the approved entry moved to the end.
        await expect.poll(() => rows.last().innerText()).toContain('08:00');
        await expect(rows.last().innerText()).resolves.toContain('Approved');

        // Many at once: tick the overnight and Wednesday entries with Space, approve them together.
        await keyboardActivate(page, entries.getByRole('checkbox', { name: /^Select entry Tue/ }), 'Space');
        await keyboardActivate(page, entries.getByRole('checkbox', { name: /^Select entry Wed/ }), 'Space');
        await keyboardActivate(page, page.getByRole('button', { name: 'Approve selected (2)' }));
        await page.getByRole('status').filter({ hasText: '2 entries approved.' }).first().waitFor();
        // Reject Thursday's.
        await keyboardActivate(
          page,
          rows.filter({ hasText: '17:00' }).getByRole('button', { name: /^Reject entry/ }),
        );
        await page.getByRole('status').filter({ hasText: '1 entry rejected.' }).first().waitFor();

        // The public API agrees.
        const token = await fetchToken(server, acme.key.clientId, acme.key.secret);
        const listed = await server.request(
          `${PUBLIC}/time-entries?employeeId=${employee.id}&from=${day(0)}&to=${day(6)}`,
          { token },
        );
        const statuses = Object.fromEntries(
          ((await listed.json()) as { items: Json[] }).items.map((e) => [e.id as string, e.status as string]),
        );
        expect(statuses).toEqual({
          [monday]: 'approved',
          [overnight]: 'approved',
          [wednesday]: 'approved',
          [thursday]: 'rejected',
        });

        // Confirm Monday through its dialog; a punch on Monday is then refused with 409 day_locked.
        const days = page.getByRole('table', { name: 'Days of the week' });
        const mondayLabel = await days.locator('tbody tr').first().locator('th').innerText();
        await keyboardActivate(page, days.getByRole('button', { name: `Confirm day ${mondayLabel}` }));
        const dialog = page.getByRole('dialog', { name: `Confirm ${mondayLabel}?` });
        await dialog.waitFor();
        // A modal's backdrop covers the viewport: the screenshot shows what a person sees.
        await capture(page, 'time-entries-confirm-day-dialog', { fullPage: false });
        await page.keyboard.press('Enter');
        await dialog.waitFor({ state: 'hidden' });
        await expect(days.locator('tbody tr').first().innerText()).resolves.toContain('Confirmed');
        await capture(page, 'time-entries-decided');
        const punch = await server.request(`${PUBLIC}/time-clock/events`, {
          method: 'POST',
          token,
          headers: { 'idempotency-key': crypto.randomUUID() },
          json: { employee: { id: employee.id }, type: 'clock_in', occurredAt: at(0, '18:00') },
        });
        await expectProblem(punch, 409, 'day_locked');
        expect(log.problems).toEqual([]);
      },
      FLOW_TIMEOUT,
    );

    it(
      'changes the company settings with the keyboard: API access off refuses every key of the company',
      async () => {
        await keyboardActivate(page, page.getByRole('link', { name: 'Company' }));
        await page.getByRole('heading', { level: 1, name: 'Company' }).waitFor();
        const zone = page.getByLabel('Time zone');
        await expect(zone.inputValue()).resolves.toBe(ZONE);
        await capture(page, 'company');
        const apiAccess = page.getByLabel('API access', { exact: true });
        await expect(apiAccess.isChecked()).resolves.toBe(true);
        await keyboardActivate(page, apiAccess, 'Space');
        await keyboardActivate(page, page.getByRole('button', { name: 'Save settings' }));
        await page.getByRole('status').filter({ hasText: 'The settings are saved.' }).first().waitFor();
        expect(await tokenStatus(acme.key.clientId, acme.key.secret)).toBe(401);
        await keyboardActivate(page, apiAccess, 'Space');
        await keyboardActivate(page, page.getByRole('button', { name: 'Save settings' }));
        await expect.poll(() => tokenStatus(acme.key.clientId, acme.key.secret)).toBe(200);
        expect(log.problems).toEqual([]);
      },
      FLOW_TIMEOUT,
    );

    it("gives a person of one company nothing of another company's, whatever ids are sent", async () => {
      const betaEntry = await recordShift(beta, at(0, '08:00'), at(0, '12:00'));
      const betaEmployee = beta.employees[0]!.id;
      // Through the console's own address: the screen says there is no such employee.
      await page.goto(`${server.listenUrl}/console/#/time-entries?employee=${betaEmployee}&week=${day(0)}`);
      await page.getByRole('alert').filter({ hasText: 'No such employee' }).first().waitFor();
      await capture(page, 'time-entries-other-company');
      // And through the admin API, from inside the signed-in page.
      const week = await fetchInPage(
        page,
        'GET',
        `/time-entries?employeeId=${betaEmployee}&from=${day(0)}&to=${day(6)}`,
      );
      expect(week).toMatchObject({ status: 404, body: { error: 'not_found' } });
      const revoke = await fetchInPage(page, 'POST', `/api-keys/${beta.key.id}/revoke`, undefined, csrfToken);
      expect(revoke).toMatchObject({ status: 404, body: { error: 'not_found' } });
      const rotate = await fetchInPage(page, 'POST', `/api-keys/${beta.key.id}/rotate`, {}, csrfToken);
      expect(rotate).toMatchObject({ status: 404, body: { error: 'not_found' } });
      const decide = await fetchInPage(
        page,
        'POST',
        '/time-entries/decisions',
        { ids: [betaEntry], decision: 'approved' },
        csrfToken,
      );
      expect(decide.status).toBe(200);
      expect(decide.body!.results).toMatchObject([{ id: betaEntry, status: 404 }]);
      const confirm = await fetchInPage(
        page,
        'POST',
        '/confirmed-days',
        { employeeId: betaEmployee, date: day(0) },
        csrfToken,
      );
      expect(confirm).toMatchObject({ status: 404, body: { error: 'not_found' } });
      const keys = await fetchInPage(page, 'GET', '/api-keys');
      expect(JSON.stringify(keys.body)).not.toContain(beta.key.clientId);
      const employees = await fetchInPage(page, 'GET', '/employees?limit=100');
      expect(JSON.stringify(employees.body)).not.toContain(betaEmployee);
      // Beta's key and entry are untouched.
      expect(await tokenStatus(beta.key.clientId, beta.key.secret)).toBe(200);
      const betaToken = await fetchToken(server, beta.key.clientId, beta.key.secret);
      const betaList = await server.request(
        `${PUBLIC}/time-entries?employeeId=${betaEmployee}&from=${day(0)}&to=${day(6)}`,
        { token: betaToken },
      );
      expect(((await betaList.json()) as { items: Json[] }).items).toMatchObject([
        { id: betaEntry, status: 'pending_approval' },
      ]);
    });

    it("shows the server's refusal of a key next to the field it concerns", async () => {
      await page.goto(`${server.listenUrl}/console/#/api-keys`);
      await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
      await page.getByLabel('Name', { exact: true }).fill('Bad ranges');
      await page.locator('#scope-attendance\\.record').check();
      const ranges = page.getByLabel('Allowed IP ranges (optional)');
      await ranges.fill('10.0.0.0/8\nnot-an-address');
      await page.getByRole('button', { name: 'Create key' }).press('Enter');
      await expect.poll(() => ranges.getAttribute('aria-invalid')).toBe('true');
      const described = (await ranges.getAttribute('aria-describedby'))!.split(' ');
      const error = page.locator(`[id="${described.at(-1)}"]`);
      await expect(error.innerText()).resolves.toMatch(/not-an-address/);
      await capture(page, 'api-keys-field-error');
      const keys = await fetchInPage(page, 'GET', '/api-keys');
      expect(JSON.stringify(keys.body)).not.toContain('Bad ranges');
    });

    it('serves the console from its own files, with a strict Content-Security-Policy', async () => {
      const index = await fetch(`${server.listenUrl}/console/`);
      expect(index.status).toBe(200);
      expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const csp = index.headers.get('content-security-policy')!;
      expect(csp).toContain("default-src 'none'");
      expect(csp).toMatch(/script-src 'self' 'sha256-[A-Za-z0-9+/]+=*'/);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(index.headers.get('x-frame-options')).toBe('DENY');
      const redirect = await fetch(`${server.listenUrl}/console`, { redirect: 'manual' });
      expect([redirect.status, redirect.headers.get('location')]).toEqual([301, '/console/']);
      const module = await fetch(`${server.listenUrl}/console/vendor/preact/preact.mjs`);
      expect([module.status, module.headers.get('content-type')]).toEqual([
        200,
        'text/javascript; charset=utf-8',
      ]);
      const etag = module.headers.get('etag')!;
      const again = await fetch(`${server.listenUrl}/console/vendor/preact/preact.mjs`, {
        headers: { 'if-none-match': etag },
      });
      expect(again.status).toBe(304);
      for (const path of [
        '/console/app/nope.js',
        '/console/../package.json',
        '/console/app/../../package.json',
        '/console/%2e%2e/package.json',
      ])
        expect((await fetch(`${server.listenUrl}${path}`)).status, path).toBe(404);
    });

    it('refuses a state-changing request without the session CSRF token (and with a wrong one)', async () => {
      const before = ((await fetchInPage(page, 'GET', '/api-keys')).body!.items as Json[]).length;
      const body = { name: 'Forged', scopes: ['attendance.record'] };
      const missing = await fetchInPage(page, 'POST', '/api-keys', body, null);
      expect(missing).toMatchObject({ status: 403, body: { error: 'csrf_failed' } });
      const wrong = await fetchInPage(page, 'POST', '/api-keys', body, `${csrfToken.slice(0, -2)}xx`);
      expect(wrong).toMatchObject({ status: 403, body: { error: 'csrf_failed' } });
      const signOut = await fetchInPage(page, 'DELETE', '/session', undefined, null);
      expect(signOut).toMatchObject({ status: 403, body: { error: 'csrf_failed' } });
      expect(((await fetchInPage(page, 'GET', '/api-keys')).body!.items as Json[]).length).toBe(before);
      // The console itself sends the token: the same creation through the page works.
      const made = await fetchInPage(page, 'POST', '/api-keys', body, csrfToken);
      expect(made.status).toBe(201);
    });

    it(
      'shows a person only the screens their permissions allow; the server refuses the rest anyway',
      async () => {
        const other = await browser().newContext({ viewport: { width: 1280, height: 900 } });
        try {
          const { page: viewerPage, log: viewerLog } = await openPage(other);
          await viewerPage.goto(`${server.listenUrl}/console/#/api-keys`);
          await viewerPage.getByLabel('Email address').fill(viewer.email);
          await viewerPage.getByLabel('Password').fill(viewer.password);
          await viewerPage.keyboard.press('Enter');
          // Back where they were going, which is not for them.
          await viewerPage.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
          await expect(viewerPage.getByRole('main').innerText()).resolves.toContain(
            'Your permissions do not include this screen',
          );
          await capture(viewerPage, 'no-permission');
          const nav = viewerPage.getByRole('navigation', { name: 'Main' });
          await expect(nav.getByRole('link').allInnerTexts()).resolves.toEqual([
            'Time entries',
            'Now',
            'Roster',
            'Employees',
            'Company',
          ]);
          const session = await fetchInPage(viewerPage, 'GET', '/session');
          const token = session.body!.csrfToken as string;
          const create = await fetchInPage(
            viewerPage,
            'POST',
            '/api-keys',
            { name: 'Sneaky', scopes: ['attendance.record'] },
            token,
          );
          expect(create).toMatchObject({ status: 403, body: { error: 'forbidden' } });
          // Time entries without decisions: no approve buttons; the company settings read-only.
          await viewerPage.goto(
            `${server.listenUrl}/console/#/time-entries?employee=${acme.employees[0]!.id}&week=${day(0)}`,
          );
          await viewerPage.getByRole('table', { name: 'Time entries, pending first' }).waitFor();
          await expect(
            viewerPage.getByRole('button', { name: /Approve|Reject|Confirm/ }).count(),
          ).resolves.toBe(0);
          await capture(viewerPage, 'time-entries-read-only');
          await keyboardActivate(viewerPage, viewerPage.getByRole('link', { name: 'Company' }));
          await viewerPage.getByLabel('Time zone').waitFor();
          await expect(viewerPage.getByLabel('Time zone').isDisabled()).resolves.toBe(true);
          await expect(viewerPage.getByRole('button', { name: 'Save settings' }).count()).resolves.toBe(0);
          await capture(viewerPage, 'company-read-only');
          const patch = await fetchInPage(viewerPage, 'PATCH', '/company', { apiAccess: false }, token);
          expect(patch).toMatchObject({ status: 403, body: { error: 'forbidden' } });
          expect(viewerLog.problems).toEqual([]);
        } finally {
          await other.close();
        }
      },
      FLOW_TIMEOUT,
    );

    it('signs out with the keyboard', async () => {
      const other = await browser().newContext({ viewport: { width: 1280, height: 900 } });
      try {
        const { page: own } = await openPage(other);
        await own.goto(`${server.listenUrl}/console/`);
        await own.getByLabel('Email address').fill(admin.email);
        await own.getByLabel('Password').fill(admin.password);
        await own.keyboard.press('Enter');
        await own.getByRole('heading', { level: 1, name: 'Time entries' }).waitFor();
        // The heading has the focus; the navigation marks the current screen; the skip link leads to the content.
        await expect.poll(() => own.evaluate(() => document.activeElement?.textContent)).toBe('Time entries');
        await expect(
          own.getByRole('link', { name: 'Time entries' }).getAttribute('aria-current'),
        ).resolves.toBe('page');
        await tabTo(own, own.getByRole('link', { name: 'Skip to content' }), { shift: true });
        await own.keyboard.press('Enter');
        await expect.poll(() => own.evaluate(() => document.activeElement?.id)).toBe('main');
        await keyboardActivate(own, own.getByRole('button', { name: 'Sign out' }));
        await own.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
        await own.getByRole('status').filter({ hasText: 'You have signed out.' }).first().waitFor();
        await capture(own, 'signed-out');
        expect((await fetchInPage(own, 'GET', '/session')).status).toBe(401);
        await own.reload();
        await own.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
      } finally {
        await other.close();
      }
    });

    it(
      'returns to sign-in when the session has expired, and back to the same screen after signing in',
      async () => {
        await page.goto(`${server.listenUrl}/console/#/api-keys`);
        await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
        offset += 31 * MINUTE; // past the 30-minute idle timeout
        await keyboardActivate(page, page.getByRole('link', { name: 'Company' }));
        await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
        await expect(page.getByRole('status').innerText()).resolves.toContain('Your session has ended');
        await capture(page, 'session-ended');
        await page.keyboard.type(admin.email);
        await page.keyboard.press('Tab');
        await page.keyboard.type(admin.password);
        await page.keyboard.press('Enter');
        await page.getByRole('heading', { level: 1, name: 'Company' }).waitFor();
        expect(new URL(page.url()).hash).toBe('#/company');
        expect(log.problems).toEqual([]);
      },
      FLOW_TIMEOUT,
    );
  },
);
