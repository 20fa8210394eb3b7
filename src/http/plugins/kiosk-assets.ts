import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { type Asset, assetOf, sendAsset } from '../static-assets.js';

/**
 * The kiosk web app at /kiosk (issue 35): a few static files of the package's own `kiosk/` folder
 * (plain ES modules, no build step), read once at start-up into memory under fixed URLs, so no request
 * path reaches the file system. An installable PWA: its manifest and its service worker (`sw.js`,
 * scope /kiosk/) are served from here. Strict Content-Security-Policy: only this origin.
 */

export const KIOSK_PATH = '/kiosk';

const FILES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'api.js': 'text/javascript; charset=utf-8',
  'queue.js': 'text/javascript; charset=utf-8',
  'sw.js': 'text/javascript; charset=utf-8',
  'styles.css': 'text/css; charset=utf-8',
  'manifest.webmanifest': 'application/manifest+json; charset=utf-8',
  'icon.svg': 'image/svg+xml',
};

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const KIOSK_DIR = join(ROOT, 'kiosk');

function loadAssets(): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const [name, type] of Object.entries(FILES)) {
    const path = join(KIOSK_DIR, name);
    if (!existsSync(path)) continue;
    assets.set(
      name === 'index.html' ? `${KIOSK_PATH}/` : `${KIOSK_PATH}/${name}`,
      assetOf(readFileSync(path), type),
    );
  }
  return assets;
}

const SECURITY_HEADERS = {
  'content-security-policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "manifest-src 'self'",
    "worker-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; '),
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
};

export const kioskAssetsPlugin = fp(
  async (app: FastifyInstance) => {
    const assets = loadAssets();
    const hidden = { schema: { hide: true } };
    app.get(KIOSK_PATH, hidden, (_request, reply) => reply.redirect(`${KIOSK_PATH}/`, 301));
    app.get(`${KIOSK_PATH}/*`, hidden, (request, reply) => {
      const path = request.url.split('?', 1)[0] ?? '';
      const file = assets.get(path);
      if (!file) return reply.callNotFound();
      return sendAsset(reply, SECURITY_HEADERS, request.headers['if-none-match'], file);
    });
  },
  { name: 'kiosk-assets' },
);
