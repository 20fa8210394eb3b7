import { appendFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/app/server.js';
import { loadConfig } from '../../src/platform/config.js';
import { type OwnPostgres, ownPostgresAvailable, startOwnPostgres } from '../support/own-postgres.js';
import { contractRequester, createCompanyFixture } from '../support/server.js';

/*
 * Issue "survive the database going away": a PostgreSQL server of the test's own is restarted,
 * stopped and started under the running service. Requests meanwhile get 503 with Retry-After (never a
 * 500), the process keeps running, every acknowledged write is kept, and requests succeed again by
 * themselves once the database is back.
 */
const ENV = {
  LOG_LEVEL: 'silent',
  PORT: '0',
  RATE_LIMIT_PER_MINUTE: '1000000',
  TOKEN_RATE_LIMIT_PER_MINUTE: '1000000',
  OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.runIf(ownPostgresAvailable)('PostgreSQL going away (a server of the test own)', () => {
  let postgres: OwnPostgres;
  let databaseUrl: string;

  beforeAll(async () => {
    postgres = await startOwnPostgres();
    const admin = new pg.Client({ connectionString: postgres.url() });
    await admin.connect();
    await admin.query('create database punchclock');
    await admin.end();
    databaseUrl = postgres.url('punchclock');
  }, 120_000);
  afterAll(async () => {
    await postgres?.destroy();
  });

  async function serve(options: { waitForDatabase?: boolean } = {}) {
    const config = loadConfig({ ...ENV, DATABASE_URL: databaseUrl });
    const server = await startServer(config, { logger: false, ...options });
    return { server, request: contractRequester(server) };
  }

  async function tokenFor(
    request: ReturnType<typeof contractRequester>,
    key: { clientId: string; secret: string },
  ) {
    const response = await request('/api/public/v1/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: key.clientId,
        client_secret: key.secret,
      }).toString(),
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { access_token: string }).access_token;
  }

  it('a restart under concurrent writes: only 201 and 503, no acknowledged write lost, writes succeed again within seconds', async () => {
    const { server, request } = await serve();
    try {
      const fixture = await createCompanyFixture(
        { database: server.database, now: Date.now },
        { employeeCount: 6 },
      );
      const token = await tokenFor(request, fixture.key);
      const statuses = new Map<number, number>();
      const acknowledged: string[] = [];
      let restartedAt = 0;
      let firstSuccessAfterRestart = 0;
      let stop = false;
      const base = Date.now() - 20 * 86_400_000;
      const worker = async (employeeIndex: number) => {
        const employee = fixture.employees[employeeIndex]!;
        for (let i = 0; !stop; i++) {
          const body = {
            employee: { id: employee.id },
            type: i % 2 === 0 ? 'clock_in' : 'clock_out',
            occurredAt: new Date(base + i * 600_000).toISOString(),
          };
          const key = `restart-${employeeIndex}-${i}`;
          // A write answered 503 is sent again with its key until it is answered otherwise.
          for (;;) {
            const response = await request('/api/public/v1/time-clock/events', {
              method: 'POST',
              token,
              headers: { 'idempotency-key': key },
              json: body,
            });
            statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
            if (response.status === 503) {
              expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
              await sleep(100);
              continue;
            }
            expect(response.status, await response.clone().text()).toBe(201);
            const result = (await response.json()) as { timeEntryId: string };
            acknowledged.push(result.timeEntryId);
            if (restartedAt > 0 && firstSuccessAfterRestart === 0) firstSuccessAfterRestart = Date.now();
            break;
          }
        }
      };
      const workers = fixture.employees.map((_, index) => worker(index));
      await sleep(1_000);
      await postgres.restart();
      restartedAt = Date.now();
      await sleep(3_000);
      stop = true;
      await Promise.all(workers);
      // REPORT_FAULTS=<file>: the run's figures, for docs/operations.md.
      if (process.env.REPORT_FAULTS)
        appendFileSync(
          process.env.REPORT_FAULTS,
          `${JSON.stringify({
            statuses: Object.fromEntries(statuses),
            recoverySeconds: (firstSuccessAfterRestart - restartedAt) / 1000,
            acknowledged: acknowledged.length,
          })}\n`,
        );
      expect(
        [...statuses.keys()].every((status) => status === 201 || status === 503),
        JSON.stringify([...statuses]),
      ).toBe(true);
      expect(firstSuccessAfterRestart).toBeGreaterThan(0);
      expect(firstSuccessAfterRestart - restartedAt).toBeLessThan(10_000);
      const stored = await server.database.db
        .selectFrom('time_entries')
        .select('id')
        .where('company_id', '=', fixture.companyId)
        .execute();
      const ids = new Set(stored.map((row) => row.id));
      for (const id of acknowledged) expect(ids.has(id)).toBe(true);
    } finally {
      await server.close();
    }
  }, 120_000);

  it('while the database is down: /readyz, the API and the token endpoint answer 503 with Retry-After; all recover once it is back', async () => {
    const { server, request } = await serve();
    try {
      const fixture = await createCompanyFixture(
        { database: server.database, now: Date.now },
        { employeeCount: 1 },
      );
      const token = await tokenFor(request, fixture.key);
      await postgres.stop();
      const ready = await request('/readyz');
      expect(ready.status).toBe(503);
      const me = await request('/api/public/v1/me', { token });
      expect(me.status).toBe(503);
      expect(me.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(me.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(((await me.json()) as { error: string }).error).toBe('service_unavailable');
      const tokenResponse = await request('/api/public/v1/oauth/token', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: fixture.key.clientId,
          client_secret: fixture.key.secret,
        }).toString(),
      });
      expect(tokenResponse.status).toBe(503);
      expect(tokenResponse.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(((await tokenResponse.json()) as { error: string }).error).toBe('temporarily_unavailable');
      await postgres.start();
      const deadline = Date.now() + 15_000;
      let status = 0;
      while (Date.now() < deadline) {
        status = (await request('/api/public/v1/me', { token })).status;
        if (status === 200) break;
        await sleep(200);
      }
      expect(status).toBe(200);
      expect((await request('/readyz')).status).toBe(200);
    } finally {
      await server.close();
    }
  }, 120_000);

  it('started while the database is down, the server waits for it, then migrates and listens', async () => {
    await postgres.stop();
    const starting = serve({ waitForDatabase: true });
    let settled = false;
    void starting.then(
      () => (settled = true),
      () => (settled = true),
    );
    await sleep(1_500);
    expect(settled).toBe(false);
    await postgres.start();
    const { server, request } = await starting;
    try {
      expect((await request('/readyz')).status).toBe(200);
    } finally {
      await server.close();
    }
  }, 120_000);
});
