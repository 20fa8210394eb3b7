import { inTransaction } from '../../src/modules/context.js';
import { connect } from 'node:net';
import { generateKeyPair, SignJWT } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, type Json, secondKey } from '../support/api.js';
import { testDialects } from '../support/databases.js';
import {
  type CompanyFixture,
  createCompanyFixture,
  fetchToken,
  startTestServer,
  type TestServer,
} from '../support/server.js';
import { revokeApiKey, rotateApiKey } from '../../src/modules/api-keys/service.js';
import { updateCompany } from '../../src/modules/companies/service.js';
import { createUser, deactivateUser, issueUserToken } from '../../src/modules/people/users.js';

const TOKEN_PATH = '/api/public/v1/oauth/token';
const ME = '/api/public/v1/me';
const EMPLOYEES = '/api/public/v1/employees';
const CLOCK_EVENTS = '/api/public/v1/time-clock/events';
const GENERIC = 'client authentication failed';

function form(params: Record<string, string>): string {
  return new URLSearchParams(params).toString();
}

function basic(clientId: string, secret: string): string {
  return `Basic ${Buffer.from(`${clientId}:${secret}`, 'utf8').toString('base64')}`;
}

/** Percent-encodes every character, as a strict form-urlencoding client may. */
function encodeEveryChar(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`)
    .join('');
}

function tokenRequest(
  server: TestServer,
  body: string,
  options: { headers?: Record<string, string>; query?: string } = {},
): Promise<Response> {
  return server.request(`${TOKEN_PATH}${options.query ?? ''}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...options.headers },
    body,
  });
}

function credentials(fixture: CompanyFixture, extra: Record<string, string> = {}): string {
  return form({
    grant_type: 'client_credentials',
    client_id: fixture.key.clientId,
    client_secret: fixture.key.secret,
    ...extra,
  });
}

function decodePart(part: string): Json {
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Json;
}

function encodePart(value: Json): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

async function expectOAuthError(response: Response, status: number, error: string): Promise<Json> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(response.headers.get('cache-control')).toBe('no-store');
  const body = (await response.json()) as Json;
  expect(body.error).toBe(error);
  expect(typeof body.error_description).toBe('string');
  return body;
}

describe.each(testDialects().map((d) => [d.name, d] as const))('authentication on %s', (_name, dialect) => {
  let server: TestServer;
  // The server's clock: real time plus an offset the tests may move (and afterEach puts back).
  let offset = 0;
  const now = () => Date.now() + offset;

  beforeAll(async () => {
    server = await startTestServer(dialect, { now });
  });
  afterAll(async () => server?.stop());
  afterEach(() => {
    offset = 0;
  });

  /** Another key of the fixture's company, with employees.read only. */
  const readerKey = (
    fixture: CompanyFixture,
    name: string,
    options: { expires?: string; allowIp?: string },
  ) => secondKey(server.ctx, fixture, { name, scopes: 'employees.read', ...options });

  describe('token endpoint errors', () => {
    it('refuses a secret in the query string', async () => {
      const fixture = await createCompanyFixture(server.ctx);
      const response = await tokenRequest(server, form({ grant_type: 'client_credentials' }), {
        query: `?client_secret=${encodeURIComponent(fixture.key.secret)}`,
      });
      await expectOAuthError(response, 400, 'invalid_request');
    });

    it('refuses Basic together with client_secret', async () => {
      const fixture = await createCompanyFixture(server.ctx);
      const response = await tokenRequest(server, credentials(fixture), {
        headers: { authorization: basic(fixture.key.clientId, fixture.key.secret) },
      });
      await expectOAuthError(response, 400, 'invalid_request');
    });

    it('refuses a repeated parameter', async () => {
      const fixture = await createCompanyFixture(server.ctx);
      const response = await tokenRequest(server, `${credentials(fixture)}&grant_type=client_credentials`);
      const body = await expectOAuthError(response, 400, 'invalid_request');
      expect(body.error_description).toContain('grant_type');
    });

    it('refuses a missing secret', async () => {
      const fixture = await createCompanyFixture(server.ctx);
      const response = await tokenRequest(
        server,
        form({ grant_type: 'client_credentials', client_id: fixture.key.clientId }),
      );
      await expectOAuthError(response, 401, 'invalid_client');
    });

    it('refuses a form body over its size limit', async () => {
      const response = await tokenRequest(
        server,
        form({ grant_type: 'client_credentials', pad: 'x'.repeat(9 * 1024) }),
      );
      await expectOAuthError(response, 400, 'invalid_request');
    });

    it('refuses an unreadable body and a body that is not a form', async () => {
      const fixture = await createCompanyFixture(server.ctx);
      await expectOAuthError(
        await tokenRequest(server, 'grant_type=client_credentials&client_secret=%E0%A4%A'),
        400,
        'invalid_request',
      );
      for (const init of [
        { json: { grant_type: 'client_credentials', client_secret: fixture.key.secret } },
        { headers: { 'content-type': 'text/plain' }, body: credentials(fixture) },
        { headers: { 'content-type': 'application/json' }, body: '{not json' },
      ]) {
        await expectOAuthError(
          await server.request(TOKEN_PATH, { method: 'POST', ...init }),
          400,
          'invalid_request',
        );
      }
    });

    it('needs grant_type and supports only client_credentials', async () => {
      const fixture = await createCompanyFixture(server.ctx);
      const missing = await expectOAuthError(
        await tokenRequest(
          server,
          form({ client_id: fixture.key.clientId, client_secret: fixture.key.secret }),
        ),
        400,
        'invalid_request',
      );
      expect(missing.error_description).toContain('grant_type');
      await expectOAuthError(
        await tokenRequest(server, credentials(fixture, { grant_type: 'password' })),
        400,
        'unsupported_grant_type',
      );
    });

    it('answers an unknown key and a wrong secret with the same generic 401', async () => {
      const fixture = await createCompanyFixture(server.ctx);
      const unknownSecret = `svc_${'0'.repeat(24)}_${'A'.repeat(43)}`;
      const unknown = await expectOAuthError(
        await tokenRequest(server, form({ grant_type: 'client_credentials', client_secret: unknownSecret })),
        401,
        'invalid_client',
      );
      expect(unknown.error_description).toBe(GENERIC);
      const wrong = await expectOAuthError(
        await tokenRequest(server, credentials(fixture, { client_secret: `${fixture.key.secret}x` })),
        401,
        'invalid_client',
      );
      expect(wrong.error_description).toBe(GENERIC);
      // Not shaped like a key at all, with a client id that exists.
      const garbage = await expectOAuthError(
        await tokenRequest(server, credentials(fixture, { client_secret: 'hunter2' })),
        401,
        'invalid_client',
      );
      expect(garbage.error_description).toBe(GENERIC);
    });

    it('names the reason for a revoked key once the secret is proven, and stays generic otherwise', async () => {
      const fixture = await createCompanyFixture(server.ctx);
      await inTransaction(server.ctx, (tx, now) => revokeApiKey(tx, now, fixture.key.id));
      const proven = await expectOAuthError(
        await tokenRequest(server, credentials(fixture)),
        401,
        'invalid_client',
      );
      expect(proven.error_description).toMatch(/revoked/);
      const unproven = await expectOAuthError(
        await tokenRequest(server, credentials(fixture, { client_secret: `${fixture.key.secret}x` })),
        401,
        'invalid_client',
      );
      expect(unproven.error_description).toBe(GENERIC);
    });

    it('refuses an expired key, naming the reason', async () => {
      const fixture = await createCompanyFixture(server.ctx);
      const key = await readerKey(fixture, 'short-lived', {
        expires: new Date(now() + 60 * 60_000).toISOString(),
      });
      await fetchToken(server, key.clientId, key.secret);
      offset = 2 * 60 * 60_000;
      const body = await expectOAuthError(
        await tokenRequest(
          server,
          form({ grant_type: 'client_credentials', client_id: key.clientId, client_secret: key.secret }),
        ),
        401,
        'invalid_client',
      );
      expect(body.error_description).toMatch(/expired/);
    });

    it("refuses a client outside the key's IP allowlist and accepts one inside", async () => {
      const fixture = await createCompanyFixture(server.ctx);
      const outside = await readerKey(fixture, 'office only', { allowIp: '10.0.0.0/8, 192.168.1.0/24' });
      const body = await expectOAuthError(
        await tokenRequest(
          server,
          form({
            grant_type: 'client_credentials',
            client_id: outside.clientId,
            client_secret: outside.secret,
          }),
        ),
        401,
        'invalid_client',
      );
      expect(body.error_description).toMatch(/IP/);
      const inside = await readerKey(fixture, 'loopback', { allowIp: '127.0.0.0/8' });
      const token = await fetchToken(server, inside.clientId, inside.secret);
      expect((await server.request(ME, { token })).status).toBe(200);
    });

    it('refuses a key whose company has API access switched off, naming the reason', async () => {
      const fixture = await createCompanyFixture(server.ctx);
      await inTransaction(server.ctx, (tx, now) =>
        updateCompany(tx, now, fixture.companyId, { apiAccess: 'off' }),
      );
      const body = await expectOAuthError(
        await tokenRequest(server, credentials(fixture)),
        401,
        'invalid_client',
      );
      expect(body.error_description).toMatch(/API access/);
      await inTransaction(server.ctx, (tx, now) =>
        updateCompany(tx, now, fixture.companyId, { apiAccess: 'on' }),
      );
      await fetchToken(server, fixture.key.clientId, fixture.key.secret);
    });

    it('challenges with WWW-Authenticate: Basic after a failed Basic attempt', async () => {
      const fixture = await createCompanyFixture(server.ctx);
      const wrong = await tokenRequest(server, form({ grant_type: 'client_credentials' }), {
        headers: { authorization: basic(fixture.key.clientId, `${fixture.key.secret}x`) },
      });
      expect(wrong.headers.get('www-authenticate')).toMatch(/^Basic/);
      await expectOAuthError(wrong, 401, 'invalid_client');

      await inTransaction(server.ctx, (tx, now) => revokeApiKey(tx, now, fixture.key.id));
      const revoked = await tokenRequest(server, form({ grant_type: 'client_credentials' }), {
        headers: { authorization: basic(fixture.key.clientId, fixture.key.secret) },
      });
      expect(revoked.headers.get('www-authenticate')).toMatch(/^Basic/);
      expect((await expectOAuthError(revoked, 401, 'invalid_client')).error_description).toMatch(/revoked/);

      const emptyPassword = await tokenRequest(server, form({ grant_type: 'client_credentials' }), {
        headers: { authorization: basic(fixture.key.clientId, '') },
      });
      expect(emptyPassword.headers.get('www-authenticate')).toMatch(/^Basic/);
      await expectOAuthError(emptyPassword, 401, 'invalid_client');

      const malformed = await tokenRequest(server, form({ grant_type: 'client_credentials' }), {
        headers: { authorization: 'Basic !!!not-base64!!!' },
      });
      expect(malformed.headers.get('www-authenticate')).toMatch(/^Basic/);
      await expectOAuthError(malformed, 401, 'invalid_client');
    });

    it('answers client ids that are not shaped like one with a generic 401, never a server error', async () => {
      const fixture = await createCompanyFixture(server.ctx);
      for (const clientId of [`${fixture.key.clientId}\u0000`, 'svc_', 'x'.repeat(500), 'SVC_ABC']) {
        const body = await expectOAuthError(
          await tokenRequest(
            server,
            form({ grant_type: 'client_credentials', client_id: clientId, client_secret: 'not-a-key' }),
          ),
          401,
          'invalid_client',
        );
        expect(body.error_description).toBe(GENERIC);
      }
      const viaBasic = await tokenRequest(server, form({ grant_type: 'client_credentials' }), {
        headers: { authorization: basic('svc_a\u0000', 'not-a-key') },
      });
      await expectOAuthError(viaBasic, 401, 'invalid_client');
    });

    it('refuses a client_id that does not match the key', async () => {
      const fixture = await createCompanyFixture(server.ctx);
      const other = await createCompanyFixture(server.ctx, { name: 'Other' });
      const body = await expectOAuthError(
        await tokenRequest(server, credentials(fixture, { client_id: other.key.clientId })),
        401,
        'invalid_client',
      );
      expect(body.error_description).toBe(GENERIC);
      const viaBasic = await tokenRequest(server, form({ grant_type: 'client_credentials' }), {
        headers: { authorization: basic(other.key.clientId, fixture.key.secret) },
      });
      expect(viaBasic.headers.get('www-authenticate')).toMatch(/^Basic/);
      await expectOAuthError(viaBasic, 401, 'invalid_client');
      // Basic and a form client_id that disagree.
      await expectOAuthError(
        await tokenRequest(
          server,
          form({ grant_type: 'client_credentials', client_id: other.key.clientId }),
          { headers: { authorization: basic(fixture.key.clientId, fixture.key.secret) } },
        ),
        401,
        'invalid_client',
      );
    });
  });

  describe('token endpoint success', () => {
    async function expectToken(response: Response): Promise<string> {
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
      const body = (await response.json()) as Json;
      expect(body.token_type).toBe('Bearer');
      expect(body.expires_in).toBe(900);
      expect(body).not.toHaveProperty('refresh_token');
      expect(typeof body.access_token).toBe('string');
      return body.access_token as string;
    }

    it('accepts form credentials, with and without the svc_ prefix on client_id, and without client_id', async () => {
      const fixture = await createCompanyFixture(server.ctx);
      const token = await expectToken(await tokenRequest(server, credentials(fixture)));
      expect((await server.request(ME, { token })).status).toBe(200);
      expect(fixture.key.clientId.startsWith('svc_')).toBe(true);
      await expectToken(
        await tokenRequest(server, credentials(fixture, { client_id: fixture.key.clientId.slice(4) })),
      );
      await expectToken(
        await tokenRequest(
          server,
          form({ grant_type: 'client_credentials', client_secret: fixture.key.secret }),
        ),
      );
    });

    it('accepts a form content type with a charset parameter', async () => {
      const fixture = await createCompanyFixture(server.ctx);
      await expectToken(
        await tokenRequest(server, credentials(fixture), {
          headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
        }),
      );
    });

    it('accepts HTTP Basic, plain and with form-urlencoded credentials', async () => {
      const fixture = await createCompanyFixture(server.ctx);
      await expectToken(
        await tokenRequest(server, form({ grant_type: 'client_credentials' }), {
          headers: { authorization: basic(fixture.key.clientId, fixture.key.secret) },
        }),
      );
      const encoded = await expectToken(
        await tokenRequest(server, form({ grant_type: 'client_credentials' }), {
          headers: {
            authorization: basic(encodeEveryChar(fixture.key.clientId), encodeEveryChar(fixture.key.secret)),
          },
        }),
      );
      const me = (await (await server.request(ME, { token: encoded })).json()) as Json;
      expect(me.publicId).toBe(fixture.key.clientId);
      // Basic plus the same client_id in the form is fine, with or without the prefix on either.
      await expectToken(
        await tokenRequest(
          server,
          form({ grant_type: 'client_credentials', client_id: fixture.key.clientId }),
          { headers: { authorization: basic(fixture.key.clientId.slice(4), fixture.key.secret) } },
        ),
      );
      await expectToken(
        await tokenRequest(
          server,
          form({ grant_type: 'client_credentials', client_id: fixture.key.clientId.slice(4) }),
          { headers: { authorization: basic(fixture.key.clientId, fixture.key.secret) } },
        ),
      );
      await expectToken(
        await tokenRequest(
          server,
          form({ grant_type: 'client_credentials', client_id: fixture.key.clientId }),
          { headers: { authorization: basic(fixture.key.clientId, fixture.key.secret) } },
        ),
      );
    });

    it('issues an ES256 JWT whose kid is published in the JWKS', async () => {
      const fixture = await createCompanyFixture(server.ctx);
      const token = await fetchToken(server, fixture.key.clientId, fixture.key.secret);
      const [headerPart, payloadPart, signature] = token.split('.');
      expect(signature).toBeTruthy();
      const header = decodePart(headerPart!);
      expect(header.alg).toBe('ES256');
      expect(typeof header.kid).toBe('string');
      const payload = decodePart(payloadPart!);
      expect(payload.sub).toBe(fixture.key.id);
      expect((payload.exp as number) - (payload.iat as number)).toBe(900);
      const jwksResponse = await server.request('/.well-known/jwks.json');
      expect(jwksResponse.status).toBe(200);
      const jwks = (await jwksResponse.json()) as { keys: Json[] };
      const published = jwks.keys.find((k) => k.kid === header.kid);
      expect(published).toBeDefined();
      expect(published).not.toHaveProperty('d');
      expect(published?.kty).toBe('EC');
    });
  });

  describe('key lifecycle', () => {
    it('accepts the new secret after rotation and the old one only within the grace period', async () => {
      const fixture = await createCompanyFixture(server.ctx);
      const rotated = await inTransaction(server.ctx, (tx, now) =>
        rotateApiKey(tx, now, fixture.key.id, '60'),
      );
      expect(rotated.clientId).toBe(fixture.key.clientId);
      await fetchToken(server, rotated.clientId, rotated.secret);
      await fetchToken(server, fixture.key.clientId, fixture.key.secret);
      offset = 2 * 60_000;
      const body = await expectOAuthError(
        await tokenRequest(server, credentials(fixture)),
        401,
        'invalid_client',
      );
      expect(body.error_description).toBe(GENERIC);
      await fetchToken(server, rotated.clientId, rotated.secret);
    });

    it('refuses the old secret at once after a rotation without grace', async () => {
      const fixture = await createCompanyFixture(server.ctx);
      const rotated = await inTransaction(server.ctx, (tx, now) => rotateApiKey(tx, now, fixture.key.id));
      await expectOAuthError(await tokenRequest(server, credentials(fixture)), 401, 'invalid_client');
      const token = await fetchToken(server, rotated.clientId, rotated.secret);
      expect((await server.request(EMPLOYEES, { token })).status).toBe(200);
    });

    it('stops a revoked key at the token endpoint and on the next request with an issued token', async () => {
      const fixture = await createCompanyFixture(server.ctx);
      const token = await fetchToken(server, fixture.key.clientId, fixture.key.secret);
      expect((await server.request(EMPLOYEES, { token })).status).toBe(200);
      await inTransaction(server.ctx, (tx, now) => revokeApiKey(tx, now, fixture.key.id));
      await expectOAuthError(await tokenRequest(server, credentials(fixture)), 401, 'invalid_client');
      const response = await server.request(EMPLOYEES, { token });
      expect(response.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
      await expectProblem(response, 401, 'invalid_token');
    });

    it('stops an issued token once its key has expired', async () => {
      const fixture = await createCompanyFixture(server.ctx);
      const key = await readerKey(fixture, 'five minutes', {
        expires: new Date(now() + 5 * 60_000).toISOString(),
      });
      const token = await fetchToken(server, key.clientId, key.secret);
      expect((await server.request(EMPLOYEES, { token })).status).toBe(200);
      offset = 6 * 60_000; // the token itself still has 9 minutes to go
      await expectProblem(await server.request(EMPLOYEES, { token }), 401, 'invalid_token');
    });

    it("keeps a key working after its creator's deactivation", async () => {
      const fixture = await createCompanyFixture(server.ctx);
      const before = await fetchToken(server, fixture.key.clientId, fixture.key.secret);
      await inTransaction(server.ctx, (tx, now) => deactivateUser(tx, now, fixture.adminId));
      expect((await server.request(EMPLOYEES, { token: before })).status).toBe(200);
      const token = await fetchToken(server, fixture.key.clientId, fixture.key.secret);
      const response = await server.request(EMPLOYEES, { token });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { items: unknown[] }).items).toHaveLength(2);
    });

    it('refuses an existing token once company API access is switched off', async () => {
      const fixture = await createCompanyFixture(server.ctx);
      const token = await fetchToken(server, fixture.key.clientId, fixture.key.secret);
      await inTransaction(server.ctx, (tx, now) =>
        updateCompany(tx, now, fixture.companyId, { apiAccess: 'off' }),
      );
      await expectProblem(await server.request(ME, { token }), 403, 'forbidden');
      await expectProblem(await server.request(EMPLOYEES, { token }), 403, 'forbidden');
      await inTransaction(server.ctx, (tx, now) =>
        updateCompany(tx, now, fixture.companyId, { apiAccess: 'on' }),
      );
      expect((await server.request(ME, { token })).status).toBe(200);
    });
  });

  describe('bearer tokens', () => {
    it('answers a request without credentials with a bare Bearer challenge and a full problem', async () => {
      const response = await server.request(ME, { headers: { 'x-correlation-id': 'corr-test-42' } });
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect(response.headers.get('x-correlation-id')).toBe('corr-test-42');
      const body = await expectProblem(response, 401, 'invalid_token');
      expect(body).toEqual({
        type: expect.stringMatching(/\/invalid-token$/),
        title: expect.any(String),
        status: 401,
        detail: expect.any(String),
        instance: ME,
        code: 1401,
        error: 'invalid_token',
        correlationId: 'corr-test-42',
        errors: null,
      });
    });

    it('replaces an unusable X-Correlation-Id with a generated one', async () => {
      const response = await server.request(ME, { headers: { 'x-correlation-id': 'has spaces in it' } });
      const header = response.headers.get('x-correlation-id');
      expect(header).toMatch(/^[0-9a-f-]{36}$/);
      expect((await expectProblem(response, 401, 'invalid_token')).correlationId).toBe(header);
    });

    it('generates a correlation id when none is sent and uses it in the problem', async () => {
      const response = await server.request(`${EMPLOYEES}?limit=3`);
      const header = response.headers.get('x-correlation-id');
      expect(header).toBeTruthy();
      const body = await expectProblem(response, 401, 'invalid_token');
      expect(body.correlationId).toBe(header);
      expect(body.instance).toBe(EMPLOYEES);
    });

    it('refuses garbage, a non-Bearer scheme and an empty Bearer', async () => {
      for (const authorization of [
        'Bearer garbage',
        'Bearer a.b.c',
        'Token abc',
        'Bearer ',
        'Basic Zm9vOmJhcg==',
      ]) {
        const response = await server.request(ME, { headers: { authorization } });
        expect(response.status, authorization).toBe(401);
        expect(response.headers.get('www-authenticate'), authorization).toMatch(/^Bearer/);
        await expectProblem(response, 401, 'invalid_token');
      }
    });

    it('refuses an alg:none token, one signed by another key and one with an altered payload', async () => {
      const fixture = await createCompanyFixture(server.ctx, { scopes: 'attendance.record' });
      const token = await fetchToken(server, fixture.key.clientId, fixture.key.secret);
      const [headerPart, payloadPart, signature] = token.split('.') as [string, string, string];
      const header = decodePart(headerPart);
      const payload = decodePart(payloadPart);

      const none = `${encodePart({ alg: 'none', typ: 'JWT' })}.${payloadPart}.`;
      const noneWithKid = `${encodePart({ ...header, alg: 'none' })}.${payloadPart}.`;
      const { privateKey } = await generateKeyPair('ES256');
      const foreign = await new SignJWT(payload)
        .setProtectedHeader({ alg: 'ES256', kid: header.kid as string, typ: header.typ as string })
        .sign(privateKey);
      const widened = `${headerPart}.${encodePart({ ...payload, scope: 'attendance.record employees.read' })}.${signature}`;
      const extended = `${headerPart}.${encodePart({ ...payload, exp: (payload.exp as number) + 3600 })}.${signature}`;

      // The genuine token is verified and remembered first: copies that carry its signature under an
      // altered payload must not be answered from what was remembered.
      await expectProblem(await server.request(EMPLOYEES, { token }), 403, 'insufficient_scope');
      for (const [label, bad] of Object.entries({ none, noneWithKid, foreign, widened, extended })) {
        const response = await server.request(EMPLOYEES, { token: bad });
        expect(response.status, label).toBe(401);
        expect(response.headers.get('www-authenticate'), label).toBe('Bearer error="invalid_token"');
        await expectProblem(response, 401, 'invalid_token');
      }
      // The genuine token is fine, and lacks employees.read.
      await expectProblem(await server.request(EMPLOYEES, { token }), 403, 'insufficient_scope');
    });

    it('refuses an expired token', async () => {
      const fixture = await createCompanyFixture(server.ctx);
      const token = await fetchToken(server, fixture.key.clientId, fixture.key.secret);
      offset = 14 * 60_000;
      expect((await server.request(ME, { token })).status).toBe(200);
      offset = 16 * 60_000;
      await expectProblem(await server.request(ME, { token }), 401, 'invalid_token');
    });

    it('ignores a token in the query string', async () => {
      const fixture = await createCompanyFixture(server.ctx);
      const token = await fetchToken(server, fixture.key.clientId, fixture.key.secret);
      const response = await server.request(`${ME}?access_token=${encodeURIComponent(token)}`);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      const body = await expectProblem(response, 401, 'invalid_token');
      expect(body.instance).toBe(ME);
      expect(JSON.stringify(body)).not.toContain(token);
    });
  });

  describe('scopes and person tokens', () => {
    it('refuses a key without employees.read with 403 insufficient_scope', async () => {
      const fixture = await createCompanyFixture(server.ctx, { scopes: 'attendance.record,attendance.read' });
      const token = await fetchToken(server, fixture.key.clientId, fixture.key.secret);
      const response = await server.request(EMPLOYEES, { token });
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer error="insufficient_scope"/);
      const body = await expectProblem(response, 403, 'insufficient_scope');
      expect(body.instance).toBe(EMPLOYEES);
      // /me needs no scope.
      expect((await server.request(ME, { token })).status).toBe(200);
    });

    it("accepts a person's token for reads, refuses it for writes, and stops it on deactivation", async () => {
      const fixture = await createCompanyFixture(server.ctx);
      const issued = await inTransaction(server.ctx, (tx) =>
        issueUserToken(tx, server.tokens, fixture.adminId),
      );
      const token = issued.access_token;
      expect(issued.expires_in).toBe(900);

      const list = await server.request(EMPLOYEES, { token });
      expect(list.status).toBe(200);
      expect(((await list.json()) as { items: unknown[] }).items).toHaveLength(2);

      const meResponse = await server.request(ME, { token });
      expect(meResponse.status).toBe(200);
      const me = (await meResponse.json()) as Json;
      expect(me.principal).toBe('user');
      expect(me.id).toBe(fixture.adminId);
      expect(me.publicId).toBeNull();
      expect(me.companyId).toBe(fixture.companyId);
      // attendance.reports: a read too, since the timesheets issue (21); attendance.manage for a
      // person holding 91, since the corrections issue (30); leave.read and leave.manage for a person
      // holding 72 and 96 (issue 31); a super admin holds them all.
      expect((me.scopes as Json[]).map((s) => s.id).sort()).toEqual([
        'attendance.manage',
        'attendance.read',
        'attendance.reports',
        'employees.read',
        'leave.manage',
        'leave.read',
      ]);

      const write = await server.request(CLOCK_EVENTS, {
        method: 'POST',
        token,
        json: {
          employee: { id: fixture.employees[0]!.id },
          type: 'clock_in',
          occurredAt: new Date(now()).toISOString(),
        },
      });
      await expectProblem(write, 403, 'insufficient_scope');

      await inTransaction(server.ctx, (tx, now) => deactivateUser(tx, now, fixture.adminId));
      await expectProblem(await server.request(EMPLOYEES, { token }), 401, 'invalid_token');
      await expectProblem(await server.request(ME, { token }), 401, 'invalid_token');
    });

    it("limits a person's token to the read scopes the person's permissions cover", async () => {
      const fixture = await createCompanyFixture(server.ctx);
      const reader = await inTransaction(server.ctx, (tx, now) =>
        createUser(tx, now, {
          companyId: fixture.companyId,
          email: 'reader@acme.example',
          permissions: '47',
        }),
      );
      const { access_token: token } = await inTransaction(server.ctx, (tx) =>
        issueUserToken(tx, server.tokens, reader.id),
      );
      const me = (await (await server.request(ME, { token })).json()) as Json;
      expect(me.scopes).toEqual([{ id: 'attendance.read', permission: 47, label: expect.any(String) }]);
      await expectProblem(await server.request(EMPLOYEES, { token }), 403, 'insufficient_scope');
    });

    it("refuses a person's token once company API access is off", async () => {
      const fixture = await createCompanyFixture(server.ctx);
      const { access_token: token } = await inTransaction(server.ctx, (tx) =>
        issueUserToken(tx, server.tokens, fixture.adminId),
      );
      await inTransaction(server.ctx, (tx, now) =>
        updateCompany(tx, now, fixture.companyId, { apiAccess: 'off' }),
      );
      await expectProblem(await server.request(ME, { token }), 403, 'forbidden');
    });
  });

  describe('/me', () => {
    it('describes an API key token field by field', async () => {
      const fixture = await createCompanyFixture(server.ctx);
      const before = Math.floor(now() / 1000) * 1000;
      const token = await fetchToken(server, fixture.key.clientId, fixture.key.secret);
      const after = now();
      const response = await server.request(ME, { token });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const me = (await response.json()) as Json;
      expect(Object.keys(me).sort()).toEqual(
        [
          'principal',
          'id',
          'publicId',
          'companyId',
          'scopes',
          'tokenExpiresAt',
          'rateLimit',
          'dryRunHeader',
        ].sort(),
      );
      expect(me.principal).toBe('api_key');
      expect(me.id).toBe(fixture.key.id);
      expect(me.publicId).toBe(fixture.key.clientId);
      expect(me.publicId).toMatch(/^svc_/);
      expect(me.companyId).toBe(fixture.companyId);
      expect(me.scopes).toEqual([
        { id: 'attendance.record', permission: 86, label: expect.any(String) },
        { id: 'attendance.read', permission: 47, label: expect.any(String) },
        { id: 'employees.read', permission: 52, label: expect.any(String) },
      ]);
      const expiresAt = Date.parse(me.tokenExpiresAt as string);
      expect(me.tokenExpiresAt).toBe(new Date(expiresAt).toISOString());
      expect(expiresAt).toBeGreaterThanOrEqual(before + 900_000);
      expect(expiresAt).toBeLessThanOrEqual(after + 900_000);
      expect(me.rateLimit).toEqual({ requestsPerMinute: 300, tokenRequestsPerMinute: 60 });
      expect(me.dryRunHeader).toBe('X-Service-Dry-Run');
    });

    it('lists only the scopes the key holds', async () => {
      const fixture = await createCompanyFixture(server.ctx, { scopes: 'attendance.record' });
      const token = await fetchToken(server, fixture.key.clientId, fixture.key.secret);
      const me = (await (await server.request(ME, { token })).json()) as Json;
      expect(me.scopes).toEqual([{ id: 'attendance.record', permission: 86, label: expect.any(String) }]);
    });
  });
});

describe.each(testDialects().map((d) => [d.name, d] as const))('rate limits on %s', (_name, dialect) => {
  let server: TestServer;
  // Pinned: every request in a test happens at the same instant, so reset values are exact.
  let t = Date.now();

  beforeAll(async () => {
    server = await startTestServer(dialect, {
      env: { RATE_LIMIT_PER_MINUTE: '5', TOKEN_RATE_LIMIT_PER_MINUTE: '3' },
      now: () => t,
    });
  });
  afterAll(async () => server?.stop());

  it('sends the five headers in the spec form and answers the sixth request with 429', async () => {
    t += 10 * 60_000;
    const fixture = await createCompanyFixture(server.ctx);
    const token = await fetchToken(server, fixture.key.clientId, fixture.key.secret);
    for (let i = 1; i <= 5; i++) {
      const response = await server.request(ME, { token });
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit-policy')).toBe('apikey;q=5;w=60');
      expect(response.headers.get('ratelimit')).toBe(`limit=5, remaining=${5 - i}, reset=60`);
      expect(response.headers.get('x-ratelimit-limit')).toBe('5');
      expect(response.headers.get('x-ratelimit-remaining')).toBe(String(5 - i));
      expect(response.headers.get('x-ratelimit-reset')).toBe('60');
      if (i === 1) {
        const me = (await response.json()) as Json;
        expect(me.rateLimit).toEqual({ requestsPerMinute: 5, tokenRequestsPerMinute: 3 });
      }
    }
    const limited = await server.request(EMPLOYEES, { token });
    expect(limited.headers.get('retry-after')).toBe('60');
    expect(limited.headers.get('ratelimit')).toBe('limit=5, remaining=0, reset=60');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    const body = await expectProblem(limited, 429, 'rate_limited');
    expect(body.instance).toBe(EMPLOYEES);

    // The window slides: 20 seconds on, still limited with a shorter wait; a minute on, free again.
    t += 20_000;
    const later = await server.request(ME, { token });
    expect(later.status).toBe(429);
    expect(later.headers.get('retry-after')).toBe('40');
    t += 40_000;
    const free = await server.request(ME, { token });
    expect(free.status).toBe(200);
    expect(free.headers.get('ratelimit')).toBe('limit=5, remaining=4, reset=60');
  });

  it('counts each key separately', async () => {
    t += 10 * 60_000;
    const a = await createCompanyFixture(server.ctx);
    const b = await createCompanyFixture(server.ctx, { name: 'B' });
    const tokenA = await fetchToken(server, a.key.clientId, a.key.secret);
    const tokenB = await fetchToken(server, b.key.clientId, b.key.secret);
    for (let i = 0; i < 5; i++) expect((await server.request(ME, { token: tokenA })).status).toBe(200);
    expect((await server.request(ME, { token: tokenA })).status).toBe(429);
    expect((await server.request(ME, { token: tokenB })).status).toBe(200);
  });

  it('limits the token endpoint per key and answers in the OAuth JSON form', async () => {
    t += 10 * 60_000;
    const fixture = await createCompanyFixture(server.ctx);
    for (let i = 1; i <= 3; i++) {
      const response = await tokenRequest(server, credentials(fixture));
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit-policy')).toBe('apikey;q=3;w=60');
      expect(response.headers.get('ratelimit')).toBe(`limit=3, remaining=${3 - i}, reset=60`);
      expect(response.headers.get('x-ratelimit-remaining')).toBe(String(3 - i));
    }
    const limited = await tokenRequest(server, credentials(fixture));
    expect(limited.headers.get('retry-after')).toBe('60');
    const body = await expectOAuthError(limited, 429, 'rate_limited');
    expect(body).not.toHaveProperty('type');
  });

  it('does not let failed attempts with a public client id lock the key out', async () => {
    t += 10 * 60_000;
    const fixture = await createCompanyFixture(server.ctx);
    const wrong = credentials(fixture, { client_secret: `${fixture.key.secret}x` });
    for (let i = 0; i < 3; i++)
      await expectOAuthError(await tokenRequest(server, wrong), 401, 'invalid_client');
    // The prober is limited (per address) ...
    await expectOAuthError(await tokenRequest(server, wrong), 429, 'rate_limited');
    // ... while the holder of the secret still gets its own three tokens.
    for (let i = 0; i < 3; i++) expect((await tokenRequest(server, credentials(fixture))).status).toBe(200);
    await expectOAuthError(await tokenRequest(server, credentials(fixture)), 429, 'rate_limited');
  });

  it('sends the headers, with the quota untouched, on responses that charge no key', async () => {
    t += 10 * 60_000;
    const untouched = (response: Response, limit: number) => {
      expect(response.headers.get('ratelimit-policy')).toBe(`apikey;q=${limit};w=60`);
      expect(response.headers.get('ratelimit')).toBe(`limit=${limit}, remaining=${limit}, reset=0`);
      expect(response.headers.get('x-ratelimit-limit')).toBe(String(limit));
      expect(response.headers.get('x-ratelimit-remaining')).toBe(String(limit));
      expect(response.headers.get('x-ratelimit-reset')).toBe('0');
    };
    const anonymous = await server.request(ME);
    await expectProblem(anonymous, 401, 'invalid_token');
    untouched(anonymous, 5);
    const forged = await server.request(ME, { token: 'not.a.token' });
    await expectProblem(forged, 401, 'invalid_token');
    untouched(forged, 5);
    const unknownRoute = await fetch(`${server.url}/api/public/v1/no-such-thing`);
    expect(unknownRoute.status).toBe(404);
    untouched(unknownRoute, 5);
    const undecodable = await fetch(`${server.url}/api/public/v1/%E0%A4%A`);
    expect(undecodable.status).toBe(400);
    untouched(undecodable, 5);
    const description = await fetch(`${server.url}/api/public/v1/openapi.json`);
    expect(description.status).toBe(200);
    untouched(description, 5);
    const page = await fetch(`${server.url}/api/public/v1/docs`, { redirect: 'manual' });
    untouched(page, 5);
    const pageAsset = await fetch(`${server.url}/api/public/v1/docs/static/swagger-ui.css`);
    expect(pageAsset.status).toBe(200);
    untouched(pageAsset, 5);
    // The token endpoint's own policy, for a request refused before any key is known.
    const noGrant = await tokenRequest(server, form({ client_id: 'svc_1' }));
    await expectOAuthError(noGrant, 400, 'invalid_request');
    untouched(noGrant, 3);

    // Malformed HTTP never reaches the router; its raw answer carries them too.
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(server.url).port), '127.0.0.1', () =>
        socket.write('GET /api/public/v1/me HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'),
      );
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString('utf8')));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(raw).toContain('\r\nRateLimit-Policy: apikey;q=5;w=60\r\n');
    expect(raw).toContain('\r\nRateLimit: limit=5, remaining=5, reset=0\r\n');
  });

  it("shows a refused token's key quota as it stands, without charging it", async () => {
    t += 10 * 60_000;
    const fixture = await createCompanyFixture(server.ctx);
    const token = await fetchToken(server, fixture.key.clientId, fixture.key.secret);
    for (let i = 0; i < 2; i++) expect((await server.request(ME, { token })).status).toBe(200);
    await inTransaction(server.ctx, (tx, now) =>
      updateCompany(tx, now, fixture.companyId, { apiAccess: 'off' }),
    );
    for (let i = 0; i < 2; i++) {
      const forbidden = await server.request(ME, { token });
      await expectProblem(forbidden, 403, 'forbidden');
      expect(forbidden.headers.get('ratelimit')).toBe('limit=5, remaining=3, reset=60');
    }
    await inTransaction(server.ctx, (tx, now) =>
      updateCompany(tx, now, fixture.companyId, { apiAccess: 'on' }),
    );
    await inTransaction(server.ctx, (tx, now) => revokeApiKey(tx, now, fixture.key.id));
    for (let i = 0; i < 2; i++) {
      const refused = await server.request(EMPLOYEES, { token });
      await expectProblem(refused, 401, 'invalid_token');
      expect(refused.headers.get('ratelimit-policy')).toBe('apikey;q=5;w=60');
      expect(refused.headers.get('ratelimit')).toBe('limit=5, remaining=3, reset=60');
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('3');
    }
  });

  it('limits unknown clients per address', async () => {
    t += 10 * 60_000;
    const unknown = form({ grant_type: 'client_credentials', client_secret: `svc_${'f'.repeat(24)}_x` });
    for (let i = 0; i < 3; i++)
      await expectOAuthError(await tokenRequest(server, unknown), 401, 'invalid_client');
    const limited = await tokenRequest(server, unknown);
    expect(limited.headers.get('retry-after')).toBe('60');
    await expectOAuthError(limited, 429, 'rate_limited');
  });
});
