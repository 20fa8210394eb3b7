/**
 * `punchclock company sso set|show|remove` (issue 34), driven as an operator drives them: the built
 * CLI in a child process, the client secret piped on standard input, a real OpenID Provider on
 * loopback for the discovery check, on every dialect; and the configuration moved by export/import.
 * Run after `npm run build`.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSecret } from '../../src/modules/webhooks/secrets.js';
import { parseDatabaseUrl } from '../../src/platform/config.js';
import { createDatabase, type Database } from '../../src/platform/db/database.js';
import { loadAppSecret } from '../../src/platform/app-secrets.js';
import { type TestDatabase, testDialects } from '../support/databases.js';
import { startTestProvider, type TestProvider } from '../support/oidc-provider.js';

const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const BASE = 'https://time.example.com';
const REDIRECT_URI = `${BASE}/api/admin/v1/sso/callback`;

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** One CLI process with `input` piped on its standard input. */
function cli(databaseUrl: string, args: string[], input = ''): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: {
        PATH: process.env.PATH ?? '',
        DATABASE_URL: databaseUrl,
        PUBLIC_BASE_URL: BASE,
        SSO_ALLOWED_HOSTS: '127.0.0.1',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += String(chunk)));
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

async function json(databaseUrl: string, args: string[], input = '') {
  const result = await cli(databaseUrl, [...args, '--json'], input);
  if (result.code !== 0)
    throw new Error(`punchclock ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  expect(result.stdout).toMatch(/^[^\n]+\n$/);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

let provider: TestProvider;
beforeAll(async () => {
  if (!existsSync(CLI)) throw new Error(`${CLI} does not exist: run \`npm run build\` before the CLI tests`);
  provider = await startTestProvider({ redirectUris: [REDIRECT_URI] });
});
afterAll(async () => provider?.stop());

const dialects = testDialects();

describe.each(dialects.map((d) => [d.name, d] as const))('company sso commands on %s', (_name, dialect) => {
  let database: TestDatabase;
  let store: Database;
  let companyId: string;
  const setArgs = () => [
    'company',
    'sso',
    'set',
    companyId,
    '--issuer',
    provider.issuer,
    '--client-id',
    provider.clientId,
    '--allowed-domains',
    'acme.example,Acme-Corp.example',
    '--groups-claim',
    'groups',
    '--group-permissions',
    'admins=90+93,staff=47',
    '--create-people',
    'on',
    '--require',
    'on',
  ];
  const stored = () => store.db.selectFrom('sso_configs').selectAll().execute();

  beforeAll(async () => {
    database = await dialect.create();
    store = createDatabase(parseDatabaseUrl(database.url), { poolSize: 1 });
    companyId = (await json(database.url, ['company', 'create', '--name', 'Acme'])).id as string;
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it('shows the redirect URI to register before anything is configured', async () => {
    expect(await json(database.url, ['company', 'sso', 'show', companyId])).toEqual({
      companyId,
      redirectUri: REDIRECT_URI,
      configuration: null,
    });
    const human = await cli(database.url, ['company', 'sso', 'show', companyId]);
    expect(human.stdout).toContain(`redirect URI to register: ${REDIRECT_URI}`);
    expect(human.stdout).toContain('not configured');
  });

  it('refuses a set without a secret on standard input, or with bad flags, and changes nothing', async () => {
    const cases: [string[], string, RegExp][] = [
      [setArgs(), '', /standard input/],
      [[...setArgs(), '--require', 'maybe'], 'secret', /require must be on or off/],
      [[...setArgs(), '--group-permissions', 'admins'], 'secret', /group=N\+N/],
      [[...setArgs(), '--group-permissions', 'admins=12'], 'secret', /unknown permission 12/],
      [[...setArgs(), '--issuer', 'http://idp.example.com'], 'secret', /https/],
      // A public mail provider's domain: not even the operator (second review, item 4).
      [
        setArgs().map((arg) => (arg === 'acme.example,Acme-Corp.example' ? 'acme.example,GMail.com' : arg)),
        'secret',
        /public mail provider's domain belongs to no one company: gmail\.com/,
      ],
      [[...setArgs(), '--issuer', 'http://127.0.0.1:1'], 'secret', /could not be read/],
      [
        [...setArgs(), '--issuer', `${provider.issuer}/.well-known/openid-configuration`],
        'secret',
        /without \/\.well-known/,
      ],
      [
        ['company', 'sso', 'set', '00000000-0000-4000-8000-000000000000', ...setArgs().slice(4)],
        'secret',
        /unknown company/,
      ],
    ];
    for (const [args, input, message] of cases) {
      const result = await cli(database.url, args, input);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr).toMatch(/^error: [^\n]+\n$/);
      expect(result.stderr).toMatch(message);
      expect(result.stdout).toBe('');
    }
    expect(await stored()).toEqual([]);
  });

  it('sets the configuration with the secret from standard input, stored encrypted and never printed', async () => {
    const printed = await json(database.url, setArgs(), `${provider.clientSecret}\n`);
    expect(printed).toEqual({
      companyId,
      redirectUri: REDIRECT_URI,
      configuration: {
        issuer: provider.issuer,
        clientId: provider.clientId,
        clientSecretSet: true,
        allowedDomains: ['acme-corp.example', 'acme.example'],
        groupsClaim: 'groups',
        groupPermissions: { admins: [90, 93], staff: [47] },
        createPeople: true,
        requireSso: true,
        createdAt: expect.any(String) as string,
        updatedAt: expect.any(String) as string,
      },
    });
    const [row] = await stored();
    expect(row!.client_secret).toMatch(/^v1\./);
    const key = await loadAppSecret(store.db, 'webhook_encryption_key', Date.now());
    expect(openSecret(key, row!.client_secret)).toBe(provider.clientSecret);
    const human = await cli(database.url, ['company', 'sso', 'show', companyId]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(`issuer: ${provider.issuer}`);
    expect(human.stdout).toContain('mapping admins=90+93,staff=47');
    expect(human.stdout).not.toContain(provider.clientSecret);
    const audit = await store.db
      .selectFrom('audit_log')
      .select(['actor_type', 'details'])
      .where('action', '=', 'sso.configure')
      .executeTakeFirstOrThrow();
    expect(audit.actor_type).toBe('cli');
    expect(audit.details).not.toContain(provider.clientSecret);
  });

  it('moves with export and import (the secret still opens), and is removed (twice is harmless)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'punchclock-sso-export-'));
    try {
      // Moved first, while it is there: the target reads the same configuration and opens the secret.
      const other = dialects.find((d) => d.name !== dialect.name);
      if (other) await expectMoved(other, join(dir, 'export.jsonl'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(await json(database.url, ['company', 'sso', 'remove', companyId])).toEqual({
      companyId,
      removed: true,
    });
    expect(await json(database.url, ['company', 'sso', 'remove', companyId])).toEqual({
      companyId,
      removed: false,
    });
    expect(await stored()).toEqual([]);
    expect(await store.db.selectFrom('sso_domains').selectAll().execute()).toEqual([]);
  });

  async function expectMoved(target: (typeof dialects)[number], file: string) {
    const exported = await json(database.url, ['export', '--out', file]);
    expect(exported.rows).toMatchObject({ sso_configs: 1, sso_domains: 2 });
    const moved = await target.create();
    try {
      const imported = await json(moved.url, ['import', '--in', file]);
      expect(imported.rows).toEqual(exported.rows);
      const before = await json(database.url, ['company', 'sso', 'show', companyId]);
      expect(await json(moved.url, ['company', 'sso', 'show', companyId])).toEqual(before);
      const movedStore = createDatabase(parseDatabaseUrl(moved.url), { poolSize: 1 });
      try {
        const row = await movedStore.db
          .selectFrom('sso_configs')
          .select('client_secret')
          .executeTakeFirstOrThrow();
        const key = await loadAppSecret(movedStore.db, 'webhook_encryption_key', Date.now());
        expect(openSecret(key, row.client_secret)).toBe(provider.clientSecret);
      } finally {
        await movedStore.close();
      }
    } finally {
      await moved.drop();
    }
  }
});
