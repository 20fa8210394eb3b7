import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateCompany } from '../../src/modules/companies/service.js';
import { inTransaction } from '../../src/modules/context.js';
import { setUserPassword } from '../../src/modules/people/service.js';
import { createUser } from '../../src/modules/people/users.js';
import { PASSWORD } from '../support/admin-api.js';
import {
  expectAccessible,
  FLOW_TIMEOUT,
  HAVE_BROWSER,
  keyboardActivate,
  openPage,
  type PageLog,
  PUBLIC,
  SCREENSHOTS,
  signIn,
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
 * The personal web clock offline (issue 35, item 5) in a real headless Chromium, on both databases:
 * the console is an installable web app (manifest served as such, a service worker controlling the
 * page, as the kiosk's), a self-service person punches clock in, a break and back with the network cut
 * for the page and its service worker; the server holds none, My day says "waiting to send (3)", a
 * reload without network still opens the clock, and once the network is back each punch is stored
 * exactly once with its original time, the entry flagged `offline_punch`. Screenshots of My day,
 * online and offline, My time and My absences at 390, 1024 and 1280 px (artifacts/screenshots/).
 */

// The page's own globals, inside page.evaluate (the test project has no DOM types).
declare const document: { documentElement: { scrollWidth: number } };
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
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ZONE = 'Europe/Berlin';

interface Entry {
  id: string;
  startTime: string;
  endTime: string | null;
  source: string;
  reviewFlags: string[];
  breaks?: { startedAt: string; endedAt: string | null }[];
}

suite.each(testDialects().map((d) => [d.name, d] as const))(
  'the web clock offline in Chromium on %s',
  (_name, dialect) => {
    let server: TestServer;
    let acme: CompanyFixture;
    let context: BrowserContext;
    let page: Page;
    let log: PageLog;
    let token: string;
    /** How far the server's clock runs ahead of the browser's (the punches reach it later). */
    let serverAhead = 0;

    beforeAll(async () => {
      server = await startTestServer(dialect, {
        now: () => Date.now() + serverAhead,
        env: { RATE_LIMIT_PER_MINUTE: '100000' },
      });
      acme = await createCompanyFixture(server.ctx, { name: 'Acme', timeZone: ZONE, employeeCount: 2 });
      await inTransaction(server.ctx, (tx, now) =>
        updateCompany(tx, now, acme.companyId, { webClock: 'on' }),
      );
      token = await fetchToken(server, acme.key.clientId, acme.key.secret);
      const user = await inTransaction(server.ctx, (tx, now) =>
        createUser(tx, now, {
          companyId: acme.companyId,
          email: 'ada@acme.example',
          employee: acme.employees[0]!.id,
        }),
      );
      await setUserPassword(server.ctx, user.id, PASSWORD);
      context = await browser().newContext({ viewport: { width: 1280, height: 900 } });
      context.setDefaultTimeout(UI_TIMEOUT);
      ({ page, log } = await openPage(context));
      await signIn(page, server.listenUrl, { email: 'ada@acme.example', password: PASSWORD }, 'My day');
    }, FLOW_TIMEOUT);

    afterAll(async () => {
      await context?.close();
      await server?.stop();
    });

    async function entries(): Promise<Entry[]> {
      const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
      const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
      const response = await server.request(
        `${PUBLIC}/time-entries?employeeId=${acme.employees[0]!.id}&from=${yesterday}&to=${tomorrow}`,
        { token },
      );
      expect(response.status).toBe(200);
      return ((await response.json()) as { items: Entry[] }).items;
    }

    /** Screenshots at phone, tablet and desktop widths, axe-core at each, nothing scrolling sideways. */
    async function shots(name: string, axe = true) {
      for (const width of [390, 1024, 1280]) {
        await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
        if (axe) await expectAccessible(page, `${name} at ${width} px`);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow, `${name} at ${width} px scrolls sideways`).toBeLessThanOrEqual(0);
        await page.screenshot({ path: `${SCREENSHOTS}web-clock-${name}-${width}.png`, fullPage: true });
      }
      await page.setViewportSize({ width: 1280, height: 900 });
    }

    it(
      'is an installable web app: the manifest linked and served as one, a service worker controlling /console',
      async () => {
        const href = await page.locator('link[rel="manifest"]').getAttribute('href');
        expect(href).toBe('/console/manifest.webmanifest');
        const manifest = await server.request(href!);
        expect(manifest.status).toBe(200);
        expect(manifest.headers.get('content-type')).toMatch(/^application\/manifest\+json/);
        const body = (await manifest.json()) as {
          start_url: string;
          scope: string;
          icons: { src: string }[];
        };
        expect(body).toMatchObject({ scope: '/console/', display: 'standalone' });
        for (const icon of body.icons) expect((await server.request(icon.src)).status).toBe(200);
        const worker = await server.request('/console/sw.js');
        expect(worker.headers.get('content-type')).toMatch(/^text\/javascript/);
        const source = await worker.text();
        expect(source).toContain('"/console/app/main.js"');
        expect(source).not.toContain('__SHELL__');
        // The page's CSP lets the manifest and the worker load.
        const csp = (await server.request('/console/')).headers.get('content-security-policy')!;
        expect(csp).toMatch(/manifest-src 'self'/);
        expect(csp).toMatch(/worker-src 'self'/);
        await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
        await expect
          .poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null), {
            timeout: UI_TIMEOUT,
          })
          .toBe(true);
        // The kiosk too: its manifest linked and served as one.
        const kiosk = await server.request('/kiosk/');
        expect(await kiosk.text()).toContain('<link rel="manifest" href="/kiosk/manifest.webmanifest" />');
        const kioskManifest = await server.request('/kiosk/manifest.webmanifest');
        expect(kioskManifest.headers.get('content-type')).toMatch(/^application\/manifest\+json/);
        await page.getByText('You are not clocked in.').waitFor();
        await shots('day');
      },
      FLOW_TIMEOUT,
    );

    it(
      'queues three punches offline, opens again without network, and sends each once with its time',
      async () => {
        await context.setOffline(true);
        await context.route('**/*', (route) => route.abort('internetdisconnected'));
        for (const button of ['Clock in', 'Start a break', 'Back from break']) {
          await keyboardActivate(page, page.getByRole('button', { name: button }));
          await page.getByText(/saved on this device, waiting to send \(\d\)/).waitFor();
          await pause(1100);
        }
        await expect.poll(() => page.locator('#web-clock-queue').textContent()).toBe('waiting to send (3)');
        // The server holds none of them.
        expect(await entries()).toEqual([]);
        await shots('offline-queued');

        const queued = await page.evaluate(
          () =>
            new Promise<{ type: string; occurredAt: string; idempotencyKey: string }[]>((resolve) => {
              const open = indexedDB.open('punchclock-web-clock');
              open.onsuccess = () => {
                const get = open.result.transaction('queue').objectStore('queue').getAll();
                get.onsuccess = () => {
                  open.result.close();
                  resolve(get.result as never);
                };
              };
            }),
        );
        expect(queued.map((p) => p.type).sort()).toEqual(['break_end', 'break_start', 'clock_in']);
        expect(new Set(queued.map((p) => p.idempotencyKey)).size).toBe(3);
        const at = (type: string) => new Date(queued.find((p) => p.type === type)!.occurredAt).toISOString();

        // A reload without network still opens the clock, with its queue.
        await page.reload();
        await page.getByRole('heading', { level: 1, name: 'My day' }).waitFor();
        await page.getByText(/Offline: the server cannot be reached/).waitFor();
        await expect.poll(() => page.locator('#web-clock-queue').textContent()).toBe('waiting to send (3)');
        await page.getByRole('button', { name: 'Start a break' }).waitFor();
        await shots('offline-reloaded');

        // The server's clock runs 5 minutes ahead of the browser's when the punches reach it.
        serverAhead = 5 * 60_000;
        await context.unroute('**/*');
        await context.setOffline(false);
        await expect.poll(() => page.locator('#web-clock-queue').textContent(), { timeout: 30_000 }).toBe('');
        await page.getByText(/You are clocked in since/).waitFor({ timeout: 30_000 });
        // All three sent (the clock-in goes first; the break's two follow it).
        await expect
          .poll(async () => (await entries())[0]?.breaks?.[0]?.endedAt ?? null, { timeout: 30_000 })
          .not.toBeNull();
        await expect.poll(() => page.locator('#web-clock-queue').textContent()).toBe('');

        const stored = await entries();
        expect(stored).toHaveLength(1);
        expect(stored[0]).toMatchObject({ source: 'web_clock', endTime: null });
        // The server's clock 5 minutes ahead of the browser's: X-Device-Clock measures it, so the
        // punches are judged as taken when the browser says (not offline), and the skew is flagged.
        expect(stored[0]!.reviewFlags).toEqual(['device_clock_skew']);
        const refusedText = await page.locator('.refused-punches').allTextContents();
        expect(
          stored[0]!.breaks,
          `${JSON.stringify(stored)} ${JSON.stringify(queued)} refused: ${refusedText.join()}`,
        ).toEqual([expect.objectContaining({ startedAt: at('break_start'), endedAt: at('break_end') })]);
        const rows = await server.database.db
          .selectFrom('time_entries')
          .select(['start_at'])
          .where('employee_id', '=', acme.employees[0]!.id)
          .execute();
        expect(rows.map((r) => new Date(r.start_at).toISOString())).toEqual([at('clock_in')]);
        // The timer sends nothing twice.
        await pause(500);
        expect(await entries()).toHaveLength(1);
        await shots('after-sync');
        expect(log.problems.filter((p) => !/net::ERR|Failed to fetch|NetworkError/.test(p))).toEqual([]);
      },
      FLOW_TIMEOUT,
    );

    it(
      'shows a punch the server refuses when it is sent, with the reason, until dismissed',
      async () => {
        serverAhead = 0;
        await context.setOffline(true);
        await context.route('**/*', (route) => route.abort('internetdisconnected'));
        await keyboardActivate(page, page.getByRole('button', { name: 'Clock out' }));
        await page
          .getByText(/waiting to send \(1\)/)
          .first()
          .waitFor();
        // Meanwhile a manager closes the entry: the queued clock-out is refused when sent.
        await context.unroute('**/*');
        const closed = await server.request(`${PUBLIC}/time-clock/events`, {
          method: 'POST',
          token,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            employee: { id: acme.employees[0]!.id },
            type: 'clock_out',
            occurredAt: new Date().toISOString(),
          }),
        });
        expect(closed.status, await closed.clone().text()).toBe(201);
        await context.setOffline(false);
        const refused = page.getByRole('list', { name: 'Not recorded' });
        await refused.waitFor({ timeout: 30_000 });
        const words = (await refused.textContent()) ?? '';
        expect(words, words).toMatch(/Clock out at .*: the employee has no open session to clock out of/);
        expect(await page.locator('#web-clock-queue').textContent()).toBe('');
        await shots('refused');
        await keyboardActivate(page, refused.getByRole('button', { name: 'Seen' }));
        await refused.waitFor({ state: 'detached' });
      },
      FLOW_TIMEOUT,
    );

    /** The offline snapshot of My day, as the page keeps it in localStorage. */
    const snapshotOf = () =>
      page.evaluate(() =>
        (
          globalThis as unknown as { localStorage: { getItem(k: string): string | null } }
        ).localStorage.getItem('punchclock-web-clock'),
      );

    async function reloadOffline() {
      await context.setOffline(true);
      await context.route('**/*', (route) => route.abort('internetdisconnected'));
      await page.reload();
      await page.getByLabel('Email address').waitFor();
      expect(await page.getByRole('heading', { level: 1, name: 'My day' }).count()).toBe(0);
      expect(await snapshotOf()).toBeNull();
      await context.unroute('**/*');
      await context.setOffline(false);
    }

    it(
      "keeps no offline day once the session has ended: the session's end is stored, and the snapshot cleared",
      async () => {
        await keyboardActivate(page, page.getByRole('link', { name: 'My day' }));
        await page.getByRole('heading', { level: 1, name: 'My day' }).waitFor();
        await expect.poll(snapshotOf).not.toBeNull();
        const session = await server.database.db
          .selectFrom('console_sessions')
          .select('expires_at')
          .executeTakeFirstOrThrow();
        const stored = JSON.parse((await snapshotOf())!) as { expiresAt: string; personId: string };
        expect(new Date(stored.expiresAt).toISOString()).toBe(new Date(session.expires_at).toISOString());

        // Ended on the server (expired, deactivated, signed out elsewhere): the next request learns it.
        await server.database.db.deleteFrom('console_sessions').execute();
        await keyboardActivate(page, page.getByRole('link', { name: 'My time' }));
        await page.getByLabel('Email address').waitFor();
        expect(await snapshotOf()).toBeNull();
        // Without network, a reload opens the sign-in screen, not Ada's day.
        await reloadOffline();

        // A snapshot past its session's end is not opened either.
        await signIn(page, server.listenUrl, { email: 'ada@acme.example', password: PASSWORD }, 'My day');
        await expect.poll(snapshotOf).not.toBeNull();
        await page.evaluate(() => {
          const storage = (
            globalThis as unknown as {
              localStorage: { getItem(k: string): string | null; setItem(k: string, v: string): void };
            }
          ).localStorage;
          const kept = JSON.parse(storage.getItem('punchclock-web-clock')!) as { expiresAt: string };
          kept.expiresAt = new Date(Date.now() - 1000).toISOString();
          storage.setItem('punchclock-web-clock', JSON.stringify(kept));
        });
        await reloadOffline();

        // Signing out offline clears it first, although DELETE /session cannot reach the server.
        // (Online again, the session, still live on the server, opens My day again.)
        await page.reload();
        await page.getByRole('heading', { level: 1, name: 'My day' }).waitFor();
        await expect.poll(snapshotOf).not.toBeNull();
        await context.setOffline(true);
        await context.route('**/*', (route) => route.abort('internetdisconnected'));
        await keyboardActivate(page, page.getByRole('button', { name: 'Sign out' }));
        await expect.poll(snapshotOf).toBeNull();
        await context.unroute('**/*');
        await context.setOffline(false);
        // DELETE /session never reached the server: online again, the session is still Ada's.
        await page.reload();
        await page.getByRole('heading', { level: 1, name: 'My day' }).waitFor();
      },
      FLOW_TIMEOUT,
    );

    it(
      'screens of self-service at phone, tablet and desktop widths',
      async () => {
        for (const [link, heading, name] of [
          ['My time', 'My time', 'time'],
          ['My absences', 'My absences', 'absences'],
        ] as const) {
          await keyboardActivate(page, page.getByRole('link', { name: link }));
          await page.getByRole('heading', { level: 1, name: heading }).waitFor();
          await pause(300);
          await shots(name);
        }
      },
      FLOW_TIMEOUT,
    );
  },
);
