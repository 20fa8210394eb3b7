import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialects } from '../support/databases.js';
import { createCompanyFixture, fetchToken, startTestServer, type TestServer } from '../support/server.js';

describe.each(testDialects().map((d) => [d.name, d] as const))('smoke on %s', (_name, dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(async () => server?.stop());

  it('exchanges a key for a token and describes it at /me', async () => {
    const fixture = await createCompanyFixture(server.ctx);
    const token = await fetchToken(server, fixture.key.clientId, fixture.key.secret);
    const response = await server.request('/api/public/v1/me', { token });
    expect(response.status).toBe(200);
    const me = (await response.json()) as Record<string, unknown>;
    expect(me.principal).toBe('api_key');
    expect(me.publicId).toBe(fixture.key.clientId);
    expect(me.companyId).toBe(fixture.companyId);
  });

  it('answers health and readiness', async () => {
    expect((await server.request('/healthz')).status).toBe(200);
    expect((await server.request('/readyz')).status).toBe(200);
  });
});
