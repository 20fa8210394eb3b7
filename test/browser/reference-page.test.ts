import { existsSync } from 'node:fs';
import { type Browser, type BrowserContext, chromium, type Page, type Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialects } from '../support/databases.js';
import {
  type CompanyFixture,
  createCompanyFixture,
  fetchToken,
  startTestServer,
  type TestServer,
} from '../support/server.js';
import { countRows, entryRows } from '../support/time-tracking.js';

/**
 * The interactive reference page (Swagger UI at /api/public/v1/docs) in a real headless Chromium:
 * it lists every operation of the description, authorizes through its own OAuth2 dialog, and performs
 * a dry-run clock-in against the running server; nothing the page loads may leave 127.0.0.1.
 *
 * Chromium is Debian's package (scripts/ci-install-chromium.sh). Without it the suite fails under
 * CI=true and is skipped, with a warning, elsewhere.
 */

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];
const IN_CI = process.env.CI === 'true';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM && !IN_CI)
  console.warn(
    `Chromium not found at ${CHROMIUM}: skipping the reference-page browser test ` +
      '(install it with scripts/ci-install-chromium.sh; under CI=true a missing Chromium fails the run).',
  );

const V1 = '/api/public/v1';
const DOCS = `${V1}/docs`;
const FLOW_TIMEOUT = 90_000;
const UI_TIMEOUT = 15_000;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON documents are walked as plain JSON
type Json = Record<string, any>;

/** Everything the page did that the test judges afterwards. */
interface PageLog {
  requests: { method: string; url: string }[];
  offHost: string[];
  failedRequests: string[];
  badResponses: string[];
  consoleErrors: string[];
  pageErrors: string[];
}

function operationsOf(document: Json): { method: string; path: string; summary: string }[] {
  return Object.entries<Json>(document.paths).flatMap(([path, item]) =>
    Object.entries<Json>(item).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path,
      summary: String(operation.summary ?? ''),
    })),
  );
}

/** Opens a fresh page in `context` that records every request and every error it sees. */
async function openLoggedPage(
  context: BrowserContext,
  origin: string,
): Promise<{ page: Page; log: PageLog }> {
  const log: PageLog = {
    requests: [],
    offHost: [],
    failedRequests: [],
    badResponses: [],
    consoleErrors: [],
    pageErrors: [],
  };
  const { host: allowedHost } = new URL(origin);
  // Context-wide, so that popups and workers are covered too, not only the page itself.
  context.on('request', (request) => {
    const url = request.url();
    log.requests.push({ method: request.method(), url });
    const parsed = new URL(url);
    // data: and blob: URLs are produced inside the page and never touch the network.
    if (parsed.protocol === 'data:' || parsed.protocol === 'blob:') return;
    if (parsed.hostname !== '127.0.0.1' || parsed.host !== allowedHost)
      log.offHost.push(`${request.method()} ${url}`);
  });
  context.on('requestfailed', (request) =>
    log.failedRequests.push(
      `${request.method()} ${request.url()}: ${request.failure()?.errorText ?? 'failed'}`,
    ),
  );
  context.on('response', (response) => {
    if (response.status() >= 400)
      log.badResponses.push(`${response.status()} ${response.request().method()} ${response.url()}`);
  });
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') log.consoleErrors.push(`${message.text()} @ ${message.location().url}`);
  });
  page.on('pageerror', (error) => log.pageErrors.push(error.stack ?? error.message));
  return { page, log };
}

function expectCleanPage(log: PageLog) {
  expect(log.requests.length).toBeGreaterThan(0);
  expect(log.offHost, 'requests that left 127.0.0.1').toEqual([]);
  expect(log.failedRequests, 'failed requests').toEqual([]);
  expect(log.badResponses, 'responses with status >= 400').toEqual([]);
  expect(log.consoleErrors, 'console errors').toEqual([]);
  expect(log.pageErrors, 'uncaught page errors').toEqual([]);
}

let browser: Browser | undefined;

beforeAll(async () => {
  if (!HAVE_CHROMIUM) {
    if (IN_CI)
      throw new Error(
        `Chromium is required under CI=true but ${CHROMIUM} does not exist; .ci/run installs it with scripts/ci-install-chromium.sh`,
      );
    return;
  }
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 60_000 });
});

afterAll(async () => {
  await browser?.close();
});

const suite = HAVE_CHROMIUM || IN_CI ? describe : describe.skip;

suite.each(testDialects().map((d) => [d.name, d] as const))(
  'reference page in Chromium on %s',
  (_name, dialect) => {
    let server: TestServer;
    let fixture: CompanyFixture;
    let context: BrowserContext;

    beforeAll(async () => {
      server = await startTestServer(dialect);
      fixture = await createCompanyFixture(server.ctx);
      if (!browser) throw new Error('Chromium did not start');
      context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
      context.setDefaultTimeout(UI_TIMEOUT);
    });

    afterAll(async () => {
      await context?.close();
      await server?.stop();
    });

    it(
      'lists every operation, authorizes through its own dialog and performs a dry-run clock-in',
      async () => {
        const employee = fixture.employees[0]!;
        const description = (await (await server.request(`${V1}/openapi.json`)).json()) as Json;
        const operations = operationsOf(description);
        expect(operations.map((o) => `${o.method} ${o.path}`).sort()).toEqual(
          [
            `POST ${V1}/oauth/token`,
            `GET ${V1}/me`,
            `GET ${V1}/employees`,
            `PUT ${V1}/employees/{id}/external-id`,
            `POST ${V1}/time-clock/events`,
            `POST ${V1}/time-entries`,
            `GET ${V1}/time-entries`,
            `GET ${V1}/changes`,
            `GET ${V1}/time-clock/status`,
            `POST ${V1}/time-clock/events/batch`,
            `GET ${V1}/reports/timesheets`,
            `POST ${V1}/webhooks`,
            `GET ${V1}/webhooks`,
            `GET ${V1}/webhooks/{id}`,
            `PATCH ${V1}/webhooks/{id}`,
            `DELETE ${V1}/webhooks/{id}`,
            `POST ${V1}/webhooks/{id}/rotate-secret`,
            `POST ${V1}/webhooks/{id}/test`,
            `GET ${V1}/webhooks/{id}/deliveries`,
            `POST ${V1}/webhooks/{id}/replay`,
            // Corrections (issue 30).
            `GET ${V1}/time-entries/{id}`,
            `PATCH ${V1}/time-entries/{id}`,
            `DELETE ${V1}/time-entries/{id}`,
            `GET ${V1}/time-entries/{id}/revisions`,
            `POST ${V1}/time-entries/{id}/approve`,
            `POST ${V1}/time-entries/{id}/reject`,
            `POST ${V1}/time-entries/{id}/reopen`,
            `POST ${V1}/locked-periods`,
            `GET ${V1}/locked-periods`,
            `DELETE ${V1}/locked-periods/{id}`,
            // Planned shifts (issue 33).
            `GET ${V1}/planned-shifts`,
            `POST ${V1}/planned-shifts/batch`,
            `POST ${V1}/planned-shifts/publish`,
            `DELETE ${V1}/planned-shifts/{id}`,
            `GET ${V1}/attendance-exceptions`,
            // Absences (issue 31).
            `GET ${V1}/absence-types`,
            `GET ${V1}/holidays`,
            `GET ${V1}/leave-balances`,
            `GET ${V1}/absences`,
            `POST ${V1}/absences`,
            `GET ${V1}/absences/{id}`,
            `POST ${V1}/absences/{id}/approve`,
            `POST ${V1}/absences/{id}/reject`,
            `POST ${V1}/absences/{id}/cancel`,
            // Kiosk devices (issue 35).
            `POST ${V1}/devices/enrol`,
            `GET ${V1}/kiosk/employees`,
            `POST ${V1}/kiosk/identify`,
          ].sort(),
        );
        // OpenAPI 3.1 webhooks: each delivery's payload, rendered in a section of their own.
        const webhookNames = Object.keys(description.webhooks as Json);
        // 22 until issue 35 added correction.requested, .approved, .rejected and .withdrawn.
        expect(webhookNames).toHaveLength(26);

        const { page, log } = await openLoggedPage(context, server.listenUrl);
        await page.goto(`${server.listenUrl}${DOCS}`);

        // 1. Every operation of the description is rendered, with its path and summary.
        await page.locator('.opblock').first().waitFor();
        await expect
          .poll(() => page.locator('.opblock').count(), { timeout: UI_TIMEOUT })
          .toBe(operations.length + webhookNames.length);
        for (const name of webhookNames)
          await expect(
            page.locator('.opblock-summary-path', { hasText: new RegExp(`^${escapeRegExp(name)}$`) }).count(),
            `webhook ${name} on the page`,
          ).resolves.toBe(1);
        for (const operation of operations) {
          const block = page
            .locator('.opblock', {
              has: page.locator('.opblock-summary-path', {
                hasText: new RegExp(`^${escapeRegExp(operation.path)}$`),
              }),
            })
            .filter({
              has: page.locator('.opblock-summary-method', { hasText: new RegExp(`^${operation.method}$`) }),
            });
          await expect(block.count(), `${operation.method} ${operation.path} on the page`).resolves.toBe(1);
          await expect(block.locator('.opblock-summary-description').innerText()).resolves.toBe(
            operation.summary,
          );
        }
        await expect(page.locator('.info .title').innerText()).resolves.toContain(description.info.title);

        // 2. Authorize with the client-credentials flow of the page's own dialog; Swagger UI fetches the token.
        const token = await authorizeThroughDialog(page, fixture);
        expect(token.outcome, token.dialogErrors.join('; ')).toBe('200');
        expect(token.body).toMatchObject({ token_type: 'Bearer', expires_in: 900 });
        expect(token.dialogErrors).toEqual([]);
        await expect(page.locator('.auth-wrapper button.authorize').getAttribute('class')).resolves.toContain(
          'locked',
        );

        // 3. POST /time-clock/events: the dry-run header is preset to true; a clock-in shows the live answer.
        const clockEvents = page.locator('.opblock', {
          has: page.locator('.opblock-summary-path', { hasText: new RegExp(`^${V1}/time-clock/events$`) }),
        });
        await clockEvents.locator('.opblock-summary-control').click();
        const dryRun = clockEvents.locator(
          'tr[data-param-name="X-Service-Dry-Run"][data-param-in="header"] select',
        );
        await dryRun.waitFor();
        await expect(dryRun.inputValue(), 'X-Service-Dry-Run preset by the description').resolves.toBe(
          'true',
        );
        const body = {
          employee: { id: employee.id },
          type: 'clock_in',
          occurredAt: new Date().toISOString(),
        };
        await clockEvents.locator('textarea.body-param__text').fill(JSON.stringify(body, null, 2));
        const eventResponse = page.waitForResponse(
          (response) =>
            response.url() === `${server.listenUrl}${V1}/time-clock/events` &&
            response.request().method() === 'POST',
        );
        await clockEvents.getByRole('button', { name: 'Execute' }).click();
        const sent = await eventResponse;
        expect(sent.request().headers()['x-service-dry-run']).toBe('true');
        expect(sent.request().headers()['authorization']).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);

        // The page's own rendering of the live response.
        const live = clockEvents.locator('.live-responses-table');
        await live.waitFor();
        const row = live.locator('tbody tr.response');
        await expect(row.count()).resolves.toBe(1);
        await expect(row.locator('.response-col_status').innerText()).resolves.toBe('200');
        const shown = JSON.parse(
          await row.locator('.response-col_description pre.microlight').first().innerText(),
        ) as Json;
        expect(shown).toMatchObject({
          dryRun: true,
          timeEntryId: null,
          type: 'clock_in',
          employee: { id: employee.id, externalId: employee.externalId },
          status: 'open',
        });
        await live.scrollIntoViewIfNeeded();
        await page.screenshot({
          path: `/tmp/reference-page${dialect.name === 'sqlite' ? '' : `-${dialect.name}`}.png`,
        });
        await clockEvents.screenshot({
          path: `/tmp/reference-page${dialect.name === 'sqlite' ? '' : `-${dialect.name}`}-operation.png`,
        });

        // 4. Nothing was stored: seen through the API and in the database.
        const apiToken = await fetchToken(server, fixture.key.clientId, fixture.key.secret);
        const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
        const list = await server.request(
          `${V1}/time-entries?employeeId=${employee.id}&from=${day(-2)}&to=${day(2)}`,
          { token: apiToken },
        );
        expect(list.status).toBe(200);
        expect(((await list.json()) as Json).items).toEqual([]);
        expect(await entryRows(server.database, employee.id)).toEqual([]);
        expect(await countRows(server.database, 'time_entries')).toBe(0);

        // 5. Nothing left 127.0.0.1; no broken asset, failed request, console or page error.
        expectCleanPage(log);
        expect(log.requests.map((r) => `${r.method} ${new URL(r.url).pathname}`)).toEqual(
          expect.arrayContaining([
            `GET ${DOCS}`,
            `GET ${DOCS}/static/swagger-ui-bundle.js`,
            `GET ${DOCS}/static/swagger-ui.css`,
            `POST ${V1}/oauth/token`,
            `POST ${V1}/time-clock/events`,
          ]),
        );
        await page.close();
      },
      FLOW_TIMEOUT,
    );

    // The page's copy of the description uses origin-relative URLs, so it also works when the server
    // is reached under another name than PUBLIC_BASE_URL (there are no CORS headers to rely on).
    it(
      'works when opened under another name of the same server (localhost)',
      async () => {
        const origin = server.listenUrl.replace('//127.0.0.1:', '//localhost:');
        const pageContext = await browser!.newContext();
        pageContext.setDefaultTimeout(UI_TIMEOUT);
        try {
          const { page, log } = await openLoggedPage(pageContext, server.listenUrl);
          await page.goto(`${origin}${DOCS}`);
          await page.locator('.opblock').first().waitFor();
          const token = await authorizeThroughDialog(page, fixture);
          expect(token.outcome, token.dialogErrors.join('; ')).toBe('200');
          expect(log.failedRequests).toEqual([]);
          expect(log.consoleErrors).toEqual([]);
        } finally {
          await pageContext.close();
        }
      },
      FLOW_TIMEOUT,
    );

    it.each(['', '/'])(
      `loads every asset of ${DOCS}%s without a broken path or an outside request`,
      async (suffix) => {
        const { page, log } = await openLoggedPage(await browser!.newContext(), server.listenUrl);
        try {
          await page.goto(`${server.listenUrl}${DOCS}${suffix}`);
          await page.locator('.opblock').first().waitFor();
          await page.waitForLoadState('networkidle');
          expectCleanPage(log);
          const paths = log.requests.map((r) => new URL(r.url).pathname);
          expect(paths.filter((p) => p.includes('/static/')).length).toBeGreaterThanOrEqual(4);
          for (const path of paths) expect(path.startsWith(DOCS), path).toBe(true);
        } finally {
          await page.context().close();
        }
      },
      FLOW_TIMEOUT,
    );
  },
);

/**
 * Clicks "Authorize", fills the OAuth2 client-credentials client_id and client_secret, applies them
 * (Swagger UI requests the token itself) and closes the dialog. Returns the token request's outcome
 * (its status, or `failed: <reason>` when the browser refused it, e.g. CORS) and the dialog's errors.
 */
async function authorizeThroughDialog(
  page: Page,
  fixture: CompanyFixture,
): Promise<{ outcome: string; body: unknown; dialogErrors: string[] }> {
  await page.locator('.auth-wrapper button.authorize').click();
  const dialog = page.locator('.modal-ux');
  await dialog.waitFor();
  await page.locator('#client_id_clientCredentials').fill(fixture.key.clientId);
  await page.locator('#client_secret_clientCredentials').fill(fixture.key.secret);
  const isToken = (request: Request) =>
    request.method() === 'POST' && new URL(request.url()).pathname === `${V1}/oauth/token`;
  const settled = new Promise<{ outcome: string; body: unknown }>((resolve) => {
    page.on('requestfinished', (request) => {
      if (!isToken(request)) return;
      void request
        .response()
        .then(async (response) =>
          resolve({ outcome: String(response?.status()), body: await response?.json().catch(() => null) }),
        );
    });
    page.on('requestfailed', (request) => {
      if (isToken(request))
        resolve({ outcome: `failed: ${request.failure()?.errorText ?? '?'}`, body: null });
    });
  });
  await dialog.getByRole('button', { name: 'Apply given OAuth2 credentials' }).click();
  const { outcome, body } = await settled;
  const oauthBlock = dialog.locator('.auth-container').filter({ hasText: 'clientCredentials' });
  // Either "Authorized" or an auth error is rendered once Swagger UI has handled the answer.
  await oauthBlock
    .getByText('Authorized', { exact: true })
    .or(oauthBlock.locator('.errors'))
    .first()
    .waitFor();
  const dialogErrors = await oauthBlock.locator('.errors').allInnerTexts();
  await oauthBlock.getByRole('button', { name: 'Close' }).first().click();
  await dialog.waitFor({ state: 'detached' });
  return { outcome, body, dialogErrors };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
