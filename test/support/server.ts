import type { Logger } from 'pino';
import { inTransaction } from '../../src/modules/context.js';
import { loadConfig } from '../../src/platform/config.js';
import { startServer } from '../../src/app/server.js';
import type { AppContext } from '../../src/modules/context.js';
import { ContractChecker } from './contract.js';
import type { TestDatabase, TestDialect } from './databases.js';
import { createApiKey } from '../../src/modules/api-keys/service.js';
import { createCompany, createSchedule, createWorkplace } from '../../src/modules/companies/service.js';
import { createEmployee } from '../../src/modules/employees/changes.js';
import { createUser } from '../../src/modules/people/users.js';

export type TestServer = Awaited<ReturnType<typeof startServer>> & {
  testDatabase: TestDatabase;
  ctx: AppContext;
  /**
   * fetch against the running server; `path` is relative to the base URL. Every response is held to
   * the published OpenAPI description (status, media type, body schema); a mismatch fails the test.
   */
  request(path: string, init?: RequestInit & { token?: string; json?: unknown }): Promise<Response>;
  stop(): Promise<void>;
};

/**
 * A real server on a fresh database of the dialect, listening on a free port. `env` overrides
 * configuration (e.g. RATE_LIMIT_PER_MINUTE); `now` pins the clock for time-dependent rules.
 */
export async function startTestServer(
  dialect: TestDialect,
  options: { env?: Record<string, string>; now?: () => number; logger?: Logger } = {},
): Promise<TestServer> {
  const database = await dialect.create();
  const server = await startInstance(database, options);
  return {
    ...server,
    async stop() {
      await server.stop();
      await database.drop();
    },
  };
}

/**
 * One more server on an existing database, shaped like a TestServer; its `stop` leaves the database
 * (it does not own it). Same configuration as startTestServer's.
 */
export async function startInstance(
  database: TestDatabase,
  options: { env?: Record<string, string>; now?: () => number; logger?: Logger } = {},
): Promise<TestServer> {
  // Overload shedding is off unless a test turns it on: test code shares the server's event loop.
  const config = loadConfig({
    DATABASE_URL: database.url,
    PORT: '0',
    LOG_LEVEL: 'silent',
    OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
    ...options.env,
  });
  const server = await startServer(config, {
    logger: options.logger ?? false,
    ...(options.now ? { now: options.now } : {}),
  });
  const ctx: AppContext = { database: server.database, now: options.now ?? Date.now };
  return {
    ...server,
    testDatabase: database,
    ctx,
    request: contractRequester(server),
    stop: () => server.close(),
  };
}

/** TestServer['request'] for a started server: every response is checked against its description. */
export function contractRequester(server: {
  app: { swagger(): unknown };
  listenUrl: string;
}): TestServer['request'] {
  const contract = new ContractChecker(server.app.swagger() as Record<string, unknown>);
  return async (path, init = {}) => {
    const headers = new Headers(init.headers);
    if (init.token) headers.set('authorization', `Bearer ${init.token}`);
    let body = init.body;
    if (init.json !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(init.json);
    }
    const response = await fetch(`${server.listenUrl}${path}`, { ...init, headers, body });
    const violation = contract.check(
      init.method ?? 'GET',
      path,
      response.status,
      response.headers.get('content-type'),
      await response.clone().text(),
    );
    if (violation) throw new Error(`response outside the OpenAPI description: ${violation}`);
    return response;
  };
}

export interface CompanyFixture {
  companyId: string;
  workplaceId: string;
  scheduleId: string;
  adminId: string;
  employees: { id: string; externalId: string | null }[];
  key: { id: string; clientId: string; secret: string };
}

/** A company with a workplace in `timeZone`, a schedule, `employeeCount` employees and an all-scope key. */
export async function createCompanyFixture(
  ctx: AppContext,
  options: {
    name?: string;
    timeZone?: string;
    workplaceTimeZone?: string | null;
    employeeCount?: number;
    scopes?: string;
  } = {},
): Promise<CompanyFixture> {
  const company = await inTransaction(ctx, (tx, now) =>
    createCompany(tx, now, {
      name: options.name ?? 'Acme',
      ...(options.timeZone ? { timeZone: options.timeZone } : {}),
    }),
  );
  const workplace = await inTransaction(ctx, (tx, now) =>
    createWorkplace(tx, now, {
      companyId: company.id,
      name: 'Site',
      ...(options.workplaceTimeZone ? { timeZone: options.workplaceTimeZone } : {}),
    }),
  );
  const schedule = await inTransaction(ctx, (tx, now) =>
    createSchedule(tx, now, { companyId: company.id, name: 'Full time', weeklyHours: '40' }),
  );
  const employees = [];
  for (let i = 0; i < (options.employeeCount ?? 2); i++) {
    const e = await inTransaction(ctx, (tx, now) =>
      createEmployee(tx, now, company.id, {
        email: `e${i}@acme.example`,
        firstName: `First${i}`,
        lastName: `Last${i}`,
        externalId: `EXT-${i}`,
        workplace: workplace.id,
        schedule: schedule.id,
      }),
    );
    employees.push({ id: e.id, externalId: e.externalId });
  }
  const admin = await inTransaction(ctx, (tx, now) =>
    createUser(tx, now, {
      companyId: company.id,
      email: 'admin@acme.example',
      permissions: '86,47,49,52,72,90',
      superAdmin: true,
    }),
  );
  const key = await inTransaction(ctx, (tx, now) =>
    createApiKey(tx, now, {
      companyId: company.id,
      createdBy: admin.id,
      name: 'test key',
      scopes: options.scopes ?? 'attendance.record,attendance.read,employees.read',
    }),
  );
  return {
    companyId: company.id,
    workplaceId: workplace.id,
    scheduleId: schedule.id,
    adminId: admin.id,
    employees,
    key: { id: key.id, clientId: key.clientId, secret: key.secret },
  };
}

export async function fetchToken(server: TestServer, clientId: string, secret: string): Promise<string> {
  const response = await server.request('/api/public/v1/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: secret,
    }).toString(),
  });
  if (response.status !== 200)
    throw new Error(`token request failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}
