import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '../support/databases.js';
import { testDialects } from '../support/databases.js';
import { contractRequester } from '../support/server.js';

const CLI = 'dist/cli/main.js';

interface ServeProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
}

async function serve(env: Record<string, string>, args: string[] = []): Promise<ServeProcess> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  const child = spawn(process.execPath, [CLI, 'serve', ...args], {
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += String(chunk);
  });
  child.stderr?.on('data', (chunk) => {
    output += String(chunk);
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 20_000);
    const poll = setInterval(() => {
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        clearInterval(poll);
        resolve(match[1]!);
      }
    }, 50);
    child.once('exit', (code) => {
      clearTimeout(timer);
      clearInterval(poll);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
  return { child, url, output: () => output };
}

function exitCode(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe.each(testDialects().map((d) => [d.name, d] as const))('punchclock serve on %s', (_name, dialect) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await dialect.create();
  });
  afterAll(async () => database?.drop());

  it('seeds the demo on an empty database, prints a working curl, serves, logs no secret, stops on SIGTERM', async () => {
    const server = await serve({ DATABASE_URL: database.url }, ['--demo-if-empty']);
    try {
      const printed = server.output();
      const curl = /curl -s -X POST (\S+) -u '([^:]+):([^']+)' -d grant_type=client_credentials/.exec(
        printed,
      );
      expect(curl).not.toBeNull();
      const [, tokenUrl, clientId, secret] = curl!;
      expect(tokenUrl).toBe(`${server.url}/api/public/v1/oauth/token`);
      // The process's own description holds what it answers, as in every HTTP test.
      const description = await (await fetch(`${server.url}/api/public/v1/openapi.json`)).json();
      const request = contractRequester({ app: { swagger: () => description }, listenUrl: server.url });
      const tokenResponse = await request('/api/public/v1/oauth/token', {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: 'grant_type=client_credentials',
      });
      expect(tokenResponse.status).toBe(200);
      const { access_token: token } = (await tokenResponse.json()) as { access_token: string };

      const me = await request('/api/public/v1/me', {
        headers: { authorization: `Bearer ${token}`, 'x-correlation-id': 'trace-123' },
      });
      expect(me.status).toBe(200);
      expect(me.headers.get('x-correlation-id')).toBe('trace-123');
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
      // A secret sent where it must not be is refused, and still never reaches the logs.
      const leaked = await request(
        `/api/public/v1/oauth/token?client_secret=${encodeURIComponent(secret!)}`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=client_credentials',
        },
      );
      expect(leaked.status).toBe(400);

      // The printed invitation link opens the console for the demo administrator (issue 19).
      const invitation = /(\S+)\/console\/#\/invite\/([A-Za-z0-9_-]+)/.exec(printed);
      expect(invitation).not.toBeNull();
      const [, consoleBase, invitationToken] = invitation!;
      expect(consoleBase).toBe(server.url);
      const password = 'demo administrator passphrase';
      const accepted = await fetch(`${server.url}/api/admin/v1/invitations/accept`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: server.url },
        body: JSON.stringify({ token: invitationToken, password }),
      });
      expect(accepted.status).toBe(200);
      expect(((await accepted.json()) as { email: string }).email).toBe('admin@demo.example');
      const signedIn = await fetch(`${server.url}/api/admin/v1/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: server.url },
        body: JSON.stringify({ email: 'admin@demo.example', password }),
      });
      expect(signedIn.status).toBe(200);
      const sessionId = /pc_session=([^;]+)/.exec(signedIn.headers.get('set-cookie') ?? '')![1]!;
      const { csrfToken } = (await signedIn.json()) as { csrfToken: string };
      const signedOut = await fetch(`${server.url}/api/admin/v1/session`, {
        method: 'DELETE',
        headers: { cookie: `pc_session=${sessionId}`, origin: server.url, 'x-csrf-token': csrfToken },
      });
      expect(signedOut.status).toBe(204);

      const logs = server.output().slice(printed.length);
      expect(logs).not.toContain(secret!);
      expect(logs).not.toContain(token);
      // Passwords, session ids, CSRF tokens and invitation tokens never reach the logs either.
      expect(logs).toContain('/api/admin/v1/session');
      for (const credential of [password, sessionId, csrfToken, invitationToken!])
        expect(logs).not.toContain(credential);

      // A second start on the same, no longer empty, database seeds nothing.
      const again = await serve({ DATABASE_URL: database.url }, ['--demo-if-empty']);
      expect(again.output()).not.toContain('Created the demo company');
      again.child.kill('SIGTERM');
      expect(await exitCode(again.child)).toBe(0);
    } finally {
      server.child.kill('SIGTERM');
      expect(await exitCode(server.child)).toBe(0);
    }
  });
});

describe('readiness without a database', () => {
  it.runIf(testDialects().some((d) => d.name === 'postgres'))(
    'answers 503 on /readyz when PostgreSQL does not answer',
    async () => {
      const postgres = testDialects().find((d) => d.name === 'postgres')!;
      const database = await postgres.create();
      const server = await serve({ DATABASE_URL: database.url });
      try {
        await database.drop();
        const ready = await fetch(`${server.url}/readyz`);
        expect(ready.status).toBe(503);
        expect(ready.headers.get('content-type')).toContain('application/problem+json');
        expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      } finally {
        server.child.kill('SIGTERM');
        await exitCode(server.child);
      }
    },
  );
});
