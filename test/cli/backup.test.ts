import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/processes.js';
import { testDialects } from '../support/databases.js';
import { createCompanyFixture, fetchToken, startTestServer, type TestServer } from '../support/server.js';

/*
 * Issue "outgrow one machine", part 1: `punchclock backup` takes a consistent copy of the embedded
 * database while the server writes; `restore` puts it into a fresh file; a server on the restored
 * file answers as the original did for everything acknowledged before the backup began.
 */
const sqlite = testDialects().find((d) => d.name === 'sqlite')!;

describe('backup and restore of the embedded database', () => {
  let dir: string;
  let server: TestServer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'punchclock-backup-'));
    server = await startTestServer(sqlite, { env: { RATE_LIMIT_PER_MINUTE: '100000' } });
  });
  afterAll(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a backup taken during writes holds every write acknowledged before it began; the restored server answers the same', async () => {
    const fixture = await createCompanyFixture(server.ctx, { employeeCount: 4 });
    const token = await fetchToken(server, fixture.key.clientId, fixture.key.secret);
    const acknowledged: { id: string; at: number }[] = [];
    let stop = false;
    const base = Date.now() - 20 * 86_400_000;
    const writer = async (index: number) => {
      const employee = fixture.employees[index]!;
      for (let i = 0; !stop; i++) {
        const response = await server.request('/api/public/v1/time-clock/events', {
          method: 'POST',
          token,
          json: {
            employee: { id: employee.id },
            type: i % 2 === 0 ? 'clock_in' : 'clock_out',
            occurredAt: new Date(base + i * 600_000).toISOString(),
          },
        });
        expect(response.status).toBe(201);
        const { timeEntryId } = (await response.json()) as { timeEntryId: string };
        if (i % 2 === 0) acknowledged.push({ id: timeEntryId, at: Date.now() });
      }
    };
    const writers = fixture.employees.map((_, i) => writer(i));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const url = server.testDatabase.url;
    const out = join(dir, 'copy.sqlite');
    const backupBegan = Date.now();
    const backup = await runCli(url, 'backup', '--out', out, '--json');
    await new Promise((resolve) => setTimeout(resolve, 300));
    stop = true;
    await Promise.all(writers);
    expect(backup.code, backup.stderr).toBe(0);
    const summary = JSON.parse(backup.stdout) as {
      file: string;
      bytes: number;
      tables: Record<string, number>;
    };
    expect(summary.file).toBe(out);
    expect(summary.bytes).toBeGreaterThan(0);
    expect(summary.tables.time_entries).toBeGreaterThan(0);

    // Restored into a fresh file, served by a server of its own.
    const restoredUrl = `sqlite:${join(dir, 'restored.sqlite')}`;
    const restore = await runCli(restoredUrl, 'restore', '--in', out, '--json');
    expect(restore.code, restore.stderr).toBe(0);
    expect((JSON.parse(restore.stdout) as { tables: Record<string, number> }).tables).toEqual(summary.tables);
    const restored = await startTestServer(
      { name: 'sqlite', create: async () => ({ url: restoredUrl, drop: async () => {} }) },
      { env: { RATE_LIMIT_PER_MINUTE: '100000' } },
    );
    try {
      const ids = new Set(
        (await restored.database.db.selectFrom('time_entries').select('id').execute()).map((row) => row.id),
      );
      for (const write of acknowledged.filter((w) => w.at < backupBegan))
        expect(ids.has(write.id)).toBe(true);
      // A token issued before the backup works on the restored server; the answers are the same.
      for (const path of ['/api/public/v1/me', '/api/public/v1/employees']) {
        const before = (await (await server.request(path, { token })).json()) as Record<string, unknown>;
        const after = (await (await restored.request(path, { token })).json()) as Record<string, unknown>;
        if (path.endsWith('/me'))
          expect({ ...after, tokenExpiresAt: null }).toEqual({ ...before, tokenExpiresAt: null });
        else expect(after).toEqual(before);
      }
    } finally {
      await restored.stop();
    }
  }, 120_000);

  it('refuses a restore into a database holding data, a backup over an existing file, and PostgreSQL', async () => {
    const url = server.testDatabase.url;
    const out = join(dir, 'again.sqlite');
    expect((await runCli(url, 'backup', '--out', out)).code).toBe(0);
    const overwrite = await runCli(url, 'backup', '--out', out);
    expect(overwrite.code).toBe(1);
    expect(overwrite.stderr).toMatch(/already exists/);
    const intoData = await runCli(url, 'restore', '--in', out);
    expect(intoData.code).toBe(1);
    expect(intoData.stderr).toMatch(/in use|holds data/);
    const postgres = await runCli(
      'postgres://postgres@127.0.0.1:5432/postgres',
      'backup',
      '--out',
      join(dir, 'pg.sqlite'),
    );
    expect(postgres.code).toBe(1);
    expect(postgres.stderr).toMatch(/pg_dump/);
    const notABackup = await runCli(
      `sqlite:${join(dir, 'fresh.sqlite')}`,
      'restore',
      '--in',
      join(dir, 'missing.sqlite'),
    );
    expect(notABackup.code).toBe(1);
  }, 60_000);
});
