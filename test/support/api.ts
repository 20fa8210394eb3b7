import { inTransaction } from '../../src/modules/context.js';
import type { Static } from '@sinclair/typebox';
import { expect } from 'vitest';
import type { ProblemSchema } from '../../src/http/schemas/common.js';
import type { AppContext } from '../../src/modules/context.js';
import type { CompanyFixture } from './server.js';
import { createApiKey } from '../../src/modules/api-keys/service.js';

/** Shared helpers for the HTTP tests of every endpoint. */

export type Json = Record<string, unknown>;

/** A problem document (RFC 9457), as the published description declares it. */
export type ProblemResponseBody = Static<typeof ProblemSchema>;

/**
 * Asserts that `response` is a problem document for `error` with `status`: the media type, the
 * status and error name in the body, the `type` URI named after the error, a numeric code and a
 * correlation id. Returns the body for further checks.
 */
export async function expectProblem(
  response: Response,
  status: number,
  error: string,
): Promise<ProblemResponseBody> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = (await response.json()) as ProblemResponseBody;
  expect(body.error).toBe(error);
  expect(body.status).toBe(status);
  expect(body.type).toMatch(new RegExp(`/${error.replaceAll('_', '-')}$`));
  expect(typeof body.code).toBe('number');
  expect(typeof body.correlationId).toBe('string');
  return body;
}

/**
 * Another API key of the fixture's company, created by its admin: by default named "second key"
 * with the fixture key's three scopes; `options` may set the name, scopes, expiry or IP allowlist.
 */
export async function secondKey(
  ctx: AppContext,
  fixture: CompanyFixture,
  options: { name?: string; scopes?: string; expires?: string; allowIp?: string } = {},
): Promise<{ id: string; clientId: string; secret: string }> {
  const key = await inTransaction(ctx, (tx, now) =>
    createApiKey(tx, now, {
      companyId: fixture.companyId,
      createdBy: fixture.adminId,
      name: 'second key',
      scopes: 'attendance.record,attendance.read,employees.read',
      ...options,
    }),
  );
  return { id: key.id, clientId: key.clientId, secret: key.secret };
}
