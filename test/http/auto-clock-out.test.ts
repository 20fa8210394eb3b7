import { describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/modules/context.js';
import { confirmDay } from '../../src/modules/time-tracking/approval.js';
import { updateCompany } from '../../src/modules/companies/service.js';
import { closeDueSessions } from '../../src/modules/corrections/auto-clock-out.js';
import { testDialects } from '../support/databases.js';
import { entryIdOf, feed, MANAGE_SCOPES, managing, readEntry, revisions } from '../support/corrections.js';
import { call, HOUR, iso, punch, T0, type Tenant, timeTrackingSuite } from '../support/time-tracking.js';

/*
 * Issue 30: the automatic clock-out through the real server on both databases. A session open
 * `autoClockOutAfterHours` is closed at its start plus that many hours (also when the setting came
 * later), a break in progress ends at the same instant, a break after it goes; the revision is
 * `auto_closed` by `system`, the item `autoClosed`, the event `time_entry.completed`. A session on a
 * locked day stays open and needs a correction.
 */

async function setAutoClockOut(
  suite: { server: { ctx: Parameters<typeof inTransaction>[0] } },
  tenant: Tenant,
  hours: string,
) {
  await inTransaction(suite.server.ctx, (tx, now) =>
    updateCompany(tx, now, tenant.fixture.companyId, { autoClockOutAfter: hours }),
  );
}

describe.each(testDialects().map((d) => [d.name, d] as const))(
  'automatic clock-out on %s',
  (_name, dialect) => {
    const suite = timeTrackingSuite(dialect, { env: { AUTO_CLOCK_OUT_INTERVAL_MS: '0' } });
    const server = () => suite.server;
    const employee = (tenant: Tenant, i: number) => ({ employee: { id: tenant.fixture.employees[i]!.id } });

    it('closes due sessions at their start plus the hours, once, with a system revision and a completed event', async () => {
      const tenant = await suite.berlin({ scopes: MANAGE_SCOPES, employeeCount: 3 });
      const [e1, e2] = [1, 2];
      const due = entryIdOf(await punch(tenant, 'clock_in', iso(T0 - 13 * HOUR)));
      await punch(tenant, 'break_start', iso(T0 - 2 * HOUR));
      const notYet = entryIdOf(await punch(tenant, 'clock_in', iso(T0 - 11 * HOUR), employee(tenant, e1)));
      const late = entryIdOf(await punch(tenant, 'clock_in', iso(T0 - 20 * HOUR), employee(tenant, e2)));
      await punch(tenant, 'break_start', iso(T0 - 6 * HOUR), employee(tenant, e2));
      // Without the setting nothing is closed.
      expect(await closeDueSessions(server().ctx)).toBe(0);
      await setAutoClockOut(suite, tenant, '12');
      expect(await closeDueSessions(server().ctx)).toBe(2);
      expect(await closeDueSessions(server().ctx)).toBe(0);

      const closed = await readEntry(server(), tenant.token, due);
      expect(closed.body).toMatchObject({
        status: 'pending_approval',
        startTime: '00:00:00',
        endTime: '12:00:00',
        breakMinutes: 60,
        totalHours: 11,
        autoClosed: true,
        edited: false,
        version: 3,
        breaks: [{ startedAt: iso(T0 - 2 * HOUR), endedAt: iso(T0 - HOUR), minutes: 60 }],
      });
      // The break that began after the closing instant is gone.
      expect((await readEntry(server(), tenant.token, late)).body).toMatchObject({
        endTime: '05:00:00',
        endsNextDay: true,
        breaks: [],
        breakMinutes: null,
        totalHours: 12,
      });
      expect((await readEntry(server(), tenant.token, notYet)).body).toMatchObject({
        status: 'open',
        autoClosed: false,
      });
      const history = await revisions(server(), tenant.token, due);
      expect(history.at(-1)).toMatchObject({
        revision: 3,
        action: 'auto_closed',
        at: iso(T0),
        actor: { kind: 'system', id: null, name: 'automatic clock-out' },
        reason: expect.stringContaining('12 hours'),
      });
      const events = await feed(server(), tenant.token, 'time_entry.completed');
      expect(events.map((e) => [e.data.id, e.data.autoClosed]).sort()).toEqual(
        [
          [due, true],
          [late, true],
        ].sort(),
      );
      // Two hours later the other one is due.
      suite.now = T0 + 2 * HOUR;
      await tenant.refreshToken();
      expect(await closeDueSessions(server().ctx)).toBe(1);
      expect((await readEntry(server(), tenant.token, notYet)).body).toMatchObject({
        endTime: '14:00:00',
        autoClosed: true,
      });
      // The employee punches again.
      expect((await punch(tenant, 'clock_in', iso(suite.now))).status).toBe(201);
    });

    it('one session that fails is logged and left open; the run goes on with the others', async () => {
      const tenant = await suite.berlin({ scopes: MANAGE_SCOPES, employeeCount: 2 });
      const first = entryIdOf(await punch(tenant, 'clock_in', iso(T0 - 14 * HOUR)));
      const second = entryIdOf(await punch(tenant, 'clock_in', iso(T0 - 13 * HOUR), employee(tenant, 1)));
      await setAutoClockOut(suite, tenant, '12');
      // The first transaction of the run fails (a session the database refuses to close).
      const real = server().ctx;
      let calls = 0;
      const database = Object.create(real.database) as typeof real.database;
      database.transaction = ((work: Parameters<typeof real.database.transaction>[0]) => {
        calls += 1;
        return calls === 1 ? Promise.reject(new Error('injected failure')) : real.database.transaction(work);
      }) as typeof real.database.transaction;
      const ctx = Object.assign(Object.create(real) as typeof real, { database });
      const failures: { entryId: string; error: unknown }[] = [];
      expect(await closeDueSessions(ctx, (failure) => failures.push(failure))).toBe(1);
      expect(failures).toEqual([
        { entryId: first, error: expect.objectContaining({ message: 'injected failure' }) },
      ]);
      expect((await readEntry(server(), tenant.token, first)).body).toMatchObject({ status: 'open' });
      expect((await readEntry(server(), tenant.token, second)).body).toMatchObject({ autoClosed: true });
      // The next run closes the one left.
      expect(await closeDueSessions(server().ctx)).toBe(1);
    });

    it('a session on a locked day stays open and is marked as needing a correction once 24 hours have passed', async () => {
      const tenant = await managing(suite);
      const id = entryIdOf(await punch(tenant, 'clock_in', iso(T0 - 14 * HOUR)));
      await inTransaction(server().ctx, (tx, now) =>
        confirmDay(tx, now, { employeeId: tenant.employeeId, date: '2026-11-09' }),
      );
      await setAutoClockOut(suite, tenant, '8');
      expect(await closeDueSessions(server().ctx)).toBe(0);
      const status = async () => {
        const reply = await call(server(), tenant.token, 'GET', '/api/public/v1/time-clock/status');
        expect(reply.status, reply.text).toBe(200);
        return reply.body.items;
      };
      expect(await status()).toMatchObject([{ timeEntryId: id, needsCorrection: false }]);
      suite.now = T0 + 10 * HOUR;
      await tenant.refreshToken();
      expect(await status()).toMatchObject([{ timeEntryId: id, needsCorrection: true }]);
    });
  },
);

describe.each(testDialects().map((d) => [d.name, d] as const))(
  'automatic clock-out timer on %s',
  (_name, dialect) => {
    const suite = timeTrackingSuite(dialect, { env: { AUTO_CLOCK_OUT_INTERVAL_MS: '50' } });

    it('every instance runs it: a session switched on late is closed without anyone asking', async () => {
      const tenant = await managing(suite);
      const id = entryIdOf(await punch(tenant, 'clock_in', iso(T0 - 5 * HOUR)));
      await setAutoClockOut(suite, tenant, '4');
      let entry = await readEntry(suite.server, tenant.token, id);
      for (let i = 0; i < 200 && entry.body.status === 'open'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        entry = await readEntry(suite.server, tenant.token, id);
      }
      expect(entry.body).toMatchObject({ status: 'pending_approval', autoClosed: true, endTime: '12:00:00' });
    });
  },
);
