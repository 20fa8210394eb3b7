import type { Static } from '@sinclair/typebox';
import { expect } from 'vitest';
import type { RevisionSchema } from '../../src/modules/corrections/schemas.js';
import { inTransaction } from '../../src/modules/context.js';
import { createUser, issueUserToken } from '../../src/modules/people/users.js';
import type { TestServer } from './server.js';
import { call, ENTRIES, type Reply, type Tenant, type TimeTrackingSuite } from './time-tracking.js';

/** Shared helpers of the corrections tests (issue 30). */

export const MANAGE_SCOPES = 'attendance.record,attendance.read,employees.read,attendance.manage';
export const PERIODS = '/api/public/v1/locked-periods';
export type Revision = Static<typeof RevisionSchema>;

type Body = Record<string, unknown>;

/** A Berlin company whose key may also manage entries. */
export const managing = (suite: TimeTrackingSuite) => suite.berlin({ scopes: MANAGE_SCOPES });

export const entryPath = (id: string) => `${ENTRIES}/${id}`;

export function readEntry(server: TestServer, token: string, id: string): Promise<Reply> {
  return call(server, token, 'GET', entryPath(id));
}

export function correct(
  server: TestServer,
  token: string,
  id: string,
  body: Body,
  headers: Record<string, string> = {},
): Promise<Reply> {
  return call(server, token, 'PATCH', entryPath(id), body, headers);
}

export function decide(
  server: TestServer,
  token: string,
  id: string,
  decision: 'approve' | 'reject' | 'reopen',
  body?: Body,
  headers: Record<string, string> = {},
): Promise<Reply> {
  return call(server, token, 'POST', `${entryPath(id)}/${decision}`, body, headers);
}

export function remove(
  server: TestServer,
  token: string,
  id: string,
  body: Body,
  headers: Record<string, string> = {},
): Promise<Reply> {
  return call(server, token, 'DELETE', entryPath(id), body, headers);
}

export async function revisions(server: TestServer, token: string, id: string): Promise<Revision[]> {
  const reply = await call(server, token, 'GET', `${entryPath(id)}/revisions`);
  expect(reply.status, reply.text).toBe(200);
  return (reply.body as unknown as { items: Revision[] }).items;
}

/** The company's change feed from the oldest event, of the given types. */
export async function feed(server: TestServer, token: string, types: string) {
  const reply = await call(server, token, 'GET', `/api/public/v1/changes?limit=100&types=${types}`);
  expect(reply.status, reply.text).toBe(200);
  return (reply.body as unknown as { items: { type: string; data: Record<string, unknown> }[] }).items;
}

/** A person of the tenant's company with `permissions`, optionally linked to an employee, and their own token. */
export async function personToken(
  server: TestServer,
  tenant: Tenant,
  options: { permissions: string; employeeId?: string; email?: string },
): Promise<{ id: string; token: string }> {
  const user = await inTransaction(server.ctx, (tx, now) =>
    createUser(tx, now, {
      companyId: tenant.fixture.companyId,
      email: options.email ?? `person-${crypto.randomUUID()}@acme.example`,
      permissions: options.permissions,
      ...(options.employeeId ? { employee: options.employeeId } : {}),
    }),
  );
  const token = await inTransaction(server.ctx, (tx) => issueUserToken(tx, server.tokens, user.id));
  return { id: user.id, token: token.access_token };
}

/** The id of a reply's written entry (a punch's or a shift's). */
export function entryIdOf(reply: Reply): string {
  expect([200, 201], reply.text).toContain(reply.status);
  return reply.body.timeEntryId!;
}
