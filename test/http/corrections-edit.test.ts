import { describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/modules/context.js';
import { confirmDay } from '../../src/modules/time-tracking/approval.js';
import { testDialects } from '../support/databases.js';
import {
  correct,
  decide,
  entryIdOf,
  entryPath,
  feed,
  managing,
  readEntry,
  remove,
  revisions,
} from '../support/corrections.js';
import {
  call,
  DAY,
  HOUR,
  iso,
  MINUTE,
  punch,
  shift,
  T0,
  timeTrackingSuite,
} from '../support/time-tracking.js';

/*
 * Issue 30: corrections (PATCH /time-entries/{id}) and deletions through the real server on both
 * databases: the forgotten clock-out rescued, every rule of a recorded shift on the result, the
 * windows that do not apply, the revisions of punches and changes, the events.
 */

describe.each(testDialects().map((d) => [d.name, d] as const))(
  'corrections and deletions on %s',
  (_name, dialect) => {
    const suite = timeTrackingSuite(dialect, { env: { AUTO_CLOCK_OUT_INTERVAL_MS: '0' } });
    const server = () => suite.server;

    it('a forgotten clock-out: the punches say how to get out, the session needs a correction, a manager closes it', async () => {
      const tenant = await managing(suite);
      const clockIn = T0 - 26 * HOUR;
      const id = entryIdOf(await punch(tenant, 'clock_in', iso(clockIn)));
      await punch(tenant, 'break_start', iso(clockIn + 4 * HOUR));
      const stuck = await punch(tenant, 'clock_in', iso(T0));
      expect(stuck.status).toBe(409);
      expect(stuck.body.error).toBe('already_clocked_in');
      expect(stuck.body.detail).toContain(`PATCH /time-entries/${id}`);
      const tooLong = await punch(tenant, 'clock_out', iso(T0));
      expect(tooLong.body.error).toBe('session_too_long');
      expect(tooLong.body.detail).toContain('a manager closes it with a correction');
      const status = await call(server(), tenant.token, 'GET', '/api/public/v1/time-clock/status');
      expect(status.body.items).toMatchObject([{ timeEntryId: id, needsCorrection: true, onBreak: true }]);

      const closed = await correct(
        server(),
        tenant.token,
        id,
        { clockOut: iso(clockIn + 8 * HOUR), reason: 'forgot to clock out' },
        { 'if-match': '"2"' },
      );
      expect(closed.status, closed.text).toBe(200);
      expect(closed.headers.get('etag')).toBe('"3"');
      expect(closed.body).toMatchObject({
        id,
        status: 'pending_approval',
        startTime: '11:00:00',
        endTime: '19:00:00',
        // The break in progress ended at the new clock-out.
        breakMinutes: 240,
        totalHours: 4,
        version: 3,
        edited: true,
        autoClosed: false,
      });
      expect((await punch(tenant, 'clock_in', iso(T0))).status).toBe(201);
      const history = await revisions(server(), tenant.token, id);
      expect(history.map((r) => [r.revision, r.action, r.actor.kind])).toEqual([
        [1, 'recorded', 'api_key'],
        [2, 'break_started', 'api_key'],
        [3, 'corrected', 'api_key'],
      ]);
      expect(history[2]!.reason).toBe('forgot to clock out');
      const fields = Object.fromEntries(history[2]!.changes.map((c) => [c.field, [c.from, c.to]]));
      expect(fields).toMatchObject({
        endTime: [null, '19:00:00'],
        status: ['open', 'pending_approval'],
        totalHours: [0, 4],
      });
      expect(fields.breaks).toEqual([
        [{ startedAt: iso(clockIn + 4 * HOUR), endedAt: null }],
        [{ startedAt: iso(clockIn + 4 * HOUR), endedAt: iso(clockIn + 8 * HOUR) }],
      ]);
      // Closing an open session completes it, as a clock-out does.
      const events = await feed(server(), tenant.token, 'time_entry.completed,time_entry.updated');
      expect(events.map((e) => [e.type, e.data.id])).toEqual([['time_entry.completed', id]]);
    });

    it('punches write their revisions: recorded, break_started, break_ended, completed, with the changes', async () => {
      const tenant = await managing(suite);
      const id = entryIdOf(await punch(tenant, 'clock_in', iso(T0 - 5 * HOUR)));
      await punch(tenant, 'break_start', iso(T0 - 3 * HOUR));
      await punch(tenant, 'break_end', iso(T0 - 3 * HOUR + 30 * MINUTE));
      await punch(tenant, 'clock_out', iso(T0), { note: 'done' });
      const history = await revisions(server(), tenant.token, id);
      expect(history.map((r) => r.action)).toEqual(['recorded', 'break_started', 'break_ended', 'completed']);
      expect(history.every((r) => r.at === iso(T0) && r.reason === null)).toBe(true);
      expect(history[3]!.changes.map((c) => c.field)).toEqual(['endTime', 'totalHours', 'status', 'note']);
      expect((await readEntry(server(), tenant.token, id)).body).toMatchObject({ version: 4, edited: false });
      const shiftId = entryIdOf(await shift(tenant, iso(T0 - 30 * HOUR), iso(T0 - 28 * HOUR)));
      expect((await revisions(server(), tenant.token, shiftId)).map((r) => r.action)).toEqual(['recorded']);
    });

    it('the rules of a recorded shift hold for the result, each refusal a 422 naming the field', async () => {
      const tenant = await managing(suite);
      const start = Date.parse('2026-11-09T07:00:00Z');
      const id = entryIdOf(await shift(tenant, iso(start), iso(start + 8 * HOUR), { breakMinutes: 30 }));
      const clocked = entryIdOf(await punch(tenant, 'clock_in', iso(T0 - 2 * HOUR)));
      const cases: [string, Record<string, unknown>, string][] = [
        [id, { reason: 'r' }, 'body'],
        [id, { note: 'n', reason: '  ' }, 'reason'],
        [id, { note: 'n' }, 'reason'],
        [id, { clockOut: iso(start - HOUR), reason: 'r' }, 'clockOut'],
        [id, { clockOut: iso(start + 24 * HOUR), reason: 'r' }, 'clockOut'],
        [id, { clockOut: iso(start + 40 * MINUTE), reason: 'r' }, 'clockOut'],
        [id, { clockOut: iso(start + 20 * HOUR), reason: 'r' }, 'breakMinutes'],
        [id, { breakMinutes: 600, reason: 'r' }, 'breakMinutes'],
        [id, { breakMinutes: 30, breaks: [], reason: 'r' }, 'breaks'],
        [id, { breaks: [], reason: 'r' }, 'breaks'],
        [id, { clockIn: '2026-11-09T07:00:00', reason: 'r' }, 'clockIn'],
        [id, { note: 'x'.repeat(501), reason: 'r' }, 'note'],
        [id, { clockIn: iso(start), surprise: true, reason: 'r' }, 'surprise'],
        [clocked, { breakMinutes: 10, reason: 'r' }, 'breakMinutes'],
        [
          clocked,
          {
            clockIn: iso(T0 - HOUR),
            clockOut: iso(T0),
            breaks: [{ startedAt: iso(T0 - 2 * HOUR), endedAt: iso(T0 - 90 * MINUTE) }],
            reason: 'r',
          },
          'breaks',
        ],
      ];
      for (const [entry, body, field] of cases) {
        const reply = await correct(server(), tenant.token, entry, body);
        expect(reply.status, JSON.stringify(body)).toBe(422);
        expect(
          reply.body.errors?.map((e) => e.field),
          JSON.stringify(body),
        ).toContain(field);
      }
      expect((await readEntry(server(), tenant.token, id)).body).toMatchObject({ version: 1, edited: false });
    });

    it('an overlap is 409; old and new days must be open; the 30-day window does not apply, the 400-day limit does', async () => {
      const tenant = await managing(suite);
      const monday = Date.parse('2026-11-09T07:00:00Z');
      const a = entryIdOf(await shift(tenant, iso(monday), iso(monday + 4 * HOUR)));
      const b = entryIdOf(await shift(tenant, iso(monday + 5 * HOUR), iso(monday + 9 * HOUR)));
      const overlap = await correct(server(), tenant.token, a, {
        clockOut: iso(monday + 6 * HOUR),
        reason: 'r',
      });
      expect(overlap.status).toBe(409);
      expect(overlap.body.error).toBe('overlaps_existing_entry');
      expect(overlap.body.detail).toContain(b);

      await inTransaction(server().ctx, (tx, now) =>
        confirmDay(tx, now, { employeeId: tenant.employeeId, date: '2026-11-05' }),
      );
      const intoLocked = await correct(server(), tenant.token, a, {
        clockIn: '2026-11-05T07:00:00Z',
        clockOut: '2026-11-05T11:00:00Z',
        reason: 'wrong day',
      });
      expect(intoLocked.body.error).toBe('day_locked');

      // Recorded 40 days ago (the clock moved back), corrected today.
      suite.now = T0 - 40 * DAY;
      const old = entryIdOf(await shift(tenant, iso(T0 - 40 * DAY - 8 * HOUR), iso(T0 - 40 * DAY - HOUR)));
      suite.now = T0;
      // An entry recorded 402 days ago (its instants moved back: no schedule reaches that far).
      const ancient = entryIdOf(
        await shift(tenant, iso(T0 - 20 * DAY - 8 * HOUR), iso(T0 - 20 * DAY - HOUR)),
      );
      await server()
        .database.db.updateTable('time_entries')
        .set({ start_at: iso(T0 - 402 * DAY - 8 * HOUR), end_at: iso(T0 - 402 * DAY - HOUR) })
        .where('id', '=', ancient)
        .execute();
      suite.now = T0;
      const moved = await correct(server(), tenant.token, old, {
        clockOut: iso(T0 - 40 * DAY - 2 * HOUR),
        reason: 'r',
      });
      expect(moved.status, moved.text).toBe(200);
      const tooOld = await correct(server(), tenant.token, ancient, { note: 'n', reason: 'r' });
      expect(tooOld.status).toBe(409);
      expect(tooOld.body).toMatchObject({ error: 'entry_too_old', code: 2916 });
    });

    it('a correction may not move an entry past the 400-day window: 409 entry_too_old, nothing changed', async () => {
      const tenant = await managing(suite);
      const id = entryIdOf(await shift(tenant, iso(T0 - 20 * DAY - 8 * HOUR), iso(T0 - 20 * DAY - HOUR)));
      await server()
        .database.db.updateTable('time_entries')
        .set({ start_at: iso(T0 - 399 * DAY - 8 * HOUR), end_at: iso(T0 - 399 * DAY - HOUR) })
        .where('id', '=', id)
        .execute();
      const moved = await correct(server(), tenant.token, id, {
        clockIn: iso(T0 - 401 * DAY - 8 * HOUR),
        clockOut: iso(T0 - 401 * DAY - HOUR),
        reason: 'r',
      });
      expect(moved.status, moved.text).toBe(409);
      expect(moved.body).toMatchObject({ error: 'entry_too_old', code: 2916 });
      expect(await revisions(server(), tenant.token, id)).toHaveLength(1);
    });

    it('an open session: a new start in the future or 24 hours ago or more is 422 naming clockIn; with a clockOut it closes', async () => {
      const tenant = await managing(suite);
      const id = entryIdOf(await punch(tenant, 'clock_in', iso(T0 - 2 * HOUR)));
      for (const clockIn of [iso(T0 + 10 * MINUTE), iso(T0 - 24 * HOUR), iso(T0 - 30 * HOUR)]) {
        const refused = await correct(server(), tenant.token, id, { clockIn, reason: 'r' });
        expect(refused.status, refused.text).toBe(422);
        expect(refused.body.error).toBe('validation_failed');
        expect(refused.body.errors?.map((e) => e.field)).toEqual(['clockIn']);
      }
      const moved = await correct(server(), tenant.token, id, { clockIn: iso(T0 - 3 * HOUR), reason: 'r' });
      expect(moved.status, moved.text).toBe(200);
      expect(moved.body.status).toBe('open');
      const closed = await correct(server(), tenant.token, id, {
        clockIn: iso(T0 - 30 * HOUR),
        clockOut: iso(T0 - 22 * HOUR),
        reason: 'r',
      });
      expect(closed.status, closed.text).toBe(200);
      expect(closed.body.status).toBe('pending_approval');
    });

    it('the schedule rule of a shift holds for the corrected result: no schedule on the new work date, or no workplace, is business_rule_violation', async () => {
      const tenant = await managing(suite);
      const id = entryIdOf(await shift(tenant, '2026-11-09T07:00:00Z', '2026-11-09T15:00:00Z'));
      const db = server().database.db;
      await db
        .updateTable('employee_schedules')
        .set({ effective_from: '2026-11-09' })
        .where('employee_id', '=', tenant.employeeId)
        .execute();
      const early = await correct(server(), tenant.token, id, {
        clockIn: '2026-11-08T07:00:00Z',
        clockOut: '2026-11-08T15:00:00Z',
        reason: 'r',
      });
      expect(early.status, early.text).toBe(409);
      expect(early.body.error).toBe('business_rule_violation');
      expect(early.body.detail).toContain('2026-11-08');
      await db
        .updateTable('employees')
        .set({ workplace_id: null })
        .where('id', '=', tenant.employeeId)
        .execute();
      const noWorkplace = await correct(server(), tenant.token, id, { note: 'n', reason: 'r' });
      expect(noWorkplace.body.error).toBe('business_rule_violation');
      expect(await revisions(server(), tenant.token, id)).toHaveLength(1);
    });

    it('an approved entry that is changed goes back to pending_approval; breaks of a clocked entry are replaced; events say updated', async () => {
      const tenant = await managing(suite);
      const id = entryIdOf(await punch(tenant, 'clock_in', iso(T0 - 9 * HOUR)));
      await punch(tenant, 'break_start', iso(T0 - 5 * HOUR));
      await punch(tenant, 'break_end', iso(T0 - 4 * HOUR));
      await punch(tenant, 'clock_out', iso(T0 - HOUR));
      expect((await decide(server(), tenant.token, id, 'approve')).body).toMatchObject({
        status: 'approved',
      });
      const changed = await correct(server(), tenant.token, id, {
        breaks: [
          { startedAt: iso(T0 - 6 * HOUR), endedAt: iso(T0 - 5 * HOUR - 30 * MINUTE) },
          { startedAt: iso(T0 - 3 * HOUR), endedAt: iso(T0 - 3 * HOUR + 15 * MINUTE) },
        ],
        note: 'two short breaks',
        reason: 'breaks were punched wrong',
      });
      expect(changed.status, changed.text).toBe(200);
      expect(changed.body).toMatchObject({
        status: 'pending_approval',
        approvedAt: null,
        breakMinutes: 45,
        totalHours: 7.25,
        edited: true,
        breaks: [
          { startedAt: iso(T0 - 6 * HOUR), endedAt: iso(T0 - 5 * HOUR - 30 * MINUTE), minutes: 30 },
          { startedAt: iso(T0 - 3 * HOUR), endedAt: iso(T0 - 3 * HOUR + 15 * MINUTE), minutes: 15 },
        ],
      });
      // breakMinutes on a clocked entry: one break in the middle.
      const middle = await correct(server(), tenant.token, id, { breakMinutes: 60, reason: 'one hour' });
      expect(middle.body).toMatchObject({
        breakMinutes: 60,
        totalHours: 7,
        breaks: [{ startedAt: iso(T0 - 5 * HOUR - 30 * MINUTE), endedAt: iso(T0 - 4 * HOUR - 30 * MINUTE) }],
      });
      const events = await feed(server(), tenant.token, 'time_entry.updated');
      expect(events.map((e) => [e.data.id, e.data.version])).toEqual([
        [id, 6],
        [id, 7],
      ]);
    });

    it('DELETE with a reason: gone from lists, readable through its revisions, an event; an open session deleted frees the employee', async () => {
      const tenant = await managing(suite);
      const open = entryIdOf(await punch(tenant, 'clock_in', iso(T0 - 3 * HOUR)));
      const noReason = await remove(server(), tenant.token, open, {});
      expect(noReason.status).toBe(422);
      const stale = await remove(
        server(),
        tenant.token,
        open,
        { reason: 'test punch' },
        { 'if-match': '"5"' },
      );
      expect(stale.status).toBe(412);
      const dry = await remove(
        server(),
        tenant.token,
        open,
        { reason: 'test punch' },
        { 'x-service-dry-run': 'true' },
      );
      expect(dry.status).toBe(204);
      expect((await readEntry(server(), tenant.token, open)).status).toBe(200);
      const gone = await remove(
        server(),
        tenant.token,
        open,
        { reason: 'test punch' },
        { 'idempotency-key': 'del-1' },
      );
      expect(gone.status).toBe(204);
      expect(gone.text).toBe('');
      const replay = await remove(
        server(),
        tenant.token,
        open,
        { reason: 'test punch' },
        { 'idempotency-key': 'del-1' },
      );
      expect(replay.status).toBe(204);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect((await readEntry(server(), tenant.token, open)).status).toBe(404);
      expect((await remove(server(), tenant.token, open, { reason: 'again' })).status).toBe(404);
      const list = await tenant.list({ employeeId: tenant.employeeId, from: '2026-11-10', to: '2026-11-10' });
      expect(list.body.items).toEqual([]);
      expect((await punch(tenant, 'clock_in', iso(T0))).status).toBe(201);
      const history = await revisions(server(), tenant.token, open);
      expect(history.map((r) => r.action)).toEqual(['recorded', 'deleted']);
      expect(history[1]).toMatchObject({ reason: 'test punch', revision: 2 });
      expect(history[1]!.changes).toContainEqual({ field: 'startTime', from: '10:00:00', to: null });
      const events = await feed(server(), tenant.token, 'time_entry.deleted');
      expect(events.map((e) => e.data)).toEqual([
        { id: open, employee: { id: tenant.employeeId, externalId: 'EXT-0' }, workDate: '2026-11-10' },
      ]);
      const response = await server().request(entryPath(open), {
        method: 'DELETE',
        token: tenant.token,
        json: { reason: 'x' },
      });
      expect(response.status).toBe(404);
    });
  },
);
