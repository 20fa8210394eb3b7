import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/modules/context.js';
import { secondKey } from '../support/api.js';
import { testDialects } from '../support/databases.js';
import { createCompanyFixture, fetchToken, startTestServer, type TestServer } from '../support/server.js';
import { createWorkplace } from '../../src/modules/companies/service.js';
import { updateEmployee } from '../../src/modules/employees/changes.js';

/* Who is clocked in: GET /time-clock/status (additive within v1). */
const STATUS = '/api/public/v1/time-clock/status';
interface Item {
  employee: { id: string; externalId: string | null };
  timeEntryId: string;
  workplaceId: string | null;
  since: string;
  sinceTime: string;
  onBreak: boolean;
  breakSince: string | null;
}
interface StatusPage {
  items: Item[];
  nextCursor: string | null;
  hasMore: boolean;
  error?: string;
}

describe.each(testDialects().map((d) => [d.name, d] as const))('who is in, on %s', (_name, dialect) => {
  let server: TestServer;
  const now = Date.parse('2026-11-10T12:00:00Z');
  beforeAll(async () => {
    server = await startTestServer(dialect, { now: () => now });
  });
  afterAll(async () => {
    await server.stop();
  });

  async function status(token: string, query: Record<string, string> = {}) {
    const response = await server.request(`${STATUS}?${new URLSearchParams(query).toString()}`, { token });
    return { status: response.status, body: (await response.json()) as StatusPage };
  }

  const punch = (token: string, employee: string, type: string, occurredAt: string) =>
    server.request('/api/public/v1/time-clock/events', {
      method: 'POST',
      token,
      json: { employee: { id: employee }, type, occurredAt },
    });

  it('lists every open session oldest first, across midnight and zones, with filters and pages', async () => {
    const fixture = await createCompanyFixture(server.ctx, {
      timeZone: 'Europe/Berlin',
      workplaceTimeZone: 'Europe/Berlin',
      employeeCount: 4,
    });
    const token = await fetchToken(server, fixture.key.clientId, fixture.key.secret);
    const [a, b, c, d] = fixture.employees.map((e) => e.id);
    // A second workplace in New York for employee d.
    const newYork = await inTransaction(server.ctx, (tx, at) =>
      createWorkplace(tx, at, { companyId: fixture.companyId, name: 'NYC', timeZone: 'America/New_York' }),
    );
    await inTransaction(server.ctx, (tx, at) => updateEmployee(tx, at, d!, { workplace: newYork.id }));
    // a: clocked in last night before midnight in Berlin (still in); b: in this morning; c: in and out;
    // d: in New York since 06:30 local.
    expect((await punch(token, a!, 'clock_in', '2026-11-09T22:30:00Z')).status).toBe(201);
    expect((await punch(token, b!, 'clock_in', '2026-11-10T07:00:00Z')).status).toBe(201);
    expect((await punch(token, c!, 'clock_in', '2026-11-10T06:00:00Z')).status).toBe(201);
    expect((await punch(token, c!, 'clock_out', '2026-11-10T09:00:00Z')).status).toBe(201);
    expect((await punch(token, d!, 'clock_in', '2026-11-10T11:30:00Z')).status).toBe(201);

    const all = await status(token);
    expect(all.status).toBe(200);
    expect(all.body.items.map((i) => i.employee.id)).toEqual([a, b, d]);
    expect(all.body.items[0]).toMatchObject({
      workplaceId: fixture.workplaceId,
      since: expect.stringMatching(/^2026-11-09T22:30:00/),
      sinceTime: '23:30:00',
      onBreak: false,
      breakSince: null,
    });
    expect(all.body.items[2]).toMatchObject({ workplaceId: newYork.id, sinceTime: '06:30:00' });

    expect((await status(token, { workplaceId: newYork.id })).body.items.map((i) => i.employee.id)).toEqual([
      d,
    ]);
    expect((await status(token, { employeeId: b! })).body.items.map((i) => i.employee.id)).toEqual([b]);
    const external = fixture.employees[0]!.externalId!;
    expect((await status(token, { externalId: external })).body.items.map((i) => i.employee.id)).toEqual([a]);
    expect((await status(token, { employeeId: c! })).body.items).toEqual([]);

    const first = await status(token, { limit: '2' });
    expect(first.body.items.map((i) => i.employee.id)).toEqual([a, b]);
    expect(first.body.hasMore).toBe(true);
    const second = await status(token, { limit: '2', cursor: first.body.nextCursor! });
    expect(second.body.items.map((i) => i.employee.id)).toEqual([d]);
    expect(second.body.hasMore).toBe(false);
    // A cursor belongs to its listing: another filter's use of it is refused.
    const refused = await status(token, {
      limit: '2',
      cursor: first.body.nextCursor!,
      workplaceId: newYork.id,
    });
    expect(refused.status).toBe(422);
    const both = await status(token, { workplaceId: newYork.id, employeeId: b! });
    expect(both.status).toBe(422);
    expect(both.body.error).toBe('validation_failed');
  });

  it("needs attendance.read and never shows another company's sessions", async () => {
    const mine = await createCompanyFixture(server.ctx, { timeZone: 'Europe/Berlin' });
    const other = await createCompanyFixture(server.ctx, { timeZone: 'Europe/Berlin' });
    const otherToken = await fetchToken(server, other.key.clientId, other.key.secret);
    expect((await punch(otherToken, other.employees[0]!.id, 'clock_in', '2026-11-10T08:00:00Z')).status).toBe(
      201,
    );
    const token = await fetchToken(server, mine.key.clientId, mine.key.secret);
    expect((await status(token)).body.items).toEqual([]);
    expect((await status(token, { employeeId: other.employees[0]!.id })).body.items).toEqual([]);
    const writer = await secondKey(server.ctx, mine, { scopes: 'attendance.record' });
    const refused = await status(await fetchToken(server, writer.clientId, writer.secret));
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('insufficient_scope');
  });
});
