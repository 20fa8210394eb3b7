import { DateTime } from 'luxon';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../support/api.js';
import { createPerson, type Person } from '../support/admin-api.js';
import {
  capture,
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
import { MANAGE_SCOPES } from '../support/corrections.js';
import { testDialects } from '../support/databases.js';
import {
  type CompanyFixture,
  createCompanyFixture,
  fetchToken,
  startTestServer,
  type TestServer,
} from '../support/server.js';

/*
 * The console's corrections (issue 30) in a real headless Chromium on both databases, by keyboard:
 * the Now screen marks a forgotten clock-out, the Time entries screen closes it, edits an entry (and
 * says so when someone else changed it meanwhile), adds a missing shift, deletes one with a reason and
 * shows an entry's history; the Timesheets screen closes and reopens a period. axe-core and
 * screenshots at 1280 and 390 px.
 */

const ZONE = 'Europe/Berlin';
const browser = useChromium();

const suite = HAVE_BROWSER ? describe : describe.skip;

suite.each(testDialects().map((d) => [d.name, d] as const))(
  'console corrections in Chromium on %s',
  (_name, dialect) => {
    let server: TestServer;
    let acme: CompanyFixture;
    let manager: Person;
    let context: BrowserContext;
    let page: Page;
    let log: PageLog;
    let token: string;

    const now = DateTime.now().setZone(ZONE);
    // Last week: every entry of it is in the past.
    const monday = now.startOf('week').minus({ weeks: 1 });
    const dayOf = (offset: number) => monday.plus({ days: offset }).toISODate()!;

    async function api(method: string, path: string, json?: unknown, headers: Record<string, string> = {}) {
      const response = await server.request(`${PUBLIC}${path}`, { method, token, headers, json });
      const text = await response.text();
      return { status: response.status, body: (text ? JSON.parse(text) : null) as Json };
    }

    /**
     * Tabs to the field and enters `text`: typed key by key into a text field; a date or time field
     * (whose segments depend on the browser's locale) takes its value as a whole once it has the focus.
     */
    async function typeInto(label: string, text: string, scope = page.getByRole('dialog')) {
      const field = scope.getByLabel(label, { exact: true });
      await tabTo(page, field);
      if (['date', 'time'].includes((await field.getAttribute('type')) ?? '')) return field.fill(text);
      await field.fill('');
      await page.keyboard.type(text);
    }

    async function openWeek(employeeId: string, week: string) {
      await page.goto(`${server.listenUrl}/console/#/time-entries?employee=${employeeId}&week=${week}`);
      await page.getByRole('heading', { level: 1, name: 'Time entries' }).waitFor();
      const table = page.getByRole('table', { name: 'Time entries, pending first' });
      await table.waitFor();
      return table;
    }

    beforeAll(async () => {
      server = await startTestServer(dialect, { env: { AUTO_CLOCK_OUT_INTERVAL_MS: '0' } });
      acme = await createCompanyFixture(server.ctx, {
        name: 'Acme Logistics',
        timeZone: ZONE,
        employeeCount: 3,
        scopes: MANAGE_SCOPES,
      });
      manager = await createPerson(server.ctx, acme.companyId, {
        email: 'mira.manager@acme.example',
        permissions: '47,49,52,91',
      });
      token = await fetchToken(server, acme.key.clientId, acme.key.secret);
      context = await browser().newContext({ viewport: { width: 1280, height: 900 } });
      context.setDefaultTimeout(UI_TIMEOUT);
      ({ page, log } = await openPage(context));
      await signIn(page, server.listenUrl, manager, 'Time entries');
    }, FLOW_TIMEOUT);

    afterAll(async () => {
      await context?.close();
      await server?.stop();
    });

    it(
      'a forgotten clock-out: Now marks it, Time entries closes it with a reason, the history says who and why',
      async () => {
        const employee = acme.employees[0]!;
        const since = now.minus({ hours: 27 });
        const opened = await api('POST', '/time-clock/events', {
          employee: { id: employee.id },
          type: 'clock_in',
          occurredAt: since.toISO({ suppressMilliseconds: true }),
        });
        expect(opened.status).toBe(201);

        await page.goto(`${server.listenUrl}/console/#/now`);
        await page.getByRole('heading', { level: 1, name: 'Now' }).waitFor();
        await expect
          .poll(() => page.locator('.now-summary').innerText())
          .toContain('1 session needs a correction.');
        await page.locator('.badge').getByText('Needs correction').waitFor();
        await capture(page, 'corrections-now-needs-correction');
        await keyboardActivate(
          page,
          page.getByRole('link', { name: /^Correct it.*the open session of First0 Last0/ }),
        );
        const table = page.getByRole('table', { name: 'Time entries, pending first' });
        await table.waitFor();
        const row = table.locator('tbody tr').filter({ hasText: 'still clocked in' });
        await keyboardActivate(page, row.getByRole('button', { name: /^Close session for the entry/ }));
        const dialog = page.getByRole('dialog', { name: /^Close open session/ });
        await dialog.waitFor();
        const end = since.plus({ hours: 8 });
        await typeInto('End day', end.toISODate()!);
        await typeInto('End time', end.toFormat('HH:mm'));
        await typeInto('Reason', 'forgot to clock out');
        await capture(page, 'corrections-close-session-dialog', { fullPage: false });
        await page.keyboard.press('Enter');
        await dialog.waitFor({ state: 'hidden' });
        await page.getByRole('status').filter({ hasText: 'The session is closed' }).first().waitFor();
        const closed = await api('GET', `/time-entries/${opened.body.timeEntryId as string}`);
        expect(closed.body).toMatchObject({
          status: 'pending_approval',
          endTime: end.toFormat('HH:mm:00'),
          edited: true,
        });

        const pending = table.locator('tbody tr').filter({ hasText: end.toFormat('HH:mm') });
        await expect(pending.innerText()).resolves.toContain('edited');
        await keyboardActivate(page, pending.getByRole('button', { name: /^History for the entry/ }));
        const history = page.getByRole('dialog', { name: /^History of the entry/ });
        await history.waitFor();
        // The revisions load after the dialog opens.
        await history.locator('ol.history > li').nth(1).waitFor();
        await expect(history.innerText()).resolves.toMatch(/Recorded by test key/);
        await expect(history.innerText()).resolves.toMatch(
          /Corrected by mira\.manager@acme\.example.*Why: forgot to clock out/s,
        );
        await expect(history.innerText()).resolves.toMatch(
          new RegExp(`End: — →\\s*changed to\\s*${end.toFormat('HH:mm')}`),
        );
        await capture(page, 'corrections-history-dialog', { fullPage: false });
        await page.keyboard.press('Escape');
        await history.waitFor({ state: 'hidden' });
        expect(log.problems).toEqual([]);
      },
      FLOW_TIMEOUT,
    );

    it(
      'edit: a change someone else made meanwhile is shown as such, not overwritten; then add a missing shift and delete one',
      async () => {
        const employee = acme.employees[1]!;
        const shift = await api('POST', '/time-entries', {
          employee: { id: employee.id },
          clockIn: monday.plus({ hours: 8 }).toISO({ suppressMilliseconds: true }),
          clockOut: monday.plus({ hours: 16 }).toISO({ suppressMilliseconds: true }),
        });
        expect(shift.status, JSON.stringify(shift.body)).toBe(201);
        const id = shift.body.timeEntryId as string;
        const table = await openWeek(employee.id, dayOf(0));
        const row = table.locator('tbody tr').filter({ hasText: '08:00' });
        await keyboardActivate(page, row.getByRole('button', { name: /^Edit for the entry/ }));
        const dialog = page.getByRole('dialog', { name: /^Edit entry/ });
        await dialog.waitFor();
        await typeInto('End time', '15:30');
        await typeInto('Reason', 'left early');
        // Meanwhile another manager corrects the same entry through the API.
        const other = await api(
          'PATCH',
          `/time-entries/${id}`,
          { note: 'checked', reason: 'review' },
          { 'if-match': '"1"' },
        );
        expect(other.status).toBe(200);
        await page.keyboard.press('Enter');
        await dialog.getByText(/Someone else changed this entry while you were editing it/).waitFor();
        await capture(page, 'corrections-edit-version-mismatch', { fullPage: false });
        const unchanged = await api('GET', `/time-entries/${id}`);
        expect(unchanged.body).toMatchObject({ version: 2, endTime: '16:00:00' });
        await page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'hidden' });

        // Add a missing shift on Tuesday of that week.
        await keyboardActivate(page, page.getByRole('button', { name: 'Add missing shift' }));
        const add = page.getByRole('dialog', { name: 'Add missing shift' });
        await add.waitFor();
        await typeInto('Start day', dayOf(1), add);
        await typeInto('Start time', '09:00', add);
        await typeInto('End day', dayOf(1), add);
        await typeInto('End time', '13:00', add);
        await capture(page, 'corrections-add-shift-dialog', { fullPage: false });
        await page.keyboard.press('Enter');
        await add.waitFor({ state: 'hidden' });
        await page.getByRole('status').filter({ hasText: 'The shift is added' }).first().waitFor();
        const added = table.locator('tbody tr').filter({ hasText: '13:00' });
        await expect(added.innerText()).resolves.toContain('Pending');

        // Delete it again, with a reason.
        await keyboardActivate(page, added.getByRole('button', { name: /^Delete for the entry/ }));
        const remove = page.getByRole('dialog', { name: /^Delete the entry of/ });
        await remove.waitFor();
        await typeInto('Reason', 'entered twice', remove);
        await page.keyboard.press('Enter');
        await remove.waitFor({ state: 'hidden' });
        await page.getByRole('status').filter({ hasText: 'The entry is deleted' }).first().waitFor();
        await expect.poll(() => table.locator('tbody tr').filter({ hasText: '13:00' }).count()).toBe(0);
        await capture(page, 'corrections-time-entries-week');
        expect(log.problems).toEqual([]);
      },
      FLOW_TIMEOUT,
    );

    it(
      'Timesheets closes the week for payroll (a punch on it is then refused) and reopens it with a reason',
      async () => {
        await page.goto(`${server.listenUrl}/console/#/timesheets?period=week&date=${dayOf(0)}`);
        await page.getByRole('heading', { level: 1, name: 'Timesheets' }).waitFor();
        const section = page.getByRole('region', { name: 'Closed periods' });
        await section.getByText('No period touching these days is closed.').waitFor();
        await keyboardActivate(page, section.getByRole('button', { name: /^Close .* to / }));
        const dialog = page.getByRole('dialog', { name: 'Close this period?' });
        await dialog.waitFor();
        await page.keyboard.press('Enter');
        await dialog.waitFor({ state: 'hidden' });
        await section.getByText('The period is closed.').waitFor();
        await expect(section.innerText()).resolves.toContain('closed by mira.manager@acme.example');
        await capture(page, 'corrections-timesheets-closed-period');
        const refused = await api('POST', '/time-entries', {
          employee: { id: acme.employees[2]!.id },
          clockIn: monday.plus({ hours: 10 }).toISO({ suppressMilliseconds: true }),
          clockOut: monday.plus({ hours: 11 }).toISO({ suppressMilliseconds: true }),
        });
        expect(refused.body).toMatchObject({ error: 'day_locked' });

        await keyboardActivate(page, section.getByRole('button', { name: /^Reopen the period/ }));
        const reopen = page.getByRole('dialog', { name: /^Reopen / });
        await reopen.waitFor();
        await typeInto('Reason', 'late correction', reopen);
        await page.keyboard.press('Enter');
        await reopen.waitFor({ state: 'hidden' });
        await section.getByText('The period is reopened.').waitFor();
        await section.getByText('No period touching these days is closed.').waitFor();
        const periods = await api('GET', '/locked-periods');
        expect(periods.body.items).toEqual([]);
        expect(log.problems).toEqual([]);
      },
      FLOW_TIMEOUT,
    );
  },
);
