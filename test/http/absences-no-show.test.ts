import { describe, expect, it } from 'vitest';
import { setHolidayOverride } from '../../src/modules/absences/holidays.js';
import { CLI_ACTOR, inTransaction } from '../../src/modules/context.js';
import { runExceptionsJob } from '../../src/modules/planned-shifts/exceptions-job.js';
import {
  approvedAbsence,
  type Json,
  LEAVE_SCOPES,
  leaveTenant,
  requestAbsence,
} from '../support/absences.js';
import { testDialects } from '../support/databases.js';
import { timeTrackingSuite } from '../support/time-tracking.js';

/*
 * Issue 33 meets issue 31, from outside on both databases: the exceptions job raises no `no_show` for
 * a published shift that an approved absence of its employee (any portion) or a holiday of its
 * workplace (the region's or the company's, full or half) covers; a requested (not yet approved)
 * absence does not excuse it.
 */

/** `hhmm` in Berlin (+01:00) on `day` of November 2026. */
const nov = (day: number, hhmm: string) => `2026-11-${String(day).padStart(2, '0')}T${hhmm}:00+01:00`;

describe.each(testDialects().map((d) => [d.name, d] as const))(
  'no-shows and absences on %s',
  (_name, dialect) => {
    // Monday 9 November 2026, 08:00 in Berlin.
    const suite = timeTrackingSuite(dialect, {
      start: Date.parse(nov(9, '08:00')),
      env: { EXCEPTIONS_JOB: 'false' },
    });

    it('excuses shifts covered by an approved absence or a holiday, not by a request', async () => {
      const t = await leaveTenant(suite, { employeeCount: 4, scopes: `${LEAVE_SCOPES},shifts.manage` });
      const [a, b, c, d] = t.employees as [string, string, string, string];
      // Wednesday 11: A sick (approved at once), B a vacation morning (approved), C only asks for
      // an unpaid day, D nothing. Thursday 12: a company half-day holiday for everyone.
      await approvedAbsence(t, a, 'sick', '2026-11-11', '2026-11-11');
      await t.vacation({ yearlyEntitlementDays: 25 });
      await approvedAbsence(t, b, 'vacation', '2026-11-11', '2026-11-11', { portion: 'first_half' });
      expect((await requestAbsence(t, c, 'unpaid', '2026-11-11', '2026-11-11')).json.status).toBe(
        'requested',
      );
      await inTransaction(suite.server.ctx, (tx, now) =>
        setHolidayOverride(
          tx,
          now,
          { companyId: t.fixture.companyId, date: '2026-11-12', name: 'Works outing', portion: 'half' },
          'add',
          CLI_ACTOR,
        ),
      );
      const shifts = [11, 12].flatMap((day) =>
        [0, 1, 2, 3].map((n) => ({
          employee: { externalId: `EXT-${n}` },
          start: nov(day, '09:00'),
          end: nov(day, '17:00'),
          status: 'published',
        })),
      );
      const planned = await t.api('POST', '/planned-shifts/batch', { shifts });
      expect(planned.status, planned.text).toBe(200);
      expect((planned.json.results as Json[]).map((r) => r.status)).toEqual(shifts.map(() => 201));

      for (const day of [11, 12]) {
        suite.now = Date.parse(nov(day, '10:00'));
        await runExceptionsJob(suite.server.ctx);
      }
      await t.at(nov(12, '10:00'));
      const found = await t.api('GET', '/attendance-exceptions?from=2026-11-09&to=2026-11-15&limit=100');
      expect(found.status, found.text).toBe(200);
      const noShows = (found.json.items as Json[])
        .filter((x) => x.kind === 'no_show')
        .map((x) => [x.date, (x.employee as Json).id])
        .sort();
      expect(noShows).toEqual(
        [
          ['2026-11-11', c],
          ['2026-11-11', d],
        ].sort(),
      );
    });
  },
);
