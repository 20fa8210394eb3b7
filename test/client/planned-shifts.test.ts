import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPunchclockClient, PunchclockError } from '../../client/src/index.js';
import { testDialects } from '../support/databases.js';
import { createCompanyFixture, startTestServer, type TestServer } from '../support/server.js';

/* The typed client's planned-shift and exception operations against a real server (issue 33). */

describe.each(testDialects().map((d) => [d.name, d] as const))(
  'the client plans shifts on %s',
  (_name, dialect) => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer(dialect, { env: { EXCEPTIONS_JOB: 'false' } });
    });
    afterAll(async () => server.stop());

    it('upserts a week twice, lists it page by page, publishes it, deletes a shift, lists exceptions', async () => {
      const fixture = await createCompanyFixture(server.ctx, {
        timeZone: 'Europe/Berlin',
        scopes: 'attendance.read,shifts.manage',
        employeeCount: 2,
      });
      const client = createPunchclockClient({
        baseUrl: server.listenUrl,
        clientId: fixture.key.clientId,
        clientSecret: fixture.key.secret,
      });
      const shifts = [16, 17, 18].map((day) => ({
        externalId: `wk-${day}`,
        employee: { externalId: 'EXT-0' },
        start: `2026-11-${day}T09:00:00+01:00`,
        end: `2026-11-${day}T17:00:00+01:00`,
      }));
      const first = await client.upsertPlannedShifts({ shifts });
      expect(first.results.map((r) => r.status)).toEqual([201, 201, 201]);
      const again = await client.upsertPlannedShifts({ shifts }, { idempotencyKey: 'another' });
      expect(again.results.map((r) => r.status)).toEqual([200, 200, 200]);
      const listed = [];
      for await (const shift of client.plannedShifts({ from: '2026-11-16', to: '2026-11-22', limit: 2 }))
        listed.push(shift);
      expect(listed.map((s) => s.externalId)).toEqual(['wk-16', 'wk-17', 'wk-18']);
      expect(await client.publishPlannedShifts({ from: '2026-11-16', to: '2026-11-22' })).toEqual({
        published: 3,
        dryRun: false,
      });
      await client.deletePlannedShift(listed[0]!.id);
      const gone = await client.deletePlannedShift(listed[0]!.id).catch((error: unknown) => error);
      expect(gone).toBeInstanceOf(PunchclockError);
      expect((gone as PunchclockError).error).toBe('not_found');
      const exceptions = await client.listAttendanceExceptions({ from: '2026-11-16', to: '2026-11-22' });
      expect(exceptions).toEqual({ items: [], nextCursor: null, hasMore: false });
    });
  },
);
