import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
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
if (!HAVE_CHROMIUM && !IN_CI)
  console.warn(`Chromium not found at ${CHROMIUM}: skipping the console browser tests.`);

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const SCREENSHOTS = fileURLToPath(new URL('../../artifacts/screenshots/', import.meta.url));
export const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
export const PUBLIC = '/api/public/v1';
export const ADMIN = '/api/admin/v1';
export const FLOW_TIMEOUT = 120_000;
export const UI_TIMEOUT = 15_000;
export const WIDTHS = [1280, 390] as const;
export const MINUTE = 60_000;
const TSC = `${ROOT}node_modules/typescript/bin/tsc`;
const run = promisify(execFile);

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

/** The time a test file may take to build the console (when stale) and start Chromium. */
export const LAUNCH_TIMEOUT = 120_000;

/**
 * Chromium for a test file: registers the file's beforeAll (with LAUNCH_TIMEOUT: the console's build
 * and Chromium's start are slow on a loaded machine) and afterAll. The getter fails if Chromium did
 * not start; the suite is skipped when it is missing outside CI (`HAVE_BROWSER`).
 */
export function useChromium(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
  }, LAUNCH_TIMEOUT);
  afterAll(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error('Chromium did not start');
    return browser;
  };
}

/**
 * Chromium, after building the console from the current sources (never a stale build).
 * Undefined when Chromium is missing outside CI (the suite is then skipped).
 */
export async function launchChromium(): Promise<Browser | undefined> {
  if (!HAVE_CHROMIUM) {
    if (IN_CI) throw new Error(`Chromium is required under CI=true but ${CHROMIUM} does not exist`);
    return undefined;
  }
  if (!existsSync(`${ROOT}dist/cli/main.js`))
    throw new Error('run `npm run build` first: the test uses the CLI');
  await buildConsole();
  mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 60_000 });
}

const CONSOLE_SOURCES = `${ROOT}console/src`;
const CONSOLE_BUILT = `${ROOT}console/dist`;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

/** Every console source has its compiled file, written after it and after the tsconfig. */
function consoleIsCurrent(): boolean {
  const config = statSync(`${ROOT}console/tsconfig.json`).mtimeMs;
  return filesUnder(CONSOLE_SOURCES)
    .filter((file) => /\.tsx?$/.test(file) && !file.endsWith('.d.ts'))
    .every((source) => {
      const built = join(CONSOLE_BUILT, relative(CONSOLE_SOURCES, source)).replace(/\.tsx?$/, '.js');
      if (!existsSync(built)) return false;
      const at = statSync(built).mtimeMs;
      return at >= statSync(source).mtimeMs && at >= config;
    });
}

/**
 * Builds the console when a source is newer than its build. A server loads the console's files once,
 * when it starts, so another test file's server (another worker) may be starting meanwhile: tsc writes
 * into a folder of its own, and each file is renamed into console/dist/ whole.
 */
async function buildConsole(): Promise<void> {
  if (consoleIsCurrent()) return;
  mkdirSync(`${ROOT}artifacts`, { recursive: true });
  const out = mkdtempSync(`${ROOT}artifacts/console-build-`);
  try {
    await run(process.execPath, [TSC, '-p', 'console/tsconfig.json', '--outDir', out], { cwd: ROOT });
    for (const file of filesUnder(out)) {
      const target = join(CONSOLE_BUILT, relative(out, file));
      mkdirSync(dirname(target), { recursive: true });
      renameSync(file, target);
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
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

/**
 * Signs `person` in on the console's sign-in page at `baseUrl` by keyboard (Enter submits) and waits
 * for the first screen's heading.
 */
export async function signIn(
  target: Page,
  baseUrl: string,
  person: { email: string; password: string },
  firstHeading: string,
): Promise<void> {
  await target.goto(`${baseUrl}/console/`);
  await target.getByLabel('Email address').fill(person.email);
  await target.getByLabel('Password').fill(person.password);
  await target.keyboard.press('Enter');
  await target.getByRole('heading', { level: 1, name: firstHeading }).waitFor();
}
