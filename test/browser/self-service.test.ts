import { DateTime } from 'luxon';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findType } from '../../src/modules/absences/calendar.queries.js';
import { updateAbsenceType } from '../../src/modules/absences/types.js';
import { updateCompany } from '../../src/modules/companies/service.js';
import { CLI_ACTOR, inTransaction } from '../../src/modules/context.js';
import { setUserPassword } from '../../src/modules/people/service.js';
import { createUser } from '../../src/modules/people/users.js';
import { createPerson, PASSWORD, type Person } from '../support/admin-api.js';
import {
  capture,
  fetchInPage,
  FLOW_TIMEOUT,
  HAVE_BROWSER,
  keyboardActivate,
  openPage,
  type PageLog,
  signIn,
  tabTo,
  UI_TIMEOUT,
  useChromium,
} from '../support/browser.js';
import { testDialects } from '../support/databases.js';
import {
  type CompanyFixture,
  createCompanyFixture,
  fetchToken,
  startTestServer,
  type TestServer,
} from '../support/server.js';

/**
 * Self-service in the console (issue 35, items 1-3) in a real headless Chromium on both databases, by
 * keyboard: a person linked to an employee (no permissions) clocks in, takes a break and clocks out on
 * the web clock, requests a correction of last week's entry and an absence; their page cannot reach
 * another employee's data; a manager approves the correction on the Time entries screen and invites
 * everyone on Employees. axe-core and screenshots at 1280 and 390 px (artifacts/screenshots/self-*.png).
 */

const ZONE = 'Europe/Berlin';
// The page's own global, inside page.evaluate.
declare const document: { activeElement: { id: string } | null };
const browser = useChromium();
const suite = HAVE_BROWSER ? describe : describe.skip;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** "Fri, 20 Nov 2026", as the console's formatDay writes a day. */
function dayLabel(day: string): string {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone: 'UTC',
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
  }).format(new Date(`${day}T12:00:00Z`));
}

suite.each(testDialects().map((d) => [d.name, d] as const))(
  'self-service in Chromium on %s',
  (_name, dialect) => {
    let server: TestServer;
    let acme: CompanyFixture;
    let employee: Person;
    let manager: Person;
    let context: BrowserContext;
    let page: Page;
    let log: PageLog;
    const today = DateTime.now().setZone(ZONE);
    const lastWeek = today.minus({ days: 7 }).toISODate()!;
    let ownEntry: string;
    let otherEntry: string;

    async function shift(token: string, index: number, day: string): Promise<string> {
      const response = await server.request('/api/public/v1/time-entries', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          employee: { id: acme.employees[index]!.id },
          clockIn: DateTime.fromISO(`${day}T08:00:00`, { zone: ZONE }).toISO(),
          clockOut: DateTime.fromISO(`${day}T16:00:00`, { zone: ZONE }).toISO(),
          breakMinutes: 30,
        }),
      });
      expect(response.status, await response.clone().text()).toBe(201);
      return ((await response.json()) as { timeEntryId: string }).timeEntryId;
    }

    beforeAll(async () => {
      server = await startTestServer(dialect);
      acme = await createCompanyFixture(server.ctx, { name: 'Acme', timeZone: ZONE, employeeCount: 3 });
      const ctx = server.ctx;
      const vacation = (await findType(ctx.database.db, acme.companyId, { code: 'vacation' }))!;
      await inTransaction(ctx, async (tx, now) => {
        await updateCompany(tx, now, acme.companyId, { webClock: 'on' });
        await updateAbsenceType(
          tx,
          now,
          acme.companyId,
          vacation.id,
          { yearlyEntitlementDays: 25 },
          CLI_ACTOR,
        );
      });
      const token = await fetchToken(server, acme.key.clientId, acme.key.secret);
      ownEntry = await shift(token, 0, lastWeek);
      otherEntry = await shift(token, 1, lastWeek);
      const user = await inTransaction(ctx, (tx, now) =>
        createUser(tx, now, {
          companyId: acme.companyId,
          email: 'ada@acme.example',
          employee: acme.employees[0]!.id,
        }),
      );
      await setUserPassword(ctx, user.id, PASSWORD);
      employee = { id: user.id, email: 'ada@acme.example', password: PASSWORD };
      manager = await createPerson(ctx, acme.companyId, {
        email: 'max@acme.example',
        permissions: '47,52,91,92',
      });
      context = await browser().newContext({ viewport: { width: 1280, height: 900 } });
      context.setDefaultTimeout(UI_TIMEOUT);
      ({ page, log } = await openPage(context));
      await signIn(page, server.listenUrl, employee, 'My day');
    }, FLOW_TIMEOUT);

    afterAll(async () => {
      await context?.close();
      await server?.stop();
    });

    it(
      'shows only the self-service screens, and punches in, a break and out on the web clock',
      async () => {
        const nav = page.getByRole('navigation', { name: 'Main' });
        await expect(nav.getByRole('link').allInnerTexts()).resolves.toEqual([
          'My day',
          'My time',
          'My absences',
        ]);
        await page.getByText('You are not clocked in.').waitFor();
        await capture(page, 'self-day');
        const punch = async (button: string, said: RegExp) => {
          await keyboardActivate(page, page.getByRole('button', { name: button }));
          await page.getByRole('status').filter({ hasText: said }).waitFor();
          await pause(1100);
        };
        await punch('Clock in', /Clocked in at \d\d:\d\d\./);
        await page.getByText(/You are clocked in since/).waitFor();
        await punch('Start a break', /Break started at/);
        await page.getByText(/You are on a break/).waitFor();
        await punch('Back from break', /Back from your break at/);
        await capture(page, 'self-day-clocked-in');
        await punch('Clock out', /Clocked out at/);
        await page.getByText('You are not clocked in.').waitFor();
        const day = today.toISODate()!;
        const stored = await fetchInPage(page, 'GET', `/self/time-entries?from=${day}&to=${day}`);
        const items = stored.body!.items as { source: string; breaks: unknown[]; status: string }[];
        expect(items).toHaveLength(1);
        expect(items[0]).toMatchObject({ source: 'web_clock', status: 'pending_approval' });
        expect(items[0]!.breaks).toHaveLength(1);
        expect(log.problems).toEqual([]);
      },
      FLOW_TIMEOUT,
    );

    it(
      "requests a correction of last week's entry on My time",
      async () => {
        await keyboardActivate(page, page.getByRole('link', { name: 'My time' }));
        await page.getByRole('heading', { level: 1, name: 'My time' }).waitFor();
        await keyboardActivate(page, page.getByRole('button', { name: 'Previous week' }));
        const button = page.getByRole('button', { name: `Request a correction of ${dayLabel(lastWeek)}` });
        await keyboardActivate(page, button);
        const form = page.getByRole('form', { name: `Request a correction of ${dayLabel(lastWeek)}` });
        await form.waitFor();
        await tabTo(page, form.getByLabel('Clock in'));
        // Typed as a person types into the time field: hours, minutes, AM.
        await page.keyboard.type('0730A');
        await expect.poll(() => form.getByLabel('Clock in').inputValue()).toBe('07:30');
        // No reason: refused next to the field, which takes the focus.
        await keyboardActivate(page, form.getByRole('button', { name: 'Send request' }));
        await form.getByText('Say why (the manager reads it).').waitFor();
        await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('correction-reason');
        await page.keyboard.type('I opened the shop at half past seven');
        await capture(page, 'self-time-correction', { fullPage: true });
        await keyboardActivate(page, form.getByRole('button', { name: 'Send request' }));
        await page.getByRole('status').filter({ hasText: 'Your correction request was sent' }).waitFor();
        const requests = page.getByRole('region', { name: 'My correction requests' });
        await requests.getByText(/: Waiting, clock in at /).waitFor();
        await page.getByText('Correction requested').waitFor();
        await capture(page, 'self-time');
        expect(log.problems).toEqual([]);
      },
      FLOW_TIMEOUT,
    );

    it(
      'requests an absence on My absences',
      async () => {
        await keyboardActivate(page, page.getByRole('link', { name: 'My absences' }));
        await page.getByRole('heading', { level: 1, name: 'My absences' }).waitFor();
        const balances = page.getByRole('table', { name: 'My leave balances' });
        await expect(
          balances.getByRole('row').filter({ hasText: 'vacation' }).innerText(),
        ).resolves.toContain('25');
        await tabTo(page, page.getByLabel('Type'));
        // By keyboard: the type chosen by typing its name, the dates typed as month, day, year.
        await page.keyboard.type('Vacation');
        await expect.poll(() => page.getByLabel('Type').inputValue()).toBe('vacation');
        const monday = today.plus({ weeks: 2 }).startOf('week');
        await tabTo(page, page.getByLabel('From'));
        await page.keyboard.type(monday.toFormat('MMddyyyy'));
        await expect.poll(() => page.getByLabel('From').inputValue()).toBe(monday.toISODate());
        await tabTo(page, page.getByLabel('To'));
        await page.keyboard.type(monday.plus({ days: 1 }).toFormat('MMddyyyy'));
        await expect
          .poll(() => page.getByLabel('To').inputValue())
          .toBe(monday.plus({ days: 1 }).toISODate());
        await keyboardActivate(page, page.getByRole('button', { name: 'Send request' }));
        await page.getByRole('status').filter({ hasText: 'Requested: 2 day(s)' }).waitFor();
        const list = page.getByRole('table', { name: 'My absences this year' });
        if (monday.year === today.year) await list.getByRole('row').filter({ hasText: 'vacation' }).waitFor();
        await capture(page, 'self-absences');
        expect(log.problems).toEqual([]);
      },
      FLOW_TIMEOUT,
    );

    it(
      "cannot reach another employee's data from the page",
      async () => {
        const csrf = (await fetchInPage(page, 'GET', '/session')).body!.csrfToken as string;
        const other = acme.employees[1]!.id;
        const attempts = [
          await fetchInPage(page, 'GET', `/time-entries/${otherEntry}`),
          await fetchInPage(page, 'GET', `/time-entries?employeeId=${other}&from=${lastWeek}&to=${lastWeek}`),
          await fetchInPage(page, 'GET', `/leave-balances?employeeId=${other}`),
          await fetchInPage(page, 'GET', '/correction-requests'),
        ];
        expect(attempts.map((a) => a.status)).toEqual([403, 403, 403, 403]);
        const filed = await fetchInPage(
          page,
          'POST',
          '/self/correction-requests',
          { timeEntryId: otherEntry, proposed: { breakMinutes: 0 }, reason: 'not mine' },
          csrf,
        );
        expect(filed.status).toBe(404);
        const sneaky = await fetchInPage(
          page,
          'GET',
          `/self/time-entries?from=${lastWeek}&to=${lastWeek}&employeeId=${other}`,
        );
        expect(sneaky.status).toBe(422);
        // Without the CSRF token a punch is refused.
        expect((await fetchInPage(page, 'POST', '/self/clock', { type: 'clock_in' })).status).toBe(403);
      },
      FLOW_TIMEOUT,
    );

    it(
      'a manager approves the correction request on Time entries and invites everyone on Employees',
      async () => {
        const managerContext: BrowserContext = await (browser() as Browser).newContext({
          viewport: { width: 1280, height: 900 },
        });
        managerContext.setDefaultTimeout(UI_TIMEOUT);
        try {
          const { page: boss, log: bossLog } = await openPage(managerContext);
          await signIn(boss, server.listenUrl, manager, 'Time entries');
          const section = boss.getByRole('region', { name: /Correction requests \(1\)/ });
          await section.getByText('I opened the shop at half past seven').waitFor();
          await capture(boss, 'self-manager-requests');
          await keyboardActivate(boss, section.getByRole('button', { name: /Approve and apply/ }));
          await boss
            .getByRole('status')
            .filter({ hasText: /correction of First0 Last0 .* was applied/ })
            .waitFor();
          await boss.getByRole('region', { name: /Correction requests \(0\)/ }).waitFor();
          const entry = await fetchInPage(boss, 'GET', `/time-entries/${ownEntry}`);
          expect(entry.body).toMatchObject({ startTime: '07:30:00', edited: true });
          const revisions = await fetchInPage(boss, 'GET', `/time-entries/${ownEntry}/revisions`);
          const last = (revisions.body!.items as { reason: string; actor: { name: string } }[]).at(-1)!;
          expect(last.actor.name).toBe('max@acme.example');
          expect(last.reason).toMatch(/^correction request /);

          await keyboardActivate(boss, boss.getByRole('link', { name: 'Employees' }));
          await boss.getByRole('heading', { level: 1, name: 'Employees' }).waitFor();
          await keyboardActivate(boss, boss.getByRole('button', { name: 'Invite everyone' }));
          const links = boss.getByRole('region', { name: '2 invitation link(s)' });
          await links.waitFor();
          await expect(links.getByLabel('Invitation links').inputValue()).resolves.toMatch(
            /\/console\/#\/invite\//,
          );
          await capture(boss, 'self-invite-everyone');
          expect(bossLog.problems).toEqual([]);
        } finally {
          await managerContext.close();
        }
        // The employee sees the decision.
        await keyboardActivate(page, page.getByRole('link', { name: 'My time' }));
        await page.getByRole('heading', { level: 1, name: 'My time' }).waitFor();
        await page.getByRole('region', { name: 'My correction requests' }).getByText('Approved').waitFor();
      },
      FLOW_TIMEOUT,
    );

    it(
      'reports a missing entry and withdraws the request, by keyboard',
      async () => {
        const day = DateTime.fromISO(lastWeek).minus({ days: 1 });
        await keyboardActivate(page, page.getByRole('button', { name: 'Report a missing entry' }));
        const form = page.getByRole('form', { name: 'Report a missing entry' });
        await form.waitFor();
        await tabTo(page, form.getByLabel('Day'));
        await page.keyboard.type(day.toFormat('MMddyyyy'));
        await tabTo(page, form.getByLabel('Clock in'));
        await page.keyboard.type('0900A');
        await tabTo(page, form.getByLabel('Clock out'));
        await page.keyboard.type('1200P');
        await tabTo(page, form.getByLabel('Reason'));
        await page.keyboard.type('Training off site');
        await keyboardActivate(page, form.getByRole('button', { name: 'Send request' }));
        await page.getByRole('status').filter({ hasText: 'Your correction request was sent' }).waitFor();
        const requests = page.getByRole('region', { name: 'My correction requests' });
        await requests.getByText(/Training off site/).waitFor();
        const mine = await fetchInPage(page, 'GET', '/self/correction-requests');
        const filed = (
          mine.body!.items as { timeEntryId: string | null; date: string; status: string }[]
        )[0]!;
        expect(filed).toMatchObject({ timeEntryId: null, date: day.toISODate(), status: 'requested' });
        const withdraw = requests.getByRole('button', {
          name: `Withdraw the request of ${dayLabel(day.toISODate()!)}`,
        });
        await keyboardActivate(page, withdraw);
        await page.getByRole('status').filter({ hasText: 'Your request was withdrawn.' }).waitFor();
        await requests.getByText(/Withdrawn/).waitFor();
        expect(log.problems).toEqual([]);
      },
      FLOW_TIMEOUT,
    );
  },
);
