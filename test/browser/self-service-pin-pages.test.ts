import { DateTime } from 'luxon';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateCompany } from '../../src/modules/companies/service.js';
import { inTransaction } from '../../src/modules/context.js';
import { revokeDevice } from '../../src/modules/devices/service.js';
import { verifyPassword } from '../../src/modules/people/passwords.js';
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
import { newEnrolment } from '../support/kiosk.js';
import {
  type CompanyFixture,
  createCompanyFixture,
  fetchToken,
  startTestServer,
  type TestServer,
} from '../support/server.js';

/*
 * Issue 35's loose ends in a real headless Chromium, on both databases: the person sets their own
 * kiosk PIN on My day and an administrator (92) sets an employee's on the Employees screen (each a
 * slow hash that the PIN verifies); the Time entries screen's correction requests follow the list's
 * cursor ("Load more" beyond 100); a kiosk whose device is revoked goes back to the enrolment screen
 * and says so (its next request 401 invalid_token, its credential refused).
 */

const ZONE = 'Europe/Berlin';
const browser = useChromium();
const suite = HAVE_BROWSER ? describe : describe.skip;

suite.each(testDialects().map((d) => [d.name, d] as const))(
  'PINs, paged requests and a revoked kiosk in Chromium on %s',
  (_name, dialect) => {
    let server: TestServer;
    let acme: CompanyFixture;
    let employee: Person;
    let manager: Person;
    let context: BrowserContext;
    let page: Page;
    let log: PageLog;

    async function pinVerifies(employeeId: string, pin: string): Promise<boolean> {
      const row = await server.database.db
        .selectFrom('employee_pins')
        .select('pin_hash')
        .where('employee_id', '=', employeeId)
        .executeTakeFirst();
      return row !== undefined && (await verifyPassword(pin, row.pin_hash));
    }

    beforeAll(async () => {
      server = await startTestServer(dialect, { env: { RATE_LIMIT_PER_MINUTE: '100000' } });
      acme = await createCompanyFixture(server.ctx, { name: 'Acme', timeZone: ZONE, employeeCount: 2 });
      await inTransaction(server.ctx, (tx, now) =>
        updateCompany(tx, now, acme.companyId, { webClock: 'on' }),
      );
      const user = await inTransaction(server.ctx, (tx, now) =>
        createUser(tx, now, {
          companyId: acme.companyId,
          email: 'ada@acme.example',
          employee: acme.employees[0]!.id,
        }),
      );
      await setUserPassword(server.ctx, user.id, PASSWORD);
      employee = { id: user.id, email: 'ada@acme.example', password: PASSWORD };
      manager = await createPerson(server.ctx, acme.companyId, {
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
      'lets the person set their own kiosk PIN on My day, by keyboard',
      async () => {
        const form = page.getByRole('form', { name: 'Kiosk PIN' });
        await form.waitFor();
        await tabTo(page, form.getByLabel('New PIN'));
        await page.keyboard.type('12a4');
        await page.keyboard.press('Enter');
        // The browser's own check (4 to 8 digits) stops it before the server.
        expect(await pinVerifies(acme.employees[0]!.id, '12a4')).toBe(false);
        await form.getByLabel('New PIN').fill('');
        await form.getByLabel('New PIN').focus();
        await page.keyboard.type('2580');
        await page.keyboard.press('Enter');
        await page.getByText('Your PIN is set.', { exact: false }).waitFor();
        expect(await form.getByLabel('New PIN').inputValue()).toBe('');
        expect(await pinVerifies(acme.employees[0]!.id, '2580')).toBe(true);
        await capture(page, 'self-pin');
        expect(log.problems).toEqual([]);
      },
      FLOW_TIMEOUT,
    );

    it(
      "follows the correction requests' cursor on Time entries (Load more beyond 100)",
      async () => {
        // 101 entries of the employee (four a day), and a request to correct each, through their session.
        const token = await fetchToken(server, acme.key.clientId, acme.key.secret);
        const session = await fetchInPage(page, 'GET', '/session');
        const csrf = session.body!.csrfToken as string;
        const today = DateTime.now().setZone(ZONE).startOf('day');
        for (let n = 0; n < 101; n++) {
          const start = today.minus({ days: 2 + Math.floor(n / 4) }).set({ hour: 6 + 2 * (n % 4) });
          const shift = await server.request('/api/public/v1/time-entries', {
            method: 'POST',
            token,
            json: {
              employee: { id: acme.employees[0]!.id },
              clockIn: start.toISO(),
              clockOut: start.plus({ hours: 1 }).toISO(),
            },
          });
          expect(shift.status, await shift.clone().text()).toBe(201);
          const { timeEntryId } = (await shift.json()) as { timeEntryId: string };
          const filed = await fetchInPage(
            page,
            'POST',
            '/self/correction-requests',
            {
              timeEntryId,
              proposed: { clockOut: start.plus({ minutes: 90 }).toISO() },
              reason: `left later ${n}`,
            },
            csrf,
          );
          expect(filed.status, JSON.stringify(filed.body)).toBe(201);
        }
        const boss = await context.newPage();
        await boss.goto('about:blank');
        await context.clearCookies();
        await signIn(boss, server.listenUrl, manager, 'Time entries');
        const section = boss.getByRole('region', { name: 'Correction requests (100+)' });
        await section.waitFor();
        expect(await section.getByRole('listitem').count()).toBe(100);
        // Past 100 requests' buttons: focused directly, then the keyboard presses it.
        await section.getByRole('button', { name: 'Load more correction requests' }).focus();
        await boss.keyboard.press('Enter');
        await boss.getByRole('region', { name: 'Correction requests (101)' }).waitFor();
        expect(
          await boss.getByRole('region', { name: 'Correction requests (101)' }).getByRole('listitem').count(),
        ).toBe(101);
        await expect(
          boss.getByRole('button', { name: 'Load more correction requests' }).count(),
        ).resolves.toBe(0);

        // The administrator's PIN form on the employee's page (92).
        await boss.goto(`${server.listenUrl}/console/#/employees/${acme.employees[1]!.id}`);
        const form = boss.getByRole('form', { name: 'Kiosk PIN' });
        await form.getByLabel('New PIN').fill('97531');
        await keyboardActivate(boss, form.getByRole('button', { name: 'Set PIN' }));
        await boss.getByText('The PIN is set.', { exact: false }).waitFor();
        expect(await pinVerifies(acme.employees[1]!.id, '97531')).toBe(true);
        await capture(boss, 'employee-pin');
        await boss.close();
      },
      FLOW_TIMEOUT,
    );

    it(
      'sends a revoked kiosk back to the enrolment screen, saying so (its next request 401 invalid_token)',
      async () => {
        const kiosk = await context.newPage();
        const enrolment = await newEnrolment(server, acme.workplaceId, 'Back door tablet');
        await kiosk.goto(`${server.listenUrl}/kiosk/`);
        await kiosk.getByLabel('Enrolment code').waitFor();
        await kiosk.keyboard.type(enrolment.enrolmentCode);
        await kiosk.keyboard.press('Enter');
        await kiosk.getByLabel('Scan your badge').waitFor();
        const answers: { url: string; status: number; error: string | null }[] = [];
        kiosk.on('response', (response) => {
          const url = new URL(response.url()).pathname;
          if (!url.startsWith('/api/')) return;
          void response
            .json()
            .then((body: { error?: string }) =>
              answers.push({ url, status: response.status(), error: body.error ?? null }),
            )
            .catch(() => answers.push({ url, status: response.status(), error: null }));
        });
        await inTransaction(server.ctx, (tx, now) => revokeDevice(tx, now, enrolment.id));
        await kiosk.keyboard.type('EXT-0');
        await kiosk.keyboard.press('Enter');
        await kiosk.getByText('This tablet was revoked. Enrol it again with a new code.').waitFor();
        await kiosk.getByLabel('Enrolment code').waitFor();
        await expect
          .poll(() => answers)
          .toContainEqual({
            url: '/api/public/v1/kiosk/identify',
            status: 401,
            error: 'invalid_token',
          });
        expect(answers).toContainEqual({
          url: '/api/public/v1/oauth/token',
          status: 401,
          error: 'invalid_client',
        });
        // The credential is forgotten: a reload stays on the enrolment screen.
        await kiosk.reload();
        await kiosk.getByLabel('Enrolment code').waitFor();
        await kiosk.close();
      },
      FLOW_TIMEOUT,
    );
  },
);
