import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { type Asset, assetOf, sendAsset } from '../static-assets.js';

/**
 * The console at /console: a static single page served from the package's own files, never from a
 * CDN. `console/index.html` and `console/styles.css` are sources; `console/dist/` is what
 * `tsc -p console/tsconfig.json` (run by `npm ci`'s prepare and by `npm run build`) compiles from
 * `console/src/`; Preact is served from node_modules and found through the page's import map.
 *
 * An installable web app (issue 35, item 5): its manifest, icon and service worker (`sw.js`, scope
 * /console/, the list of shell files written in) are served from here, so a reload without network
 * still opens the console and the web clock.
 *
 * Every file is read once at start-up into memory under a fixed URL, so no request path ever reaches
 * the file system. Responses carry a strict Content-Security-Policy (only this origin; the one inline
 * script, the import map, allowed by its hash), no framing and no referrer.
 */

export const CONSOLE_PATH = '/console';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
};

/** The package root: three levels above this file both in src/http/plugins and in dist/http/plugins. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CONSOLE_DIR = join(ROOT, 'console');
const BUILT_DIR = join(CONSOLE_DIR, 'dist');

function asset(body: Buffer, file: string): Asset {
  const ext = file.slice(file.lastIndexOf('.'));
  const type = TYPES[ext];
  if (!type) throw new Error(`console asset of unknown type: ${file}`);
  return assetOf(body, type);
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

function preactFiles(): Record<string, string> {
  const require = createRequire(import.meta.url);
  const root = dirname(require.resolve('preact/package.json'));
  return {
    'preact.mjs': join(root, 'dist', 'preact.mjs'),
    'hooks.mjs': join(root, 'hooks', 'dist', 'hooks.mjs'),
    'jsxRuntime.mjs': join(root, 'jsx-runtime', 'dist', 'jsxRuntime.mjs'),
  };
}

/** The CSP of the page: the import map is the one inline script, allowed by its SHA-256. */
function contentSecurityPolicy(html: string): string {
  const importMap = /<script type="importmap">([\s\S]*?)<\/script>/.exec(html)?.[1];
  const scriptHash =
    importMap === undefined ? '' : ` 'sha256-${createHash('sha256').update(importMap).digest('base64')}'`;
  return [
    "default-src 'none'",
    `script-src 'self'${scriptHash}`,
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "manifest-src 'self'",
    "worker-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function loadAssets(): { index: Asset; files: Map<string, Asset>; csp: string } | null {
  if (!existsSync(join(BUILT_DIR, 'main.js'))) return null;
  const html = readFileSync(join(CONSOLE_DIR, 'index.html'));
  const files = new Map<string, Asset>();
  files.set(
    `${CONSOLE_PATH}/assets/styles.css`,
    asset(readFileSync(join(CONSOLE_DIR, 'styles.css')), 'styles.css'),
  );
  for (const file of filesUnder(BUILT_DIR).filter((f) => f.endsWith('.js'))) {
    const url = `${CONSOLE_PATH}/app/${relative(BUILT_DIR, file).split(sep).join('/')}`;
    files.set(url, asset(readFileSync(file), file));
  }
  for (const [name, file] of Object.entries(preactFiles()))
    files.set(`${CONSOLE_PATH}/vendor/preact/${name}`, asset(readFileSync(file), file));
  for (const name of ['manifest.webmanifest', 'icon.svg'])
    files.set(`${CONSOLE_PATH}/${name}`, asset(readFileSync(join(CONSOLE_DIR, name)), name));
  const index = asset(html, 'index.html');
  files.set(`${CONSOLE_PATH}/sw.js`, serviceWorker(index, files));
  return { index, files, csp: contentSecurityPolicy(html.toString('utf8')) };
}

/**
 * The service worker (console/sw.js, scope /console/) with the app shell written in: every file above
 * and the page, and a version made of their hashes, so a new build installs a new worker and its cache.
 */
function serviceWorker(index: Asset, files: Map<string, Asset>): Asset {
  const shell = [`${CONSOLE_PATH}/`, ...files.keys()];
  const version = createHash('sha256')
    .update([index.etag, ...[...files.values()].map((file) => file.etag)].join(','))
    .digest('base64url')
    .slice(0, 16);
  const source = readFileSync(join(CONSOLE_DIR, 'sw.js'), 'utf8')
    .replace("'__VERSION__'", JSON.stringify(version))
    .replace("['__SHELL__']", JSON.stringify(shell));
  return asset(Buffer.from(source), 'sw.js');
}

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Punchclock console</title></head>
<body><main><h1>The console is not built</h1>
<p>Run <code>npm run build</code> (or <code>npm ci</code>) and start the server again.</p></main></body></html>
`;

export const consoleAssetsPlugin = fp(
  async (app: FastifyInstance) => {
    const assets = loadAssets();
    const securityHeaders = {
      'content-security-policy': assets?.csp ?? "default-src 'none'",
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
      'cross-origin-opener-policy': 'same-origin',
    };

    const hidden = { schema: { hide: true } };
    app.get(CONSOLE_PATH, hidden, (_request, reply) => reply.redirect(`${CONSOLE_PATH}/`, 301));
    app.get(`${CONSOLE_PATH}/`, hidden, (request, reply) => {
      if (!assets)
        return reply.code(503).headers(securityHeaders).type('text/html; charset=utf-8').send(NOT_BUILT);
      return sendAsset(reply, securityHeaders, request.headers['if-none-match'], assets.index);
    });
    app.get(`${CONSOLE_PATH}/*`, hidden, (request, reply) => {
      const path = request.url.split('?', 1)[0] ?? '';
      const file = assets?.files.get(path);
      if (!file) return reply.callNotFound();
      return sendAsset(reply, securityHeaders, request.headers['if-none-match'], file);
    });
  },
  { name: 'console-assets' },
);
