import { describe, expect, it } from 'vitest';
import {
  evaluateAttendance,
  type ExistingException,
  type RuleEntry,
  type RuleShift,
} from '../../src/modules/planned-shifts/exception-rules.js';
import { roundedWorkedSeconds } from '../../src/modules/planned-shifts/rounding.js';
import { evaluateShiftTimes, firstOverlap } from '../../src/modules/planned-shifts/shift-rules.js';

/* The pure rules of issue 33: exceptions, rounding of reported time, a shift's times and overlaps. */

const MIN = 60_000;
const T = (hhmm: string) => Date.parse(`2026-11-11T${hhmm}:00Z`);
const settings = { lateGraceMinutes: 5, noShowAfterMinutes: 30 };

const shift = (id: string, from: string, to: string, extra: Partial<RuleShift> = {}): RuleShift => ({
  id,
  version: 1,
  employeeId: 'e1',
  workplaceId: 'w1',
  date: '2026-11-11',
  startMs: T(from),
  endMs: T(to),
  ...extra,
});
const entry = (id: string, from: string, to: string | null, extra: Partial<RuleEntry> = {}): RuleEntry => ({
  id,
  employeeId: 'e1',
  workDate: '2026-11-11',
  startMs: T(from),
  endMs: to === null ? null : T(to),
  ...extra,
});

function judge(
  at: string,
  shifts: RuleShift[],
  entries: RuleEntry[],
  extra: { existing?: ExistingException[]; excused?: string[]; current?: [string, number, boolean][] } = {},
) {
  const result = evaluateAttendance({
    nowMs: T(at),
    fromMs: T(at) - 48 * 60 * MIN,
    settings,
    shifts,
    entries,
    existing: extra.existing ?? [],
    current: new Map(
      (extra.current ?? shifts.map((s) => [s.id, s.version, true] as [string, number, boolean])).map(
        ([id, version, published]) => {
          const planned = shifts.find((s) => s.id === id);
          const times = planned ?? { startMs: T('09:00'), endMs: T('17:00') };
          return [id, { version, published, startMs: times.startMs, endMs: times.endMs }];
        },
      ),
    ),
    excused: new Set(extra.excused ?? []),
    workplaceOf: new Map([
      ['e1', 'w1'],
      ['e2', 'w1'],
      ['e3', null],
    ]),
  });
  return {
    found: result.detect.map((c) => [c.kind, c.minutes, c.resolved]),
    resolve: result.resolve,
    keys: result.detect.map((c) => c.key),
  };
}

describe('attendance exceptions', () => {
  it('late_in: after start + grace, counted from the start; at the grace exactly is on time', () => {
    expect(judge('10:00', [shift('s', '09:00', '17:00')], [entry('a', '09:05', null)]).found).toEqual([]);
    expect(judge('10:00', [shift('s', '09:00', '17:00')], [entry('a', '09:06', null)]).found).toEqual([
      ['late_in', 6, false],
    ]);
    // A clock-in two hours early belongs to the shift; a session running at its start too.
    expect(judge('10:00', [shift('s', '09:00', '17:00')], [entry('a', '07:00', null)]).found).toEqual([]);
    // A session open since long before (more than two hours) is no arrival for it.
    expect(judge('10:00', [shift('s', '09:00', '17:00')], [entry('a', '05:00', null)]).found).toEqual([
      ['no_show', 0, false],
    ]);
  });

  it('no_show: none by start + noShowAfter, unless excused (an approved absence); a clock-in after it resolves it', () => {
    expect(judge('09:29', [shift('s', '09:00', '17:00')], []).found).toEqual([]);
    expect(judge('09:30', [shift('s', '09:00', '17:00')], []).found).toEqual([['no_show', 0, false]]);
    expect(judge('09:30', [shift('s', '09:00', '17:00')], [], { excused: ['s'] }).found).toEqual([]);
    // A clock-in before the shift's window is not for it.
    expect(judge('09:30', [shift('s', '09:00', '17:00')], [entry('a', '06:00', '06:30')]).found).toEqual([
      ['no_show', 0, false],
    ]);
    const open: ExistingException = {
      id: 'x',
      key: `no_show:s:${T('09:00')}:${T('17:00')}`,
      kind: 'no_show',
      employeeId: 'e',
      date: '2026-11-11',
      plannedShiftId: 's',
      shiftVersion: 1,
      resolved: false,
    };
    const later = judge('10:00', [shift('s', '09:00', '17:00')], [entry('a', '09:45', null)], {
      existing: [open],
    });
    expect(later.found).toEqual([['late_in', 45, false]]);
    expect(later.resolve).toEqual([{ id: 'x', minutes: 0 }]);
    // Judged late, after the clock-in: the no-show is recorded already resolved.
    expect(judge('10:00', [shift('s', '09:00', '17:00')], [entry('a', '09:45', null)]).found).toEqual([
      ['late_in', 45, false],
      ['no_show', 0, true],
    ]);
  });

  it('early_out once the shift is over; missed_clock_out at end + grace, resolved with the time past the end', () => {
    const s = shift('s', '09:00', '17:00');
    expect(judge('16:59', [s], [entry('a', '09:00', '16:30')]).found).toEqual([]);
    expect(judge('17:00', [s], [entry('a', '09:00', '16:30')]).found).toEqual([['early_out', 30, false]]);
    expect(judge('17:00', [s], [entry('a', '09:00', '16:55')]).found).toEqual([]);
    expect(judge('17:04', [s], [entry('a', '09:00', null)]).found).toEqual([]);
    expect(judge('17:05', [s], [entry('a', '09:00', null)]).found).toEqual([['missed_clock_out', 5, false]]);
    expect(judge('18:00', [s], [entry('a', '09:00', '17:40')]).found).toEqual([
      ['missed_clock_out', 40, true],
    ]);
    expect(judge('18:00', [s], [entry('a', '09:00', '17:05')]).found).toEqual([]);
  });

  it('touching shifts worked in one session: no no-show, no missed clock-out, no early out for the first', () => {
    const shifts = [shift('s1', '09:00', '13:00'), shift('s2', '13:00', '17:00')];
    expect(judge('14:00', shifts, [entry('a', '08:58', null)]).found).toEqual([]);
    expect(judge('17:30', shifts, [entry('a', '08:58', '17:02')]).found).toEqual([]);
    expect(judge('17:30', shifts, [entry('a', '08:58', null)]).found).toEqual([
      ['missed_clock_out', 30, false],
    ]);
  });

  it('unplanned: work on a day without a shift, where the workplace is planned that day; once per day', () => {
    const other = shift('s', '09:00', '17:00', { employeeId: 'e2' });
    const work = [entry('a', '10:00', '11:00'), entry('b', '12:00', '13:00')];
    const found = judge('14:00', [other], [...work, entry('c', '10:00', null, { employeeId: 'e3' })]);
    expect(found.found).toEqual([
      ['no_show', 0, false],
      ['unplanned', 0, false],
    ]);
    expect(found.keys).toContain('unplanned:e1:2026-11-11');
    // Without a plan for the workplace that day, nobody's work is unplanned.
    expect(judge('14:00', [], work).found).toEqual([]);
  });

  it('a changed, unpublished or deleted shift resolves what it left open', () => {
    const old: ExistingException = {
      id: 'x',
      key: `late_in:s:${T('09:00')}:${T('17:00')}`,
      kind: 'late_in',
      employeeId: 'e',
      date: '2026-11-11',
      plannedShiftId: 's',
      shiftVersion: 1,
      resolved: false,
    };
    const moved = shift('s', '11:00', '17:00', { version: 2 });
    expect(judge('10:00', [moved], [], { existing: [old] }).resolve).toEqual([{ id: 'x', minutes: null }]);
    expect(judge('10:00', [], [], { existing: [old], current: [] }).resolve).toEqual([
      { id: 'x', minutes: null },
    ]);
    expect(judge('10:00', [], [], { existing: [old], current: [['s', 1, false]] }).resolve).toHaveLength(1);
    expect(judge('10:00', [], [], { existing: [old], current: [['s', 1, true]] }).resolve).toEqual([]);
  });
});

describe('review of issue 33: judging again', () => {
  const recorded = (found: ReturnType<typeof evaluateAttendance>['detect']): ExistingException[] =>
    found.map((c, i) => ({
      id: `x${i}`,
      key: c.key,
      kind: c.kind,
      employeeId: c.employeeId,
      date: c.date,
      plannedShiftId: c.plannedShiftId,
      shiftVersion: c.shiftVersion,
      resolved: c.resolved,
    }));
  const run = (at: number, shifts: RuleShift[], entries: RuleEntry[], existing: ExistingException[]) =>
    evaluateAttendance({
      nowMs: at,
      fromMs: at - 48 * 60 * MIN,
      settings,
      shifts,
      entries,
      existing,
      current: new Map(shifts.map((s) => [s.id, { ...s, published: true }])),
      excused: new Set(),
      workplaceOf: new Map([['e1', 'w1']]),
    });

  it('a new version of a shift with the same times (its note) detects nothing again and resolves nothing', () => {
    const entries = [entry('a', '09:45', null)];
    const first = run(T('10:00'), [shift('s', '09:00', '17:00')], entries, []);
    expect(first.detect.map((c) => c.kind)).toEqual(['late_in', 'no_show']);
    const again = run(
      T('10:01'),
      [shift('s', '09:00', '17:00', { version: 2 })],
      entries,
      recorded(first.detect),
    );
    expect(again.detect).toEqual([]);
    expect(again.resolve).toEqual([]);
    // Other times are a new plan: judged anew, the old exceptions resolved.
    const moved = run(
      T('10:01'),
      [shift('s', '09:10', '17:00', { version: 3 })],
      entries,
      recorded(first.detect),
    );
    expect(moved.detect.map((c) => c.kind)).toEqual(['late_in', 'no_show']);
    expect(moved.resolve.map((r) => r.id)).toEqual(['x0']);
  });

  it("a session left open yesterday: today's no_show is detected, yesterday's missed_clock_out stays open", () => {
    const DAY = 24 * 60 * MIN;
    const yesterday = shift('s0', '09:00', '17:00', { startMs: T('09:00') - DAY, endMs: T('17:00') - DAY });
    const today = shift('s1', '09:00', '17:00');
    const open = [entry('a', '09:00', null, { startMs: T('09:00') - DAY, workDate: '2026-11-10' })];
    const first = run(T('18:00') - DAY, [yesterday], open, []);
    expect(first.detect.map((c) => c.kind)).toEqual(['missed_clock_out']);
    const next = run(T('09:30'), [yesterday, today], open, recorded(first.detect));
    expect(next.detect.map((c) => [c.kind, c.plannedShiftId])).toEqual([['no_show', 's1']]);
    expect(next.resolve).toEqual([]);
    // The same within one day: a session open since the morning's shift is no arrival for the afternoon's.
    const split = run(
      T('14:30'),
      [shift('m', '08:00', '12:00'), shift('n', '14:00', '18:00')],
      [entry('b', '08:00', null)],
      [],
    );
    expect(split.detect.map((c) => [c.kind, c.plannedShiftId])).toEqual([
      ['missed_clock_out', 'm'],
      ['no_show', 'n'],
    ]);
  });
});

describe('rounding of reported time (reports only)', () => {
  const entry8 = { netSeconds: 8 * 3600 + 13 * 60, startTime: '08:53:00', endTime: '17:06:00' };
  it('none keeps the net time; nearest, up and down move it by as much as the span moved', () => {
    expect(roundedWorkedSeconds({ mode: 'none', minutes: 15 }, entry8)).toBe(entry8.netSeconds);
    // 08:53 → 09:00, 17:06 → 17:00: 8 h.
    expect(roundedWorkedSeconds({ mode: 'nearest', minutes: 15 }, entry8)).toBe(8 * 3600);
    // Span grows: 08:45 → 17:15 = 8.5 h; shrinks: 09:00 → 17:00 = 8 h.
    expect(roundedWorkedSeconds({ mode: 'up', minutes: 15 }, entry8)).toBe(8.5 * 3600);
    expect(roundedWorkedSeconds({ mode: 'down', minutes: 15 }, entry8)).toBe(8 * 3600);
    // A half rounds up; on a grid line nothing moves; never below zero.
    expect(
      roundedWorkedSeconds(
        { mode: 'nearest', minutes: 10 },
        { netSeconds: 600, startTime: '10:05:00', endTime: '10:15:00' },
      ),
    ).toBe(600);
    expect(
      roundedWorkedSeconds(
        { mode: 'down', minutes: 30 },
        { netSeconds: 600, startTime: '10:05:00', endTime: '10:15:00' },
      ),
    ).toBe(0);
  });
});

describe("a planned shift's times", () => {
  it('offsets required, end after start and under 24 hours, the break shorter than the shift; the day in the zone', () => {
    const ok = evaluateShiftTimes(
      { start: '2026-11-11T23:30:00Z', end: '2026-11-12T07:30:00Z', breakMinutes: 30 },
      'Europe/Berlin',
    );
    expect(ok.ok && ok.times.start.workDate).toBe('2026-11-12');
    const field = (v: ReturnType<typeof evaluateShiftTimes>) => (v.ok ? [] : v.errors.map((e) => e.field));
    expect(
      field(
        evaluateShiftTimes(
          { start: '2026-11-11T09:00:00', end: '2026-11-11T17:00:00Z', breakMinutes: 0 },
          'UTC',
        ),
      ),
    ).toEqual(['start']);
    expect(
      field(
        evaluateShiftTimes(
          { start: '2026-11-11T09:00:00Z', end: '2026-11-12T09:00:00Z', breakMinutes: 0 },
          'UTC',
        ),
      ),
    ).toEqual(['end']);
    expect(
      field(
        evaluateShiftTimes(
          { start: '2026-11-11T09:00:00Z', end: '2026-11-11T09:00:00Z', breakMinutes: 0 },
          'UTC',
        ),
      ),
    ).toEqual(['end']);
    expect(
      field(
        evaluateShiftTimes(
          { start: '2026-11-11T09:00:00Z', end: '2026-11-11T10:00:00Z', breakMinutes: 60 },
          'UTC',
        ),
      ),
    ).toEqual(['breakMinutes']);
  });

  it('touching shifts do not overlap; one minute more does', () => {
    const others = [{ id: 'a', startMs: T('09:00'), endMs: T('13:00') }];
    expect(firstOverlap(others, { startMs: T('13:00'), endMs: T('17:00') }, null)).toBeNull();
    expect(firstOverlap(others, { startMs: T('12:59'), endMs: T('17:00') }, null)?.id).toBe('a');
    expect(firstOverlap(others, { startMs: T('10:00'), endMs: T('11:00') }, 'a')).toBeNull();
  });
});
