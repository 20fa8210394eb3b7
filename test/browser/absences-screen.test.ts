import { DateTime } from 'luxon';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAbsence } from '../../src/modules/absences/absences.js';
import { cliCaller } from '../../src/modules/absences/actors.js';
import { findType } from '../../src/modules/absences/calendar.queries.js';
import { decideAbsence } from '../../src/modules/absences/decisions.js';
import { updateAbsenceType } from '../../src/modules/absences/types.js';
import { setHolidayRegion } from '../../src/modules/absences/working-days.js';
import { CLI_ACTOR, inTransaction } from '../../src/modules/context.js';
import { createPerson, type Person } from '../support/admin-api.js';
import {
  capture,
  fetchInPage,
  FLOW_TIMEOUT,
  HAVE_BROWSER,
  keyboardActivate,
  openPage,
  type PageLog,
  tabTo,
  UI_TIMEOUT,
  useChromium,
} from '../support/browser.js';
import { testDialects } from '../support/databases.js';
import {
  type CompanyFixture,
  createCompanyFixture,
  startTestServer,
  type TestServer,
} from '../support/server.js';

/**
 * The console's Absences screen (issue 31) in a real headless Chromium on both databases, by keyboard
 * only: June 2026's team calendar of a Bavarian workplace (Corpus Christi shaded, weekends dim, who is
 * away), a request approved and another rejected with a reason, an employee's balances, the
 * Company screen's absence types and holidays, and hire and leave dates on Employees; axe-core and screenshots at 1280 and 390 px
 * (artifacts/screenshots/absences-*.png).
 */

const ZONE = 'Europe/Berlin';
const MONTH = '2026-06';
const browser = useChromium();
const suite = HAVE_BROWSER ? describe : describe.skip;

suite.each(testDialects().map((d) => [d.name, d] as const))(
  'the Absences screen in Chromium on %s',
  (_name, dialect) => {
    let server: TestServer;
    let acme: CompanyFixture;
    let lead: Person;
    let context: BrowserContext;
    let page: Page;
    let log: PageLog;

    async function absence(employee: number, typeCode: string, from: string, to: string, extra = {}) {
      const caller = cliCaller({ id: acme.companyId, time_zone: ZONE });
      const input = {
        employee: { id: acme.employees[employee]!.id },
        typeCode,
        startDate: from,
        endDate: to,
        ...extra,
      };
      return inTransaction(server.ctx, (tx, now) => createAbsence(tx, now, caller, input, { dryRun: false }));
    }

    beforeAll(async () => {
      server = await startTestServer(dialect);
      acme = await createCompanyFixture(server.ctx, { name: 'Acme', timeZone: ZONE, employeeCount: 3 });
      const ctx = server.ctx;
      const vacation = (await findType(ctx.database.db, acme.companyId, { code: 'vacation' }))!;
      await inTransaction(ctx, async (tx, now) => {
        await setHolidayRegion(tx, now, acme.workplaceId, 'DE-BY', CLI_ACTOR);
        await updateAbsenceType(
          tx,
          now,
          acme.companyId,
          vacation.id,
          { yearlyEntitlementDays: 25 },
          CLI_ACTOR,
        );
      });
      // First0: approved vacation Mon 8 – Wed 10 June; First1: a request 15–16 June; First2: sick, a
      // morning (approved at once), and a request 29–30 June that is rejected below.
      const approved = await absence(0, 'vacation', '2026-06-08', '2026-06-10');
      const decision = { reason: null, ifMatch: null, dryRun: false };
      const caller = cliCaller({ id: acme.companyId, time_zone: ZONE });
      await inTransaction(ctx, (tx, now) =>
        decideAbsence(tx, now, caller, approved.body.id!, 'approve', decision),
      );
      await absence(1, 'vacation', '2026-06-15', '2026-06-16', { note: 'Family visit' });
      await absence(2, 'sick', '2026-06-22', '2026-06-22', { portion: 'first_half' });
      await absence(2, 'vacation', '2026-06-29', '2026-06-30');
      lead = await createPerson(ctx, acme.companyId, {
        email: 'lea.lead@acme.example',
        permissions: '47,52,72,92,93,96',
      });
      context = await browser().newContext({ viewport: { width: 1280, height: 900 } });
      context.setDefaultTimeout(UI_TIMEOUT);
      ({ page, log } = await openPage(context));
      await page.goto(`${server.listenUrl}/console/`);
      await page.getByLabel('Email address').fill(lead.email);
      await page.getByLabel('Password').fill(lead.password);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { level: 1 }).first().waitFor();
    }, FLOW_TIMEOUT);

    afterAll(async () => {
      await context?.close();
      await server?.stop();
    });

    it(
      "a month's team calendar of a workplace: holidays shaded, weekends dim, who is away",
      async () => {
        await keyboardActivate(page, page.getByRole('link', { name: 'Absences' }));
        await page.getByRole('heading', { level: 1, name: 'Absences' }).waitFor();
        // To June 2026 with the month buttons (the address keeps the month).
        const today = DateTime.now().setZone(ZONE);
        const steps = (today.year - 2026) * 12 + today.month - 6;
        const button = page.getByRole('button', { name: steps >= 0 ? 'Previous month' : 'Next month' });
        await tabTo(page, button);
        for (let i = 0; i < Math.abs(steps); i++) await page.keyboard.press('Enter');
        await page.getByRole('heading', { level: 2, name: 'June 2026' }).waitFor();
        await expect.poll(() => new URL(page.url()).hash).toContain(`month=${MONTH}`);
        // The workplace, chosen with the keyboard: its region's holidays appear.
        await tabTo(page, page.getByLabel('Workplace', { exact: true }));
        await page.keyboard.press('ArrowDown');
        await expect.poll(() => new URL(page.url()).hash).toContain(`workplace=${acme.workplaceId}`);
        const grid = page.getByRole('region', { name: 'Team calendar, June 2026' });
        await expect.poll(() => grid.locator('th.holiday').count()).toBe(1);
        await expect(grid.locator('th.holiday').innerText()).resolves.toContain('Corpus Christi');
        // Weekends dim: 8 weekend days in June 2026 (6/7, 13/14, 20/21, 27/28).
        await expect(grid.locator('thead th.weekend').count()).resolves.toBe(8);
        // The grid scrolls sideways by keyboard (it is focusable), not the page.
        await tabTo(page, grid);
        const row = (name: string) => grid.getByRole('row').filter({ hasText: name });
        await expect(row('First0 Last0').locator('td.away').count()).resolves.toBe(3);
        await expect(row('First0 Last0').innerText()).resolves.toContain('vacation (approved)');
        await expect(row('First1 Last1').locator('td.requested').count()).resolves.toBe(2);
        await expect(row('First2 Last2').innerText()).resolves.toContain('sick, morning (approved)');
        const summary = page.locator('.month-summary');
        await expect(summary.innerText()).resolves.toContain('Thu, 4 Jun 2026: Corpus Christi');
        await expect(summary.innerText()).resolves.toMatch(/First0 Last0: vacation, .*\(3 days, approved\)/);
        await capture(page, 'absences-calendar');
        expect(log.problems).toEqual([]);
      },
      FLOW_TIMEOUT,
    );

    it(
      'requests waiting: one approved, one rejected with a reason through its dialog, by keyboard',
      async () => {
        const requests = page.getByRole('table', { name: 'Absence requests waiting for a decision' });
        await expect.poll(() => requests.getByRole('row').count()).toBe(3);
        await expect(requests.innerText()).resolves.toContain('Family visit');
        await keyboardActivate(page, page.getByRole('button', { name: 'Approve First1 Last1’s vacation' }));
        await page.getByRole('status').filter({ hasText: 'First1 Last1’s vacation is approved.' }).waitFor();
        await expect.poll(() => requests.getByRole('row').count()).toBe(2);
        // The calendar follows: First1's days are no longer marked as requested.
        const grid = page.getByRole('region', { name: 'Team calendar, June 2026' });
        const first1 = grid.getByRole('row').filter({ hasText: 'First1 Last1' });
        await expect.poll(() => first1.locator('td.requested').count()).toBe(0);

        await keyboardActivate(page, page.getByRole('button', { name: 'Reject First2 Last2’s vacation' }));
        const dialog = page.getByRole('dialog', { name: 'Reject First2 Last2’s request' });
        await dialog.waitFor();
        // No reason: refused next to the field.
        await keyboardActivate(page, dialog.getByRole('button', { name: 'Reject the request' }));
        await dialog.getByText('Say why: the employee sees the reason.').waitFor();
        await tabTo(page, dialog.getByLabel('Reason'));
        await page.keyboard.type('Inventory week');
        await capture(page, 'absences-reject-dialog', { fullPage: false });
        await keyboardActivate(page, dialog.getByRole('button', { name: 'Reject the request' }));
        await page.getByRole('status').filter({ hasText: 'First2 Last2’s vacation is rejected.' }).waitFor();
        await page.getByText('No request is waiting.').waitFor();
        const listed = await fetchInPage(page, 'GET', `/absences/calendar?month=${MONTH}`);
        const rejected = (listed.body!.absences as { status: string }[]).filter(
          (a) => a.status === 'rejected',
        );
        expect(rejected).toEqual([]);
        expect(log.problems).toEqual([]);
      },
      FLOW_TIMEOUT,
    );

    it(
      "an employee's balances of 2026, chosen with the keyboard",
      async () => {
        await tabTo(page, page.getByLabel('Employee', { exact: true }));
        await page.keyboard.press('ArrowDown');
        await expect.poll(() => new URL(page.url()).hash).toContain(`employee=${acme.employees[0]!.id}`);
        await tabTo(page, page.getByLabel('Year', { exact: true }));
        await page.keyboard.press('Control+A');
        await page.keyboard.type('2026');
        const table = page.getByRole('table', { name: 'Leave balances of First0 Last0 in 2026' });
        await table.waitFor();
        const vacation = table.getByRole('row').filter({ hasText: 'vacation' });
        // 25 days, 3 of them approved in June (taken or planned depending on today).
        await expect(vacation.innerText()).resolves.toMatch(/25\s+0\s+/);
        await expect(vacation.locator('td').last().innerText()).resolves.toBe('22');
        await capture(page, 'absences-balances');
        expect(log.problems).toEqual([]);
      },
      FLOW_TIMEOUT,
    );

    it(
      "the Company screen: absence types, the workplace's holiday region and a company holiday",
      async () => {
        await keyboardActivate(page, page.getByRole('link', { name: 'Company' }));
        await page.getByRole('heading', { level: 1, name: 'Company' }).waitFor();
        const types = page.getByRole('region', { name: 'Absence types' });
        await expect.poll(() => types.innerText()).toContain('vacation');
        await expect(types.innerText()).resolves.toContain('unpaid');
        const region = page.getByLabel('Holiday region of Site');
        await expect(region.inputValue()).resolves.toBe('DE-BY');
        // A company holiday, half a day on 24 December, with the keyboard.
        await tabTo(page, page.getByLabel('Date', { exact: true }));
        await page.keyboard.type('12242026');
        await tabTo(page, page.getByLabel('Name', { exact: true }));
        await page.keyboard.type('Christmas Eve');
        await tabTo(page, page.getByLabel('Portion', { exact: true }));
        await page.keyboard.press('ArrowDown');
        await keyboardActivate(page, page.getByRole('button', { name: 'Save the holiday' }));
        const own = page.getByRole('table', { name: "The company's own holidays" });
        await expect.poll(() => own.innerText()).toContain('Christmas Eve (half day)');
        await capture(page, 'absences-company');
        expect(log.problems).toEqual([]);
      },
      FLOW_TIMEOUT,
    );

    it(
      'Employees: hire and leave dates by keyboard; leaving before joining is refused next to its field',
      async () => {
        await keyboardActivate(page, page.getByRole('link', { name: 'Employees' }));
        await page.getByRole('heading', { level: 1, name: 'Employees' }).waitFor();
        await keyboardActivate(page, page.getByRole('link', { name: 'Edit First1 Last1' }));
        await page.getByRole('heading', { level: 1, name: 'Employee First1 Last1' }).waitFor();
        const hired = page.getByLabel('Hired on');
        const left = page.getByLabel('Left on');
        await tabTo(page, hired);
        await page.keyboard.type('04152026');
        await tabTo(page, left);
        await page.keyboard.type('03312026');
        await keyboardActivate(page, page.getByRole('button', { name: 'Save changes' }));
        await expect.poll(() => left.getAttribute('aria-invalid')).toBe('true');
        const error = (await left.getAttribute('aria-describedby'))!.split(' ').at(-1)!;
        await expect(page.locator(`[id="${error}"]`).innerText()).resolves.toContain(
          'left-on must not be before hired-on',
        );
        await capture(page, 'absences-employee-dates-refused');
        await tabTo(page, left, { shift: true });
        await page.keyboard.press('Delete');
        await page.keyboard.press('Backspace');
        await page.keyboard.press('Tab');
        await page.keyboard.press('Backspace');
        await page.keyboard.press('Tab');
        await page.keyboard.press('Backspace');
        await expect.poll(() => left.inputValue()).toBe('');
        await keyboardActivate(page, page.getByRole('button', { name: 'Save changes' }));
        await page
          .getByRole('status')
          .filter({ hasText: 'The changes to First1 Last1 are saved.' })
          .waitFor();
        const saved = await fetchInPage(page, 'GET', `/employees/${acme.employees[1]!.id}`);
        expect(saved.body).toMatchObject({ hiredOn: '2026-04-15', leftOn: null });
        expect(log.problems).toEqual([]);
      },
      FLOW_TIMEOUT,
    );
  },
);
