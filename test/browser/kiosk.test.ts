import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPerson } from '../support/admin-api.js';
import {
  capture,
  expectAccessible,
  FLOW_TIMEOUT,
  HAVE_BROWSER,
  openPage,
  type PageLog,
  PUBLIC,
  SCREENSHOTS,
  tabTo,
  UI_TIMEOUT,
  useChromium,
} from '../support/browser.js';
import { testDialects } from '../support/databases.js';
import { newEnrolment, setPin } from '../support/kiosk.js';
import {
  type CompanyFixture,
  createCompanyFixture,
  fetchToken,
  startTestServer,
  type TestServer,
} from '../support/server.js';

/*
 * The kiosk (issue 35) in a real headless Chromium, by keyboard only: enrol a tablet with a code,
 * punch by badge (a keyboard-wedge reader types the badge and Enter) and by name and PIN, the PIN
 * lock-out, then the offline drill: the network cut for the page and its service worker (offline,
 * and every request of the context aborted), five punches across a break queued, none on the
 * server, "waiting to send (5)", a reload while offline still opens the clock, the network back,
 * each punch stored once with its original time and break; a refused punch shown, never dropped; the
 * console's Kiosk devices screen. On both databases; axe-core and screenshots at 1024 and 390 px.
 */

// The functions passed to page.evaluate run in the browser; the test project has no DOM types.
declare const document: { activeElement: unknown; documentElement: { scrollWidth: number } };
declare const window: { innerWidth: number };
declare const navigator: { serviceWorker: { ready: Promise<unknown>; controller: unknown } };
declare const indexedDB: {
  open(name: string): {
    onsuccess: () => void;
    result: {
      close(): void;
      transaction(store: string): {
        objectStore(store: string): { getAll(): { onsuccess: () => void; result: unknown } };
      };
    };
  };
};

const browser = useChromium();
const suite = HAVE_BROWSER ? describe : describe.skip;

interface Entry {
  id: string;
  startTime: string;
  endTime: string | null;
  source: string;
  deviceId: string | null;
  breaks?: { startedAt: string; endedAt: string | null }[];
}

suite.each(testDialects().map((d) => [d.name, d] as const))('kiosk in Chromium on %s', (_name, dialect) => {
  let server: TestServer;
  let acme: CompanyFixture;
  let context: BrowserContext;
  let page: Page;
  let log: PageLog;
  let token: string;

  beforeAll(async () => {
    server = await startTestServer(dialect, { env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    acme = await createCompanyFixture(server.ctx, { timeZone: 'Europe/Berlin', employeeCount: 3 });
    token = await fetchToken(server, acme.key.clientId, acme.key.secret);
    await setPin(server, acme.employees[1]!.id, '2468');
    await setPin(server, acme.employees[2]!.id, '1357');
    context = await browser().newContext({ viewport: { width: 1024, height: 768 } });
    ({ page, log } = await openPage(context));
  }, FLOW_TIMEOUT);

  afterAll(async () => {
    await context?.close();
    await server?.stop();
  });

  async function entries(employeeIndex: number): Promise<Entry[]> {
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const response = await server.request(
      `${PUBLIC}/time-entries?employeeId=${acme.employees[employeeIndex]!.id}&from=${yesterday}&to=${today}`,
      { token },
    );
    expect(response.status).toBe(200);
    return ((await response.json()) as { items: Entry[] }).items;
  }

  async function shots(name: string) {
    for (const width of [1024, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 768 });
      await expectAccessible(page, `${name} at ${width} px`);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `${name} at ${width} px scrolls sideways`).toBeLessThanOrEqual(0);
      await page.screenshot({ path: `${SCREENSHOTS}kiosk-${name}-${width}.png`, fullPage: true });
    }
    await page.setViewportSize({ width: 1024, height: 768 });
  }

  async function badge(value: string) {
    const field = page.getByLabel('Scan your badge');
    await field.waitFor({ timeout: UI_TIMEOUT });
    await expect.poll(() => field.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.type(value);
    await page.keyboard.press('Enter');
  }

  /** Tab to the action's button and press Enter; returns the result's words. */
  async function act(label: string, shot?: string) {
    await tabTo(page, page.getByRole('button', { name: label, exact: true }));
    await page.keyboard.press('Enter');
    const result = page.locator('#result');
    await result.waitFor({ timeout: UI_TIMEOUT });
    const text = (await result.textContent()) ?? '';
    if (shot) await shots(shot);
    await page.keyboard.press('Enter'); // OK: back to the idle screen
    await page.getByLabel('Scan your badge').waitFor({ timeout: UI_TIMEOUT });
    return text;
  }

  it(
    'enrols with a code typed on the tablet',
    async () => {
      const enrolment = await newEnrolment(server, acme.workplaceId, 'Front door tablet');
      await page.goto(`${server.listenUrl}/kiosk/`);
      const code = page.getByLabel('Enrolment code');
      await code.waitFor({ timeout: UI_TIMEOUT });
      await shots('enrol');
      await page.keyboard.type('WRON-GCOD');
      await page.keyboard.press('Enter');
      await expect
        .poll(() => page.locator('#enrol-error').textContent())
        .toMatch(/wrong, already used or expired/);
      await code.fill('');
      await page.keyboard.type(enrolment.enrolmentCode);
      await page.keyboard.press('Enter');
      await page.getByLabel('Scan your badge').waitFor({ timeout: UI_TIMEOUT });
      await expect(page.locator('#device-name').textContent()).resolves.toBe('Front door tablet');
      await shots('idle');
      // The service worker takes the page over, so the shell is kept for offline use.
      await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
      await expect
        .poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null), { timeout: UI_TIMEOUT })
        .toBe(true);
    },
    FLOW_TIMEOUT,
  );

  it(
    'punches by badge and by name and PIN, the result in words',
    async () => {
      await badge('EXT-0');
      await page.getByRole('heading', { name: 'Hello, First0' }).waitFor({ timeout: UI_TIMEOUT });
      await shots('actions');
      const words = await act('Clock in', 'result');
      expect(words).toMatch(/^Clocked in at \d\d:\d\d, First0$/);
      const [entry] = await entries(0);
      expect(entry).toMatchObject({ source: 'kiosk', endTime: null });

      await tabTo(page, page.getByRole('button', { name: 'First1 Last1' }));
      await page.keyboard.press('Enter');
      await page.getByLabel('PIN for First1 Last1').waitFor({ timeout: UI_TIMEOUT });
      await shots('pin');
      await page.keyboard.type('2468');
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Hello, First1' }).waitFor({ timeout: UI_TIMEOUT });
      expect(await act('Clock in')).toMatch(/^Clocked in at \d\d:\d\d, First1$/);
      expect(await entries(1)).toHaveLength(1);
    },
    FLOW_TIMEOUT,
  );

  it(
    'locks a PIN after 5 wrong ones',
    async () => {
      await tabTo(page, page.getByRole('button', { name: 'First2 Last2' }));
      await page.keyboard.press('Enter');
      const pin = page.getByLabel('PIN for First2 Last2');
      await pin.waitFor({ timeout: UI_TIMEOUT });
      for (let i = 0; i < 5; i++) {
        await page.keyboard.type('0000');
        await page.keyboard.press('Enter');
        await expect.poll(() => page.locator('#pin-error').textContent()).toBe('Wrong PIN. Try again.');
        await page.locator('#pin-error').evaluate((el) => (el.textContent = ''));
      }
      await page.keyboard.type('1357');
      await page.keyboard.press('Enter');
      await expect.poll(() => page.locator('#pin-error').textContent()).toMatch(/too many wrong PINs/);
      await page.keyboard.press('Escape');
      await page.getByLabel('Scan your badge').waitFor({ timeout: UI_TIMEOUT });
    },
    FLOW_TIMEOUT,
  );

  it(
    'works offline: five punches across a break are queued, survive a reload and are sent once',
    async () => {
      // Cut the network for the page and its service worker.
      await context.setOffline(true);
      await context.route('**/*', (route) => route.abort('internetdisconnected'));

      // First2, unknown offline: clock in, a break, clock out; First0 (known clocked in): clock out.
      await badge('EXT-2');
      await page.getByRole('heading', { name: 'Offline: badge EXT-2' }).waitFor({ timeout: UI_TIMEOUT });
      for (const action of ['Clock in', 'Start break', 'End break', 'Clock out']) {
        expect(await act(action)).toMatch(/Saved on this tablet, waiting to send \(\d\)/);
        if (action !== 'Clock out') await badge('EXT-2');
        await page.waitForTimeout(1100);
      }
      await badge('EXT-0');
      expect(await act('Clock out')).toMatch(/waiting to send \(5\)/);
      await expect.poll(() => page.locator('#queue').textContent()).toBe('waiting to send (5)');
      await shots('offline');

      // The server holds none of them.
      expect(await entries(2)).toHaveLength(0);
      expect((await entries(0))[0]!.endTime).toBeNull();

      // What the tablet queued (its times, its keys).
      const queuedPunches = await page.evaluate(
        () =>
          new Promise<{ type: string; occurredAt: string; idempotencyKey: string }[]>((resolve) => {
            const open = indexedDB.open('punchclock-kiosk');
            open.onsuccess = () => {
              const get = open.result.transaction('queue').objectStore('queue').getAll();
              get.onsuccess = () => {
                open.result.close();
                resolve(get.result as never);
              };
            };
          }),
      );
      expect(queuedPunches).toHaveLength(5);

      // A reload without network still opens the clock, with its queue.
      await page.reload();
      await page.getByLabel('Scan your badge').waitFor({ timeout: UI_TIMEOUT });
      await expect.poll(() => page.locator('#queue').textContent()).toBe('waiting to send (5)');

      // The network returns: the queue is sent (on `online`), each punch stored once.
      await context.unroute('**/*');
      await context.setOffline(false);
      await expect
        .poll(() => page.locator('#queue').textContent(), { timeout: 30_000 })
        .toBe('All punches sent');

      const at = (type: string) =>
        new Date(
          queuedPunches
            .filter((p) => p.occurredAt && p.type === type)
            .map((p) => p.occurredAt)
            .sort()[0]!,
        ).toISOString();
      const [second] = await entries(2);
      expect(await entries(2)).toHaveLength(1);
      expect(second).toMatchObject({ source: 'kiosk', breaks: [expect.anything()] });
      expect(second!.breaks![0]!.startedAt).toBe(at('break_start'));
      expect(second!.breaks![0]!.endedAt).toBe(at('break_end'));
      const stored = await server.database.db
        .selectFrom('time_entries')
        .select(['start_at', 'end_at'])
        .where('employee_id', '=', acme.employees[2]!.id)
        .execute();
      expect(stored).toEqual([{ start_at: at('clock_in'), end_at: expect.any(String) }]);
      const first = await entries(0);
      expect(first).toHaveLength(1);
      const closed = await server.database.db
        .selectFrom('time_entries')
        .select(['end_at'])
        .where('employee_id', '=', acme.employees[0]!.id)
        .execute();
      const clockOuts = queuedPunches
        .filter((p) => p.type === 'clock_out')
        .map((p) => new Date(p.occurredAt).toISOString())
        .sort();
      expect([closed[0]!.end_at, stored[0]!.end_at].sort()).toEqual(clockOuts);

      // Sent again by the timer: nothing twice.
      await page.waitForTimeout(500);
      expect(await entries(2)).toHaveLength(1);
      expect(log.problems.filter((p) => !/net::ERR|Failed to fetch|NetworkError/.test(p))).toEqual([]);
    },
    FLOW_TIMEOUT,
  );

  it(
    'a punch refused when it is sent is shown on the tablet with its reason, never dropped',
    async () => {
      await context.setOffline(true);
      await context.route('**/*', (route) => route.abort('internetdisconnected'));
      await badge('NOT-A-BADGE');
      await page
        .getByRole('heading', { name: 'Offline: badge NOT-A-BADGE' })
        .waitFor({ timeout: UI_TIMEOUT });
      expect(await act('Clock in')).toMatch(/waiting to send \(1\)/);
      await context.unroute('**/*');
      await context.setOffline(false);
      await expect
        .poll(() => page.locator('#queue').textContent(), { timeout: 30_000 })
        .toBe('All punches sent');
      // The idle screen lists it (here after a reload; it is kept in IndexedDB).
      await page.reload();
      const refused = page.getByRole('region', { name: /Not recorded \(1\)/ });
      await refused.waitFor({ timeout: UI_TIMEOUT });
      await expect(refused.textContent()).resolves.toMatch(
        /Clock in at \d\d:\d\d, badge NOT-A-BADGE: .*external id NOT-A-BADGE/,
      );
      await shots('refused');
      await tabTo(page, refused.getByRole('button', { name: 'Seen' }));
      await page.keyboard.press('Enter');
      await expect.poll(() => page.getByRole('region', { name: /Not recorded/ }).count()).toBe(0);
    },
    FLOW_TIMEOUT,
  );

  it(
    'the console lists the devices with last contact and queue, enrols one and revokes one (permission 92)',
    async () => {
      const manager = await createPerson(server.ctx, acme.companyId, {
        email: 'manager@acme.example',
        permissions: '92,52',
      });
      const consolePage = await context.newPage();
      await consolePage.goto(`${server.listenUrl}/console/#/devices`);
      await consolePage.getByLabel('Email address').fill(manager.email);
      await consolePage.getByLabel('Password').fill(manager.password);
      await consolePage.keyboard.press('Enter');
      await consolePage
        .getByRole('heading', { level: 1, name: 'Kiosk devices' })
        .waitFor({ timeout: UI_TIMEOUT });
      const row = consolePage.getByRole('row', { name: /Front door tablet/ });
      await row.waitFor({ timeout: UI_TIMEOUT });
      await expect(row.textContent()).resolves.toMatch(/Active/);
      await expect(row.getByRole('cell').nth(1).textContent()).resolves.not.toBe('Never');
      // Nothing waits on the tablet any more: it said so after its last sync.
      await expect(row.getByRole('cell').nth(2).textContent()).resolves.toBe('0');

      await tabTo(consolePage, consolePage.getByLabel('Device name'));
      await consolePage.keyboard.type('Back door tablet');
      await consolePage.keyboard.press('Enter');
      const code = consolePage
        .getByLabel('Enrolment code', { exact: true })
        .and(consolePage.locator('textarea'));
      await code.waitFor({ timeout: UI_TIMEOUT });
      expect(await code.inputValue()).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/);
      await consolePage.getByRole('row', { name: /Back door tablet/ }).waitFor({ timeout: UI_TIMEOUT });
      await capture(consolePage, 'console-devices');

      await tabTo(consolePage, consolePage.getByRole('button', { name: 'Revoke device Back door tablet' }));
      await consolePage.keyboard.press('Enter');
      await consolePage.getByRole('dialog').waitFor({ timeout: UI_TIMEOUT });
      await consolePage.keyboard.press('Enter');
      await expect
        .poll(() => consolePage.getByRole('row', { name: /Back door tablet/ }).textContent(), {
          timeout: UI_TIMEOUT,
        })
        .toMatch(/Revoked/);
      await consolePage.close();
    },
    FLOW_TIMEOUT,
  );
});
