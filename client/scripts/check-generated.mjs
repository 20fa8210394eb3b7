#!/usr/bin/env node
// CI drift check (`npm run client:check`, run from the repository root after a build): regenerates
// the published description and the admin API's document (scripts/export-openapi.mjs, against dist/)
// and the client's types (openapi-typescript, from that fresh description) into a temporary
// directory, and fails when any differs from the committed client/openapi.json,
// client/admin-openapi.json or client/src/schema.ts. `npm run client:generate` rewrites all three.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const committed = {
  description: join(root, 'client', 'openapi.json'),
  admin: join(root, 'client', 'admin-openapi.json'),
  types: join(root, 'client', 'src', 'schema.ts'),
};
const require = createRequire(join(root, 'package.json'));
const openapiTypescriptCli = join(
  dirname(require.resolve('openapi-typescript/package.json')),
  'bin',
  'cli.js',
);

const dir = mkdtempSync(join(tmpdir(), 'punchclock-client-check-'));
try {
  const fresh = {
    description: join(dir, 'openapi.json'),
    admin: join(dir, 'admin-openapi.json'),
    types: join(dir, 'schema.ts'),
  };
  // The committed description is the one served at the default address.
  const env = { ...process.env };
  delete env.PUBLIC_BASE_URL;
  for (const args of [[fresh.description], ['--admin', fresh.admin]])
    execFileSync(process.execPath, [join(root, 'scripts', 'export-openapi.mjs'), ...args], {
      cwd: root,
      env,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  execFileSync(process.execPath, [openapiTypescriptCli, fresh.description, '-o', fresh.types], {
    cwd: root,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });

  const problems = [];
  for (const [what, path] of Object.entries(committed)) {
    const difference = firstDifference(read(path), read(fresh[what]));
    if (difference !== null) problems.push(`${path.slice(root.length + 1)} is out of date (${difference})`);
  }
  if (problems.length > 0) {
    console.error('client:check failed: the committed client files do not match what the code generates.');
    for (const problem of problems) console.error(`  - ${problem}`);
    console.error(
      'Run `npm run client:generate` and commit client/openapi.json, client/admin-openapi.json and client/src/schema.ts.',
    );
    process.exitCode = 1;
  } else {
    console.log('client:check: client/openapi.json, admin-openapi.json and src/schema.ts match the code.');
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

function read(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** null when equal; otherwise where the two texts first part. */
function firstDifference(committedText, freshText) {
  if (committedText === null) return 'missing';
  if (committedText === freshText) return null;
  const a = committedText.split('\n');
  const b = freshText.split('\n');
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i]) {
      const show = (line) =>
        line === undefined ? '<end of file>' : JSON.stringify(line.trim().slice(0, 120));
      return `line ${i + 1}: committed ${show(a[i])}, generated ${show(b[i])}`;
    }
  }
  return 'line endings differ';
}
