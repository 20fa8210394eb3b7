import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { expect } from 'vitest';
import type { Json } from './api.js';

/**
 * What the console's browser tests share (test/browser/console*.test.ts): Chromium, keyboard
 * navigation with a visible-focus check, axe-core, screenshots at 1280 and 390 px into
 * artifacts/screenshots/, a page that records console errors and off-host requests, and fetch
 * from inside the signed-in page.
 */

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-sync'];
export const IN_CI = process.env.CI === 'true';
export const HAVE_CHROMIUM = existsSync(CHROMIUM);

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const SCREENSHOTS = fileURLToPath(new URL('../../artifacts/screenshots/', import.meta.url));
export const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
export const PUBLIC = '/api/public/v1';
export const ADMIN = '/api/admin/v1';
export const FLOW_TIMEOUT = 120_000;
export const UI_TIMEOUT = 15_000;
export const WIDTHS = [1280, 390] as const;
export const MINUTE = 60_000;

// The functions passed to page.evaluate run in the browser; the test project has no DOM types, so the
// few browser names they use are declared here (module scope, no global DOM in the server's program).
declare const document: {
  activeElement: { id: string; textContent: string | null } | null;
  visibilityState: string;
  documentElement: { scrollWidth: number };
};
declare const window: {
  innerWidth: number;
  axe: { run: (context: unknown, options: unknown) => Promise<Json> };
};
declare function getComputedStyle(element: unknown): { outlineStyle: string; outlineWidth: string };
declare function requestAnimationFrame(callback: () => void): number;

/**
 * Chromium for a test file: builds the console from the current sources first (never a stale build).
 * Undefined when Chromium is missing outside CI (the suite is then skipped).
 */
export async function launchChromium(): Promise<Browser | undefined> {
  if (!HAVE_CHROMIUM) {
    if (IN_CI) throw new Error(`Chromium is required under CI=true but ${CHROMIUM} does not exist`);
    return undefined;
  }
  execFileSync(process.execPath, [`${ROOT}node_modules/typescript/bin/tsc`, '-p', 'console/tsconfig.json'], {
    cwd: ROOT,
  });
  if (!existsSync(`${ROOT}dist/cli/main.js`))
    throw new Error('run `npm run build` first: the test uses the CLI');
  mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 60_000 });
}

/** Presses Tab until `target` has the focus (failing if it never does), and checks the focus is visible. */
export async function tabTo(page: Page, target: Locator, options: { shift?: boolean; max?: number } = {}) {
  await target.waitFor({ state: 'attached' });
  for (let i = 0; i <= (options.max ?? 80); i++) {
    if (await target.evaluate((el) => el === document.activeElement)) {
      const outline = await target.evaluate((el) => {
        const style = getComputedStyle(el);
        return { style: style.outlineStyle, width: parseFloat(style.outlineWidth) };
      });
      expect(outline.style, 'a keyboard focus is visible').not.toBe('none');
      expect(outline.width).toBeGreaterThanOrEqual(2);
      return;
    }
    await page.keyboard.press(options.shift ? 'Shift+Tab' : 'Tab');
  }
  throw new Error(`not reachable with the keyboard: ${target.toString()}`);
}

/** Tab to `target`, then press `key` on it (Enter for links and buttons, Space for checkboxes). */
export async function keyboardActivate(page: Page, target: Locator, key: 'Enter' | 'Space' = 'Enter') {
  await tabTo(page, target);
  await page.keyboard.press(key);
}

/** axe-core on the page as it is now: no serious or critical violation. */
export async function expectAccessible(page: Page, what: string) {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = window.axe;
    const result = await axe.run(document, {
      runOnly: {
        type: 'tag',
        values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'],
      },
      resultTypes: ['violations'],
    });
    return (result.violations as Json[]).map((v) => ({
      id: v.id as string,
      impact: v.impact as string,
      nodes: (v.nodes as Json[]).map((n) => (n.target as string[]).join(' ')).slice(0, 5),
    }));
  });
  const blocking = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(blocking, `axe-core on ${what}: ${JSON.stringify(blocking)}`).toEqual([]);
}

/** A screenshot at each width (and axe-core at each, since the narrow layout is different), back to 1280. */
export async function capture(page: Page, name: string, options: { axe?: boolean; fullPage?: boolean } = {}) {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve(null))));
    if (options.axe !== false) await expectAccessible(page, `${name} at ${width} px`);
    // Works at this width: nothing makes the page scroll sideways.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `${name} at ${width} px is wider than the screen by ${overflow} px`).toBeLessThanOrEqual(
      0,
    );
    await page.screenshot({ path: `${SCREENSHOTS}${name}-${width}.png`, fullPage: options.fullPage ?? true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

export interface PageLog {
  problems: string[];
}

export async function openPage(context: BrowserContext): Promise<{ page: Page; log: PageLog }> {
  const log: PageLog = { problems: [] };
  const page = await context.newPage();
  page.on('console', (message) => {
    // The browser reports every 4xx answer as a failed resource; those are the refusals under test.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
      log.problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => log.problems.push(`page error: ${error.message}`));
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.protocol !== 'data:' && url.hostname !== '127.0.0.1')
      log.problems.push(`off host: ${request.url()}`);
  });
  return { page, log };
}

/** fetch from inside the signed-in page (its cookie, its origin), optionally with the session's CSRF token. */
export async function fetchInPage(
  page: Page,
  method: string,
  path: string,
  body?: unknown,
  csrf?: string | null,
): Promise<{ status: number; body: Json | null }> {
  return page.evaluate(
    async ({ method, path, body, csrf }) => {
      const headers: Record<string, string> = { accept: 'application/json' };
      if (body !== undefined) headers['content-type'] = 'application/json';
      if (csrf) headers['x-csrf-token'] = csrf;
      const response = await fetch(path, {
        method,
        headers,
        credentials: 'same-origin',
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await response.text();
      return { status: response.status, body: text ? (JSON.parse(text) as Json) : null };
    },
    { method, path: `${ADMIN}${path}`, body, csrf },
  );
}

/** describe, or describe.skip without Chromium outside CI. */
export const HAVE_BROWSER = HAVE_CHROMIUM || IN_CI;
