import { afterEach, describe, expect, it } from 'vitest';
import { testDialects } from '../support/databases.js';
import { createCompanyFixture, fetchToken, startTestServer, type TestServer } from '../support/server.js';

/*
 * Issue "show what is happening inside" and "shed overload": Prometheus metrics on METRICS_PORT only,
 * with bounded labels; and 503 + Retry-After while the event loop lags beyond the configured delay.
 */
const sqlite = testDialects().find((d) => d.name === 'sqlite')!;

describe('metrics and overload', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  it('serves Prometheus text on METRICS_PORT with route templates and fixed reasons as labels only', async () => {
    server = await startTestServer(sqlite, { env: { METRICS_PORT: '0' } });
    expect(server.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const fixture = await createCompanyFixture(server.ctx);
    const token = await fetchToken(server, fixture.key.clientId, fixture.key.secret);
    expect((await server.request('/api/public/v1/me', { token })).status).toBe(200);
    const employee = fixture.employees[0]!.id;
    const list = await server.request(`/api/public/v1/time-entries?employeeId=${employee}`, { token });
    expect(list.status).toBe(200);
    expect((await server.request('/api/public/v1/no-such-thing')).status).toBe(404);
    const refused = await server.request('/api/public/v1/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: fixture.key.clientId,
        client_secret: 'wrong',
      }).toString(),
    });
    expect(refused.status).toBe(401);

    const scrape = await fetch(server.metricsUrl!);
    expect(scrape.status).toBe(200);
    expect(scrape.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await scrape.text();
    expect(text).toMatch(
      /punchclock_http_requests_total\{route="\/api\/public\/v1\/me",method="GET",status="200"\} 1/,
    );
    expect(text).toMatch(
      /punchclock_http_requests_total\{route="\/api\/public\/v1\/time-entries",method="GET",status="200"\} 1/,
    );
    expect(text).toMatch(/punchclock_http_requests_total\{route="unmatched",method="GET",status="404"\} 1/);
    expect(text).toMatch(
      /punchclock_http_request_duration_seconds_bucket\{le="0.5",route="\/api\/public\/v1\/me",method="GET",status_class="2xx"\} 1/,
    );
    expect(text).toMatch(/punchclock_tokens_issued_total 1/);
    expect(text).toMatch(/punchclock_tokens_refused_total\{reason="invalid_client"\} 1/);
    expect(text).toMatch(/punchclock_process_cpu_seconds_total/);
    // No label carries an id, a key or a raw path.
    for (const secret of [fixture.companyId, fixture.key.clientId, fixture.key.id, employee, 'no-such-thing'])
      expect(text).not.toContain(secret);
    // Nothing else is served there, and the API's port has no metrics.
    expect((await fetch(server.metricsUrl!.replace('/metrics', '/'))).status).toBe(404);
    expect((await server.request('/metrics')).status).toBe(404);
  });

  it('without METRICS_PORT there is no metrics endpoint', async () => {
    server = await startTestServer(sqlite);
    expect(server.metricsUrl).toBeNull();
  });

  it('sheds a request beyond OVERLOAD_MAX_IN_FLIGHT with 503 and Retry-After; /healthz still answers', async () => {
    server = await startTestServer(sqlite, { env: { OVERLOAD_MAX_IN_FLIGHT: '1' } });
    const fixture = await createCompanyFixture(server.ctx);
    const token = await fetchToken(server, fixture.key.clientId, fixture.key.secret);
    // A transaction holding SQLite's one connection keeps the first request waiting (in flight).
    let release!: () => void;
    const held = server.database.transaction(() => new Promise<void>((resolve) => (release = resolve)));
    const first = server.request('/api/public/v1/me', { token });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const second = await server.request('/api/public/v1/me', { token });
    expect(second.status).toBe(503);
    expect(second.headers.get('retry-after')).toBe('1');
    expect((await server.request('/healthz')).status).toBe(200);
    release();
    await held;
    expect((await first).status).toBe(200);
    expect((await server.request('/api/public/v1/me', { token })).status).toBe(200);
    // A request the client gave up on while it was held is counted down too: no 503 afterwards.
    let releaseAgain!: () => void;
    const heldAgain = server.database.transaction(
      () => new Promise<void>((resolve) => (releaseAgain = resolve)),
    );
    const abort = new AbortController();
    const abandoned = fetch(`${server.listenUrl}/api/public/v1/me`, {
      headers: { authorization: `Bearer ${token}` },
      signal: abort.signal,
    }).catch(() => null);
    await new Promise((resolve) => setTimeout(resolve, 100));
    abort.abort();
    await abandoned;
    releaseAgain();
    await heldAgain;
    await new Promise((resolve) => setTimeout(resolve, 100));
    for (let i = 0; i < 3; i++)
      expect((await server.request('/api/public/v1/me', { token })).status).toBe(200);
  });

  it('sheds a share of requests with 503 and Retry-After while the event loop lags; /healthz still answers', async () => {
    server = await startTestServer(sqlite, { env: { OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '20' } });
    // Shedding by delay is armed a second after listening (starting lags the loop too).
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    // The server shares this process: turns of 100 ms of synchronous work, for 2 s, are a loop that
    // lags far beyond its 20 ms target, as a backlog of requests would make it.
    const lagUntil = Date.now() + 2_000;
    const lag = () => {
      const until = Date.now() + 100;
      while (Date.now() < until) {
        // busy
      }
      if (Date.now() < lagUntil) setTimeout(lag, 0);
    };
    setTimeout(lag, 0);
    const statuses: number[] = [];
    let shed: Response | null = null;
    while (Date.now() < lagUntil) {
      const response = await server.request('/api/public/v1/me');
      statuses.push(response.status);
      if (response.status === 503 && shed === null) shed = response;
      else await response.arrayBuffer();
    }
    expect(shed).not.toBeNull();
    expect(shed!.headers.get('retry-after')).toBe('1');
    expect(shed!.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(shed!.headers.get('ratelimit-policy')).not.toBeNull();
    expect(shed!.headers.get('x-correlation-id')).not.toBeNull();
    const body = (await shed!.json()) as { error: string; status: number; instance: string };
    expect(body).toMatchObject({ error: 'service_unavailable', status: 503, instance: '/api/public/v1/me' });
    // A share, not all: the rest were served (401 here: no token).
    expect(statuses.filter((s) => s === 401).length).toBeGreaterThan(0);
    expect((await server.request('/healthz')).status).toBe(200);
    // Once the loop is calm again, the share falls back to nothing: every request is served.
    // (On a busy machine the test process itself may lag now and then: a run of 10 served in a row
    // within 5 s is the check.)
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    let served = 0;
    for (const until = Date.now() + 5_000; served < 10 && Date.now() < until;) {
      const status = (await server.request('/api/public/v1/me')).status;
      served = status === 401 ? served + 1 : 0;
      if (status !== 401) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(served).toBe(10);
  });
});
