import { inTransaction } from '../../src/modules/context.js';
import { describe, expect, it } from 'vitest';
import { requestFingerprint } from '../../src/modules/idempotency/service.js';
import { testDialects } from '../support/databases.js';
import {
  createTenant,
  DAY,
  ENTRIES,
  expectReplay,
  HOUR,
  iso,
  MINUTE,
  punch,
  shift,
  shiftBody,
  T0,
  type TimeEntryItem,
  timeTrackingSuite,
  UUID,
  WRITE_RESULT_KEYS,
} from '../support/time-tracking.js';
import { confirmDay, decideEntry } from '../../src/modules/time-tracking/approval.js';
import { createEmployee, deleteEmployee, updateEmployee } from '../../src/modules/employees/changes.js';

const LIST_ITEM_KEYS = [
  'approvedAt',
  'breakMinutes',
  'createdAt',
  'employee',
  'endTime',
  'endsNextDay',
  'id',
  'source',
  'startTime',
  'status',
  'totalHours',
  'workDate',
  // Issue 30.
  'version',
  'edited',
  'autoClosed',
  // Issue 35.
  'deviceId',
  'reviewFlags',
].sort();

describe.each(testDialects().map((d) => [d.name, d] as const))('time entries on %s', (_name, dialect) => {
  const suite = timeTrackingSuite(dialect);
  const { berlin } = suite;

  describe('POST /time-entries', () => {
    it('records a shift: 201, type shift, dated by the clock-in day, submitted for approval', async () => {
      const tenant = await berlin();
      const response = await shift(tenant, '2026-11-09T07:00:00Z', '2026-11-09T15:30:00Z', {
        breakMinutes: 30,
        note: 'inventory',
      });
      expect(response.status).toBe(201);
      expect(Object.keys(response.body).sort()).toEqual(WRITE_RESULT_KEYS);
      expect(response.body).toEqual({
        timeEntryId: expect.stringMatching(UUID),
        employee: { id: tenant.employeeId, externalId: 'EXT-0' },
        type: 'shift',
        workDate: '2026-11-09',
        time: '08:00:00',
        timeZone: 'Europe/Berlin',
        occurredAt: '2026-11-09T08:00:00+01:00',
        endsNextDay: false,
        status: 'pending_approval',
        dryRun: false,
        startTime: '08:00:00',
        endTime: '16:30:00',
        totalHours: 8,
      });
      const [row] = await suite.rows(tenant.employeeId);
      expect(row).toMatchObject({
        id: response.body.timeEntryId,
        source: 'api_shift',
        break_minutes: 30,
        net_seconds: 8 * 3600,
        note: 'inventory',
        status: 'pending_approval',
        created_by_type: 'api_key',
        created_by_id: tenant.fixture.key.id,
      });
      const audit = await suite.audit(response.body.timeEntryId!);
      expect(audit).toEqual([
        expect.objectContaining({
          actor_type: 'api_key',
          actor_id: tenant.fixture.key.id,
          action: 'time_entry.create_shift',
        }),
      ]);
    });

    it('an overnight shift sets endsNextDay and stays on its start day', async () => {
      const tenant = await berlin();
      const response = await shift(tenant, '2026-11-08T21:00:00Z', '2026-11-09T05:00:00Z');
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({
        workDate: '2026-11-08',
        startTime: '22:00:00',
        endTime: '06:00:00',
        endsNextDay: true,
        totalHours: 8,
      });
    });

    it('refuses invalid shifts with 422 naming the field', async () => {
      const tenant = await berlin();
      const cases: [string, string, Record<string, unknown>, string][] = [
        // overnight shift with a break
        ['2026-11-08T21:00:00Z', '2026-11-09T05:00:00Z', { breakMinutes: 30 }, 'breakMinutes'],
        // break not fitting in the shift
        ['2026-11-10T07:00:00Z', '2026-11-10T08:00:00Z', { breakMinutes: 60 }, 'breakMinutes'],
        ['2026-11-10T07:00:00Z', '2026-11-10T08:00:00Z', { breakMinutes: 90 }, 'breakMinutes'],
        // net working time under 15 minutes
        ['2026-11-10T07:00:00Z', '2026-11-10T07:20:00Z', { breakMinutes: 10 }, 'clockOut'],
        ['2026-11-10T07:00:00Z', '2026-11-10T07:14:59Z', {}, 'clockOut'],
        // 24 hours or more
        ['2026-11-09T07:00:00Z', '2026-11-10T07:00:00Z', {}, 'clockOut'],
        ['2026-11-09T06:00:00Z', '2026-11-10T07:00:00Z', {}, 'clockOut'],
        // clockOut not after clockIn
        ['2026-11-10T08:00:00Z', '2026-11-10T07:00:00Z', {}, 'clockOut'],
        ['2026-11-10T08:00:00Z', '2026-11-10T08:00:00Z', {}, 'clockOut'],
        // clockOut more than 5 minutes ahead
        ['2026-11-10T11:00:00Z', iso(T0 + 6 * MINUTE), {}, 'clockOut'],
        // clockIn more than 30 days back
        [iso(T0 - 30 * DAY - MINUTE), iso(T0 - 30 * DAY + HOUR), {}, 'clockIn'],
        // schema limits
        ['2026-11-10T07:00:00Z', '2026-11-10T09:00:00Z', { breakMinutes: 1441 }, 'breakMinutes'],
        ['2026-11-10T07:00:00Z', '2026-11-10T09:00:00Z', { breakMinutes: -1 }, 'breakMinutes'],
        ['2026-11-10T07:00:00Z', '2026-11-10T09:00:00Z', { breakMinutes: 1.5 }, 'breakMinutes'],
        ['2026-11-10T07:00:00Z', '2026-11-10T09:00:00Z', { breakMinutes: '30' }, 'breakMinutes'],
        ['2026-11-10T07:00:00Z', '2026-11-10T09:00:00Z', { note: 'n'.repeat(501) }, 'note'],
        ['2026-11-10T07:00:00Z', '2026-11-10T09:00:00Z', { note: 'a\u0000b' }, 'note'],
        ['2026-11-10T07:00:00Z', '2026-11-10T09:00:00Z', { deviceId: 'x' }, 'deviceId'],
        ['2026-11-10T07:00:00', '2026-11-10T09:00:00Z', {}, 'clockIn'],
        ['2026-11-10T07:00:00Z', '2026-11-10T09:00', {}, 'clockOut'],
      ];
      for (const [clockIn, clockOut, extra, field] of cases) {
        const label = JSON.stringify({ clockIn, clockOut, extra });
        const response = await shift(tenant, clockIn, clockOut, extra);
        expect(response.status, label).toBe(422);
        expect(response.body.error, label).toBe('validation_failed');
        expect(
          response.body.errors?.map((e) => e.field),
          label,
        ).toContain(field);
      }
      expect(await suite.rows(tenant.employeeId)).toHaveLength(0);
    });

    it('names every wrong field when several are wrong', async () => {
      const tenant = await berlin();
      const response = await tenant.shift({
        employee: { externalId: 12 },
        clockIn: 'monday',
        clockOut: 'tuesday',
        breakMinutes: 2000,
        note: 'n'.repeat(501),
      });
      expect(response.status).toBe(422);
      expect(response.body.errors?.map((e) => e.field).sort()).toEqual([
        'breakMinutes',
        'clockIn',
        'clockOut',
        'employee.externalId',
        'note',
      ]);
      const rules = await shift(tenant, iso(T0 - 31 * DAY), iso(T0 + HOUR));
      expect(rules.status).toBe(422);
      expect(new Set(rules.body.errors?.map((e) => e.field))).toEqual(new Set(['clockIn', 'clockOut']));
    });

    it('accepts the limits exactly: net 15 minutes, just under 24 hours, clockOut 5 minutes ahead', async () => {
      const tenant = await berlin();
      const quarter = await shift(tenant, '2026-11-01T07:00:00Z', '2026-11-01T07:45:00Z', {
        breakMinutes: 30,
      });
      expect(quarter.status).toBe(201);
      expect(quarter.body.totalHours).toBe(0.25);
      const long = await shift(tenant, '2026-11-02T07:00:00Z', '2026-11-03T06:59:00Z');
      expect(long.status).toBe(201);
      expect(long.body).toMatchObject({ endsNextDay: true, totalHours: 23.98 });
      const ahead = await shift(tenant, '2026-11-10T11:00:00Z', iso(T0 + 5 * MINUTE), { breakMinutes: 0 });
      expect(ahead.status).toBe(201);
      const back = await shift(tenant, iso(T0 - 30 * DAY), iso(T0 - 30 * DAY + HOUR));
      expect(back.status).toBe(201);
    });

    it('overlaps_existing_entry: a shift overlapping an entry or an open session; touching is fine', async () => {
      const tenant = await berlin();
      expect((await shift(tenant, '2026-11-10T07:00:00Z', '2026-11-10T09:00:00Z')).status).toBe(201);
      for (const [clockIn, clockOut] of [
        ['2026-11-10T08:30:00Z', '2026-11-10T10:30:00Z'],
        ['2026-11-10T06:00:00Z', '2026-11-10T07:30:00Z'],
        ['2026-11-10T06:00:00Z', '2026-11-10T10:00:00Z'],
        ['2026-11-10T07:30:00Z', '2026-11-10T08:00:00Z'],
      ] as const) {
        const response = await shift(tenant, clockIn, clockOut);
        expect(response.status, `${clockIn}..${clockOut}`).toBe(409);
        expect(response.body.error).toBe('overlaps_existing_entry');
      }
      expect((await shift(tenant, '2026-11-10T09:00:00Z', '2026-11-10T10:00:00Z')).status).toBe(201);
      expect((await shift(tenant, '2026-11-10T06:00:00Z', '2026-11-10T07:00:00Z')).status).toBe(201);
      // An open session reaches to the end of time.
      const opened = await punch(tenant, 'clock_in', '2026-11-10T10:30:00Z');
      expect(opened.status).toBe(201);
      const inside = await shift(tenant, '2026-11-10T11:00:00Z', '2026-11-10T11:30:00Z');
      expect(inside.status).toBe(409);
      expect(inside.body.error).toBe('overlaps_existing_entry');
      const before = await shift(tenant, '2026-11-10T10:00:00Z', '2026-11-10T10:30:00Z');
      expect(before.status).toBe(201);
      expect(await suite.rows(tenant.employeeId)).toHaveLength(5);
    });

    it('day_locked: a shift on a confirmed day', async () => {
      const tenant = await berlin();
      await inTransaction(suite.server.ctx, (tx, now) =>
        confirmDay(tx, now, { employeeId: tenant.employeeId, date: '2026-11-09' }),
      );
      const response = await shift(tenant, '2026-11-09T07:00:00Z', '2026-11-09T09:00:00Z');
      expect(response.status).toBe(409);
      expect(response.body.error).toBe('day_locked');
      expect((await shift(tenant, '2026-11-10T07:00:00Z', '2026-11-10T09:00:00Z')).status).toBe(201);
    });

    it('business_rule_violation: no workplace, or no schedule effective yet', async () => {
      const tenant = await berlin();
      await inTransaction(suite.server.ctx, (tx, now) =>
        updateEmployee(tx, now, tenant.employeeId, { workplace: 'none' }),
      );
      const noWorkplace = await shift(tenant, '2026-11-10T07:00:00Z', '2026-11-10T09:00:00Z');
      expect(noWorkplace.status).toBe(409);
      expect(noWorkplace.body.error).toBe('business_rule_violation');
      await inTransaction(suite.server.ctx, (tx, now) =>
        createEmployee(tx, now, tenant.fixture.companyId, {
          email: 'later@acme.example',
          externalId: 'LATER',
          workplace: tenant.fixture.workplaceId,
          schedule: tenant.fixture.scheduleId,
          scheduleFrom: '2026-11-10',
        }),
      );
      const later = { employee: { externalId: 'LATER' } };
      const early = await shift(tenant, '2026-11-09T07:00:00Z', '2026-11-09T09:00:00Z', later);
      expect(early.status).toBe(409);
      expect(early.body.error).toBe('business_rule_violation');
      const onTime = await shift(tenant, '2026-11-10T07:00:00Z', '2026-11-10T09:00:00Z', later);
      expect(onTime.status).toBe(201);
    });

    it('404 for an unknown, deleted or foreign employee', async () => {
      const tenant = await berlin();
      const other = await berlin();
      await inTransaction(suite.server.ctx, (tx, now) =>
        deleteEmployee(tx, now, tenant.fixture.employees[1]!.id),
      );
      for (const employee of [
        { id: '00000000-0000-4000-8000-000000000000' },
        { id: other.employeeId },
        { id: tenant.fixture.employees[1]!.id },
        { externalId: 'EXT-1' },
      ]) {
        const response = await shift(tenant, '2026-11-10T07:00:00Z', '2026-11-10T09:00:00Z', { employee });
        expect(response.status, JSON.stringify(employee)).toBe(404);
        expect(response.body.error).toBe('employee_not_found');
      }
    });

    it.each(
      [
        {
          title:
            'a shift across the end of summer time (Europe/Berlin, 25 Oct 2026): 00:00 to 08:00 is 9 hours',
          now: '2026-10-26T12:00:00Z',
          clockIn: '2026-10-25T00:00:00+02:00',
          clockOut: '2026-10-25T08:00:00+01:00',
          expected: {
            workDate: '2026-10-25',
            time: '00:00:00',
            occurredAt: '2026-10-25T00:00:00+02:00',
            startTime: '00:00:00',
            endTime: '08:00:00',
            endsNextDay: false,
            totalHours: 9,
          },
          // The same instants sent in UTC give the same entry data.
          inUtc: {
            clockIn: '2026-10-24T22:00:00Z',
            clockOut: '2026-10-25T07:00:00Z',
            expected: { workDate: '2026-10-25', startTime: '00:00:00', totalHours: 9 },
          },
        },
        {
          title:
            'a shift across the start of summer time (Europe/Berlin, 29 Mar 2026): 00:00 to 08:00 is 7 hours',
          now: '2026-03-30T12:00:00Z',
          clockIn: '2026-03-29T00:00:00+01:00',
          clockOut: '2026-03-29T08:00:00+02:00',
          expected: { workDate: '2026-03-29', startTime: '00:00:00', endTime: '08:00:00', totalHours: 7 },
          inUtc: null,
        },
      ].map((c) => [c.title, c] as const),
    )('%s', async (_title, { now, clockIn, clockOut, expected, inUtc }) => {
      suite.now = Date.parse(now);
      const tenant = await berlin();
      const response = await shift(tenant, clockIn, clockOut);
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject(expected);
      if (inUtc) {
        const other = await berlin();
        const utc = await shift(other, inUtc.clockIn, inUtc.clockOut);
        expect(utc.body).toMatchObject(inUtc.expected);
      }
    });

    it('time zones: workplace zone first, then company zone, else the offset as sent', async () => {
      for (const { zones, clockIn, clockOut, expected } of [
        {
          zones: { timeZone: 'Europe/Berlin', workplaceTimeZone: 'America/New_York' },
          clockIn: '2026-11-10T03:00:00Z',
          clockOut: '2026-11-10T06:00:00Z',
          expected: {
            timeZone: 'America/New_York',
            workDate: '2026-11-09',
            startTime: '22:00:00',
            endTime: '01:00:00',
            endsNextDay: true,
            occurredAt: '2026-11-09T22:00:00-05:00',
          },
        },
        {
          zones: { timeZone: 'Asia/Kolkata' },
          clockIn: '2026-11-10T03:00:00Z',
          clockOut: '2026-11-10T06:00:00Z',
          expected: {
            timeZone: 'Asia/Kolkata',
            workDate: '2026-11-10',
            startTime: '08:30:00',
            endTime: '11:30:00',
            endsNextDay: false,
            occurredAt: '2026-11-10T08:30:00+05:30',
          },
        },
        {
          zones: {},
          clockIn: '2026-11-09T22:00:00-05:00',
          clockOut: '2026-11-10T02:00:00-05:00',
          expected: {
            timeZone: 'offset',
            workDate: '2026-11-09',
            startTime: '22:00:00',
            endTime: '02:00:00',
            endsNextDay: true,
            totalHours: 4,
            occurredAt: '2026-11-09T22:00:00-05:00',
          },
        },
      ]) {
        const tenant = await createTenant(suite.server, zones);
        const response = await shift(tenant, clockIn, clockOut);
        expect(response.body, JSON.stringify(zones)).toMatchObject(expected);
      }
    });

    it('dry run: 200, dryRun true, timeEntryId null, nothing stored; errors still reported', async () => {
      const tenant = await berlin();
      const entries = await suite.count('time_entries');
      const audit = await suite.count('audit_log');
      const dry = { 'x-service-dry-run': 'true' };
      const response = await tenant.shift(
        shiftBody(tenant, '2026-11-10T07:00:00Z', '2026-11-10T09:00:00Z'),
        dry,
      );
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        timeEntryId: null,
        type: 'shift',
        status: 'pending_approval',
        dryRun: true,
        totalHours: 2,
      });
      expect(await suite.count('time_entries')).toBe(entries);
      expect(await suite.count('audit_log')).toBe(audit);
      expect((await shift(tenant, '2026-11-10T07:00:00Z', '2026-11-10T09:00:00Z')).status).toBe(201);
      const overlap = await tenant.shift(
        shiftBody(tenant, '2026-11-10T08:00:00Z', '2026-11-10T10:00:00Z'),
        dry,
      );
      expect(overlap.status).toBe(409);
      expect(overlap.body.error).toBe('overlaps_existing_entry');
    });

    it('idempotency: a replay returns the stored result; a different body is refused', async () => {
      const tenant = await berlin();
      const body = shiftBody(tenant, '2026-11-10T07:00:00Z', '2026-11-10T09:00:00Z');
      const first = await tenant.shift(body, { 'idempotency-key': 'shift-1' });
      expect(first.status).toBe(201);
      const second = await tenant.shift(body, { 'idempotency-key': 'shift-1' });
      expectReplay(second, first, 201);
      expect(await suite.rows(tenant.employeeId)).toHaveLength(1);
      const changed = await tenant.shift({ ...body, note: 'changed' }, { 'idempotency-key': 'shift-1' });
      expect(changed.status).toBe(422);
      expect(changed.body.error).toBe('idempotency_key_reused');
      // Without a key the same shift again is an overlap.
      const again = await tenant.shift(body);
      expect(again.status).toBe(409);
    });

    it('idempotency: a key in flight is 409 idempotency_in_flight; an expired record frees its key, replaced by one upsert (issue 32)', async () => {
      const tenant = await berlin();
      const body = shiftBody(tenant, '2026-11-10T07:00:00Z', '2026-11-10T09:00:00Z');
      const hash = requestFingerprint('POST', ENTRIES, body);
      await suite.keyRecord(tenant, 'busy', { request_hash: hash });
      const audits = await suite.count('audit_log');
      const busy = await tenant.shift(body, { 'idempotency-key': 'busy' });
      expect(busy.status).toBe(409);
      expect(busy.body.error).toBe('idempotency_in_flight');
      // Nothing written: no entry, no audit row, the claim left as it was.
      expect(await suite.rows(tenant.employeeId)).toHaveLength(0);
      expect(await suite.count('audit_log')).toBe(audits);
      expect(
        await suite.server.database.db
          .selectFrom('idempotency_records')
          .select(['state', 'response_body', 'expires_at'])
          .where('idempotency_key', '=', 'busy')
          .execute(),
      ).toEqual([{ state: 'in_flight', response_body: null, expires_at: iso(suite.now + DAY) }]);
      await suite.keyRecord(tenant, 'lapsed', {
        request_hash: 'a request of yesterday',
        state: 'done',
        response_status: 201,
        response_body: '{"old":true}',
        created_at: iso(suite.now - DAY - HOUR),
        expires_at: iso(suite.now - HOUR),
      });
      const fresh = await tenant.shift(body, { 'idempotency-key': 'lapsed' });
      expect(fresh.status).toBe(201);
      expect(fresh.headers.get('idempotent-replayed')).toBeNull();
      expectReplay(await tenant.shift(body, { 'idempotency-key': 'lapsed' }), fresh, 201);
      const records = await suite.server.database.db
        .selectFrom('idempotency_records')
        .select(['request_hash', 'state', 'response_body', 'expires_at'])
        .where('idempotency_key', '=', 'lapsed')
        .execute();
      expect(records).toEqual([
        {
          request_hash: hash,
          state: 'done',
          response_body: fresh.text,
          expires_at: iso(suite.now + DAY),
        },
      ]);
      expect(await suite.rows(tenant.employeeId)).toHaveLength(1);
    });

    it('needs the attendance.record scope', async () => {
      const reader = await berlin({ scopes: 'attendance.read' });
      const response = await shift(reader, '2026-11-10T07:00:00Z', '2026-11-10T09:00:00Z');
      expect(response.status).toBe(403);
      expect(response.body.error).toBe('insufficient_scope');
      const clock = await punch(reader, 'clock_in', '2026-11-10T08:00:00Z');
      expect(clock.status).toBe(403);
      expect(clock.body.error).toBe('insufficient_scope');
    });
  });

  describe('GET /time-entries', () => {
    it('refuses bad queries with 422', async () => {
      const tenant = await berlin();
      const id = tenant.employeeId;
      const cases: [Record<string, string | number>, string][] = [
        [{ employeeId: id, externalId: 'EXT-0' }, 'employeeId'],
        [{}, 'employeeId'],
        [{ from: '2026-11-01', to: '2026-11-10' }, 'employeeId'],
        [{ employeeId: id, from: '2026-11-10', to: '2026-11-09' }, 'from'],
        [{ employeeId: id, from: '2026-08-09', to: '2026-11-10' }, 'to'],
        [{ employeeId: id, from: '2025-01-01', to: '2026-11-10' }, 'to'],
        [{ employeeId: id, from: '2026-02-30' }, 'from'],
        [{ employeeId: id, to: '10/11/2026' }, 'to'],
        [{ employeeId: id, limit: 0 }, 'limit'],
        [{ employeeId: id, limit: 101 }, 'limit'],
        [{ employeeId: id, limit: 'ten' }, 'limit'],
        [{ employeeId: id, page: 2 }, 'page'],
        [{ employeeId: 'not-a-guid' }, 'employeeId'],
        [{ employeeId: id, cursor: 'garbage' }, 'cursor'],
      ];
      for (const [query, field] of cases) {
        const response = await tenant.list(query);
        expect(response.status, JSON.stringify(query)).toBe(422);
        expect(response.body.error).toBe('validation_failed');
        expect(
          response.body.errors?.map((e) => e.field),
          JSON.stringify(query),
        ).toContain(field);
      }
      // 92 days is the widest range allowed.
      const widest = await tenant.list({ employeeId: id, from: '2026-08-10', to: '2026-11-10' });
      expect(widest.status).toBe(200);
    });

    it('lists entries with every field; an open entry has endTime null and totalHours 0', async () => {
      const tenant = await berlin();
      const done = await shift(tenant, '2026-11-09T07:00:00Z', '2026-11-09T15:30:00Z', { breakMinutes: 30 });
      suite.now = T0 + 5 * MINUTE;
      const open = await punch(tenant, 'clock_in', '2026-11-10T08:00:00Z');
      const response = await tenant.list({ externalId: 'EXT-0', from: '2026-11-01', to: '2026-11-10' });
      expect(response.status).toBe(200);
      expect(response.body.hasMore).toBe(false);
      expect(response.body.nextCursor).toBeNull();
      const items = response.body.items!;
      // Entries of the time clock also list their breaks (issue 20); shifts do not.
      for (const item of items)
        expect(Object.keys(item).sort()).toEqual(
          item.source === 'time_clock' ? [...LIST_ITEM_KEYS, 'breaks'].sort() : LIST_ITEM_KEYS,
        );
      expect(items).toEqual([
        {
          id: done.body.timeEntryId,
          employee: { id: tenant.employeeId, externalId: 'EXT-0' },
          workDate: '2026-11-09',
          startTime: '08:00:00',
          endTime: '16:30:00',
          endsNextDay: false,
          totalHours: 8,
          breakMinutes: 30,
          status: 'pending_approval',
          source: 'api_shift',
          approvedAt: null,
          createdAt: iso(T0),
          version: 1,
          edited: false,
          autoClosed: false,
          deviceId: null,
          reviewFlags: [],
        },
        {
          id: open.body.timeEntryId,
          employee: { id: tenant.employeeId, externalId: 'EXT-0' },
          workDate: '2026-11-10',
          startTime: '09:00:00',
          endTime: null,
          endsNextDay: false,
          totalHours: 0,
          breakMinutes: null,
          status: 'open',
          source: 'time_clock',
          approvedAt: null,
          createdAt: iso(T0 + 5 * MINUTE),
          version: 1,
          edited: false,
          autoClosed: false,
          deviceId: null,
          reviewFlags: [],
          breaks: [],
        },
      ]);
    });

    it('shows the decision on approved and rejected entries', async () => {
      const tenant = await berlin();
      const a = await shift(tenant, '2026-11-08T07:00:00Z', '2026-11-08T09:00:00Z');
      const b = await shift(tenant, '2026-11-09T07:00:00Z', '2026-11-09T09:00:00Z');
      suite.now = T0 + HOUR;
      await inTransaction(suite.server.ctx, (tx, now) =>
        decideEntry(tx, now, a.body.timeEntryId!, 'approved'),
      );
      await inTransaction(suite.server.ctx, (tx, now) =>
        decideEntry(tx, now, b.body.timeEntryId!, 'rejected'),
      );
      await tenant.refreshToken();
      const response = await tenant.list({
        employeeId: tenant.employeeId,
        from: '2026-11-01',
        to: '2026-11-10',
      });
      expect(response.body.items?.map((i) => [i.id, i.status, i.approvedAt])).toEqual([
        [a.body.timeEntryId, 'approved', iso(T0 + HOUR)],
        [b.body.timeEntryId, 'rejected', null],
      ]);
    });

    it('defaults: to is today in the company zone, from is 30 days before', async () => {
      // Asia/Kolkata is 5:30 ahead of UTC: at 20:00 UTC on 10 Nov it is already 11 Nov there.
      suite.now = Date.parse('2026-10-12T12:00:00Z');
      const tenant = await createTenant(suite.server, { timeZone: 'Asia/Kolkata' });
      const a = await shift(tenant, '2026-10-11T10:00:00+05:30', '2026-10-11T12:00:00+05:30');
      const b = await shift(tenant, '2026-10-12T10:00:00+05:30', '2026-10-12T12:00:00+05:30');
      expect([a.status, b.status]).toEqual([201, 201]);
      suite.now = Date.parse('2026-11-10T20:00:00Z');
      await tenant.refreshToken();
      const c = await shift(tenant, '2026-11-11T00:15:00+05:30', '2026-11-11T01:15:00+05:30');
      expect(c.status).toBe(201);
      expect(c.body.workDate).toBe('2026-11-11');
      const ids = (r: { body: { items?: TimeEntryItem[] } }) => r.body.items?.map((i) => i.id);
      const defaults = await tenant.list({ employeeId: tenant.employeeId });
      expect(defaults.status).toBe(200);
      expect(ids(defaults)).toEqual([b.body.timeEntryId, c.body.timeEntryId]);
      const onlyTo = await tenant.list({ employeeId: tenant.employeeId, to: '2026-11-10' });
      expect(ids(onlyTo)).toEqual([a.body.timeEntryId, b.body.timeEntryId]);
      const onlyFrom = await tenant.list({ employeeId: tenant.employeeId, from: '2026-10-11' });
      expect(ids(onlyFrom)).toEqual([a.body.timeEntryId, b.body.timeEntryId, c.body.timeEntryId]);
      const future = await tenant.list({ employeeId: tenant.employeeId, from: '2026-11-12' });
      expect(future.status).toBe(422);
    });

    it('orders by work date then id and walks pages of 2 with nextCursor', async () => {
      const tenant = await berlin();
      const other = tenant.fixture.employees[1]!;
      const spans: [string, string][] = [
        ['2026-11-03T07:00:00Z', '2026-11-03T09:00:00Z'],
        ['2026-11-01T07:00:00Z', '2026-11-01T09:00:00Z'],
        ['2026-11-05T12:00:00Z', '2026-11-05T13:00:00Z'],
        ['2026-11-05T07:00:00Z', '2026-11-05T08:00:00Z'],
        ['2026-11-02T07:00:00Z', '2026-11-02T09:00:00Z'],
        ['2026-11-05T09:00:00Z', '2026-11-05T10:00:00Z'],
      ];
      for (const [clockIn, clockOut] of spans) {
        expect((await shift(tenant, clockIn, clockOut)).status).toBe(201);
        const theirs = await tenant.shift({ employee: { id: other.id }, clockIn, clockOut });
        expect(theirs.status).toBe(201);
      }
      expect((await punch(tenant, 'clock_in', '2026-11-10T08:00:00Z')).status).toBe(201);

      const range = { employeeId: tenant.employeeId, from: '2026-11-01', to: '2026-11-10' };
      const all = await tenant.list({ ...range, limit: 100 });
      const items = all.body.items!;
      expect(items).toHaveLength(7);
      const sorted = [...items].sort((x, y) =>
        x.workDate === y.workDate ? (x.id < y.id ? -1 : 1) : x.workDate < y.workDate ? -1 : 1,
      );
      expect(items.map((i) => i.id)).toEqual(sorted.map((i) => i.id));
      expect(items.map((i) => i.workDate)).toEqual([
        '2026-11-01',
        '2026-11-02',
        '2026-11-03',
        '2026-11-05',
        '2026-11-05',
        '2026-11-05',
        '2026-11-10',
      ]);
      expect(new Set(items.map((i) => i.employee.id))).toEqual(new Set([tenant.employeeId]));

      const walked: string[] = [];
      const pages: { size: number; hasMore: boolean }[] = [];
      let cursor: string | null = null;
      do {
        const page = await tenant.list({ ...range, limit: 2, ...(cursor ? { cursor } : {}) });
        expect(page.status).toBe(200);
        walked.push(...page.body.items!.map((i) => i.id));
        pages.push({ size: page.body.items!.length, hasMore: page.body.hasMore! });
        cursor = page.body.nextCursor ?? null;
        expect(cursor === null).toBe(!page.body.hasMore);
      } while (cursor !== null && pages.length < 10);
      expect(pages).toEqual([
        { size: 2, hasMore: true },
        { size: 2, hasMore: true },
        { size: 2, hasMore: true },
        { size: 1, hasMore: false },
      ]);
      expect(walked).toEqual(items.map((i) => i.id));
    });

    it('pages hold 25 entries by default', async () => {
      const tenant = await berlin();
      for (let day = 0; day < 26; day++) {
        const start = Date.parse('2026-10-15T07:00:00Z') + day * DAY;
        expect((await shift(tenant, iso(start), iso(start + HOUR))).status).toBe(201);
      }
      const range = { employeeId: tenant.employeeId, from: '2026-10-14', to: '2026-11-10' };
      const first = await tenant.list(range);
      expect(first.body.items).toHaveLength(25);
      expect(first.body.hasMore).toBe(true);
      const second = await tenant.list({ ...range, cursor: first.body.nextCursor! });
      expect(second.body.items?.map((i) => i.workDate)).toEqual(['2026-11-09']);
      expect(second.body).toMatchObject({ hasMore: false, nextCursor: null });
    });

    it('refuses tampered and foreign cursors with 422', async () => {
      const tenant = await berlin();
      for (const day of ['01', '02', '03']) {
        expect((await shift(tenant, `2026-11-${day}T07:00:00Z`, `2026-11-${day}T09:00:00Z`)).status).toBe(
          201,
        );
        expect(
          (
            await shift(tenant, `2026-11-${day}T07:00:00Z`, `2026-11-${day}T09:00:00Z`, {
              employee: { id: tenant.fixture.employees[1]!.id },
            })
          ).status,
        ).toBe(201);
      }
      const range = { employeeId: tenant.employeeId, from: '2026-11-01', to: '2026-11-10', limit: 1 };
      const first = await tenant.list(range);
      const cursor = first.body.nextCursor!;
      expect(typeof cursor).toBe('string');
      expect((await tenant.list({ ...range, cursor })).status).toBe(200);

      const [payload, tag] = cursor.split('.') as [string, string];
      const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<
        string,
        unknown
      >;
      const forged = Buffer.from(JSON.stringify({ ...decoded, w: '2026-11-02' })).toString('base64url');
      const flipped = `${tag.slice(0, -2)}${tag.at(-2) === 'A' ? 'B' : 'A'}${tag.at(-1)}`;
      for (const bad of [
        `${payload}.${flipped}`,
        `${forged}.${tag}`,
        `${cursor}x`,
        cursor.replace('.', ''),
      ]) {
        const response = await tenant.list({ ...range, cursor: bad });
        expect(response.status, bad).toBe(422);
        expect(response.body.errors?.map((e) => e.field)).toEqual(['cursor']);
      }
      // A valid cursor of another listing (other range, other employee, other company) is refused too.
      expect((await tenant.list({ ...range, from: '2026-10-31', cursor })).status).toBe(422);
      expect(
        (await tenant.list({ ...range, employeeId: tenant.fixture.employees[1]!.id, cursor })).status,
      ).toBe(422);
      const other = await berlin();
      const foreign = await other.list({ ...range, employeeId: other.employeeId, cursor });
      expect(foreign.status).toBe(422);
    });

    it('tenant isolation: another company’s employee is 404', async () => {
      const tenant = await berlin();
      const other = await berlin();
      expect((await shift(other, '2026-11-09T07:00:00Z', '2026-11-09T09:00:00Z')).status).toBe(201);
      await inTransaction(suite.server.ctx, (tx, now) =>
        createEmployee(tx, now, other.fixture.companyId, {
          email: 'only@other.example',
          externalId: 'ONLY-OTHER',
          workplace: other.fixture.workplaceId,
          schedule: other.fixture.scheduleId,
        }),
      );
      for (const query of [{ employeeId: other.employeeId }, { externalId: 'ONLY-OTHER' }] as Record<
        string,
        string
      >[]) {
        const response = await tenant.list(query);
        expect(response.status, JSON.stringify(query)).toBe(404);
        expect(response.body.error).toBe('employee_not_found');
      }
      const unknown = await tenant.list({ employeeId: '00000000-0000-4000-8000-000000000000' });
      expect(unknown.status).toBe(404);
      // Same external id in both companies: each caller sees its own employee only.
      const own = await tenant.list({ externalId: 'EXT-0', from: '2026-11-01', to: '2026-11-10' });
      expect(own.status).toBe(200);
      expect(own.body.items).toEqual([]);
    });

    it('needs the attendance.read scope', async () => {
      const writer = await berlin({ scopes: 'attendance.record' });
      const response = await writer.list({ employeeId: writer.employeeId });
      expect(response.status).toBe(403);
      expect(response.body.error).toBe('insufficient_scope');
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(response.body.instance).toBe(ENTRIES);
    });
  });
});
