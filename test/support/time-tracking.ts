import { sql } from 'kysely';
import type { Store } from '../../src/db/database.js';
import type { TimeEntryRow } from '../../src/db/schema.js';
import { createApiKey } from '../../src/use-cases/admin/api-keys.js';
import type { UseCaseContext } from '../../src/use-cases/context.js';
import { type CompanyFixture, createCompanyFixture, fetchToken, type TestServer } from './server.js';

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

export interface WriteResultBody {
  timeEntryId: string | null;
  employee: { id: string; externalId: string | null };
  type: string;
  workDate: string;
  time: string;
  timeZone: string;
  occurredAt: string;
  endsNextDay: boolean;
  status: string;
  dryRun: boolean;
  startTime: string | null;
  endTime: string | null;
  totalHours: number | null;
}

export interface ProblemResponseBody {
  type: string;
  title: string;
  status: number;
  detail: string | null;
  instance: string | null;
  code: number;
  error: string;
  correlationId: string | null;
  errors: { field: string; message: string; code: string | null }[] | null;
}

export interface TimeEntryItem {
  id: string;
  employee: { id: string; externalId: string | null };
  workDate: string;
  startTime: string;
  endTime: string | null;
  endsNextDay: boolean;
  totalHours: number;
  breakMinutes: number | null;
  status: string;
  source: string;
  approvedAt: string | null;
  createdAt: string;
}

export interface PageBody {
  items: TimeEntryItem[];
  nextCursor: string | null;
  hasMore: boolean;
}

/** Every body shape an endpoint under test answers with; tests read the fields they expect. */
export type AnyBody = Partial<WriteResultBody> & Partial<ProblemResponseBody> & Partial<PageBody>;

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  body: AnyBody;
}

export async function call(
  server: { listenUrl: string },
  token: string,
  method: 'GET' | 'POST',
  path: string,
  json?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const h = new Headers(headers);
  h.set('authorization', `Bearer ${token}`);
  if (json !== undefined) h.set('content-type', 'application/json');
  const response = await fetch(`${server.listenUrl}${path}`, {
    method,
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
  target: { listenUrl: string } = server,
): Promise<Tenant> {
  const fixture = await createCompanyFixture(server.ctx, options);
  return tenantFor(server, fixture, fixture.key, target);
}

export async function tenantFor(
  server: TestServer,
  fixture: CompanyFixture,
  key: { clientId: string; secret: string },
  target: { listenUrl: string } = server,
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

/** A second key of the fixture's company (same scopes). */
export async function secondKey(ctx: UseCaseContext, fixture: CompanyFixture, name = 'second key') {
  const key = await createApiKey(ctx, {
    companyId: fixture.companyId,
    createdBy: fixture.adminId,
    name,
    scopes: 'attendance.record,attendance.read,employees.read',
  });
  return { id: key.id, clientId: key.clientId, secret: key.secret };
}

export async function entryRows(store: Store, employeeId: string): Promise<TimeEntryRow[]> {
  return store.db
    .selectFrom('time_entries')
    .selectAll()
    .where('employee_id', '=', employeeId)
    .orderBy('start_at')
    .execute();
}

export async function countRows(
  store: Store,
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
