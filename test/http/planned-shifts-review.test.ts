import { describe, expect, it } from 'vitest';
import { testDialects } from '../support/databases.js';
import { call, type Reply, type Tenant, timeTrackingSuite } from '../support/time-tracking.js';

/* Planned shifts, the review of issue 33: instants outside the years a shift may have, unstorable scheduler ids, list filters naming no employee. */

const SHIFTS = '/api/public/v1/planned-shifts';
const SCOPES = 'attendance.record,attendance.read,employees.read,shifts.manage';

interface Result {
  index: number;
  status: number;
  body: { error?: string; errors?: { field: string }[] | null };
}
const results = (reply: Reply) => (reply.body as unknown as { results: Result[] }).results;
const shift = (start: string, end: string, extra: Record<string, unknown> = {}) => ({
  employee: { externalId: 'EXT-0' },
  start,
  end,
  ...extra,
});

describe.each(testDialects().map((d) => [d.name, d] as const))(
  'planned shifts review on %s',
  (_name, dialect) => {
    const suite = timeTrackingSuite(dialect);
    const manager = () => suite.berlin({ scopes: SCOPES, employeeCount: 2 });
    const batch = (tenant: Tenant, body: unknown) =>
      call(suite.server, tenant.token, 'POST', `${SHIFTS}/batch`, body);

    it('an instant past year 9999 or before year 1000 (UTC) is that item’s 422; the other items are stored', async () => {
      const tenant = await manager();
      const reply = await batch(tenant, {
        shifts: [
          shift('2026-11-16T09:00:00+01:00', '2026-11-16T17:00:00+01:00'),
          shift('9999-12-31T18:00:00-05:00', '9999-12-31T20:00:00-05:00'),
          shift('1000-01-01T00:10:00+01:00', '1000-01-01T02:00:00+01:00'),
          shift('9999-12-31T10:00:00+00:00', '9999-12-31T12:00:00+00:00'),
        ],
      });
      expect(reply.status).toBe(200);
      const r = results(reply);
      expect(r.map((x) => x.status)).toEqual([201, 422, 422, 201]);
      expect(r[1]!.body.errors?.map((e) => e.field)).toEqual(['end']);
      expect(r[2]!.body.errors?.map((e) => e.field)).toEqual(['start']);
      const listed = await call(suite.server, tenant.token, 'GET', `${SHIFTS}?from=9999-12-01&to=9999-12-31`);
      expect(listed.status).toBe(200);
    });

    it('a scheduler id with an unpaired surrogate is that item’s 422, like employees’ external ids', async () => {
      const tenant = await manager();
      const reply = await batch(tenant, {
        shifts: [
          shift('2026-11-16T09:00:00+01:00', '2026-11-16T17:00:00+01:00', { externalId: 'bad-\ud800' }),
          shift('2026-11-17T09:00:00+01:00', '2026-11-17T17:00:00+01:00', { externalId: 'good-1' }),
        ],
      });
      const r = results(reply);
      expect(r.map((x) => x.status)).toEqual([422, 201]);
      expect(r[0]!.body.errors?.map((e) => e.field)).toEqual(['externalId']);
    });

    it('a list filtered by an employee the company does not have is 404 employee_not_found', async () => {
      const tenant = await manager();
      const other = await suite.berlin({ name: 'Other' });
      const list = (query: Record<string, string>) =>
        call(
          suite.server,
          tenant.token,
          'GET',
          `${SHIFTS}?${new URLSearchParams({ from: '2026-11-01', to: '2026-11-30', ...query })}`,
        );
      for (const query of <Record<string, string>[]>[
        { employeeId: '00000000-0000-4000-8000-000000000000' },
        { employeeId: other.fixture.employees[0]!.id },
        { externalId: 'NOBODY' },
        { externalId: 'bad-\ud800' },
      ]) {
        const reply = await list(query);
        expect(reply.status, JSON.stringify(query)).toBe(404);
        expect(reply.body.error).toBe('employee_not_found');
      }
      expect((await list({ employeeId: tenant.fixture.employees[0]!.id })).status).toBe(200);
      expect((await list({ externalId: 'EXT-1' })).status).toBe(200);
    });
  },
);
