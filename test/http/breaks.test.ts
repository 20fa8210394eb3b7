import { describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/modules/context.js';
import { testDialects } from '../support/databases.js';
import {
  call,
  createTenant,
  DAY,
  expectReplay,
  HOUR,
  iso,
  punch,
  shift,
  T0,
  type Tenant,
  timeTrackingSuite,
} from '../support/time-tracking.js';
import { createWorkplace } from '../../src/modules/companies/service.js';
import { confirmDay } from '../../src/modules/time-tracking/approval.js';
import { updateEmployee } from '../../src/modules/employees/changes.js';

/* Breaks inside a clocked session (issue 20): break_start / break_end and what they change. */

interface BreakItem {
  startTime: string;
  endTime: string | null;
  startedAt: string;
  endedAt: string | null;
  minutes: number | null;
}
interface Item {
  id: string;
  workDate: string;
  startTime: string;
  endTime: string | null;
  endsNextDay: boolean;
  totalHours: number;
  breakMinutes: number | null;
  status: string;
  source: string;
  breaks?: BreakItem[];
}
interface StatusItem {
  employee: { id: string };
  onBreak: boolean;
  breakSince: string | null;
}

describe.each(testDialects().map((d) => [d.name, d] as const))('breaks on %s', (_name, dialect) => {
  const suite = timeTrackingSuite(dialect);
  const { berlin } = suite;

  async function entries(tenant: Tenant, from = '2026-11-01', to = '2026-11-30'): Promise<Item[]> {
    const reply = await tenant.list({ employeeId: tenant.employeeId, from, to });
    expect(reply.status).toBe(200);
    return reply.body.items as unknown as Item[];
  }

  async function status(tenant: Tenant): Promise<StatusItem[]> {
    const reply = await call(suite.server, tenant.token, 'GET', '/api/public/v1/time-clock/status');
    expect(reply.status).toBe(200);
    return (reply.body as unknown as { items: StatusItem[] }).items;
  }

  async function changes(tenant: Tenant) {
    const reply = await call(suite.server, tenant.token, 'GET', '/api/public/v1/changes?limit=100');
    expect(reply.status).toBe(200);
    return (reply.body as unknown as { items: { type: string; data: Item }[] }).items.filter((e) =>
      e.type.startsWith('time_entry.'),
    );
  }

  const breakRows = (entryId: string) =>
    suite.server.database.db
      .selectFrom('time_entry_breaks')
      .selectAll()
      .where('time_entry_id', '=', entryId)
      .orderBy('start_at')
      .execute();

  it('several breaks per session: net hours, breakMinutes the sum, the breaks in the list, status and events', async () => {
    const tenant = await berlin();
    const opened = await punch(tenant, 'clock_in', '2026-11-10T06:00:00Z');
    expect(opened.status).toBe(201);
    const id = opened.body.timeEntryId!;

    const first = await punch(tenant, 'break_start', '2026-11-10T08:00:00Z', {
      deviceId: 'T-9',
      note: 'lunch',
    });
    expect(first.status).toBe(201);
    // Like a clock-out's: the device joins the entry's notes, the note replaces the entry's.
    expect((await suite.rows(tenant.employeeId))[0]).toMatchObject({ notes: '[device: T-9]', note: 'lunch' });
    expect(first.body).toMatchObject({
      timeEntryId: id,
      type: 'break_start',
      workDate: '2026-11-10',
      time: '09:00:00',
      timeZone: 'Europe/Berlin',
      status: 'open',
      dryRun: false,
      startTime: null,
      endTime: null,
      totalHours: null,
    });
    expect(await status(tenant)).toMatchObject([
      {
        employee: { id: tenant.employeeId },
        onBreak: true,
        breakSince: expect.stringMatching(/^2026-11-10T08:00:00/),
      },
    ]);
    const ended = await punch(tenant, 'break_end', '2026-11-10T08:30:00Z');
    expect(ended.status).toBe(201);
    expect(ended.body).toMatchObject({ type: 'break_end', time: '09:30:00', timeEntryId: id });
    expect(await status(tenant)).toMatchObject([{ onBreak: false, breakSince: null }]);
    // While open, the list shows the breaks so far and their running sum.
    expect((await entries(tenant))[0]).toMatchObject({ status: 'open', breakMinutes: 30, totalHours: 0 });

    expect((await punch(tenant, 'break_start', '2026-11-10T10:00:00Z')).status).toBe(201);
    expect((await punch(tenant, 'break_end', '2026-11-10T10:15:00Z')).status).toBe(201);
    suite.now = Date.parse('2026-11-10T15:00:00Z');
    await tenant.refreshToken();
    const closed = await punch(tenant, 'clock_out', '2026-11-10T14:00:00Z');
    expect(closed.status).toBe(201);
    // 8 hours less 45 minutes of breaks.
    expect(closed.body).toMatchObject({
      type: 'clock_out',
      totalHours: 7.25,
      startTime: '07:00:00',
      endTime: '15:00:00',
    });

    const [item] = await entries(tenant);
    expect(item).toMatchObject({
      id,
      breakMinutes: 45,
      totalHours: 7.25,
      status: 'pending_approval',
      source: 'time_clock',
    });
    expect(item!.breaks).toEqual([
      {
        startTime: '09:00:00',
        endTime: '09:30:00',
        startedAt: '2026-11-10T08:00:00.000Z',
        endedAt: '2026-11-10T08:30:00.000Z',
        minutes: 30,
      },
      {
        startTime: '11:00:00',
        endTime: '11:15:00',
        startedAt: '2026-11-10T10:00:00.000Z',
        endedAt: '2026-11-10T10:15:00.000Z',
        minutes: 15,
      },
    ]);
    const events = await changes(tenant);
    expect(events.map((e) => e.type)).toEqual([
      'time_entry.opened',
      'time_entry.break_started',
      'time_entry.break_ended',
      'time_entry.break_started',
      'time_entry.break_ended',
      'time_entry.completed',
    ]);
    expect(events[0]!.data.breaks).toEqual([]);
    expect(events[1]!.data.breaks).toMatchObject([{ startTime: '09:00:00', endTime: null, minutes: null }]);
    expect(events[2]!.data).toMatchObject({
      breakMinutes: 30,
      breaks: [{ endTime: '09:30:00', minutes: 30 }],
    });
    expect(events[5]!.data).toMatchObject({ breakMinutes: 45, totalHours: 7.25 });
    expect(events[5]!.data.breaks).toHaveLength(2);
    const audit = await suite.audit(id);
    expect(audit.map((a) => a.action)).toEqual([
      'time_entry.clock_in',
      'time_entry.break_start',
      'time_entry.break_end',
      'time_entry.break_start',
      'time_entry.break_end',
      'time_entry.clock_out',
    ]);
  });

  it('the refusals: no session, already on a break, not on a break, out of order (with their codes)', async () => {
    const tenant = await berlin();
    const refused = async (type: string, at: string, error: string, code: number) => {
      const reply = await punch(tenant, type, at);
      expect(reply.status, `${type} at ${at}: ${reply.text}`).toBe(409);
      expect(reply.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(reply.body).toMatchObject({ error, code, status: 409 });
    };
    await refused('break_start', '2026-11-10T08:00:00Z', 'no_open_session', 2905);
    await refused('break_end', '2026-11-10T08:00:00Z', 'not_on_break', 2913);
    expect((await punch(tenant, 'clock_in', '2026-11-10T06:00:00Z')).status).toBe(201);
    await refused('break_end', '2026-11-10T08:00:00Z', 'not_on_break', 2913);
    // Before the clock-in.
    await refused('break_start', '2026-11-10T05:59:59Z', 'break_out_of_order', 2914);
    expect((await punch(tenant, 'break_start', '2026-11-10T08:00:00Z')).status).toBe(201);
    await refused('break_start', '2026-11-10T08:10:00Z', 'already_on_break', 2912);
    // Before its own start.
    await refused('break_end', '2026-11-10T07:59:00Z', 'break_out_of_order', 2914);
    // A clock-out before the break in progress began.
    await refused('clock_out', '2026-11-10T07:30:00Z', 'break_out_of_order', 2914);
    expect((await punch(tenant, 'break_end', '2026-11-10T08:20:00Z')).status).toBe(201);
    // Before the end of the previous break.
    await refused('break_start', '2026-11-10T08:19:00Z', 'break_out_of_order', 2914);
    await refused('clock_out', '2026-11-10T08:19:00Z', 'break_out_of_order', 2914);
    // Still before the clock-in: the older rule answers first.
    await refused('clock_out', '2026-11-10T05:00:00Z', 'clock_out_before_clock_in', 2906);
    // Every refusal stored nothing.
    expect(await breakRows((await suite.rows(tenant.employeeId))[0]!.id)).toHaveLength(1);
    // A break may start right when the previous one ended.
    expect((await punch(tenant, 'break_start', '2026-11-10T08:20:00Z')).status).toBe(201);
  });

  it('a clock-out during a break ends the break at the clock-out; so does a toggle', async () => {
    const tenant = await berlin({ employeeCount: 2 });
    expect((await punch(tenant, 'clock_in', '2026-11-10T06:00:00Z')).status).toBe(201);
    expect((await punch(tenant, 'break_start', '2026-11-10T10:00:00Z')).status).toBe(201);
    const out = await punch(tenant, 'clock_out', '2026-11-10T10:20:00Z');
    expect(out.status).toBe(201);
    expect(out.body).toMatchObject({ type: 'clock_out', totalHours: 4, endTime: '11:20:00' });
    expect((await entries(tenant))[0]).toMatchObject({
      breakMinutes: 20,
      totalHours: 4,
      breaks: [{ startTime: '11:00:00', endTime: '11:20:00', minutes: 20 }],
    });
    expect(await status(tenant)).toEqual([]);
    // A break punch after the session closed.
    expect((await punch(tenant, 'break_end', '2026-11-10T10:25:00Z')).body.error).toBe('not_on_break');

    const second = { employee: { id: tenant.fixture.employees[1]!.id } };
    expect((await punch(tenant, 'toggle', '2026-11-10T07:00:00Z', second)).body.type).toBe('clock_in');
    expect((await punch(tenant, 'break_start', '2026-11-10T09:00:00Z', second)).status).toBe(201);
    const toggled = await punch(tenant, 'toggle', '2026-11-10T09:30:00Z', second);
    expect(toggled.status).toBe(201);
    expect(toggled.body).toMatchObject({ type: 'clock_out', totalHours: 2 });
    const rows = await suite.server.database.db
      .selectFrom('time_entry_breaks')
      .selectAll()
      .where('employee_id', '=', second.employee.id)
      .execute();
    expect(rows).toMatchObject([{ end_event: 'toggle', end_time: '10:30:00' }]);
  });

  it('an overnight session with a break across midnight, and a workplace in another zone', async () => {
    suite.now = Date.parse('2026-11-11T06:00:00Z');
    const tenant = await berlin({ employeeCount: 2 });
    // 22:00 Berlin on the 10th, a break 00:30-01:15 on the 11th, out at 06:00.
    expect((await punch(tenant, 'clock_in', '2026-11-10T21:00:00Z')).status).toBe(201);
    const start = await punch(tenant, 'break_start', '2026-11-10T23:30:00Z');
    expect(start.body).toMatchObject({ workDate: '2026-11-10', time: '00:30:00' });
    expect((await punch(tenant, 'break_end', '2026-11-11T00:15:00Z')).status).toBe(201);
    const out = await punch(tenant, 'clock_out', '2026-11-11T05:00:00Z');
    expect(out.body).toMatchObject({ endsNextDay: true, totalHours: 7.25, workDate: '2026-11-10' });
    expect((await entries(tenant))[0]).toMatchObject({
      workDate: '2026-11-10',
      endsNextDay: true,
      breakMinutes: 45,
      breaks: [{ startTime: '00:30:00', endTime: '01:15:00', minutes: 45 }],
    });

    // New York: the wall clocks of the breaks are New York's.
    const newYork = await inTransaction(suite.server.ctx, (tx, at) =>
      createWorkplace(tx, at, {
        companyId: tenant.fixture.companyId,
        name: 'NYC',
        timeZone: 'America/New_York',
      }),
    );
    const other = tenant.fixture.employees[1]!.id;
    await inTransaction(suite.server.ctx, (tx, at) =>
      updateEmployee(tx, at, other, { workplace: newYork.id }),
    );
    const who = { employee: { id: other } };
    expect((await punch(tenant, 'clock_in', '2026-11-10T22:00:00Z', who)).body).toMatchObject({
      time: '17:00:00',
    });
    const nyBreak = await punch(tenant, 'break_start', '2026-11-11T01:00:00Z', who);
    expect(nyBreak.body).toMatchObject({
      time: '20:00:00',
      timeZone: 'America/New_York',
      workDate: '2026-11-10',
    });
    const items = await status(tenant);
    expect(items).toMatchObject([
      { employee: { id: other }, onBreak: true, breakSince: expect.stringMatching(/^2026-11-11T01:00:00/) },
    ]);
  });

  it('a break on a locked day is day_locked; dry runs store nothing; 24 hours is the limit', async () => {
    const tenant = await berlin({ employeeCount: 3 });
    expect((await punch(tenant, 'clock_in', '2026-11-10T06:00:00Z')).status).toBe(201);
    const dry = { 'x-service-dry-run': 'true' };
    const body = (type: string, at: string) => ({
      employee: { id: tenant.employeeId },
      type,
      occurredAt: at,
    });
    const dryStart = await tenant.clock(body('break_start', '2026-11-10T08:00:00Z'), dry);
    expect(dryStart.status).toBe(200);
    expect(dryStart.body).toMatchObject({ type: 'break_start', dryRun: true, time: '09:00:00' });
    expect(await status(tenant)).toMatchObject([{ onBreak: false }]);
    // A dry run still checks: no break to end.
    const dryEnd = await tenant.clock(body('break_end', '2026-11-10T08:30:00Z'), dry);
    expect(dryEnd.body.error).toBe('not_on_break');
    expect((await punch(tenant, 'break_start', '2026-11-10T08:00:00Z')).status).toBe(201);
    const dryEnd2 = await tenant.clock(body('break_end', '2026-11-10T08:30:00Z'), dry);
    expect(dryEnd2.status).toBe(200);
    expect(await status(tenant)).toMatchObject([{ onBreak: true }]);
    await inTransaction(suite.server.ctx, (tx, now) =>
      confirmDay(tx, now, { employeeId: tenant.employeeId, date: '2026-11-10' }),
    );
    const locked = await punch(tenant, 'break_end', '2026-11-10T08:30:00Z');
    expect(locked.status).toBe(409);
    expect(locked.body).toMatchObject({ error: 'day_locked', code: 2909 });

    // A session open for 24 hours cannot take a break any more.
    suite.now = T0 + DAY;
    await tenant.refreshToken();
    const second = { employee: { id: tenant.fixture.employees[1]!.id } };
    expect((await punch(tenant, 'clock_in', iso(T0 - HOUR), second)).status).toBe(201);
    const late = await punch(tenant, 'break_start', iso(T0 + DAY - HOUR), second);
    expect(late.body.error).toBe('session_too_long');
    // A break on a later, unlocked day of a night session is fine.
    expect((await punch(tenant, 'break_start', iso(T0 + DAY - HOUR - 1000), second)).status).toBe(201);
  });

  it('idempotency and the 60-second duplicate rule apply to break punches', async () => {
    const tenant = await berlin();
    expect((await punch(tenant, 'clock_in', '2026-11-10T06:00:00Z')).status).toBe(201);
    const start = {
      employee: { id: tenant.employeeId },
      type: 'break_start',
      occurredAt: '2026-11-10T08:00:00Z',
    };
    const first = await tenant.clock(start, { 'idempotency-key': 'brk-1' });
    expect(first.status).toBe(201);
    expectReplay(await tenant.clock(start, { 'idempotency-key': 'brk-1' }), first, 201);
    const reused = await tenant.clock(
      { ...start, occurredAt: '2026-11-10T08:01:00Z' },
      { 'idempotency-key': 'brk-1' },
    );
    expect(reused.status).toBe(422);
    expect(reused.body.error).toBe('idempotency_key_reused');
    // Without a key, the same punch within 60 seconds is the existing break (200), not a refusal.
    const again = await tenant.clock({ ...start, occurredAt: '2026-11-10T08:00:40Z' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      type: 'break_start',
      time: '09:00:00',
      timeEntryId: first.body.timeEntryId,
    });
    const end = { ...start, type: 'break_end', occurredAt: '2026-11-10T08:30:00Z' };
    expect((await tenant.clock(end)).status).toBe(201);
    const endAgain = await tenant.clock({ ...end, occurredAt: '2026-11-10T08:29:30Z' });
    expect(endAgain.status).toBe(200);
    expect(endAgain.body).toMatchObject({ type: 'break_end', time: '09:30:00' });
    // Outside the window it is a new punch, refused by the rules.
    expect((await tenant.clock({ ...end, occurredAt: '2026-11-10T08:35:00Z' })).body.error).toBe(
      'not_on_break',
    );
    expect(await breakRows(first.body.timeEntryId!)).toHaveLength(1);
  });

  it("shifts keep their own breakMinutes and have no breaks; a clocked entry's breaks are [] without any", async () => {
    const tenant = await berlin();
    expect(
      (await shift(tenant, '2026-11-09T07:00:00Z', '2026-11-09T15:00:00Z', { breakMinutes: 30 })).status,
    ).toBe(201);
    expect((await punch(tenant, 'clock_in', '2026-11-10T06:00:00Z')).status).toBe(201);
    expect((await punch(tenant, 'clock_out', '2026-11-10T08:00:00Z')).status).toBe(201);
    const [shifted, clocked] = await entries(tenant);
    expect(shifted).toMatchObject({ source: 'api_shift', breakMinutes: 30, totalHours: 7.5 });
    expect(shifted).not.toHaveProperty('breaks');
    expect(clocked).toMatchObject({ source: 'time_clock', breakMinutes: null, totalHours: 2, breaks: [] });
  });

  it("without a zone the breaks keep the wall clock as sent ('offset'), duplicates included", async () => {
    const tenant = await createTenant(suite.server, {});
    expect((await punch(tenant, 'clock_in', '2026-11-09T23:30:00-05:00')).status).toBe(201);
    const start = await punch(tenant, 'break_start', '2026-11-10T01:00:00-05:00');
    expect(start.body).toMatchObject({
      type: 'break_start',
      time: '01:00:00',
      timeZone: 'offset',
      workDate: '2026-11-09',
    });
    const again = await punch(tenant, 'break_start', '2026-11-10T01:00:00-05:00');
    expect(again.status).toBe(200);
    expect(again.body).toEqual(start.body);
    const end = await punch(tenant, 'break_end', '2026-11-10T07:20:00+01:00');
    expect(end.body).toMatchObject({ time: '07:20:00', occurredAt: '2026-11-10T07:20:00+01:00' });
    const endAgain = await punch(tenant, 'break_end', '2026-11-10T07:20:00+01:00');
    expect(endAgain.status).toBe(200);
    expect(endAgain.body).toEqual(end.body);
    expect((await entries(tenant))[0]!.breaks).toMatchObject([
      { startTime: '01:00:00', endTime: '07:20:00', minutes: 20 },
    ]);
  });

  it('the database holds one open break per entry', async () => {
    const tenant = await berlin();
    expect((await punch(tenant, 'clock_in', '2026-11-10T06:00:00Z')).status).toBe(201);
    expect((await punch(tenant, 'break_start', '2026-11-10T08:00:00Z')).status).toBe(201);
    const [row] = await breakRows((await suite.rows(tenant.employeeId))[0]!.id);
    await expect(
      suite.server.database.db
        .insertInto('time_entry_breaks')
        .values({ ...row!, id: '00000000-0000-4000-8000-000000000001', start_at: '2026-11-10T09:00:00.000Z' })
        .execute(),
    ).rejects.toThrow();
  });
});
