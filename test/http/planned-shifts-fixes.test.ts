import { describe, expect, it } from 'vitest';
import { testDialects } from '../support/databases.js';
import { call, type Reply, type Tenant, timeTrackingSuite } from '../support/time-tracking.js';

/*
 * Planned shifts, the second review of issue 33 (finding 9): two batches sent at the same moment with
 * the same scheduler ids upsert each shift once; the one whose insert meets the other's row changes
 * that row (200), never 409 already_exists.
 */

const SHIFTS = '/api/public/v1/planned-shifts';
const SCOPES = 'attendance.record,attendance.read,employees.read,shifts.manage';
const ENV = { TOKEN_RATE_LIMIT_PER_MINUTE: '100000', OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0' };
const PER_BATCH = 20;

interface Result {
  index: number;
  status: number;
  body: { id?: string; externalId?: string; error?: string; employee?: { externalId: string } };
}
const results = (reply: Reply) => (reply.body as unknown as { results: Result[] }).results;

describe.each(testDialects().map((d) => [d.name, d] as const))(
  'planned shifts fixes on %s',
  (_name, dialect) => {
    const suite = timeTrackingSuite(dialect, { env: ENV });

    /** The round's shifts, `offset` naming whose employees (the scheduler moved them to others). */
    const shifts = (round: number, offset: number) =>
      Array.from({ length: PER_BATCH }, (_, i) => ({
        externalId: `race-${round}-${i}`,
        employee: { externalId: `EXT-${i + offset}` },
        start: `2026-11-${String(16 + round).padStart(2, '0')}T09:00:00+01:00`,
        end: `2026-11-${String(16 + round).padStart(2, '0')}T17:00:00+01:00`,
        status: 'published',
      }));

    it('two concurrent batches with the same externalIds: every item 200/201, one row each', async () => {
      const tenant: Tenant = await suite.berlin({ scopes: SCOPES, employeeCount: 2 * PER_BATCH });
      for (let round = 0; round < 5; round++) {
        const [a, b] = await Promise.all(
          [0, PER_BATCH].map((offset) =>
            call(suite.server, tenant.token, 'POST', `${SHIFTS}/batch`, { shifts: shifts(round, offset) }),
          ),
        );
        for (const reply of [a!, b!]) {
          expect(reply.status, reply.text).toBe(200);
          expect(
            results(reply).filter((r) => r.status !== 200 && r.status !== 201),
            reply.text,
          ).toEqual([]);
        }
        // Each shift created once (201 in one batch), changed or confirmed by the other (200).
        for (let i = 0; i < PER_BATCH; i++)
          expect([results(a!)[i]!.status, results(b!)[i]!.status].sort()).toEqual([200, 201]);
        const rows = await suite.server.database.db
          .selectFrom('planned_shifts')
          .select(['external_id', 'employee_id', 'version'])
          .where('company_id', '=', tenant.fixture.companyId)
          .where('external_id', 'like', `race-${round}-%`)
          .execute();
        expect(rows).toHaveLength(PER_BATCH);
        expect(new Set(rows.map((r) => r.external_id)).size).toBe(PER_BATCH);
        // Both items answer the same shift (its id), and the row holds what the later write sent.
        for (let i = 0; i < PER_BATCH; i++) {
          const [x, y] = [results(a!)[i]!, results(b!)[i]!];
          expect(x.body.id).toBe(y.body.id);
          const later = x.status === 200 ? x : y;
          const row = rows.find((r) => r.external_id === `race-${round}-${i}`)!;
          const employee = tenant.fixture.employees.find((e) => e.id === row.employee_id)!;
          expect(employee.externalId).toBe(later.body.employee!.externalId);
        }
      }
    });
  },
);
