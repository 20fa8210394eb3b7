// The typed client's corrections (issue 30) against a real server, on every test database: read one
// entry, decide, correct with If-Match (412 as a typed error), delete, history, closed periods.
import { describe, expect, it } from 'vitest';
import { createPunchclockClient, PunchclockError } from '../../client/src/index.js';
import { ContractChecker } from '../support/contract.js';
import { MANAGE_SCOPES } from '../support/corrections.js';
import { testDialects } from '../support/databases.js';
import { createCompanyFixture } from '../support/server.js';
import { HOUR, iso, T0, timeTrackingSuite } from '../support/time-tracking.js';

describe.each(testDialects().map((d) => [d.name, d] as const))(
  'typed client corrections on %s',
  (_name, dialect) => {
    const suite = timeTrackingSuite(dialect, { env: { AUTO_CLOCK_OUT_INTERVAL_MS: '0' } });

    async function connect() {
      const fixture = await createCompanyFixture(suite.server.ctx, {
        timeZone: 'Europe/Berlin',
        scopes: MANAGE_SCOPES,
      });
      const contract = new ContractChecker(suite.server.app.swagger() as Record<string, unknown>);
      const client = createPunchclockClient({
        baseUrl: suite.server.listenUrl,
        clientId: fixture.key.clientId,
        clientSecret: fixture.key.secret,
        sleep: async () => {},
        fetch: async (request) => {
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
      return { client, fixture };
    }

    it('reads, decides, corrects (If-Match), deletes and reads the history; closes and reopens a period', async () => {
      const { client, fixture } = await connect();
      const employee = { id: fixture.employees[0]!.id };
      const written = await client.recordShift({
        employee,
        clockIn: iso(T0 - 10 * HOUR),
        clockOut: iso(T0 - 2 * HOUR),
      });
      const id = written.timeEntryId!;
      const entry = await client.getTimeEntry(id);
      expect(entry).toMatchObject({ id, version: 1, status: 'pending_approval' });
      const approved = await client.approveTimeEntry(id, 'ok', { ifMatch: entry.version });
      expect(approved).toMatchObject({ status: 'approved', version: 2 });
      const stale = await client
        .correctTimeEntry(id, { note: 'n', reason: 'r' }, { ifMatch: 1 })
        .catch((e: unknown) => e);
      expect(stale).toBeInstanceOf(PunchclockError);
      expect(stale).toMatchObject({ status: 412, error: 'version_mismatch' });
      const reopened = await client.reopenTimeEntry(id, 'check again', { ifMatch: 2 });
      expect(reopened.status).toBe('pending_approval');
      const corrected = await client.correctTimeEntry(
        id,
        { clockOut: iso(T0 - 3 * HOUR), reason: 'left early' },
        { ifMatch: 3 },
      );
      expect(corrected).toMatchObject({ totalHours: 7, edited: true, version: 4 });
      const dry = await client.rejectTimeEntry(id, 'no', { dryRun: true });
      expect(dry.status).toBe('rejected');
      expect((await client.getTimeEntry(id)).status).toBe('pending_approval');
      await client.deleteTimeEntry(id, 'duplicate', { ifMatch: 4 });
      const history = await client.listTimeEntryRevisions(id);
      expect(history.items.map((r) => r.action)).toEqual([
        'recorded',
        'approved',
        'reopened',
        'corrected',
        'deleted',
      ]);
      const missing = await client.getTimeEntry(id).catch((e: unknown) => e);
      expect(missing).toMatchObject({ status: 404, error: 'not_found' });

      const period = await client.closePeriod({ from: '2026-11-01', to: '2026-11-08' });
      expect(period).toMatchObject({
        from: '2026-11-01',
        to: '2026-11-08',
        workplaceId: null,
        closedBy: { kind: 'api_key' },
      });
      expect((await client.listLockedPeriods()).items.map((p) => p.id)).toEqual([period.id]);
      const locked = await client
        .recordShift({ employee, clockIn: '2026-11-05T07:00:00Z', clockOut: '2026-11-05T09:00:00Z' })
        .catch((e: unknown) => e);
      expect(locked).toMatchObject({ status: 409, error: 'day_locked' });
      await client.reopenPeriod(period.id, 'payroll rerun');
      expect((await client.listLockedPeriods()).items).toEqual([]);
    });
  },
);
