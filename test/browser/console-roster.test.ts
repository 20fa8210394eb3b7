import { DateTime } from 'luxon';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExceptionsJob } from '../../src/modules/planned-shifts/exceptions-job.js';
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
import {
  type CompanyFixture,
  createCompanyFixture,
  fetchToken,
  startTestServer,
  type TestServer,
} from '../support/server.js';

/*
 * The console's Roster screen and the Now screen's "late" and "not yet in" (issue 33) in a real
 * headless Chromium on both databases: a shift planned, refused for an overlap, moved, changed and
 * deleted with the keyboard alone; the previous week copied and the week published; the week's
 * exceptions beside it; a reader without permission 97 sees no buttons and is refused by the server;
 * axe-core and screenshots at 1280 and 390 px, where the roster shows one day at a time.
 */

const ZONE = 'Europe/Berlin';
const SCOPES = 'attendance.record,attendance.read,employees.read,shifts.manage';
const browser = useChromium();

const suite = HAVE_BROWSER ? describe : describe.skip;

suite.each(testDialects().map((d) => [d.name, d] as const))(
  'console roster in Chromium on %s',
  (_name, dialect) => {
    let server: TestServer;
    let acme: CompanyFixture;
    let manager: Person;
    let reader: Person;
    let context: BrowserContext;
    let page: Page;
    let log: PageLog;
    const now = DateTime.now().setZone(ZONE);
    const monday = now.startOf('week');
    const at = (day: DateTime, hhmm: string) =>
      `${day.toISODate()}T${hhmm}:00${day.set({ hour: Number(hhmm.slice(0, 2)) }).toFormat('ZZ')}`;

    async function plan(shifts: Record<string, unknown>[]) {
      const token = await fetchToken(server, acme.key.clientId, acme.key.secret);
      const response = await server.request(`${PUBLIC}/planned-shifts/batch`, {
        method: 'POST',
        token,
        json: { shifts },
      });
      const body = (await response.json()) as { results: { status: number }[] };
      expect(body.results.map((r) => r.status)).toEqual(shifts.map(() => 201));
    }

    const shiftRows = () =>
      server.database.db
        .selectFrom('planned_shifts')
        .selectAll()
        .where('company_id', '=', acme.companyId)
        .orderBy('start_at')
        .execute();

    beforeAll(async () => {
      server = await startTestServer(dialect, { env: { EXCEPTIONS_JOB: 'false' } });
      acme = await createCompanyFixture(server.ctx, {
        name: 'Acme Logistics',
        timeZone: ZONE,
        employeeCount: 6,
        scopes: SCOPES,
      });
      manager = await createPerson(server.ctx, acme.companyId, {
        email: 'rosa.roster@acme.example',
        permissions: '47,52,97',
      });
      reader = await createPerson(server.ctx, acme.companyId, {
        email: 'rita.reader@acme.example',
        permissions: '47',
      });
      // en-GB: time fields read and take 24-hour times.
      context = await browser().newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-GB' });
      context.setDefaultTimeout(UI_TIMEOUT);
      ({ page, log } = await openPage(context));
      await signIn(page, server.listenUrl, manager, 'Time entries');
    }, FLOW_TIMEOUT);

    afterAll(async () => {
      await context?.close();
      await server?.stop();
    });

    it(
      'Roster: plan, refuse an overlap, move, change and delete with the keyboard; copy and publish the week; exceptions beside',
      async () => {
        const [ada, bea, cem] = acme.employees.map((e) => e.id);
        const tuesday = monday.plus({ days: 1 });
        const wednesday = monday.plus({ days: 2 });
        await plan([
          {
            employee: { id: bea },
            start: at(monday.minus({ days: 7 }), '08:00'),
            end: at(monday.minus({ days: 7 }), '16:00'),
            status: 'published',
          },
          { employee: { id: ada }, start: at(tuesday, '09:00'), end: at(tuesday, '17:00'), breakMinutes: 30 },
          {
            employee: { id: cem },
            start: at(wednesday, '09:00'),
            end: at(wednesday, '17:00'),
            status: 'published',
          },
        ]);
        // The job, as of Wednesday 09:31: Cem has not come.
        await runExceptionsJob({ database: server.database, now: () => Date.parse(at(wednesday, '09:31')) });

        await keyboardActivate(page, page.getByRole('link', { name: 'Roster' }));
        await page.getByRole('heading', { level: 1, name: 'Roster' }).waitFor();
        const grid = page.locator('.roster-table');
        await grid.waitFor();
        const row = (name: string) => grid.getByRole('row', { name: new RegExp(`^${name}`) });
        await expect(row('First0 Last0').innerText()).resolves.toMatch(/09:00–17:00\s+Draft, break 30 min/);
        await expect(row('First2 Last2').innerText()).resolves.toContain('No-show');
        const exceptions = page.getByRole('region', { name: 'Exceptions this week' });
        await expect(exceptions.innerText()).resolves.toMatch(/First2 Last2\s+No-show\s+0\s+Open/);

        // Plan a shift for Bea on Thursday: 10:00 to 18:00, typed.
        const thursday = monday.plus({ days: 3 });
        await keyboardActivate(
          page,
          grid.getByRole('button', {
            name: new RegExp(`Add a shift for First1 Last1 on ${thursday.toFormat('ccc, d LLL')}`),
          }),
        );
        const dialog = page.getByRole('dialog', { name: 'Plan a shift' });
        await dialog.waitFor();
        await tabTo(page, dialog.getByLabel('Start'));
        await page.keyboard.type('1000');
        await tabTo(page, dialog.getByLabel('End'));
        await page.keyboard.type('1800');
        await page.keyboard.press('Enter');
        const status = page.locator('#roster-status');
        await expect.poll(() => status.innerText()).toMatch(/Shift 10:00–18:00 on Thu, .* planned\./);
        await expect.poll(() => row('First1 Last1').innerText()).toContain('10:00–18:00');

        // Another shift for Ada over her Tuesday: refused next to the dialog, then cancelled with Escape.
        await keyboardActivate(
          page,
          grid.getByRole('button', {
            name: new RegExp(`Add a shift for First0 Last0 on ${tuesday.toFormat('ccc, d LLL')}`),
          }),
        );
        await keyboardActivate(
          page,
          page.getByRole('dialog', { name: 'Plan a shift' }).getByRole('button', { name: 'Plan the shift' }),
        );
        await expect.poll(() => page.getByRole('dialog').innerText()).toMatch(/overlaps shift/);
        await capture(page, 'roster-overlap', { fullPage: false });
        await page.keyboard.press('Escape');

        // Move Ada's Tuesday to Wednesday with Alt+Right, then open it and delete it.
        const adaShift = grid.getByRole('button', { name: /First0 Last0, .*09:00–17:00/ });
        await tabTo(page, adaShift);
        await page.keyboard.press('Alt+ArrowRight');
        await expect.poll(() => status.innerText()).toMatch(/Shift moved to Wed, .* 09:00–17:00\./);
        await expect
          .poll(async () => (await shiftRows()).filter((s) => s.employee_id === ada).map((s) => s.date))
          .toEqual([wednesday.toISODate()]);
        await keyboardActivate(page, grid.getByRole('button', { name: /First0 Last0, .*09:00–17:00/ }));
        const change = page.getByRole('dialog', { name: 'Change the shift' });
        await change.waitFor();
        await keyboardActivate(page, change.getByRole('button', { name: 'Delete the shift' }));
        await expect.poll(() => status.innerText()).toContain('The shift was deleted.');

        await keyboardActivate(page, page.getByRole('button', { name: 'Copy the previous week' }));
        await expect
          .poll(() => status.innerText())
          .toContain('1 shift(s) copied from the previous week as drafts.');
        await expect.poll(() => row('First1 Last1').innerText()).toContain('08:00–16:00');
        await keyboardActivate(page, page.getByRole('button', { name: 'Publish the week' }));
        await expect.poll(() => status.innerText()).toContain('2 shift(s) published.');
        const week = (await shiftRows()).filter((s) => s.date >= monday.toISODate()!);
        expect(week.map((s) => s.status)).toEqual(['published', 'published', 'published']);
        await capture(page, 'roster');

        // Phone width: one day at a time, stepped with the keyboard.
        await page.setViewportSize({ width: 390, height: 844 });
        await expect.poll(() => grid.locator('thead th').count()).toBe(2);
        const heading = page.getByRole('heading', { level: 2, name: /^Site: / });
        const before = await heading.innerText();
        await keyboardActivate(page, page.getByRole('button', { name: 'Next day' }));
        await expect.poll(() => heading.innerText()).not.toBe(before);
        await page.setViewportSize({ width: 1280, height: 900 });
        expect(log.problems).toEqual([]);
      },
      FLOW_TIMEOUT,
    );

    it(
      'a reader (permission 47 only) sees the roster without its buttons; the server refuses their changes',
      async () => {
        const other = await browser().newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-GB' });
        try {
          const { page: own, log: ownLog } = await openPage(other);
          await signIn(own, server.listenUrl, reader, 'Time entries');
          await own.goto(`${server.listenUrl}/console/#/roster`);
          await own.locator('.roster-table').waitFor();
          await expect(own.getByRole('button', { name: /Add a shift/ }).count()).resolves.toBe(0);
          await expect(own.getByRole('button', { name: 'Publish the week' }).count()).resolves.toBe(0);
          const csrf = (await fetchInPage(own, 'GET', '/session')).body!.csrfToken as string;
          const refused = await fetchInPage(
            own,
            'POST',
            '/planned-shifts/publish',
            {
              workplaceId: acme.workplaceId,
              from: monday.toISODate(),
              to: monday.plus({ days: 6 }).toISODate(),
            },
            csrf,
          );
          expect(refused).toMatchObject({ status: 403, body: { error: 'forbidden' } });
          await capture(own, 'roster-reader');
          expect(ownLog.problems).toEqual([]);
        } finally {
          await other.close();
        }
      },
      FLOW_TIMEOUT,
    );

    it(
      'a planner (permission 97 only) plans the week but sees no exceptions panel and no emails',
      async () => {
        const planner = await createPerson(server.ctx, acme.companyId, {
          email: 'pia.planner@acme.example',
          permissions: '97',
        });
        const other = await browser().newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-GB' });
        try {
          const { page: own, log: ownLog } = await openPage(other);
          await signIn(own, server.listenUrl, planner, 'Roster');
          await own.locator('.roster-table').waitFor();
          await expect(own.getByRole('button', { name: /Add a shift/ }).count()).resolves.toBeGreaterThan(0);
          await expect(own.getByRole('heading', { name: 'Exceptions this week' }).count()).resolves.toBe(0);
          await expect(own.locator('main').innerText()).resolves.not.toContain('@acme.example');
          const roster = await fetchInPage(
            own,
            'GET',
            `/roster?workplaceId=${acme.workplaceId}&from=${monday.toISODate()}&to=${monday.plus({ days: 6 }).toISODate()}`,
          );
          expect(roster.status).toBe(200);
          expect(roster.body!.exceptions).toBeNull();
          await capture(own, 'roster-planner');
          expect(ownLog.problems).toEqual([]);
        } finally {
          await other.close();
        }
      },
      FLOW_TIMEOUT,
    );

    it(
      'Now: who is late and who is not yet in, per workplace',
      async () => {
        // Three more employees, whose shifts cannot meet the roster test's.
        const [ada, bea, cem] = acme.employees.slice(3).map((e) => e.id);
        const iso = (d: DateTime) => d.toISO({ suppressMilliseconds: true })!;
        await plan([
          {
            employee: { id: ada },
            start: iso(now.minus({ minutes: 20 })),
            end: iso(now.plus({ hours: 3 })),
            status: 'published',
          },
          {
            employee: { id: bea },
            start: iso(now.plus({ minutes: 30 })),
            end: iso(now.plus({ hours: 4 })),
            status: 'published',
          },
          {
            employee: { id: cem },
            start: iso(now.minus({ minutes: 20 })),
            end: iso(now.plus({ hours: 3 })),
            status: 'published',
          },
        ]);
        const token = await fetchToken(server, acme.key.clientId, acme.key.secret);
        const punched = await server.request(`${PUBLIC}/time-clock/events`, {
          method: 'POST',
          token,
          json: { employee: { id: cem }, type: 'clock_in', occurredAt: iso(now.minus({ minutes: 18 })) },
        });
        expect(punched.status).toBe(201);
        await keyboardActivate(page, page.getByRole('link', { name: 'Now' }));
        await page.getByRole('heading', { level: 1, name: 'Now' }).waitFor();
        const section = page.getByRole('region', { name: 'Late and not yet in' });
        await expect
          .poll(() => section.locator('.now-expected-summary').innerText())
          .toBe('1 late, 1 not yet in.');
        await expect(section.innerText()).resolves.toMatch(/First3 Last3\s+\S+\s+⚠ Late, 2\d min/);
        await expect(section.innerText()).resolves.toMatch(/First4 Last4\s+\S+\s+○ Not yet in/);
        await expect(section.innerText()).resolves.not.toContain('First5 Last5');
        await capture(page, 'now-attendance');
        expect(log.problems).toEqual([]);
      },
      FLOW_TIMEOUT,
    );
  },
);
