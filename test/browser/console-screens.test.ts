import { readFileSync } from 'node:fs';
import { DateTime } from 'luxon';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../support/api.js';
import { createPerson, type Person } from '../support/admin-api.js';
import {
  capture,
  fetchInPage,
  FLOW_TIMEOUT,
  HAVE_BROWSER,
  keyboardActivate,
  openPage,
  type PageLog,
  PUBLIC,
  signIn,
  tabTo,
  UI_TIMEOUT,
  useChromium,
} from '../support/browser.js';
import { testDialects } from '../support/databases.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import {
  type CompanyFixture,
  createCompanyFixture,
  fetchToken,
  startTestServer,
  type TestServer,
} from '../support/server.js';

/**
 * The console's second set of screens (issue 23) in a real headless Chromium on both databases: Now
 * (who is clocked in, updated by a short poll), Employees (search, create, edit, delete, the CLI's
 * refusals next to their fields) and the Audit log (filters by actor, action and day). Each main flow
 * with the keyboard, a person lacking the permission, another company's ids through the URL,
 * axe-core and screenshots at 1280 and 390 px (artifacts/screenshots/).
 */

const ZONE = 'Europe/Berlin';
const browser = useChromium();

declare const document: { activeElement: { textContent: string | null } | null };

const suite = HAVE_BROWSER ? describe : describe.skip;

suite.each(testDialects().map((d) => [d.name, d] as const))(
  'console screens in Chromium on %s',
  (_name, dialect) => {
    let server: TestServer;
    let acme: CompanyFixture;
    let beta: CompanyFixture;
    let manager: Person;
    let limited: Person;
    let context: BrowserContext;
    let page: Page;
    let log: PageLog;
    let csrfToken: string;
    let receiver: WebhookReceiver;

    const now = DateTime.now().setZone(ZONE);
    const hoursAgo = (hours: number) => now.minus({ hours }).toISO({ suppressMilliseconds: true })!;

    async function punch(fixture: CompanyFixture, employeeId: string, type: string, occurredAt: string) {
      const token = await fetchToken(server, fixture.key.clientId, fixture.key.secret);
      const response = await server.request(`${PUBLIC}/time-clock/events`, {
        method: 'POST',
        token,
        headers: { 'idempotency-key': crypto.randomUUID() },
        json: { employee: { id: employeeId }, type, occurredAt },
      });
      expect(response.status, await response.clone().text()).toBe(201);
    }

    /** The person lacking the permission: the screen is not in their navigation and says so at its address. */
    async function refusedScreen(path: string, title: string, apiPath: string, shot: string) {
      const other = await browser().newContext({ viewport: { width: 1280, height: 900 } });
      try {
        const { page: own, log: ownLog } = await openPage(other);
        await signIn(own, server.listenUrl, limited, 'API keys');
        const nav = own.getByRole('navigation', { name: 'Main' });
        await expect(nav.getByRole('link').allInnerTexts()).resolves.not.toContain(title);
        await own.goto(`${server.listenUrl}/console/#/${path}`);
        await own.getByRole('heading', { level: 1, name: title }).waitFor();
        await expect(own.getByRole('main').innerText()).resolves.toContain(
          'Your permissions do not include this screen',
        );
        await capture(own, shot);
        const refused = await fetchInPage(own, 'GET', apiPath);
        expect(refused).toMatchObject({ status: 403, body: { error: 'forbidden' } });
        expect(ownLog.problems).toEqual([]);
      } finally {
        await other.close();
      }
    }

    beforeAll(async () => {
      server = await startTestServer(dialect, {
        env: {
          WEBHOOK_ALLOW_HTTP: 'true',
          WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
          WEBHOOK_POLL_INTERVAL_MS: '100',
          WEBHOOK_RETRY_DELAYS: '0.2,0.2,0.2',
        },
      });
      receiver = await new WebhookReceiver().start();
      acme = await createCompanyFixture(server.ctx, {
        name: 'Acme Logistics',
        timeZone: ZONE,
        employeeCount: 3,
      });
      beta = await createCompanyFixture(server.ctx, { name: 'Beta Foods', timeZone: 'America/New_York' });
      manager = await createPerson(server.ctx, acme.companyId, {
        email: 'hana.manager@acme.example',
        permissions: '47,49,52,92,93',
      });
      limited = await createPerson(server.ctx, acme.companyId, {
        email: 'kai.keys@acme.example',
        permissions: '90',
      });
      context = await browser().newContext({ viewport: { width: 1280, height: 900 } });
      context.setDefaultTimeout(UI_TIMEOUT);
      ({ page, log } = await openPage(context));
      await signIn(page, server.listenUrl, manager, 'Time entries');
      csrfToken = (await fetchInPage(page, 'GET', '/session')).body!.csrfToken as string;
    }, FLOW_TIMEOUT);

    afterAll(async () => {
      await context?.close();
      await server?.stop();
      await receiver?.stop();
    });

    it(
      'Now: who is clocked in per workplace, on a break or not, updated without reloading; keyboard, pause',
      async () => {
        const [first, second, third] = acme.employees;
        await punch(acme, first!.id, 'clock_in', hoursAgo(3));
        await punch(acme, second!.id, 'clock_in', hoursAgo(2));
        await punch(acme, second!.id, 'break_start', hoursAgo(0.25));
        await punch(beta, beta.employees[0]!.id, 'clock_in', hoursAgo(1));

        await page.goto(`${server.listenUrl}/console/#/employees`);
        await page.getByRole('heading', { level: 1, name: 'Employees' }).waitFor();
        await keyboardActivate(page, page.getByRole('link', { name: 'Now' }));
        await page.getByRole('heading', { level: 1, name: 'Now' }).waitFor();
        const summary = page.locator('.now-summary');
        await expect.poll(() => summary.innerText()).toBe('2 people are clocked in, 1 on a break.');
        const site = page.getByRole('region', { name: /Site/ });
        const rows = site.getByRole('row');
        await expect(rows.nth(1).innerText()).resolves.toContain('First0 Last0');
        await expect(rows.nth(1).innerText()).resolves.toContain('Working');
        await expect(rows.nth(2).innerText()).resolves.toContain('First1 Last1');
        await expect(rows.nth(2).innerText()).resolves.toContain('On a break');
        await expect(rows.nth(1).innerText()).resolves.toMatch(/3 h 0\d min/);
        await expect(page.getByRole('main').innerText()).resolves.not.toContain('First0 Last0 (Beta');
        await page.getByText(`Dates and times in ${ZONE}`).waitFor();
        await capture(page, 'now');

        // Without reloading: a third person clocks in and appears at the next poll (every 15 s).
        await punch(acme, third!.id, 'clock_in', hoursAgo(0.5));
        await expect
          .poll(() => summary.innerText(), { timeout: 25_000 })
          .toBe('3 people are clocked in, 1 on a break.');
        await expect(site.innerText()).resolves.toContain('First2 Last2');

        // Pause with the keyboard: nothing changes any more until resumed (or refreshed by hand).
        const pause = page.getByRole('button', { name: 'Pause automatic updates' });
        await keyboardActivate(page, pause);
        const resume = page.getByRole('button', { name: 'Resume automatic updates' });
        await expect(resume.getAttribute('aria-pressed')).resolves.toBe('true');
        await expect(page.getByText('Automatic updates are paused.').count()).resolves.toBe(1);
        await punch(acme, third!.id, 'break_start', hoursAgo(0.1));
        await keyboardActivate(page, page.getByRole('button', { name: 'Refresh now' }));
        await expect.poll(() => summary.innerText()).toBe('3 people are clocked in, 2 on a break.');
        await keyboardActivate(page, resume);
        await capture(page, 'now-updated');

        // One workplace, chosen with the keyboard (the address keeps it).
        await tabTo(page, page.getByLabel('Workplace', { exact: true }));
        await page.keyboard.press('ArrowDown');
        await expect.poll(() => new URL(page.url()).hash).toBe(`#/now?workplace=${acme.workplaceId}`);
        await expect.poll(() => summary.innerText()).toBe('3 people are clocked in, 2 on a break.');
        expect(log.problems).toEqual([]);
      },
      FLOW_TIMEOUT,
    );

    it("Now: another company's workplace through the address shows nothing of it", async () => {
      await page.goto(`${server.listenUrl}/console/#/now?workplace=${beta.workplaceId}`);
      await page.getByRole('alert').filter({ hasText: 'No such workplace in this company.' }).waitFor();
      await expect(page.getByRole('main').innerText()).resolves.not.toContain('First0 Last0');
      await capture(page, 'now-other-company');
      const refused = await fetchInPage(page, 'GET', `/time-clock/status?workplaceId=${beta.workplaceId}`);
      expect(refused).toMatchObject({ status: 404, body: { error: 'not_found' } });
    });

    it('Now: refused to a person without permission 47', async () => {
      await refusedScreen('now', 'Now', '/time-clock/status', 'now-no-permission');
    });

    it(
      'Employees: search, create (the CLI’s refusals next to their fields), edit and delete with the keyboard',
      async () => {
        await page.goto(`${server.listenUrl}/console/#/now`);
        await page.getByRole('heading', { level: 1, name: 'Now' }).waitFor();
        await keyboardActivate(page, page.getByRole('link', { name: 'Employees' }));
        await page.getByRole('heading', { level: 1, name: 'Employees' }).waitFor();
        const table = page.getByRole('table', { name: 'Employees by last name' });
        await expect.poll(() => table.getByRole('row').count()).toBe(4);
        await capture(page, 'employees');
        await tabTo(page, page.getByLabel('Find (name, email or badge id)'));
        await page.keyboard.type('ext-1');
        await expect.poll(() => table.getByRole('row').count()).toBe(2);
        await expect(table.innerText()).resolves.toContain('First1 Last1');

        // Create: a bad email and a bad status come back next to their fields, the focus on the first.
        await keyboardActivate(page, page.getByRole('link', { name: 'Add an employee' }));
        await page.getByRole('heading', { level: 1, name: 'New employee' }).waitFor();
        await tabTo(page, page.getByLabel('Email address (required)'));
        await page.keyboard.type('nina at acme');
        await page.keyboard.press('Tab');
        await page.keyboard.type('Nina');
        await page.keyboard.press('Tab');
        await page.keyboard.type('Neu');
        await page.keyboard.press('Tab');
        await page.keyboard.type('x'.repeat(65));
        await page.keyboard.press('Enter');
        const email = page.getByLabel('Email address (required)');
        await expect.poll(() => email.getAttribute('aria-invalid')).toBe('true');
        const emailError = page.locator(`[id="${(await email.getAttribute('aria-describedby'))!}"]`);
        await expect(emailError.innerText()).resolves.toContain('not an email address: nina at acme');
        const badge = page.getByLabel('Badge id (external id)');
        await expect(badge.getAttribute('aria-invalid')).resolves.toBe('true');
        const badgeError = (await badge.getAttribute('aria-describedby'))!.split(' ').at(-1)!;
        await expect(page.locator(`[id="${badgeError}"]`).innerText()).resolves.toContain(
          'external id must be at most 64 characters',
        );
        // The focus went to the first field the refusal names.
        await expect
          .poll(() =>
            email.evaluate(
              (el) =>
                el ===
                (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement,
            ),
          )
          .toBe(true);
        await capture(page, 'employees-field-errors');

        // A badge id someone else holds: 409, next to the field.
        await page.keyboard.press('Control+A');
        await page.keyboard.type('nina.neu@acme.example');
        await tabTo(page, badge);
        await page.keyboard.press('Control+A');
        await page.keyboard.type('EXT-0');
        await page.keyboard.press('Enter');
        await expect
          .poll(async () => page.locator(`[id="${badgeError}"]`).innerText())
          .toContain('external id EXT-0 is already held by employee');
        await expect(email.getAttribute('aria-invalid')).resolves.toBe('false');
        await tabTo(page, badge);
        await page.keyboard.press('Control+A');
        await page.keyboard.type('BADGE-9');
        await tabTo(page, page.getByLabel('Workplace', { exact: true }));
        await page.keyboard.press('ArrowDown');
        await tabTo(page, page.getByLabel('Schedule', { exact: true }));
        await page.keyboard.press('ArrowDown');
        await page.getByLabel('Schedule applies from').fill(now.minus({ days: 7 }).toISODate()!);
        await keyboardActivate(page, page.getByRole('button', { name: 'Create employee' }));
        await page.getByRole('heading', { level: 1, name: 'Employees' }).waitFor();
        await page.getByRole('status').filter({ hasText: 'Nina Neu is created.' }).waitFor();
        const row = table.getByRole('row').filter({ hasText: 'Nina Neu' });
        await expect(row.innerText()).resolves.toContain('BADGE-9');
        await expect(row.innerText()).resolves.toContain('Site');
        const listed = await fetchInPage(page, 'GET', '/employees?search=BADGE-9');
        const id = ((listed.body!.items as Json[])[0]!.id as string) ?? '';
        const created = await fetchInPage(page, 'GET', `/employees/${id}`);
        expect(created.body).toMatchObject({
          email: 'nina.neu@acme.example',
          workplaceId: acme.workplaceId,
          scheduleId: acme.scheduleId,
          scheduleFrom: now.minus({ days: 7 }).toISODate(),
          status: 'active',
        });

        // Edit: status "On leave" with the keyboard; only that is sent and saved.
        await keyboardActivate(page, page.getByRole('link', { name: 'Edit Nina Neu' }));
        await page.getByRole('heading', { level: 1, name: 'Employee Nina Neu' }).waitFor();
        await tabTo(page, page.getByLabel('Status'));
        await page.keyboard.press('ArrowDown');
        await page.keyboard.press('ArrowDown');
        await capture(page, 'employees-edit');
        await keyboardActivate(page, page.getByRole('button', { name: 'Save changes' }));
        await page.getByRole('status').filter({ hasText: 'The changes to Nina Neu are saved.' }).waitFor();
        await expect.poll(() => row.innerText()).toContain('On leave');

        // Delete through its dialog (Escape cancels; Enter confirms).
        await keyboardActivate(page, page.getByRole('button', { name: 'Delete Nina Neu' }));
        const dialog = page.getByRole('dialog', { name: 'Delete Nina Neu?' });
        await dialog.waitFor();
        await capture(page, 'employees-delete-dialog', { fullPage: false });
        await page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'hidden' });
        await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Delete');
        await page.keyboard.press('Enter');
        await dialog.waitFor();
        await page.keyboard.press('Enter');
        await page.getByRole('status').filter({ hasText: 'Nina Neu is deleted.' }).waitFor();
        await expect(row.count()).resolves.toBe(0);
        expect((await fetchInPage(page, 'GET', `/employees/${id}`)).status).toBe(404);
        expect(log.problems).toEqual([]);
      },
      FLOW_TIMEOUT,
    );

    it("Employees: another company's employee through the address is not found, and cannot be changed", async () => {
      const betaEmployee = beta.employees[0]!.id;
      await page.goto(`${server.listenUrl}/console/#/employees/${betaEmployee}`);
      await page.getByRole('alert').filter({ hasText: 'No such employee in this company.' }).waitFor();
      await capture(page, 'employees-other-company');
      const patch = await fetchInPage(
        page,
        'PATCH',
        `/employees/${betaEmployee}`,
        { status: 'inactive' },
        csrfToken,
      );
      expect(patch).toMatchObject({ status: 404, body: { error: 'not_found' } });
      const remove = await fetchInPage(page, 'DELETE', `/employees/${betaEmployee}`, undefined, csrfToken);
      expect(remove).toMatchObject({ status: 404, body: { error: 'not_found' } });
      const token = await fetchToken(server, beta.key.clientId, beta.key.secret);
      const still = await server.request(`${PUBLIC}/employees?limit=100`, { token });
      const items = ((await still.json()) as { items: Json[] }).items;
      expect(items.find((e) => e.id === betaEmployee)).toMatchObject({ status: 'active' });
    });

    it('Employees: refused to a person without permission 52; changes refused without 92', async () => {
      await refusedScreen('employees', 'Employees', '/employees', 'employees-no-permission');
      const readerContext = await browser().newContext({ viewport: { width: 1280, height: 900 } });
      try {
        const reader = await createPerson(server.ctx, acme.companyId, {
          email: 'rea.reader@acme.example',
          permissions: '52',
        });
        const { page: own } = await openPage(readerContext);
        await signIn(own, server.listenUrl, reader, 'Employees');
        await own.getByRole('table', { name: 'Employees by last name' }).waitFor();
        await expect(own.getByRole('link', { name: 'Add an employee' }).count()).resolves.toBe(0);
        await expect(own.getByRole('button', { name: /Delete/ }).count()).resolves.toBe(0);
        await capture(own, 'employees-read-only');
        const token = (await fetchInPage(own, 'GET', '/session')).body!.csrfToken as string;
        const create = await fetchInPage(own, 'POST', '/employees', { email: 'x@acme.example' }, token);
        expect(create).toMatchObject({ status: 403, body: { error: 'forbidden' } });
      } finally {
        await readerContext.close();
      }
    });

    it(
      'Audit log: who did what and when, filtered by actor, action and day with the keyboard',
      async () => {
        await page.goto(`${server.listenUrl}/console/#/now`);
        await page.getByRole('heading', { level: 1, name: 'Now' }).waitFor();
        await keyboardActivate(page, page.getByRole('link', { name: 'Audit log' }));
        await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
        const table = page.getByRole('table', { name: 'Audit log, newest first' });
        await table.waitFor();
        await expect(table.innerText()).resolves.toContain('employee.delete');
        await expect(table.innerText()).resolves.toContain('hana.manager@acme.example (person)');
        await expect(table.innerText()).resolves.toContain('Command line');
        await expect(table.innerText()).resolves.toContain('test key (API key)');
        await capture(page, 'audit-log');

        // Action: type-ahead on the focused select.
        await tabTo(page, page.getByLabel('Action'));
        await page.keyboard.type('employee.update');
        await expect.poll(() => new URL(page.url()).hash).toBe('#/audit-log?action=employee.update');
        await expect.poll(() => table.getByRole('row').count()).toBe(2);
        await expect(table.innerText()).resolves.toContain('status: on_leave');
        // The person's entries only, from their name.
        await keyboardActivate(
          page,
          table.getByRole('link', { name: /Only the entries of hana\.manager/ }).first(),
        );
        await expect.poll(() => new URL(page.url()).hash).toContain('actorType=user');
        await page.getByText('Only the entries of').waitFor();
        await capture(page, 'audit-log-filtered');
        const texts = await table.locator('tbody tr td:nth-child(2)').allInnerTexts();
        expect(new Set(texts)).toEqual(new Set(['hana.manager@acme.example (person)']));
        // Days: tomorrow holds nothing yet.
        await page.getByLabel('From (day)').fill(now.plus({ days: 1 }).toISODate()!);
        await page.getByText('No entry matches.').waitFor();
        await keyboardActivate(page, page.getByRole('link', { name: 'Clear the filters' }));
        await expect.poll(() => table.getByRole('row').count()).toBeGreaterThan(5);
        expect(log.problems).toEqual([]);
      },
      FLOW_TIMEOUT,
    );

    it("Audit log: another company's actor through the address shows none of its entries", async () => {
      await page.goto(`${server.listenUrl}/console/#/audit-log?actorType=api_key&actorId=${beta.key.id}`);
      await page.getByText('No entry matches.').waitFor();
      await capture(page, 'audit-log-other-company');
      const foreign = await fetchInPage(page, 'GET', `/audit-log?actorId=${beta.key.id}`);
      expect(foreign).toMatchObject({ status: 200, body: { items: [] } });
      const all = await fetchInPage(page, 'GET', '/audit-log?limit=100');
      expect(JSON.stringify(all.body)).not.toContain(beta.companyId);
      expect(JSON.stringify(all.body)).not.toContain(beta.employees[0]!.id);
    });

    it('Audit log: refused to a person without permission 93', async () => {
      await refusedScreen('audit-log', 'Audit log', '/audit-log', 'audit-log-no-permission');
    });

    it(
      'Company and Timesheets: the timesheet settings, then per employee the days, regular and overtime hours and flags; the payroll CSV downloaded',
      async () => {
        // The settings on the Company screen, with the keyboard.
        await page.goto(`${server.listenUrl}/console/#/now`);
        await page.getByRole('heading', { level: 1, name: 'Now' }).waitFor();
        await keyboardActivate(page, page.getByRole('link', { name: 'Company' }));
        await page.getByRole('heading', { level: 1, name: 'Company' }).waitFor();
        const threshold = page.getByLabel('Daily overtime after (hours)');
        await tabTo(page, threshold);
        await page.keyboard.type('7.125');
        await tabTo(page, page.getByLabel('Working-time rules'));
        await page.keyboard.press('ArrowDown'); // none → de-arbzg
        await keyboardActivate(page, page.getByRole('button', { name: 'Save settings' }));
        await expect.poll(() => threshold.getAttribute('aria-invalid')).toBe('true');
        const thresholdError = (await threshold.getAttribute('aria-describedby'))!.split(' ').at(-1)!;
        await expect(page.locator(`[id="${thresholdError}"]`).innerText()).resolves.toContain(
          'daily overtime threshold must be a number of hours from 0 to 24',
        );
        await capture(page, 'company-timesheet-settings-error');
        await tabTo(page, threshold, { shift: true });
        await page.keyboard.press('Control+A');
        await page.keyboard.type('8');
        await keyboardActivate(page, page.getByRole('button', { name: 'Save settings' }));
        await page.getByRole('status').filter({ hasText: 'The settings are saved.' }).first().waitFor();
        const company = await fetchInPage(page, 'GET', '/company');
        expect(company.body).toMatchObject({
          dailyOvertimeHours: 8,
          workingTimeRules: 'de-arbzg',
          workweekStart: 'monday',
        });
        // The attendance margins (issue 33): no-show after 30 → 45 minutes, back from the button.
        await tabTo(page, page.getByLabel('No-show after'), { shift: true });
        await page.keyboard.press('ArrowDown');
        await keyboardActivate(page, page.getByRole('button', { name: 'Save settings' }));
        await expect
          .poll(async () => (await fetchInPage(page, 'GET', '/company')).body)
          .toMatchObject({ noShowAfterMinutes: 45, lateGraceMinutes: 5, rounding: 'none' });
        await capture(page, 'company-timesheet-settings');

        // A 10.5-hour shift without a break, yesterday (the employee is clocked in today, see Now).
        const employee = acme.employees[0]!;
        const start = now.minus({ days: 1 }).set({ hour: 7, minute: 0, second: 0, millisecond: 0 });
        const token = await fetchToken(server, acme.key.clientId, acme.key.secret);
        const shift = await server.request(`${PUBLIC}/time-entries`, {
          method: 'POST',
          token,
          headers: { 'idempotency-key': crypto.randomUUID() },
          json: {
            employee: { id: employee.id },
            clockIn: start.toISO({ suppressMilliseconds: true }),
            clockOut: start.plus({ hours: 10.5 }).toISO({ suppressMilliseconds: true }),
          },
        });
        expect(shift.status, await shift.clone().text()).toBe(201);

        await keyboardActivate(page, page.getByRole('link', { name: 'Timesheets' }));
        await page.getByRole('heading', { level: 1, name: 'Timesheets' }).waitFor();
        // The week of the shift's day (its start), chosen in the address; then week by week with the keyboard.
        await page.goto(`${server.listenUrl}/console/#/timesheets?date=${start.toISODate()}`);
        const table = page.getByRole('table', { name: /^Timesheets from/ });
        const row = table.getByRole('row').filter({ hasText: 'First0 Last0' });
        await expect.poll(() => row.innerText()).toContain('10.50 h');
        const text = await row.innerText();
        expect(text).toContain('(2.50 overtime)');
        expect(text).toContain('8.00 h');
        expect(text).toContain('de-arbzg.break');
        await expect(page.getByText('daily overtime after 8 h').count()).resolves.toBe(1);
        await capture(page, 'timesheets');
        await keyboardActivate(page, page.getByRole('button', { name: 'Next week' }));
        await expect.poll(() => row.innerText()).toContain('No time recorded');
        await keyboardActivate(page, page.getByRole('button', { name: 'Previous week' }));
        await expect.poll(() => row.innerText()).toContain('10.50 h');

        // The payroll CSV, downloaded from here with the keyboard.
        const link = page.getByRole('link', { name: 'Download the payroll CSV' });
        await tabTo(page, link);
        const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
        expect(download.suggestedFilename()).toMatch(/^timesheets-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/);
        const csv = readFileSync((await download.path())!, 'utf8');
        const lines = csv.trim().split('\r\n');
        expect(lines[0]).toBe(
          'employee_id,external_id,first_name,last_name,date,worked_hours,regular_hours,overtime_hours,break_minutes,entries,statuses,flags,flag_messages,target_hours,credited_hours,balance_hours,absences,planned_hours',
        );
        expect(lines.find((l) => l.startsWith(employee.id))).toMatch(
          new RegExp(`^${employee.id},EXT-0,First0,Last0,${start.toISODate()},10.50,8.00,2.50,`),
        );
        expect(csv).not.toContain(beta.employees[0]!.id);
        expect(log.problems).toEqual([]);
      },
      FLOW_TIMEOUT,
    );

    it("Timesheets: another company's workplace through the address shows nothing of it", async () => {
      await page.goto(`${server.listenUrl}/console/#/timesheets?workplace=${beta.workplaceId}`);
      await page.getByRole('alert').filter({ hasText: 'No such workplace in this company.' }).waitFor();
      await capture(page, 'timesheets-other-company');
      const day = now.toISODate()!;
      const refused = await fetchInPage(
        page,
        'GET',
        `/timesheets?from=${day}&to=${day}&employeeId=${beta.employees[0]!.id}`,
      );
      expect(refused).toMatchObject({ status: 404, body: { error: 'not_found' } });
      const csv = await page.evaluate(
        async (url) => (await fetch(url)).status,
        `/api/admin/v1/timesheets/csv?from=${day}&to=${day}&workplaceId=${beta.workplaceId}`,
      );
      expect(csv).toBe(404);
    });

    it('Timesheets: refused to a person without permission 49', async () => {
      const day = now.toISODate()!;
      await refusedScreen(
        'timesheets',
        'Timesheets',
        `/timesheets?from=${day}&to=${day}`,
        'timesheets-no-permission',
      );
    });

    it(
      'Webhooks: create with the secret once, refusals next to the field, disable, deliveries, test, replay, rotate, edit, delete with the keyboard',
      async () => {
        await page.goto(`${server.listenUrl}/console/#/now`);
        await page.getByRole('heading', { level: 1, name: 'Now' }).waitFor();
        await keyboardActivate(page, page.getByRole('link', { name: 'Webhooks' }));
        await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
        await page.getByText('No webhook endpoint yet.').waitFor();
        await capture(page, 'webhooks-empty');

        // A URL the server refuses: the reason next to the field, the focus on it.
        const url = page.getByLabel('Receiver URL');
        await tabTo(page, url);
        await page.keyboard.type('ftp://files.example/hooks');
        await keyboardActivate(page, page.locator('[id="new-event-employee.created"]'), 'Space');
        await keyboardActivate(page, page.getByRole('button', { name: 'Create endpoint' }));
        await expect.poll(() => url.getAttribute('aria-invalid')).toBe('true');
        const urlError = (await url.getAttribute('aria-describedby'))!.split(' ').at(-1)!;
        await expect(page.locator(`[id="${urlError}"]`).innerText()).resolves.toMatch(/https/);
        await capture(page, 'webhooks-field-error');

        await tabTo(page, url, { shift: true });
        await page.keyboard.press('Control+A');
        await page.keyboard.type(receiver.url);
        await keyboardActivate(page, page.locator('[id="new-event-day.confirmed"]'), 'Space');
        await tabTo(page, page.getByLabel('Description (optional)'));
        await page.keyboard.type('HR system');
        await page.keyboard.press('Enter');
        const panel = page.getByRole('region', { name: /Signing secret of/ });
        await panel.waitFor();
        const secret = await panel.getByLabel('Signing secret').inputValue();
        expect(secret).toMatch(/^whsec_/);
        receiver.secrets = [secret];
        await capture(page, 'webhooks-secret-shown-once');
        await keyboardActivate(page, panel.getByRole('button', { name: 'I have stored the secret' }));
        await panel.waitFor({ state: 'detached' });
        expect(await page.content()).not.toContain(secret);
        const row = page.getByRole('row').filter({ hasText: receiver.url });
        await expect(row.innerText()).resolves.toContain('day.confirmed');
        const listed = await fetchInPage(page, 'GET', '/webhooks');
        expect(JSON.stringify(listed.body)).not.toContain(secret);
        const id = (listed.body!.items as Json[])[0]!.id as string;

        // Disable and enable again.
        await keyboardActivate(page, page.getByRole('button', { name: `Disable ${receiver.url}` }));
        await expect.poll(() => row.innerText()).toContain('disabled by a person in the console');
        await capture(page, 'webhooks');
        await keyboardActivate(page, page.getByRole('button', { name: `Enable ${receiver.url}` }));
        await expect.poll(() => row.innerText()).toContain('Active');

        // Its page: a test delivery arrives signed; sent again with the same webhook-id.
        await keyboardActivate(
          page,
          page.getByRole('link', { name: `Open ${receiver.url}: deliveries and settings` }),
        );
        await page.getByRole('heading', { level: 1, name: 'Webhook endpoint' }).waitFor();
        await keyboardActivate(page, page.getByRole('button', { name: 'Send a test delivery' }));
        await expect.poll(() => receiver.received.length, { timeout: 10_000 }).toBe(1);
        expect(receiver.received[0]!.verifiedWith).toEqual([secret]);
        const deliveries = page.getByRole('table', { name: 'Recent deliveries, newest first' });
        await expect
          .poll(
            async () => {
              await page.getByRole('button', { name: 'Refresh deliveries' }).click();
              return deliveries.innerText();
            },
            { timeout: 10_000 },
          )
          .toContain('Delivered');
        await keyboardActivate(
          page,
          deliveries.getByRole('button', { name: /^Send again: the ping delivery/ }),
        );
        await page.getByRole('status').filter({ hasText: 'The ping delivery is queued again.' }).waitFor();
        await expect.poll(() => receiver.received.length, { timeout: 10_000 }).toBe(2);
        expect(receiver.received[1]!.id).toBe(receiver.received[0]!.id);
        // An employee created now is an event it asked for: delivered, then sent again by replaying the last 24 hours.
        const made = await fetchInPage(
          page,
          'POST',
          '/employees',
          { email: 'wendy.web@acme.example' },
          csrfToken,
        );
        expect(made.status).toBe(201);
        const created = () => receiver.received.filter((d) => d.payload.type === 'employee.created').length;
        await expect.poll(created, { timeout: 10_000 }).toBe(1);
        await keyboardActivate(page, page.getByRole('button', { name: 'Replay these events' }));
        await page.getByRole('status').filter({ hasText: '1 delivery is queued again.' }).waitFor();
        await expect.poll(created, { timeout: 10_000 }).toBe(2);
        await page.getByRole('button', { name: 'Refresh deliveries' }).click();
        await expect.poll(() => deliveries.innerText()).toContain('employee.created');
        await capture(page, 'webhooks-deliveries');

        // Rotate: the new secret once.
        await keyboardActivate(page, page.getByRole('button', { name: `Rotate secret of ${receiver.url}` }));
        const rotate = page.getByRole('dialog', { name: `Rotate the secret of ${receiver.url}?` });
        await rotate.waitFor();
        await capture(page, 'webhooks-rotate-dialog', { fullPage: false });
        await page.keyboard.press('Enter');
        await panel.waitFor();
        const rotated = await panel.getByLabel('Signing secret').inputValue();
        expect(rotated).toMatch(/^whsec_/);
        expect(rotated).not.toBe(secret);
        await keyboardActivate(page, panel.getByRole('button', { name: 'I have stored the secret' }));

        // Edit the description.
        const description = page.getByLabel('Description (optional)');
        await tabTo(page, description);
        await page.keyboard.press('Control+A');
        await page.keyboard.type('Payroll system');
        await page.keyboard.press('Enter');
        await page.getByRole('status').filter({ hasText: 'are saved' }).waitFor();
        expect(((await fetchInPage(page, 'GET', '/webhooks')).body!.items as Json[])[0]).toMatchObject({
          description: 'Payroll system',
        });

        // Delete through its dialog.
        await keyboardActivate(page, page.getByRole('button', { name: `Delete ${receiver.url}` }));
        const remove = page.getByRole('dialog', { name: `Delete ${receiver.url}?` });
        await remove.waitFor();
        await page.keyboard.press('Enter');
        await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
        await page.getByText('No webhook endpoint yet.').waitFor();
        expect((await fetchInPage(page, 'GET', `/webhooks/${id}/deliveries`)).status).toBe(404);
        expect(log.problems).toEqual([]);
      },
      FLOW_TIMEOUT,
    );

    it("Webhooks: another company's endpoint through the address is not found and cannot be changed", async () => {
      const betaManager = await createPerson(server.ctx, beta.companyId, {
        email: 'wes.webhooks@beta.example',
        permissions: '93',
      });
      const other = await browser().newContext();
      let betaId = '';
      try {
        const { page: betaPage } = await openPage(other);
        await signIn(betaPage, server.listenUrl, betaManager, 'Company');
        const betaCsrf = (await fetchInPage(betaPage, 'GET', '/session')).body!.csrfToken as string;
        const made = await fetchInPage(
          betaPage,
          'POST',
          '/webhooks',
          { url: receiver.url, eventTypes: ['day.confirmed'] },
          betaCsrf,
        );
        expect(made.status).toBe(201);
        betaId = made.body!.id as string;
      } finally {
        await other.close();
      }
      await page.goto(`${server.listenUrl}/console/#/webhooks/${betaId}`);
      await page
        .getByRole('alert')
        .filter({ hasText: 'No such webhook endpoint in this company.' })
        .waitFor();
      await capture(page, 'webhooks-other-company');
      const patch = await fetchInPage(
        page,
        'PATCH',
        `/webhooks/${betaId}`,
        { status: 'disabled' },
        csrfToken,
      );
      expect(patch).toMatchObject({ status: 404, body: { error: 'not_found' } });
      const rotate = await fetchInPage(
        page,
        'POST',
        `/webhooks/${betaId}/rotate-secret`,
        undefined,
        csrfToken,
      );
      expect(rotate).toMatchObject({ status: 404, body: { error: 'not_found' } });
      const remove = await fetchInPage(page, 'DELETE', `/webhooks/${betaId}`, undefined, csrfToken);
      expect(remove).toMatchObject({ status: 404, body: { error: 'not_found' } });
    });

    it('Webhooks: refused to a person without permission 93', async () => {
      await refusedScreen('webhooks', 'Webhooks', '/webhooks', 'webhooks-no-permission');
    });
  },
);
