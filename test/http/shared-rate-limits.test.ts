import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialects } from '../support/databases.js';
import { type Fleet, startFleet } from '../support/fleet.js';
import { createCompanyFixture, fetchToken } from '../support/server.js';

/*
 * Issue "outgrow one machine", part 3: with REDIS_URL, two instances count one key's requests
 * together (300 a minute across both); when Redis goes away each instance counts on its own and no
 * request fails for it. The Redis is the test's own, on a free port.
 */
const postgres = testDialects().find((d) => d.name === 'postgres');

describe.runIf(postgres !== undefined)('rate limits shared by two instances through Redis', () => {
  let fleet: Fleet;

  beforeAll(async () => {
    fleet = await startFleet(postgres!, { redis: true, env: { METRICS_PORT: '0' } });
  }, 60_000);
  afterAll(async () => fleet?.stop());

  it('300 requests a minute per key across both; the 301st is 429 with Retry-After; with Redis gone both still serve', async () => {
    const { first, second, redis } = fleet;
    const fixture = await createCompanyFixture(first.ctx);
    const token = await fetchToken(first, fixture.key.clientId, fixture.key.secret);
    const instances = [first.request, second.request];
    for (let i = 0; i < 300; i++) {
      const response = await instances[i % 2]!('/api/public/v1/me', { token });
      expect(response.status, `request ${i + 1}`).toBe(200);
      expect(response.headers.get('x-ratelimit-remaining')).toBe(String(299 - i));
    }
    for (const request of instances) {
      const refused = await request('/api/public/v1/me', { token });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(((await refused.json()) as { error: string }).error).toBe('rate_limited');
    }
    const sharedGauge = async () =>
      /punchclock_rate_limit_shared (\d)/.exec(await (await fetch(first.metricsUrl!)).text())?.[1];
    expect(await sharedGauge()).toBe('1');

    redis!.kill('SIGKILL');
    await new Promise((resolve) => redis!.once('exit', resolve));
    for (const request of instances) {
      const served = await request('/api/public/v1/me', { token });
      expect(served.status).toBe(200);
      expect(served.headers.get('ratelimit-policy')).toBe('apikey;q=300;w=60');
    }
    expect(await sharedGauge()).toBe('0');
  }, 60_000);
});
