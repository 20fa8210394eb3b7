// The typed client's absence methods (issue 31) against a real server, on every test database: each
// answer held to the published description, Idempotency-Key on every write, If-Match on decisions,
// typed errors, dry runs and paging.
import { describe, expect, it } from 'vitest';
import { createPunchclockClient, PunchclockError } from '../../client/src/index.js';
import { cliCaller } from '../../src/modules/absences/actors.js';
import { findType } from '../../src/modules/absences/calendar.queries.js';
import { setEntitlement } from '../../src/modules/absences/leave.js';
import { setHolidayRegion } from '../../src/modules/absences/working-days.js';
import { updateAbsenceType } from '../../src/modules/absences/types.js';
import { CLI_ACTOR, inTransaction } from '../../src/modules/context.js';
import { ContractChecker } from '../support/contract.js';
import { testDialects } from '../support/databases.js';
import { createCompanyFixture } from '../support/server.js';
import { timeTrackingSuite } from '../support/time-tracking.js';

const SCOPES = 'employees.read,leave.read,leave.manage';

async function caught(promise: Promise<unknown>): Promise<PunchclockError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(PunchclockError);
    return error as PunchclockError;
  }
  throw new Error('expected the call to fail');
}

describe.each(testDialects().map((d) => [d.name, d] as const))(
  'typed client: absences on %s',
  (_name, dialect) => {
    // Monday 8 June 2026 in Berlin.
    const suite = timeTrackingSuite(dialect, { start: Date.parse('2026-06-08T08:00:00Z') });

    async function leaveCompany() {
      const ctx = suite.server.ctx;
      const fixture = await createCompanyFixture(ctx, {
        timeZone: 'Europe/Berlin',
        employeeCount: 2,
        scopes: SCOPES,
      });
      const vacation = (await findType(ctx.database.db, fixture.companyId, { code: 'vacation' }))!;
      await inTransaction(ctx, async (tx, now) => {
        await setHolidayRegion(tx, now, fixture.workplaceId, 'DE-BY', CLI_ACTOR);
        await updateAbsenceType(
          tx,
          now,
          fixture.companyId,
          vacation.id,
          { yearlyEntitlementDays: 25 },
          CLI_ACTOR,
        );
        await setEntitlement(tx, now, cliCaller({ id: fixture.companyId, time_zone: 'Europe/Berlin' }), {
          employeeId: fixture.employees[0]!.id,
          typeCode: 'vacation',
          year: 2026,
          days: 10,
        });
      });
      const contract = new ContractChecker(suite.server.app.swagger() as Record<string, unknown>);
      const writes: Headers[] = [];
      const client = createPunchclockClient({
        baseUrl: suite.server.listenUrl,
        clientId: fixture.key.clientId,
        clientSecret: fixture.key.secret,
        sleep: async () => {},
        fetch: async (request) => {
          if (request.method !== 'GET' && !request.url.endsWith('/oauth/token'))
            writes.push(new Headers(request.headers));
          const response = await fetch(request);
          const violation = contract.check(
            request.method,
            request.url,
            response.status,
            response.headers.get('content-type'),
            await response.clone().text(),
          );
          if (violation) throw new Error(`response outside the OpenAPI description: ${violation}`);
          return response;
        },
      });
      return { fixture, client, writes };
    }

    it('reads types, holidays and balances; requests (dry run first), approves with If-Match, lists', async () => {
      const { fixture, client, writes } = await leaveCompany();
      const employee = fixture.employees[0]!.id;
      const types = await client.listAbsenceTypes();
      expect(types.items.map((t) => t.code)).toEqual(['sick', 'unpaid', 'vacation']);
      const holidays = await client.listHolidays({
        workplaceId: fixture.workplaceId,
        from: '2026-06-01',
        to: '2026-06-30',
      });
      expect(holidays.items).toEqual([
        { date: '2026-06-04', name: 'Corpus Christi', portion: 'full', source: 'region' },
      ]);

      // Monday 15 to Friday 19 June: five working days of the ten set for 2026.
      const body = {
        employee: { id: employee },
        typeCode: 'vacation',
        startDate: '2026-06-15',
        endDate: '2026-06-19',
      };
      const dry = await client.createAbsence(body, { dryRun: true });
      expect(dry).toMatchObject({ id: null, dryRun: true, days: 5, status: 'requested', balanceAfter: 5 });
      expect((await client.listAbsences()).items).toEqual([]);
      const created = await client.createAbsence(body, { idempotencyKey: 'absence-1' });
      expect(created).toMatchObject({ dryRun: false, days: 5, status: 'requested', version: 1 });
      // The same key and body: the stored answer, nothing written twice.
      expect(await client.createAbsence(body, { idempotencyKey: 'absence-1' })).toEqual(created);
      expect(writes.every((h) => (h.get('idempotency-key') ?? '') !== '')).toBe(true);

      const stale = await caught(client.approveAbsence(created.id!, { ifMatch: 7 }));
      expect(stale).toMatchObject({ status: 412, error: 'version_mismatch' });
      const approved = await client.approveAbsence(created.id!, { ifMatch: 1 });
      expect(approved).toMatchObject({ status: 'approved', version: 2, balanceAfter: 5 });
      expect(approved.decidedBy).toEqual({ kind: 'api_key', id: fixture.key.id, name: 'test key' });
      expect(await client.getAbsence(created.id!)).toMatchObject({ status: 'approved', version: 2 });

      const balances = await client.leaveBalances({ employeeId: employee, year: 2026 });
      expect(balances.items).toEqual([
        expect.objectContaining({
          type: expect.objectContaining({ code: 'vacation' }),
          entitlement: 10,
          planned: 5,
          remaining: 5,
        }),
      ]);
      // More than is left: a typed refusal.
      const refused = await caught(
        client.createAbsence({ ...body, startDate: '2026-07-06', endDate: '2026-07-17' }),
      );
      expect(refused).toMatchObject({ status: 409, error: 'insufficient_balance' });
    });

    it('rejects and cancels with a reason; absences() pages through every one in order', async () => {
      const { fixture, client } = await leaveCompany();
      const employee = fixture.employees[1]!.id;
      const ids: string[] = [];
      for (let week = 0; week < 4; week++) {
        const day = `2026-06-${String(22 + week).padStart(2, '0')}`;
        const created = await client.createAbsence({
          employee: { id: employee },
          typeCode: 'sick',
          startDate: day,
          endDate: day,
        });
        expect(created.status).toBe('approved');
        ids.push(created.id!);
      }
      const request = await client.createAbsence({
        employee: { externalId: 'EXT-1' },
        typeCode: 'unpaid',
        startDate: '2026-06-29',
        endDate: '2026-06-29',
      });
      const rejected = await client.rejectAbsence(request.id!, 'Busy week');
      expect(rejected).toMatchObject({ status: 'rejected', reason: 'Busy week' });
      const again = await caught(client.rejectAbsence(request.id!, 'Twice'));
      expect(again).toMatchObject({ status: 409, error: 'invalid_status_transition' });
      const cancelled = await client.cancelAbsence(ids[3]!, 'Came in after all');
      expect(cancelled).toMatchObject({ status: 'cancelled', reason: 'Came in after all' });

      const seen = [];
      for await (const absence of client.absences({ employeeId: employee, limit: 2 })) seen.push(absence);
      expect(seen.map((a) => a.startDate)).toEqual([
        '2026-06-22',
        '2026-06-23',
        '2026-06-24',
        '2026-06-25',
        '2026-06-29',
      ]);
      const page = await client.listAbsences({ employeeId: employee, status: 'cancelled' });
      expect(page.items.map((a) => a.id)).toEqual([ids[3]]);
    });
  },
);
