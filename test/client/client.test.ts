import { inTransaction } from '../../src/modules/context.js';
// The typed client (client/src) against a real server, on every test database: token caching and
// renewal, Idempotency-Key on every write (reused on the client's own retries), 429 Retry-After,
// cursor paging, typed errors and dry runs. A wrapping `fetch` records what went over the wire.
import { describe, expect, it } from 'vitest';
import {
  createPunchclockClient,
  type PunchclockClient,
  type PunchclockClientOptions,
  PunchclockError,
} from '../../client/src/index.js';
import { ContractChecker } from '../support/contract.js';
import { testDialects } from '../support/databases.js';
import { type CompanyFixture, createCompanyFixture, type TestServer } from '../support/server.js';
import { HOUR, iso, MINUTE, T0, timeTrackingSuite, UUID } from '../support/time-tracking.js';
import { revokeApiKey } from '../../src/modules/api-keys/service.js';
const TOKEN_PATH = '/api/public/v1/oauth/token';

interface Exchange {
  method: string;
  url: string;
  path: string;
  headers: Headers;
  body: string;
  status: number;
  responseHeaders: Headers;
}

/**
 * A `fetch` for the client that records every request and its answer, and holds every answer to the
 * server's published description; `failNextRequests` simulates dropped connections.
 */
function recorder(contract: ContractChecker) {
  const exchanges: Exchange[] = [];
  let failNext = 0;
  return {
    exchanges,
    failNextRequests(count: number) {
      failNext = count;
    },
    async fetch(request: Request): Promise<Response> {
      const body = await request.clone().text();
      const record = (status: number, responseHeaders: Headers) =>
        exchanges.push({
          method: request.method,
          url: request.url,
          path: new URL(request.url).pathname,
          headers: new Headers(request.headers),
          body,
          status,
          responseHeaders,
        });
      if (failNext > 0) {
        failNext--;
        record(0, new Headers());
        throw new TypeError('fetch failed (simulated)');
      }
      const response = await fetch(request);
      const violation = contract.check(
        request.method,
        request.url,
        response.status,
        response.headers.get('content-type'),
        await response.clone().text(),
      );
      if (violation) throw new Error(`response outside the OpenAPI description: ${violation}`);
      record(response.status, response.headers);
      return response;
    },
    tokenRequests() {
      return exchanges.filter((e) => e.path === TOKEN_PATH);
    },
    resourceRequests() {
      return exchanges.filter((e) => e.path !== TOKEN_PATH);
    },
    writes() {
      return exchanges.filter((e) => e.path !== TOKEN_PATH && e.method !== 'GET');
    },
  };
}

async function caught(promise: Promise<unknown>): Promise<PunchclockError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(PunchclockError);
    return error as PunchclockError;
  }
  throw new Error('expected the call to fail');
}

describe.each(testDialects().map((d) => [d.name, d] as const))('typed client on %s', (_name, dialect) => {
  const suite = timeTrackingSuite(dialect);

  const contracts = new WeakMap<TestServer, ContractChecker>();
  function contractOf(target: TestServer): ContractChecker {
    let contract = contracts.get(target);
    if (!contract) {
      contract = new ContractChecker(target.app.swagger() as Record<string, unknown>);
      contracts.set(target, contract);
    }
    return contract;
  }

  function connect(
    fixture: CompanyFixture,
    options: Partial<PunchclockClientOptions> = {},
    target: TestServer = suite.server,
  ) {
    const wire = recorder(contractOf(target));
    const client = createPunchclockClient({
      baseUrl: target.listenUrl,
      clientId: fixture.key.clientId,
      clientSecret: fixture.key.secret,
      fetch: (request) => wire.fetch(request),
      sleep: async () => {},
      ...options,
    });
    return { client, wire };
  }

  const company = (options: Parameters<typeof createCompanyFixture>[1] = {}) =>
    createCompanyFixture(suite.server.ctx, { timeZone: 'Europe/Berlin', ...options });

  function assertNoSecretsInUrls(wire: ReturnType<typeof recorder>, fixture: CompanyFixture) {
    for (const exchange of wire.exchanges) {
      expect(exchange.url).not.toContain(fixture.key.secret);
      expect(new URL(exchange.url).search).not.toMatch(/secret|token|grant_type/);
      const bearer = exchange.headers.get('authorization');
      if (bearer) expect(exchange.url).not.toContain(bearer.replace(/^Bearer /, ''));
    }
  }

  describe('token', () => {
    it('is fetched once with client credentials in a form body and cached across calls', async () => {
      const fixture = await company();
      const { client, wire } = connect(fixture);

      const me = await client.me();
      expect(me).toMatchObject({ principal: 'api_key', id: fixture.key.id, publicId: fixture.key.clientId });
      expect(me.scopes.map((s) => s.id).sort()).toEqual([
        'attendance.read',
        'attendance.record',
        'employees.read',
      ]);
      await client.listEmployees({ limit: 1 });
      await client.recordClockEvent(
        { employee: { id: fixture.employees[0]!.id }, type: 'clock_in', occurredAt: iso(T0 - HOUR) },
        { dryRun: true },
      );
      await client.listTimeEntries({ employeeId: fixture.employees[0]!.id });

      const tokens = wire.tokenRequests();
      expect(tokens).toHaveLength(1);
      expect(tokens[0]!.method).toBe('POST');
      expect(tokens[0]!.headers.get('content-type')).toBe('application/x-www-form-urlencoded');
      expect(Object.fromEntries(new URLSearchParams(tokens[0]!.body))).toEqual({
        grant_type: 'client_credentials',
        client_id: fixture.key.clientId,
        client_secret: fixture.key.secret,
      });
      const resources = wire.resourceRequests();
      expect(resources).toHaveLength(4);
      const bearers = new Set(resources.map((r) => r.headers.get('authorization')));
      expect(bearers.size).toBe(1);
      expect([...bearers][0]).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
      assertNoSecretsInUrls(wire, fixture);
    });

    it('is shared by concurrent calls: one token request for many calls at once', async () => {
      const fixture = await company();
      const { client, wire } = connect(fixture);
      await Promise.all([client.me(), client.me(), client.listEmployees(), client.me()]);
      expect(wire.tokenRequests()).toHaveLength(1);
    });

    it('is renewed shortly before expires_in runs out, by the client clock', async () => {
      const fixture = await company();
      let clientNow = T0;
      const { client, wire } = connect(fixture, { now: () => clientNow });

      await client.me();
      clientNow += 800_000; // 800 s of 900: still good
      await client.me();
      expect(wire.tokenRequests()).toHaveLength(1);
      clientNow += 90_000; // 890 s: inside the renewal margin
      await client.me();
      expect(wire.tokenRequests()).toHaveLength(2);
      clientNow += 901_000; // past the second token's lifetime
      await client.me();
      expect(wire.tokenRequests()).toHaveLength(3);
      // every call ran once: none was refused
      expect(wire.resourceRequests().map((r) => r.status)).toEqual([200, 200, 200, 200]);
      const bearers = wire.resourceRequests().map((r) => r.headers.get('authorization'));
      expect(new Set(bearers).size).toBe(3);
    });

    it('is dropped and renewed once on a 401, and the call is retried with the new token', async () => {
      const fixture = await company();
      // The client's clock stands still; the server's moves past the token's 15 minutes, so the
      // server refuses the cached token (401 invalid_token) before the client thinks it expired.
      const { client, wire } = connect(fixture, { now: () => T0 });
      await client.me();
      suite.now = T0 + 16 * MINUTE;
      const page = await client.listEmployees();
      expect(page.items).toHaveLength(2);

      expect(wire.tokenRequests()).toHaveLength(2);
      const calls = wire.resourceRequests();
      expect(calls.map((c) => [c.path, c.status])).toEqual([
        ['/api/public/v1/me', 200],
        ['/api/public/v1/employees', 401],
        ['/api/public/v1/employees', 200],
      ]);
      expect(calls[1]!.headers.get('authorization')).toBe(calls[0]!.headers.get('authorization'));
      expect(calls[2]!.headers.get('authorization')).not.toBe(calls[1]!.headers.get('authorization'));
    });

    it('a write refused with 401 is retried after renewal with the same Idempotency-Key', async () => {
      const fixture = await company();
      const { client, wire } = connect(fixture, { now: () => T0 });
      await client.me();
      suite.now = T0 + 16 * MINUTE;
      const result = await client.recordClockEvent({
        employee: { externalId: 'EXT-0' },
        type: 'clock_in',
        occurredAt: iso(suite.now - 5 * MINUTE),
      });
      expect(result).toMatchObject({ type: 'clock_in', status: 'open', dryRun: false });
      const writes = wire.writes();
      expect(writes.map((w) => w.status)).toEqual([401, 201]);
      expect(writes[0]!.headers.get('idempotency-key')).toMatch(UUID);
      expect(writes[1]!.headers.get('idempotency-key')).toBe(writes[0]!.headers.get('idempotency-key'));
      expect(await suite.rows(fixture.employees[0]!.id)).toHaveLength(1);
    });

    it('a revoked key: the 401 leads to one renewal attempt, which fails with invalid_client', async () => {
      const fixture = await company();
      const { client, wire } = connect(fixture);
      await client.me();
      await inTransaction(suite.server.ctx, (tx, now) => revokeApiKey(tx, now, fixture.key.id));
      const error = await caught(client.me());
      expect(error).toMatchObject({
        operation: 'issueToken',
        status: 401,
        error: 'invalid_client',
        code: null,
      });
      expect(error.detail).toEqual(expect.any(String));
      expect(wire.resourceRequests().map((r) => r.status)).toEqual([200, 401]);
      expect(wire.tokenRequests().map((r) => r.status)).toEqual([200, 401]);
      expect(error.message).not.toContain(fixture.key.secret);
    });

    it('wrong credentials: a typed OAuth error that never carries the secret', async () => {
      const fixture = await company();
      const wrongSecret = `${fixture.key.clientId}_${'x'.repeat(43)}`;
      const { client, wire } = connect(fixture, { clientSecret: wrongSecret });
      const error = await caught(client.me());
      expect(error).toMatchObject({
        name: 'PunchclockError',
        operation: 'issueToken',
        status: 401,
        error: 'invalid_client',
      });
      expect(error.body).toMatchObject({ error: 'invalid_client', error_description: expect.any(String) });
      expect(error.message).toMatch(/^issueToken failed: 401 invalid_client/);
      expect(error.message).not.toContain(wrongSecret);
      expect(JSON.stringify(error)).not.toContain(wrongSecret);
      expect(wire.resourceRequests()).toHaveLength(0);
      assertNoSecretsInUrls(wire, fixture);
    });

    it('keeps the credentials out of sight: not enumerable on the client object', async () => {
      const fixture = await company();
      const { client } = connect(fixture);
      await client.me();
      const seen = JSON.stringify(client, (_key, value: unknown) =>
        typeof value === 'function' ? '[fn]' : value,
      );
      expect(seen).not.toContain(fixture.key.secret);
    });
  });

  describe('writes', () => {
    it('every write carries an Idempotency-Key: a fresh UUID per call unless one is given', async () => {
      const fixture = await company();
      const { client, wire } = connect(fixture);
      const employee = { id: fixture.employees[0]!.id };
      await client.recordClockEvent({ employee, type: 'clock_in', occurredAt: iso(T0 - 3 * HOUR) });
      await client.recordClockEvent({ employee, type: 'clock_out', occurredAt: iso(T0 - 2 * HOUR) });
      await client.recordShift({ employee, clockIn: iso(T0 - 28 * HOUR), clockOut: iso(T0 - 20 * HOUR) });
      await client.setExternalId(fixture.employees[1]!.id, 'BADGE-7', { dryRun: true });
      await client.recordClockEvent(
        { employee, type: 'clock_in', occurredAt: iso(T0 - HOUR) },
        { idempotencyKey: 'my-own-key-1' },
      );
      await client.setExternalId(fixture.employees[1]!.id, 'BADGE-8', { idempotencyKey: 'my-own-key-2' });

      const keys = wire.writes().map((w) => w.headers.get('idempotency-key'));
      expect(keys).toHaveLength(6);
      for (const key of keys.slice(0, 4)) expect(key).toMatch(UUID);
      expect(keys.slice(4)).toEqual(['my-own-key-1', 'my-own-key-2']);
      expect(new Set(keys).size).toBe(6);
      expect(wire.writes().map((w) => w.headers.get('x-service-dry-run'))).toEqual([
        'false',
        'false',
        'false',
        'true',
        'false',
        'false',
      ]);
    });

    it('the same key and body again: the stored result is replayed, nothing is written twice', async () => {
      const fixture = await company();
      const { client, wire } = connect(fixture);
      const body = {
        employee: { id: fixture.employees[0]!.id },
        type: 'clock_in' as const,
        occurredAt: iso(T0 - HOUR),
      };
      const first = await client.recordClockEvent(body, { idempotencyKey: 'punch-42' });
      const again = await client.recordClockEvent(body, { idempotencyKey: 'punch-42' });
      expect(again).toEqual(first);
      expect(wire.writes().map((w) => [w.status, w.responseHeaders.get('idempotent-replayed')])).toEqual([
        [201, null],
        [201, 'true'],
      ]);
      expect(await suite.rows(fixture.employees[0]!.id)).toHaveLength(1);
    });

    it('recordClockEvents: a batch with breaks, each event answered on its own, a key per call', async () => {
      const fixture = await company();
      const { client, wire } = connect(fixture);
      const employee = { id: fixture.employees[0]!.id };
      const batch = {
        events: [
          { employee, type: 'clock_in' as const, occurredAt: iso(T0 - 3 * HOUR), idempotencyKey: 'p-1' },
          { employee, type: 'break_start' as const, occurredAt: iso(T0 - 2 * HOUR), idempotencyKey: 'p-2' },
          {
            employee,
            type: 'break_start' as const,
            occurredAt: iso(T0 - 90 * 60_000),
            idempotencyKey: 'p-3',
          },
          { employee, type: 'clock_out' as const, occurredAt: iso(T0 - HOUR), idempotencyKey: 'p-4' },
        ],
      };
      const { results } = await client.recordClockEvents(batch);
      expect(results.map((r) => [r.index, r.status])).toEqual([
        [0, 201],
        [1, 201],
        [2, 409],
        [3, 201],
      ]);
      const refused = results[2]!.body;
      expect('error' in refused && refused.error).toBe('already_on_break');
      const out = results[3]!.body;
      expect('type' in out && out.type).toBe('clock_out');
      // Sent again (a new call, a new request key): every punch is replayed from its own key.
      const again = await client.recordClockEvents(batch);
      expect(again.results).toEqual(results);
      expect(wire.writes().map((w) => w.headers.get('idempotency-key'))).toEqual([
        expect.stringMatching(UUID),
        expect.stringMatching(UUID),
      ]);
      const [entry] = await suite.rows(employee.id);
      expect(entry).toMatchObject({ break_minutes: 60, net_seconds: 3600 });
      // An invalid batch is one error.
      await expect(client.recordClockEvents({ events: [] })).rejects.toMatchObject({
        status: 422,
        error: 'validation_failed',
      });
    });

    it('a dropped connection is retried with the same Idempotency-Key', async () => {
      const fixture = await company();
      const waits: number[] = [];
      const { client, wire } = connect(fixture, {
        sleep: async (ms) => {
          waits.push(ms);
        },
      });
      await client.me();
      wire.failNextRequests(1);
      const result = await client.recordShift({
        employee: { externalId: 'EXT-0' },
        clockIn: iso(T0 - 10 * HOUR),
        clockOut: iso(T0 - 2 * HOUR),
        breakMinutes: 30,
      });
      expect(result).toMatchObject({ type: 'shift', status: 'pending_approval', totalHours: 7.5 });
      const writes = wire.writes();
      expect(writes.map((w) => w.status)).toEqual([0, 201]);
      expect(writes[1]!.headers.get('idempotency-key')).toBe(writes[0]!.headers.get('idempotency-key'));
      expect(writes[1]!.body).toBe(writes[0]!.body);
      expect(waits).toHaveLength(1);
    });

    it('a dry run writes nothing, for clock events, shifts and external ids', async () => {
      const fixture = await company();
      const { client } = connect(fixture);
      const id = fixture.employees[0]!.id;
      const punched = await client.recordClockEvent(
        { employee: { id }, type: 'toggle', occurredAt: iso(T0 - HOUR), deviceId: 'TERM-1' },
        { dryRun: true },
      );
      expect(punched).toMatchObject({
        timeEntryId: null,
        type: 'clock_in',
        dryRun: true,
        status: 'open',
        timeZone: 'Europe/Berlin',
        employee: { id, externalId: 'EXT-0' },
      });
      const shift = await client.recordShift(
        { employee: { id }, clockIn: iso(T0 - 9 * HOUR), clockOut: iso(T0 - HOUR) },
        { dryRun: true },
      );
      expect(shift).toMatchObject({ type: 'shift', dryRun: true, totalHours: 8 });
      const renamed = await client.setExternalId(id, 'BADGE-NEW', { dryRun: true });
      expect(renamed).toEqual({ id, externalId: 'BADGE-NEW', dryRun: true });

      expect(await suite.rows(id)).toHaveLength(0);
      const employees = await client.listEmployees();
      expect(employees.items.find((e) => e.id === id)?.externalId).toBe('EXT-0');
      expect((await client.listTimeEntries({ employeeId: id })).items).toEqual([]);

      // and without dryRun, the same calls do write
      const stored = await client.setExternalId(id, 'BADGE-NEW');
      expect(stored).toEqual({ id, externalId: 'BADGE-NEW', dryRun: false });
      const real = await client.recordClockEvent({
        employee: { externalId: 'BADGE-NEW' },
        type: 'toggle',
        occurredAt: iso(T0 - HOUR),
      });
      expect(real).toMatchObject({ timeEntryId: expect.stringMatching(UUID), dryRun: false });
      expect(await suite.rows(id)).toHaveLength(1);
    });
  });

  describe('typed errors', () => {
    it('409 already_clocked_in carries the problem document', async () => {
      const fixture = await company();
      const { client } = connect(fixture);
      const employee = { id: fixture.employees[0]!.id };
      await client.recordClockEvent({ employee, type: 'clock_in', occurredAt: iso(T0 - 2 * HOUR) });
      const error = await caught(
        client.recordClockEvent({ employee, type: 'clock_in', occurredAt: iso(T0 - HOUR) }),
      );
      expect(error).toMatchObject({
        name: 'PunchclockError',
        operation: 'recordClockEvent',
        status: 409,
        error: 'already_clocked_in',
        code: 2904,
        errors: [],
        correlationId: expect.any(String),
      });
      expect(error.body).toMatchObject({
        type: expect.stringMatching(/\/already-clocked-in$/),
        status: 409,
        error: 'already_clocked_in',
      });
      expect(error.message).toContain('409 already_clocked_in');
      expect(error.message).toContain(error.correlationId!);
    });

    it('422 validation_failed lists the fields in errors[]', async () => {
      const fixture = await company();
      const { client } = connect(fixture);
      const error = await caught(
        client.recordClockEvent({
          employee: { id: fixture.employees[0]!.id },
          type: 'clock_in',
          occurredAt: '2026-11-10T08:00:00', // no offset
        }),
      );
      expect(error).toMatchObject({ status: 422, error: 'validation_failed', code: 1800 });
      expect(error.errors.map((e) => e.field)).toContain('occurredAt');
      expect(error.errors[0]).toEqual({
        field: expect.any(String),
        message: expect.any(String),
        code: expect.anything(),
      });
      expect(error.message).toMatch(/occurredAt/);
    });

    it('404 employee_not_found, and 422 on a bad list query', async () => {
      const fixture = await company();
      const { client } = connect(fixture);
      const missing = await caught(
        client.recordShift({
          employee: { externalId: 'NOBODY' },
          clockIn: iso(T0 - 9 * HOUR),
          clockOut: iso(T0 - HOUR),
        }),
      );
      expect(missing).toMatchObject({ status: 404, error: 'employee_not_found', code: 2404 });
      const badRange = await caught(
        client.listTimeEntries({
          employeeId: fixture.employees[0]!.id,
          from: '2026-01-01',
          to: '2026-11-01',
        }),
      );
      expect(badRange).toMatchObject({ status: 422, error: 'validation_failed' });
    });
  });

  describe('pages', () => {
    it('employees(): 60 employees with limit 25 come in order, each once, in three requests', async () => {
      const fixture = await company({ employeeCount: 60 });
      const { client, wire } = connect(fixture);
      const seen = [];
      for await (const employee of client.employees({ limit: 25 })) seen.push(employee.id);
      expect(seen).toHaveLength(60);
      expect(seen).toEqual(fixture.employees.map((e) => e.id).sort());
      const pages = wire.resourceRequests();
      expect(pages).toHaveLength(3);
      expect(pages.map((p) => new URL(p.url).searchParams.get('limit'))).toEqual(['25', '25', '25']);
      expect(new URL(pages[0]!.url).searchParams.has('cursor')).toBe(false);
      expect(new URL(pages[1]!.url).searchParams.get('cursor')).toEqual(expect.any(String));
      expect(wire.tokenRequests()).toHaveLength(1);
    });

    it('listEmployees(): one page with its cursor; the status filter is passed on', async () => {
      const fixture = await company({ employeeCount: 3 });
      const { client } = connect(fixture);
      const first = await client.listEmployees({ limit: 2 });
      expect(first.items).toHaveLength(2);
      expect(first.hasMore).toBe(true);
      const second = await client.listEmployees({ limit: 2, cursor: first.nextCursor! });
      expect(second).toMatchObject({ hasMore: false, nextCursor: null });
      expect(second.items).toHaveLength(1);
      expect((await client.listEmployees({ status: 'terminated' })).items).toEqual([]);
    });

    it('timeEntries(): every entry of the range, ordered by work date, across pages', async () => {
      const fixture = await company();
      const { client, wire } = connect(fixture);
      const id = fixture.employees[0]!.id;
      const days = 12;
      for (let d = days; d >= 1; d--) {
        const start = T0 - d * 24 * HOUR - 4 * HOUR;
        await client.recordShift({ employee: { id }, clockIn: iso(start), clockOut: iso(start + 2 * HOUR) });
      }
      const entries = [];
      for await (const entry of client.timeEntries({
        employeeId: id,
        from: '2026-10-01',
        to: '2026-11-10',
        limit: 5,
      }))
        entries.push(entry);
      expect(entries).toHaveLength(days);
      const dates = entries.map((e) => e.workDate);
      expect(dates).toEqual([...dates].sort());
      expect(new Set(entries.map((e) => e.id)).size).toBe(days);
      expect(entries.every((e) => e.source === 'api_shift' && e.totalHours === 2)).toBe(true);
      expect(wire.resourceRequests().filter((r) => r.method === 'GET')).toHaveLength(3);
    });

    it('timesheets() pages over employees; timesheetsCsv() streams the file; both need attendance.reports', async () => {
      const fixture = await company({
        employeeCount: 3,
        scopes: 'attendance.record,attendance.read,employees.read,attendance.reports',
      });
      const { client, wire } = connect(fixture);
      for (const [i, employee] of fixture.employees.entries()) {
        const start = T0 - 24 * HOUR - 4 * HOUR;
        await client.recordShift({
          employee: { id: employee.id },
          clockIn: iso(start),
          clockOut: iso(start + (i + 1) * HOUR),
        });
      }
      const sheets = [];
      for await (const sheet of client.timesheets({ from: '2026-11-09', to: '2026-11-09', limit: 2 }))
        sheets.push(sheet);
      const ids = fixture.employees.map((e) => e.id);
      expect(sheets.map((s) => s.employee.id)).toEqual([...ids].sort());
      const hours = new Map(sheets.map((s) => [s.employee.id, s.totals.workedHours]));
      expect(ids.map((id) => hours.get(id))).toEqual([1, 2, 3]);
      expect(sheets[0]!.days[0]!.statuses.pending_approval).toBe(1);
      expect(wire.resourceRequests().filter((r) => r.method === 'GET')).toHaveLength(2);

      const csv = await client.timesheetsCsv({
        from: '2026-11-09',
        to: '2026-11-09',
        delimiter: 'semicolon',
      });
      const text = await new Response(csv).text();
      const lines = text.trimEnd().split('\r\n');
      expect(lines[0]).toMatch(/^employee_id;external_id;first_name;last_name;date;worked_hours;/);
      expect(lines).toHaveLength(4);
      expect(wire.exchanges.at(-1)!.headers.get('accept')).toBe('text/csv');

      const reader = await company();
      const refused = await caught(connect(reader).client.timesheetsCsv());
      expect(refused.status).toBe(403);
      expect(refused.error).toBe('insufficient_scope');
    });

    it('changes(): every event to the head, then the resume cursor yields only newer ones', async () => {
      const fixture = await company();
      const { client } = connect(fixture);
      const id = fixture.employees[0]!.id;
      for (let d = 3; d >= 1; d--) {
        const start = T0 - d * 24 * HOUR - 4 * HOUR;
        await client.recordShift({ employee: { id }, clockIn: iso(start), clockOut: iso(start + 2 * HOUR) });
      }
      const seen: string[] = [];
      const feed = client.changes({ limit: 2 });
      let step = await feed.next();
      for (; !step.done; step = await feed.next()) seen.push(step.value.type);
      // The fixture's employees first, then the three shifts.
      expect(seen).toEqual([
        ...fixture.employees.map(() => 'employee.created'),
        'time_entry.completed',
        'time_entry.completed',
        'time_entry.completed',
      ]);
      const resume = step.value;
      expect(typeof resume).toBe('string');
      await client.recordClockEvent({ employee: { id }, type: 'clock_in', occurredAt: iso(T0 - HOUR) });
      const newer = [];
      for await (const event of client.changes({ cursor: resume })) newer.push(event.type);
      expect(newer).toEqual(['time_entry.opened']);
    });
  });

  describe('429 Retry-After', () => {
    const limited = timeTrackingSuite(dialect, { env: { RATE_LIMIT_PER_MINUTE: '2' } });

    it('waits Retry-After (through the injected sleep) and resends the write with the same Idempotency-Key', async () => {
      limited.now = T0;
      const fixture = await createCompanyFixture(limited.server.ctx, { timeZone: 'Europe/Berlin' });
      const waits: number[] = [];
      const { client, wire } = connect(
        fixture,
        {
          sleep: async (ms) => {
            waits.push(ms);
            limited.now += ms; // the server's clock moves on while the client waits
          },
        },
        limited.server,
      );
      await client.me();
      await client.me();
      const result = await client.recordClockEvent({
        employee: { id: fixture.employees[0]!.id },
        type: 'clock_in',
        occurredAt: iso(T0 - HOUR),
      });
      expect(result).toMatchObject({
        type: 'clock_in',
        dryRun: false,
        timeEntryId: expect.stringMatching(UUID),
      });

      const writes = wire.writes();
      expect(writes.map((w) => w.status)).toEqual([429, 201]);
      const retryAfter = Number(writes[0]!.responseHeaders.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(waits).toEqual([retryAfter * 1000]);
      expect(writes[0]!.headers.get('idempotency-key')).toMatch(UUID);
      expect(writes[1]!.headers.get('idempotency-key')).toBe(writes[0]!.headers.get('idempotency-key'));
      expect(writes[1]!.body).toBe(writes[0]!.body);
      expect(await limited.rows(fixture.employees[0]!.id)).toHaveLength(1);
      expect(wire.tokenRequests()).toHaveLength(1);
    });

    it('gives up after maxRetries with a typed rate_limited error', async () => {
      limited.now = T0 + 10 * MINUTE;
      const fixture = await createCompanyFixture(limited.server.ctx, { timeZone: 'Europe/Berlin' });
      const waits: number[] = [];
      const { client, wire } = connect(
        fixture,
        {
          maxRetries: 1,
          sleep: async (ms) => {
            waits.push(ms); // the server's clock does not move: still limited
          },
        },
        limited.server,
      );
      await client.me();
      await client.me();
      const error = await caught(client.listEmployees());
      expect(error).toMatchObject({ status: 429, error: 'rate_limited', code: 1429 });
      expect(error.retryAfterSeconds).toBeGreaterThan(0);
      expect(waits).toEqual([error.retryAfterSeconds! * 1000]);
      expect(wire.resourceRequests().map((r) => r.status)).toEqual([200, 200, 429, 429]);
    });
  });
});

describe('client options', () => {
  it('refuses to start without credentials', () => {
    expect(() =>
      createPunchclockClient({ baseUrl: 'http://127.0.0.1:1', clientId: '', clientSecret: '' }),
    ).toThrow(/clientId and clientSecret are required/);
  });

  it('accepts a base URL with a trailing slash or with the /api/public/v1 prefix', async () => {
    const urls: string[] = [];
    const client: PunchclockClient = createPunchclockClient({
      baseUrl: 'http://punchclock.invalid/api/public/v1/',
      clientId: 'svc_x',
      clientSecret: 'svc_x_y',
      fetch: async (request) => {
        urls.push(request.url);
        return new Response(
          JSON.stringify({ error: 'invalid_client', error_description: 'unknown client' }),
          {
            status: 401,
            headers: { 'content-type': 'application/json' },
          },
        );
      },
    });
    await expect(client.me()).rejects.toMatchObject({ error: 'invalid_client' });
    expect(urls).toEqual(['http://punchclock.invalid/api/public/v1/oauth/token']);
  });
});
