/**
 * The console's CLI commands (issue 19): `user invite` and `user set-password`, and the console
 * permission numbers of `user create`, driven as an operator drives them: the built CLI in a child
 * process, on every dialect. Run after `npm run build`.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/platform/config.js';
import { createDatabase, type Database } from '../../src/platform/db/database.js';
import { type TestDatabase, testDialects } from '../support/databases.js';
import { verifyPassword } from '../../src/modules/people/passwords.js';

const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const BASE = 'https://time.example.com';

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** One CLI process with `input` on its standard input (a pipe, as in a script). */
function cli(databaseUrl: string, args: string[], input = ''): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, PUBLIC_BASE_URL: BASE },
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

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} does not exist: run \`npm run build\` before the CLI tests`);
});

describe.each(testDialects().map((d) => [d.name, d] as const))(
  'console CLI commands on %s',
  (_name, dialect) => {
    let database: TestDatabase;
    let store: Database;
    let userId: string;
    let companyId: string;

    beforeAll(async () => {
      database = await dialect.create();
      const company = await json(database.url, ['company', 'create', '--name', 'Acme']);
      companyId = String(company.id);
      const user = await json(database.url, [
        'user',
        'create',
        '--company',
        String(company.id),
        '--email',
        'hr@acme.example',
        '--permissions',
        '47,91,92,93',
      ]);
      userId = String(user.id);
      expect(user.permissions).toEqual([47, 91, 92, 93]);
      store = createDatabase(parseDatabaseUrl(database.url));
    });
    afterAll(async () => {
      await store?.close();
      await database?.drop();
    });

    async function passwordHash(): Promise<string | null> {
      const row = await store.db
        .selectFrom('users')
        .select('password_hash')
        .where('id', '=', userId)
        .executeTakeFirstOrThrow();
      return row.password_hash;
    }

    it('user create knows every permission a person may hold, no others', async () => {
      const result = await cli(database.url, [
        'user',
        'create',
        '--company',
        companyId,
        '--email',
        'x@acme.example',
        '--permissions',
        '95',
      ]);
      expect(result.code).toBe(1);
      const known = /^error: unknown permission 95; known: ([\d, ]+)\n$/.exec(result.stderr);
      expect(known).not.toBeNull();
      const numbers = known![1]!
        .split(', ')
        .map(Number)
        .sort((a, b) => a - b);
      // the API's permissions (47 … 94) and the console's (90 people, 91 attendance,
      // 92 settings, 93 single sign-on, 96 leave, 97 planned shifts)
      expect(numbers).toEqual([47, 49, 52, 72, 86, 90, 91, 92, 93, 94, 96, 97]);
    });

    it('user invite prints a one-use link of 72 hours with the token in the fragment; only its hash is stored', async () => {
      const before = Date.now();
      const invitation = await json(database.url, ['user', 'invite', userId]);
      expect(Object.keys(invitation).sort()).toEqual(['expiresAt', 'url']);
      const match = /^https:\/\/time\.example\.com\/console\/#\/invite\/([A-Za-z0-9_-]{43})$/.exec(
        String(invitation.url),
      );
      expect(match).not.toBeNull();
      const expires = Date.parse(String(invitation.expiresAt));
      expect(expires - before).toBeGreaterThanOrEqual(72 * 3_600_000);
      expect(expires - Date.now()).toBeLessThanOrEqual(72 * 3_600_000);
      const rows = await store.db
        .selectFrom('console_invitations')
        .selectAll()
        .where('user_id', '=', userId)
        .execute();
      expect(rows.map((r) => r.token_hash)).toContain(
        createHash('sha256').update(match![1]!).digest('base64url'),
      );
      expect(JSON.stringify(rows)).not.toContain(match![1]!);

      const human = await cli(database.url, ['user', 'invite', userId]);
      expect(human.code).toBe(0);
      expect(human.stdout).toMatch(
        /^https:\/\/time\.example\.com\/console\/#\/invite\/\S+\n\(one use; expires \S+\)\n$/,
      );

      const unknown = await cli(database.url, ['user', 'invite', '01a1f000-0000-7000-8000-000000000000']);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/^error: unknown user/);
    });

    it('user set-password reads the password from standard input; a short one exits 1 with the reason', async () => {
      const short = await cli(database.url, ['user', 'set-password', userId], 'too short\n');
      expect(short.code).toBe(1);
      expect(short.stdout).toBe('');
      expect(short.stderr).toBe('error: the password must have at least 12 characters\n');
      expect(await passwordHash()).toBeNull();

      // Never from the arguments.
      const inArgs = await cli(database.url, ['user', 'set-password', userId, 'a long enough password'], '');
      expect(inArgs.code).toBe(1);
      expect(inArgs.stderr).toMatch(/too many arguments/);
      expect(await passwordHash()).toBeNull();

      const set = await json(database.url, ['user', 'set-password', userId], 'a long enough password\n');
      expect(set).toEqual({ id: userId, passwordSet: true });
      const stored = (await passwordHash())!;
      expect(stored).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
      expect(await verifyPassword('a long enough password', stored)).toBe(true);
      expect(await verifyPassword('a long enough password\n', stored)).toBe(false);
      expect(await verifyPassword('another long password', stored)).toBe(false);

      const human = await cli(database.url, ['user', 'set-password', userId], 'yet another passphrase');
      expect(human).toMatchObject({ code: 0, stderr: '' });
      expect(human.stdout).toMatch(/^password set for user /);
      expect(await verifyPassword('yet another passphrase', (await passwordHash())!)).toBe(true);
    });
  },
);
