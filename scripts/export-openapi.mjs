#!/usr/bin/env node
// Writes the published OpenAPI description (as fetched without a token) to a file or stdout. It is
// served by a real server on a throw-away embedded database, so the file is exactly what clients get.
// PUBLIC_BASE_URL fixes `servers` (default http://127.0.0.1:3000, the server's own default).
// With --admin, the admin API's own document (/api/admin/v1/openapi.json) instead of the public one.
//
//   node scripts/export-openapi.mjs [--admin] [file]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../dist/platform/config.js';
import { startServer } from '../dist/app/server.js';

const args = process.argv.slice(2);
const path = args.includes('--admin') ? '/api/admin/v1/openapi.json' : '/api/public/v1/openapi.json';
const output = args.find((arg) => arg !== '--admin');
const dir = mkdtempSync(join(tmpdir(), 'punchclock-openapi-'));
try {
  const config = loadConfig({
    DATABASE_URL: `sqlite:${join(dir, 'export.sqlite')}`,
    PORT: '0',
    LOG_LEVEL: 'silent',
    PUBLIC_BASE_URL: process.env.PUBLIC_BASE_URL ?? 'http://127.0.0.1:3000',
  });
  const server = await startServer(config, { logger: false });
  try {
    const response = await fetch(`${server.listenUrl}${path}`);
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
    const text = `${JSON.stringify(await response.json(), null, 2)}\n`;
    if (output) writeFileSync(output, text);
    else process.stdout.write(text);
  } finally {
    await server.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
