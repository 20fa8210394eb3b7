import type { Static } from '@sinclair/typebox';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import type { Database } from '../../src/platform/db/database.js';
import type { IdempotencyRecordRow, TimeEntryRow } from '../../src/platform/db/schema.js';
import type { ProblemResponseBody } from './api.js';
import type { TestDialect } from './databases.js';
import {
  type CompanyFixture,
  createCompanyFixture,
  fetchToken,
  startTestServer,
  type TestServer,
} from './server.js';
import type {
  TimeEntryPageSchema,
  TimeEntrySchema,
  WriteResultSchema,
} from '../../src/modules/time-tracking/schemas.js';

/** Shared helpers for the HTTP tests of the time-tracking endpoints. */

export const EVENTS = '/api/public/v1/time-clock/events';
export const ENTRIES = '/api/public/v1/time-entries';

export const WRITE_RESULT_KEYS = [
  'dryRun',
  'employee',
  'endTime',
  'endsNextDay',
  'occurredAt',
  'startTime',
  'status',
  'time',
  'timeEntryId',
  'timeZone',
  'totalHours',
  'type',
  'workDate',
].sort();

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// The response bodies as the published description declares them.
export type WriteResultBody = Static<typeof WriteResultSchema>;
export type TimeEntryItem = Static<typeof TimeEntrySchema>;
export type PageBody = Static<typeof TimeEntryPageSchema>;

/** Every body shape an endpoint under test answers with; tests read the fields they expect. */
export type AnyBody = Partial<WriteResultBody> & Partial<ProblemResponseBody> & Partial<PageBody>;

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  body: AnyBody;
}

/** A request through the server's contract-checking requester: every response is held to the description. */
export async function call(
  server: Pick<TestServer, 'request'>,
  token: string,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  json?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const h = new Headers(headers);
  if (json !== undefined) h.set('content-type', 'application/json');
  const response = await server.request(path, {
    method,
    token,
    headers: h,
    ...(json !== undefined ? { body: typeof json === 'string' ? json : JSON.stringify(json) } : {}),
  });
  const text = await response.text();
  let body: AnyBody = {};
  try {
    body = text === '' ? {} : (JSON.parse(text) as AnyBody);
  } catch {
    body = {};
  }
  return { status: response.status, headers: response.headers, text, body };
}

/** A company fixture with a token for its key, plus shortcuts for the three endpoints. */
export interface Tenant {
  fixture: CompanyFixture;
  token: string;
  employeeId: string;
  /** `body` as a string is sent verbatim. */
  clock(body: Record<string, unknown> | string, headers?: Record<string, string>): Promise<Reply>;
  shift(body: Record<string, unknown>, headers?: Record<string, string>): Promise<Reply>;
  list(query: Record<string, string | number>): Promise<Reply>;
  refreshToken(): Promise<void>;
}

export async function createTenant(
  server: TestServer,
  options: Parameters<typeof createCompanyFixture>[1] = {},
  target: Pick<TestServer, 'request'> = server,
): Promise<Tenant> {
  const fixture = await createCompanyFixture(server.ctx, options);
  return tenantFor(server, fixture, fixture.key, target);
}

export async function tenantFor(
  server: TestServer,
  fixture: CompanyFixture,
  key: { clientId: string; secret: string },
  target: Pick<TestServer, 'request'> = server,
): Promise<Tenant> {
  const tenant: Tenant = {
    fixture,
    token: await fetchToken(server, key.clientId, key.secret),
    employeeId: fixture.employees[0]!.id,
    clock: (body, headers) => call(target, tenant.token, 'POST', EVENTS, body, headers),
    shift: (body, headers) => call(target, tenant.token, 'POST', ENTRIES, body, headers),
    list: (query) =>
      call(
        target,
        tenant.token,
        'GET',
        `${ENTRIES}?${new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString()}`,
      ),
    async refreshToken() {
      tenant.token = await fetchToken(server, key.clientId, key.secret);
    },
  };
  return tenant;
}

/** The instant the time-tracking tests start at: Tuesday 10 Nov 2026, 13:00 in Berlin. */
export const T0 = Date.parse('2026-11-10T12:00:00Z');

/** A server for the tests of one describe block, with a clock they may move. */
export interface TimeTrackingSuite {
  /** Started before the block's first test, stopped after its last. */
  readonly server: TestServer;
  /** The server's clock (ms since the epoch); put back to the start before every test. */
  now: number;
  /** A company in Europe/Berlin (plus `options`) with a token for its key. */
  berlin(options?: Parameters<typeof createCompanyFixture>[1]): Promise<Tenant>;
  /** `entryRows` on the server's store. */
  rows(employeeId: string): Promise<TimeEntryRow[]>;
  /** `countRows` on the server's store. */
  count(table: Parameters<typeof countRows>[1]): Promise<number>;
  /** `auditRows` on the server's store. */
  audit(targetId: string): ReturnType<typeof auditRows>;
  /**
   * Stores the record of `tenant`'s key `key` as the idempotency layer would: a request in flight
   * since now, kept a day, unless `fields` say otherwise.
   */
  keyRecord(
    tenant: Tenant,
    key: string,
    fields: Partial<IdempotencyRecordRow> & Pick<IdempotencyRecordRow, 'request_hash'>,
  ): Promise<void>;
}

/**
 * Registers the hooks of the enclosing describe block: a server on `dialect` whose clock is
 * `suite.now` (reset to `start`, by default T0, before each test) and whose rate limit is out of
 * the way unless `env` sets it (`env` overrides configuration).
 */
export function timeTrackingSuite(
  dialect: TestDialect,
  options: { start?: number; env?: Record<string, string> } = {},
): TimeTrackingSuite {
  const start = options.start ?? T0;
  let server: TestServer | undefined;
  const suite: TimeTrackingSuite = {
    get server() {
      if (!server) throw new Error('the server is started in beforeAll');
      return server;
    },
    now: start,
    berlin: (tenantOptions = {}) =>
      createTenant(suite.server, { timeZone: 'Europe/Berlin', ...tenantOptions }),
    rows: (employeeId) => entryRows(suite.server.database, employeeId),
    count: (table) => countRows(suite.server.database, table),
    audit: (targetId) => auditRows(suite.server.database, targetId),
    keyRecord: async (tenant, key, fields) => {
      await suite.server.database.db
        .insertInto('idempotency_records')
        .values({
          company_id: tenant.fixture.companyId,
          api_key_id: tenant.fixture.key.id,
          idempotency_key: key,
          state: 'in_flight',
          response_status: null,
          response_body: null,
          created_at: iso(suite.now),
          expires_at: iso(suite.now + DAY),
          ...fields,
        })
        .execute();
    },
  };
  beforeAll(async () => {
    server = await startTestServer(dialect, {
      now: () => suite.now,
      env: { RATE_LIMIT_PER_MINUTE: '100000', ...options.env },
    });
  });
  afterAll(async () => server?.stop());
  beforeEach(() => {
    suite.now = start;
  });
  return suite;
}

type Fields = Record<string, unknown>;

/** The fields of a write for the tenant's first employee, named by id; `fields` may replace `employee`. */
const forFirstEmployee = (tenant: Tenant, fields: Fields): Fields => ({
  employee: { id: tenant.employeeId },
  ...fields,
});

/** A clock-event body; `extra` adds fields or replaces them. */
export const eventBody = (tenant: Tenant, type: string, occurredAt: string, extra: Fields = {}) =>
  forFirstEmployee(tenant, { type, occurredAt, ...extra });

/** POST /time-clock/events with `eventBody(tenant, type, occurredAt, extra)`. */
export const punch = (tenant: Tenant, type: string, occurredAt: string, extra: Fields = {}) =>
  tenant.clock(eventBody(tenant, type, occurredAt, extra));

/** A shift body; `extra` adds fields or replaces them. */
export const shiftBody = (tenant: Tenant, clockIn: string, clockOut: string, extra: Fields = {}) =>
  forFirstEmployee(tenant, { clockIn, clockOut, ...extra });

/** POST /time-entries with `shiftBody(tenant, clockIn, clockOut, extra)`. */
export const shift = (tenant: Tenant, clockIn: string, clockOut: string, extra: Fields = {}) =>
  tenant.shift(shiftBody(tenant, clockIn, clockOut, extra));

/** `replay` is `original`'s stored result again: `status`, the same bytes, marked Idempotent-Replayed. */
export function expectReplay(replay: Reply, original: Reply, status: number): void {
  expect(replay.status).toBe(status);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(replay.text).toBe(original.text);
}

export async function entryRows(store: Database, employeeId: string): Promise<TimeEntryRow[]> {
  return store.db
    .selectFrom('time_entries')
    .selectAll()
    .where('employee_id', '=', employeeId)
    .orderBy('start_at')
    .execute();
}

/** The audit-log rows about one target (an entry, an employee, …). */
export function auditRows(store: Database, targetId: string) {
  return store.db.selectFrom('audit_log').selectAll().where('target_id', '=', targetId).execute();
}

export async function countRows(
  store: Database,
  table: 'time_entries' | 'audit_log' | 'idempotency_records',
): Promise<number> {
  const row = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}`.execute(
    store.db,
  );
  return Number(row.rows[0]?.n ?? 0);
}

export const iso = (ms: number) => new Date(ms).toISOString();
export const MINUTE = 60_000;
export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
