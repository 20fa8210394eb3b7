import { describe, expect, it } from 'vitest';
import { createUser, issueUserToken } from '../../src/modules/people/users.js';
import { createApiKey } from '../../src/modules/api-keys/service.js';
import { CLI_ACTOR, inTransaction } from '../../src/modules/context.js';
import { managerOfAdmin } from '../../src/modules/corrections/entry-access.js';
import { closePeriod } from '../../src/modules/corrections/periods.js';
import { clearHolidayOverride, setHolidayOverride } from '../../src/modules/absences/holidays.js';
import { findType } from '../../src/modules/absences/calendar.queries.js';
import { updateAbsenceType } from '../../src/modules/absences/types.js';
import { setHolidayRegion, updateSchedule } from '../../src/modules/absences/working-days.js';
import { updateEmployee } from '../../src/modules/employees/changes.js';
import { ApiError } from '../../src/domain/errors.js';
import {
  approvedAbsence,
  balanceOf,
  type Json,
  leaveTenant,
  type LeaveTenant,
  requestAbsence,
  V1,
} from '../support/absences.js';
import { testDialects } from '../support/databases.js';
import { fetchToken } from '../support/server.js';
import { call, timeTrackingSuite, type TimeTrackingSuite } from '../support/time-tracking.js';

/*
 * The findings of the absences review (issue 31), each pinned by a test that fails without its fix:
 * 1 own_entry through a key the person created, 2 a later year driven negative through its carry-over,
 * 3 closed periods rewritten through holidays, regions, types, schedules and employment dates,
 * 4 hours beyond the day's target, 6 absences outside the years balances can count.
 */

async function closeJune1To5(suite: TimeTrackingSuite, t: LeaveTenant): Promise<void> {
  const companyId = t.fixture.companyId;
  const manager = { ...managerOfAdmin(CLI_ACTOR, companyId), companyId };
  await inTransaction(suite.server.ctx, (tx, now) =>
    closePeriod(tx, now, manager, { from: '2026-06-01', to: '2026-06-05' }, { dryRun: false }),
  );
}

/** The service call's refusal: its error name, or 'accepted'. */
async function refusal(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
    return 'accepted';
  } catch (error) {
    if (error instanceof ApiError) return error.errorName;
    throw error;
  }
}

describe.each(testDialects().map((d) => [d.name, d] as const))('absences review on %s', (_name, dialect) => {
  const suite = timeTrackingSuite(dialect, { start: Date.parse('2026-06-08T08:00:00Z') });

  it('finding 1: a person may not approve their own absence through an API key they created', async () => {
    const t = await leaveTenant(suite);
    await t.vacation({ yearlyEntitlementDays: 25 });
    const [self] = t.employees as [string];
    const person = await inTransaction(suite.server.ctx, (tx, now) =>
      createUser(tx, now, {
        companyId: t.fixture.companyId,
        email: 'lead@acme.example',
        permissions: '72,90,96',
        employee: self,
      }),
    );
    const { access_token: token } = await inTransaction(suite.server.ctx, (tx) =>
      issueUserToken(tx, suite.server.tokens, person.id),
    );
    const own = await call(suite.server, token, 'POST', `${V1}/absences`, {
      employee: { id: self },
      typeCode: 'vacation',
      startDate: '2026-06-15',
      endDate: '2026-06-16',
    });
    expect(own.status, own.text).toBe(201);
    const id = (own.body as Json).id as string;
    const key = await inTransaction(suite.server.ctx, (tx, now) =>
      createApiKey(tx, now, {
        companyId: t.fixture.companyId,
        createdBy: person.id,
        name: 'mine',
        scopes: 'leave.read,leave.manage',
      }),
    );
    const keyToken = await fetchToken(suite.server, key.clientId, key.secret);
    for (const decision of ['approve', 'reject']) {
      const viaKey = await call(suite.server, keyToken, 'POST', `${V1}/absences/${id}/${decision}`, {
        reason: 'mine',
      });
      expect(viaKey.status, viaKey.text).toBe(403);
      expect((viaKey.body as Json).error).toBe('own_entry');
    }
    // Withdrawing one's own request stays allowed, by key as by token.
    const withdrawn = await call(suite.server, keyToken, 'POST', `${V1}/absences/${id}/cancel`, {
      reason: 'plans changed',
    });
    expect(withdrawn.status, withdrawn.text).toBe(200);
    // The tenant's own key (created by no employee) still decides.
    const other = await requestAbsence(t, self, 'vacation', '2026-06-22', '2026-06-22');
    expect((await t.api('POST', `/absences/${other.json.id}/approve`)).status).toBe(200);
  });

  it('finding 2: days taken in one year may not drive the next year, which counted on their carry-over, below zero', async () => {
    const t = await leaveTenant(suite);
    await t.vacation({ yearlyEntitlementDays: 10, carryOverMaxDays: 5 });
    const [a] = t.employees as [string];
    await approvedAbsence(t, a, 'vacation', '2026-07-06', '2026-07-10'); // 5 of 10: 5 carried into 2027
    const waiting = await requestAbsence(t, a, 'vacation', '2026-08-04', '2026-08-05'); // 2, not yet counted
    expect(waiting.status, waiting.text).toBe(201);
    const next = await approvedAbsence(t, a, 'vacation', '2027-01-04', '2027-01-22'); // 14 of 10 + 5
    expect(next.days).toBe(14);
    expect((await balanceOf(t, a, 2027)).remaining).toBe(1);
    // Five more days in 2026 would carry 0 into 2027: 10 − 14 there.
    const more = await requestAbsence(t, a, 'vacation', '2026-08-10', '2026-08-14');
    expect(more.status, more.text).toBe(409);
    expect(more.json.error).toBe('insufficient_balance');
    expect(more.json.detail).toContain('2027');
    // Approving the two waiting days would carry 3: 10 + 3 − 14 = −1 in 2027.
    const approving = await t.api('POST', `/absences/${waiting.json.id}/approve`);
    expect(approving.status, approving.text).toBe(409);
    expect(approving.json.error).toBe('insufficient_balance');
    // One day fits exactly: 2027 ends at 0.
    const one = await approvedAbsence(t, a, 'vacation', '2026-08-10', '2026-08-10');
    expect(one.status).toBe('approved');
    expect((await balanceOf(t, a, 2027)).remaining).toBe(0);
  });

  it('finding 3: a closed period’s days stay as closed: holidays, region, type, schedule and employment dates refused', async () => {
    const t = await leaveTenant(suite);
    const [a, b] = t.employees as [string, string];
    const companyId = t.fixture.companyId;
    const ctx = suite.server.ctx;
    await approvedAbsence(t, b, 'sick', '2026-06-01', '2026-06-03');
    // An override outside the period, made before closing, to be dropped later.
    const later = await inTransaction(ctx, (tx, now) =>
      setHolidayOverride(tx, now, { companyId, date: '2026-06-02', name: 'Town fair' }, 'add', CLI_ACTOR),
    );
    const totals = async (employeeId: string) =>
      (await t.api('GET', `/reports/timesheets?employeeId=${employeeId}&from=2026-06-01&to=2026-06-05`)).json
        .items[0].totals;
    const before = [await totals(a), await totals(b)];
    await closeJune1To5(suite, t);

    expect(
      await refusal(() =>
        inTransaction(ctx, (tx, now) =>
          setHolidayOverride(tx, now, { companyId, date: '2026-06-03', name: 'Surprise' }, 'add', CLI_ACTOR),
        ),
      ),
    ).toBe('day_locked');
    expect(
      await refusal(() =>
        inTransaction(ctx, (tx, now) =>
          setHolidayOverride(
            tx,
            now,
            { companyId, date: '2026-06-04', workplaceId: t.fixture.workplaceId },
            'remove',
            CLI_ACTOR,
          ),
        ),
      ),
    ).toBe('day_locked');
    expect(
      await refusal(() =>
        inTransaction(ctx, (tx, now) => clearHolidayOverride(tx, now, companyId, later.id, CLI_ACTOR)),
      ),
    ).toBe('day_locked');
    // Bavaria's Corpus Christi (4 June) is no holiday in Berlin: the region may not change…
    expect(
      await refusal(() =>
        inTransaction(ctx, (tx, now) => setHolidayRegion(tx, now, t.fixture.workplaceId, 'DE-BE', CLI_ACTOR)),
      ),
    ).toBe('day_locked');
    const sick = (await findType(ctx.database.db, companyId, { code: 'sick' }))!;
    expect(
      await refusal(() =>
        inTransaction(ctx, (tx, now) =>
          updateAbsenceType(tx, now, companyId, sick.id, { countsAsWorkTime: false }, CLI_ACTOR),
        ),
      ),
    ).toBe('day_locked');
    const scheduleId = t.fixture.scheduleId;
    expect(
      await refusal(() =>
        inTransaction(ctx, (tx, now) =>
          updateSchedule(tx, now, scheduleId, { workDays: 'mon,tue,wed,thu' }, CLI_ACTOR),
        ),
      ),
    ).toBe('day_locked');
    expect(
      await refusal(() =>
        inTransaction(ctx, (tx, now) => updateEmployee(tx, now, a, { hiredOn: '2026-06-03' })),
      ),
    ).toBe('day_locked');
    expect(
      await refusal(() =>
        inTransaction(ctx, (tx, now) => updateEmployee(tx, now, a, { leftOn: '2026-06-04' })),
      ),
    ).toBe('day_locked');
    expect([await totals(a), await totals(b)]).toEqual(before);

    // …while what leaves the closed days alone goes through.
    expect(
      await refusal(() =>
        inTransaction(ctx, (tx, now) =>
          setHolidayOverride(
            tx,
            now,
            { companyId, date: '2026-06-12', name: 'Later fair' },
            'add',
            CLI_ACTOR,
          ),
        ),
      ),
    ).toBe('accepted');
    expect(
      await refusal(() =>
        inTransaction(ctx, (tx, now) =>
          updateAbsenceType(tx, now, companyId, sick.id, { requiresApproval: true }, CLI_ACTOR),
        ),
      ),
    ).toBe('accepted');
    expect(
      await refusal(() =>
        inTransaction(ctx, (tx, now) => updateEmployee(tx, now, a, { leftOn: '2026-12-31' })),
      ),
    ).toBe('accepted');
    expect(
      await refusal(() =>
        inTransaction(ctx, (tx, now) => updateEmployee(tx, now, b, { hiredOn: '2020-01-01' })),
      ),
    ).toBe('accepted');
  });

  it('finding 4: an absence of hours takes at most the day’s target (half on a half-day holiday)', async () => {
    const t = await leaveTenant(suite);
    await t.vacation({ yearlyEntitlementDays: 25 });
    const [a] = t.employees as [string];
    const companyId = t.fixture.companyId;
    await inTransaction(suite.server.ctx, (tx, now) =>
      setHolidayOverride(
        tx,
        now,
        { companyId, date: '2026-12-24', name: 'Christmas Eve', portion: 'half' },
        'add',
        CLI_ACTOR,
      ),
    );
    const day = await t.api(
      'GET',
      `/reports/timesheets?employeeId=${a}&from=2026-06-15&to=2026-06-15&days=all`,
    );
    const target = day.json.items[0].days[0].targetHours as number;
    const tooMany = await requestAbsence(t, a, 'vacation', '2026-06-15', '2026-06-15', {
      portion: 'hours',
      hours: target + 0.5,
    });
    expect(tooMany.status, tooMany.text).toBe(422);
    expect(tooMany.json.errors[0].field).toBe('hours');
    const halfDay = await requestAbsence(t, a, 'vacation', '2026-12-24', '2026-12-24', {
      portion: 'hours',
      hours: target,
    });
    expect(halfDay.status, halfDay.text).toBe(422);
    const fits = await requestAbsence(t, a, 'vacation', '2026-06-15', '2026-06-15', {
      portion: 'hours',
      hours: target,
    });
    expect(fits.status, fits.text).toBe(201);
    expect(fits.json.days).toBe(1);
  });

  it('finding 6: absences only in the years balances count (2000 to 2100)', async () => {
    const t = await leaveTenant(suite);
    const [, b] = t.employees as [string, string];
    for (const [from, to] of [
      ['0001-01-01', '0001-01-05'],
      ['9999-12-27', '9999-12-31'],
      ['1999-12-30', '2000-01-04'],
    ] as const) {
      const reply = await requestAbsence(t, b, 'sick', from, to);
      expect(reply.status, reply.text).toBe(422);
      expect(reply.json.errors[0]).toMatchObject({ code: 'range' });
    }
  });
});
