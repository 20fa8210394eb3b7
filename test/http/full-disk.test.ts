import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/app/server.js';
import { loadConfig } from '../../src/platform/config.js';
import { ownPostgresAvailable, startOwnPostgres } from '../support/own-postgres.js';
import { contractRequester, createCompanyFixture, fetchToken, type TestServer } from '../support/server.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/*
 * Issue 36, item 2: a full disk. The database sits on a small file system of the test's own (a tmpfs
 * with a size limit), which the test fills with a file of its own and frees again, under writes:
 * writes answer 503 storage_full with Retry-After, reads go on, /readyz stays 200 with
 * `writable: false` and the reason, the metric says 0; once freed, writes succeed again without a
 * restart, nothing acknowledged is lost, the database is intact and every event reaches the webhook
 * receiver. SQLite: the file on the tmpfs. PostgreSQL: a cluster of the test's own whose data
 * directory is the tmpfs and whose WAL is elsewhere (initdb --waldir), so it refuses writes (53100)
 * instead of stopping. Mounting needs root: under CI=true a test that cannot mount fails.
 */
const mounts: string[] = [];
afterAll(() => {
  for (const dir of mounts) {
    try {
      execFileSync('umount', ['-l', dir]);
    } catch {
      // not mounted
    }
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A tmpfs of `size` (e.g. `4m`) on a fresh folder, or null when this machine cannot mount (not root). */
function smallFileSystem(size: string): string | null {
  const dir = mkdtempSync(join(tmpdir(), 'punchclock-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    if (process.env.CI === 'true')
      throw new Error(`cannot mount a tmpfs for the full-disk test: ${String(error)}`);
    return null;
  }
  mounts.push(dir);
  return dir;
}

/** Fills the file system holding `dir` to the last byte with `dir/filler`. */
function fill(dir: string): void {
  const fd = openSync(join(dir, 'filler'), 'w');
  try {
    for (const size of [1 << 20, 64 << 10, 4 << 10, 512, 1])
      for (;;) {
        try {
          writeSync(fd, Buffer.alloc(size, 1));
        } catch {
          break;
        }
      }
  } finally {
    closeSync(fd);
  }
}

const ENV = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
  WEBHOOK_POLL_INTERVAL_MS: '100',
  WEBHOOK_RETRY_DELAYS: '0.5,0.5,0.5,0.5,0.5,0.5,0.5,0.5',
  RATE_LIMIT_PER_MINUTE: '1000000',
  TOKEN_RATE_LIMIT_PER_MINUTE: '1000000',
  OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
  METRICS_PORT: '0',
  PORT: '0',
  LOG_LEVEL: 'silent',
};
const SCOPES = 'attendance.record,attendance.read,employees.read,webhooks.manage';

async function fullDiskScenario(databaseUrl: string, dir: string) {
  const started = await startServer(loadConfig({ ...ENV, DATABASE_URL: databaseUrl }), { logger: false });
  const server = { ...started, request: contractRequester(started) } as unknown as TestServer;
  const receiver = await new WebhookReceiver().start();
  try {
    const ctx = { database: started.database, now: Date.now };
    const fixture = await createCompanyFixture(ctx, { employeeCount: 3, scopes: SCOPES });
    const token = await fetchToken(server, fixture.key.clientId, fixture.key.secret);
    const hook = await server.request('/api/public/v1/webhooks', {
      method: 'POST',
      token,
      json: { url: receiver.url, eventTypes: ['time_entry.completed'] },
    });
    expect(hook.status).toBe(201);
    receiver.secrets = [((await hook.json()) as { secret: string }).secret];
    const employee = fixture.employees[0]!.id;
    let at = Date.now() - 20 * 86_400_000;
    const acknowledged = new Set<string>();
    const write = async () => {
      const clockIn = new Date(at).toISOString();
      const clockOut = new Date(at + 30 * 60_000).toISOString();
      at += 3_600_000;
      // Large notes fill the disk sooner.
      const response = await server.request('/api/public/v1/time-entries', {
        method: 'POST',
        token,
        json: { employee: { id: employee }, clockIn, clockOut, note: 'n'.repeat(500) },
      });
      if (response.status === 201)
        acknowledged.add(((await response.json()) as { timeEntryId: string }).timeEntryId);
      else at -= 3_600_000; // not written: the same shift again next time
      return response;
    };
    for (let i = 0; i < 5; i++) expect((await write()).status).toBe(201);

    fill(dir);
    // Writes go on until the disk refuses one (the database may still have room in pages it holds).
    let refused: Response | null = null;
    for (let i = 0; i < 2_000 && refused === null; i++) {
      const response = await write();
      if (response.status !== 201) refused = response;
    }
    expect(refused?.status).toBe(503);
    expect(refused!.headers.get('retry-after')).toBe('30');
    expect(refused!.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await refused!.json()).toMatchObject({ error: 'storage_full', code: 1504, status: 503 });
    // Another write: refused the same way; reads still work.
    expect((await write()).status).toBe(503);
    const list = await server.request(`/api/public/v1/time-entries?employeeId=${employee}&limit=100`, {
      token,
    });
    expect(list.status).toBe(200);
    const ready = await server.request('/readyz');
    expect(ready.status).toBe(200);
    const readiness = (await ready.json()) as { status: string; writable: boolean; reason: string };
    expect(readiness).toMatchObject({ status: 'ready', writable: false });
    expect(readiness.reason.length).toBeGreaterThan(0);
    expect(await (await fetch(started.metricsUrl!)).text()).toMatch(/punchclock_database_writable 0/);

    // Space freed: writes succeed again, no restart.
    rmSync(join(dir, 'filler'));
    let again = await write();
    for (let i = 0; i < 20 && again.status !== 201; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      again = await write();
    }
    expect(again.status).toBe(201);
    // Writable again after 20 inserts in a row (a shift is 3 or 4: entry, audit row, event, sequence).
    for (let i = 0; i < 10; i++) expect((await write()).status).toBe(201);
    expect(await (await server.request('/readyz')).json()).toEqual({ status: 'ready', writable: true });
    expect(await (await fetch(started.metricsUrl!)).text()).toMatch(/punchclock_database_writable 1/);

    // Nothing acknowledged lost, the database intact, every event delivered.
    const rows = await started.database.db
      .selectFrom('time_entries')
      .select('id')
      .where('employee_id', '=', employee)
      .execute();
    expect(rows.map((r) => r.id).filter((id) => acknowledged.has(id))).toHaveLength(acknowledged.size);
    if (started.database.dialect === 'sqlite') {
      const check = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(
        started.database.db,
      );
      expect(check.rows).toEqual([{ integrity_check: 'ok' }]);
    }
    const delivered = () =>
      new Set(
        receiver.received
          .filter((d) => d.status === 204 && d.verifiedWith.length > 0)
          .map((d) => (d.payload.data as { id: string }).id),
      );
    await receiver.waitFor(() => [...acknowledged].every((id) => delivered().has(id)), 60_000);
    return acknowledged.size;
  } finally {
    await started.close();
    await receiver.stop();
  }
}

describe('a full disk', () => {
  it('SQLite: writes 503 storage_full, reads and /readyz go on, writes come back once space is freed', async (context) => {
    const dir = smallFileSystem('3m');
    if (dir === null) return context.skip();
    const acknowledged = await fullDiskScenario(`sqlite:${join(dir, 'punchclock.sqlite')}`, dir);
    expect(acknowledged).toBeGreaterThan(10);
  }, 120_000);

  it.runIf(ownPostgresAvailable)(
    'PostgreSQL (its data directory full, its WAL elsewhere): the same',
    async (context) => {
      const dir = smallFileSystem('96m');
      if (dir === null) return context.skip();
      const data = join(dir, 'data');
      execFileSync('mkdir', [data]);
      const postgres = await startOwnPostgres({ dataDir: data });
      try {
        const acknowledged = await fullDiskScenario(postgres.url(), dir);
        expect(acknowledged).toBeGreaterThan(10);
      } finally {
        await postgres.destroy();
      }
    },
    180_000,
  );
});
