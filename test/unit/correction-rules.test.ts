import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/domain/errors.js';
import { parseInstantWithOffset } from '../../src/domain/time-zone.js';
import type { TimeEntryBreakRow, TimeEntryRow } from '../../src/platform/db/schema.js';
import { planCorrection } from '../../src/modules/corrections/correction-plan.js';
import {
  type CorrectionBody,
  evaluateTimes,
  middleBreak,
  momentOf,
  parseCorrection,
} from '../../src/modules/corrections/correction-rules.js';
import { dayRuns } from '../../src/modules/corrections/day-locks.js';
import { parseIfMatch } from '../../src/modules/corrections/entry-access.js';
import { diffSnapshots, snapshotOf } from '../../src/modules/corrections/revisions.js';

/* The pure rules of corrections (issue 30): what a PATCH body says, the new times, If-Match, day runs. */

const MIN = 60_000;
const HOUR = 60 * MIN;
const BERLIN = 'Europe/Berlin';
const at = '2026-11-12T10:00:00.000Z';
const author = { actorId: 'manager', at };

/** The 422's field errors as [field, code]. */
function refusal(fn: () => unknown): [string, string | null][] {
  try {
    fn();
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    expect(error.errorName).toBe('validation_failed');
    return (error.fieldErrors ?? []).map((e) => [e.field, e.code]);
  }
  throw new Error('expected a 422');
}

const moment = (value: string) => momentOf(parseInstantWithOffset(value)!, BERLIN);

/** A shift of Tuesday 10 Nov 2026, 08:00-16:00 in Berlin with a 30-minute break, pending approval. */
function shiftRow(changes: Partial<TimeEntryRow> = {}): TimeEntryRow {
  return {
    id: 'entry',
    company_id: 'company',
    employee_id: 'employee',
    work_date: '2026-11-10',
    start_at: '2026-11-10T07:00:00.000Z',
    end_at: '2026-11-10T15:00:00.000Z',
    start_time: '08:00:00',
    end_time: '16:00:00',
    ends_next_day: 0,
    break_minutes: 30,
    net_seconds: 7.5 * 3600,
    status: 'pending_approval',
    source: 'api_shift',
    time_zone: BERLIN,
    notes: null,
    note: null,
    clock_in_event: null,
    clock_out_event: null,
    created_by_type: 'api_key',
    created_by_id: 'key',
    closed_by_id: 'key',
    created_at: '2026-11-10T15:00:00.000Z',
    updated_at: '2026-11-10T15:00:00.000Z',
    approved_at: null,
    version: 1,
    edited: 0,
    auto_closed: 0,
    device_id: null,
    review_flags: '[]',
    ...changes,
  };
}

/** The same day as an open session of the time clock (clocked in at 08:00), with a break running since 12:00. */
function openSession(): { entry: TimeEntryRow; breaks: TimeEntryBreakRow[] } {
  const entry = shiftRow({
    end_at: null,
    end_time: null,
    break_minutes: null,
    net_seconds: null,
    status: 'open',
    source: 'time_clock',
    clock_in_event: 'clock_in',
    closed_by_id: null,
    version: 2,
  });
  const running: TimeEntryBreakRow = {
    id: 'break',
    company_id: 'company',
    employee_id: 'employee',
    time_entry_id: 'entry',
    start_at: '2026-11-10T11:00:00.000Z',
    end_at: null,
    start_time: '12:00:00',
    end_time: null,
    start_event: 'break_start',
    end_event: null,
    created_by_id: 'key',
    closed_by_id: null,
    created_at: '2026-11-10T11:00:00.000Z',
    updated_at: '2026-11-10T11:00:00.000Z',
  };
  return { entry, breaks: [running] };
}

function plan(entry: TimeEntryRow, breaks: TimeEntryBreakRow[], body: CorrectionBody) {
  return planCorrection(entry, breaks, { body, parsed: parseCorrection(body) }, author);
}

describe('what a correction says (parseCorrection)', () => {
  it('parses the instants sent', () => {
    const parsed = parseCorrection({
      clockIn: '2026-11-10T08:15:00+01:00',
      breaks: [{ startedAt: '2026-11-10T12:00:00+01:00', endedAt: '2026-11-10T12:30:00+01:00' }],
      reason: 'late start',
    });
    expect(parsed.clockIn?.epochMs).toBe(Date.parse('2026-11-10T07:15:00Z'));
    expect(parsed.clockOut).toBeNull();
    expect(parsed.breaks).toHaveLength(1);
  });

  it('refuses a blank reason, a body that changes nothing, both kinds of break, an instant without offset', () => {
    expect(refusal(() => parseCorrection({ note: 'x', reason: '  ' }))).toEqual([['reason', 'blank']]);
    expect(refusal(() => parseCorrection({ reason: 'why' }))).toEqual([['body', 'nothing_to_change']]);
    expect(refusal(() => parseCorrection({ breakMinutes: 30, breaks: [], reason: 'both' }))).toEqual([
      ['breaks', 'one_of'],
    ]);
    expect(
      refusal(() =>
        parseCorrection({
          clockIn: '2026-11-10T08:00:00',
          breaks: [{ startedAt: '2026-11-10T12:00:00Z', endedAt: 'noon' }],
          reason: 'r',
        }),
      ),
    ).toEqual([
      ['clockIn', 'format'],
      ['breaks[0].endedAt', 'format'],
    ]);
  });
});

describe('the new times (evaluateTimes, middleBreak)', () => {
  const start = moment('2026-11-10T08:00:00+01:00');

  it('holds a shift to the rules of POST /time-entries, without its 30-day and 5-minute windows', () => {
    const end = moment('2026-11-10T17:00:00+01:00');
    expect(evaluateTimes({ start, end, spans: null, breakMinutes: 60 })).toEqual({
      ok: true,
      endsNextDay: false,
      breakMinutes: 60,
      netSeconds: 8 * 3600,
    });
    const fail = (end: string, breakMinutes: number | null = null) => {
      const verdict = evaluateTimes({ start, end: moment(end), spans: null, breakMinutes });
      return verdict.ok ? null : verdict.errors.map((e) => [e.field, e.code]);
    };
    expect(fail('2026-11-10T08:00:00+01:00')).toEqual([['clockOut', 'not_after_clock_in']]);
    expect(fail('2026-11-11T08:00:00+01:00')).toEqual([['clockOut', 'too_long']]);
    expect(fail('2026-11-10T08:14:00+01:00')).toEqual([['clockOut', 'net_time_too_short']]);
    expect(fail('2026-11-10T09:00:00+01:00', 60)).toEqual([['breakMinutes', 'break_longer_than_shift']]);
    expect(fail('2026-11-11T02:00:00+01:00', 30)).toEqual([['breakMinutes', 'break_on_overnight_shift']]);
    expect(fail('2026-11-11T02:00:00+01:00')).toBeNull();
  });

  it('holds the breaks of the time clock inside the entry, in order; an open end stays open', () => {
    const end = moment('2026-11-10T16:00:00+01:00');
    const s = start.epochMs;
    expect(
      evaluateTimes({
        start,
        end,
        spans: [{ startMs: s + 4 * HOUR, endMs: s + 4.5 * HOUR }],
        breakMinutes: null,
      }),
    ).toEqual({ ok: true, endsNextDay: false, breakMinutes: 30, netSeconds: 7.5 * 3600 });
    expect(evaluateTimes({ start, end, spans: [], breakMinutes: null })).toMatchObject({
      ok: true,
      breakMinutes: null,
    });
    const outside = evaluateTimes({
      start,
      end,
      spans: [{ startMs: s - HOUR, endMs: s }],
      breakMinutes: null,
    });
    expect(outside).toMatchObject({ ok: false, errors: [{ field: 'breaks', code: 'out_of_order' }] });
    const open = evaluateTimes({
      start,
      end: null,
      spans: [{ startMs: s - MIN, endMs: null }],
      breakMinutes: null,
    });
    expect(open).toMatchObject({ ok: false, errors: [{ field: 'clockIn', code: 'after_first_break' }] });
    expect(evaluateTimes({ start, end: null, spans: [], breakMinutes: null })).toEqual({
      ok: true,
      endsNextDay: false,
      breakMinutes: null,
      netSeconds: null,
    });
  });

  it('places one break in the middle of the entry', () => {
    const end = moment('2026-11-10T16:00:00+01:00');
    expect(middleBreak(start, end, 60)).toEqual({
      ok: true,
      spans: [{ startMs: start.epochMs + 3.5 * HOUR, endMs: start.epochMs + 4.5 * HOUR }],
    });
    expect(middleBreak(start, end, 0)).toEqual({ ok: true, spans: [] });
    expect(middleBreak(start, end, null)).toEqual({ ok: true, spans: [] });
    expect(middleBreak(start, end, 8 * 60)).toMatchObject({ ok: false });
  });
});

describe('the corrected entry (planCorrection)', () => {
  it('changes a shift: the new end, the break, the note; back to pending, one version more, edited', () => {
    const approved = shiftRow({ status: 'approved', approved_at: '2026-11-11T09:00:00.000Z' });
    const { next, breaksChanged } = plan(approved, [], {
      clockOut: '2026-11-10T17:00:00+01:00',
      breakMinutes: 45,
      note: 'stayed late',
      reason: 'forgot to say',
    });
    expect(next).toMatchObject({
      end_at: '2026-11-10T16:00:00.000Z',
      end_time: '17:00:00',
      break_minutes: 45,
      net_seconds: 8.25 * 3600,
      note: 'stayed late',
      status: 'pending_approval',
      approved_at: null,
      edited: 1,
      version: 2,
      updated_at: at,
      clock_out_event: null,
    });
    expect(breaksChanged).toBe(false);
    const changes = diffSnapshots(snapshotOf(approved), snapshotOf(next));
    expect(changes).toEqual([
      { field: 'endTime', from: '16:00:00', to: '17:00:00' },
      { field: 'totalHours', from: 7.5, to: 8.25 },
      { field: 'breakMinutes', from: 30, to: 45 },
      { field: 'status', from: 'approved', to: 'pending_approval' },
      { field: 'approvedAt', from: '2026-11-11T09:00:00.000Z', to: null },
      { field: 'note', from: null, to: 'stayed late' },
    ]);
  });

  it('a clockOut closes an open session: the running break ends there, the closer is the manager', () => {
    const { entry, breaks } = openSession();
    const planned = plan(entry, breaks, { clockOut: '2026-11-10T17:00:00+01:00', reason: 'forgot' });
    expect(planned.next).toMatchObject({
      end_time: '17:00:00',
      status: 'pending_approval',
      clock_out_event: 'correction',
      closed_by_id: 'manager',
      break_minutes: 300,
      net_seconds: 4 * 3600,
      version: 3,
    });
    expect(planned.breaksChanged).toBe(true);
    expect(planned.breaks[0]).toMatchObject({
      end_at: '2026-11-10T16:00:00.000Z',
      end_time: '17:00:00',
      end_event: 'correction',
    });
  });

  it("replaces a clocked entry's breaks, or places breakMinutes in the middle", () => {
    const { entry, breaks } = openSession();
    const replaced = plan(entry, breaks, {
      clockOut: '2026-11-10T16:00:00+01:00',
      breaks: [{ startedAt: '2026-11-10T12:00:00+01:00', endedAt: '2026-11-10T12:20:00+01:00' }],
      reason: 'the break was short',
    });
    expect(replaced.breaks).toHaveLength(1);
    expect(replaced.breaks[0]).toMatchObject({
      start_time: '12:00:00',
      end_time: '12:20:00',
      id: expect.any(String),
    });
    expect(replaced.next).toMatchObject({ break_minutes: 20, net_seconds: 7 * 3600 + 40 * 60 });
    const placed = plan(entry, breaks, {
      clockOut: '2026-11-10T16:00:00+01:00',
      breakMinutes: 60,
      reason: 'one hour',
    });
    expect(placed.breaks.map((b) => [b.start_time, b.end_time])).toEqual([['11:30:00', '12:30:00']]);
  });

  it('refuses breaks on a shift, and breaks on a session that stays open', () => {
    expect(
      refusal(() =>
        plan(shiftRow(), [], {
          breaks: [{ startedAt: '2026-11-10T12:00:00+01:00', endedAt: '2026-11-10T12:30:00+01:00' }],
          reason: 'r',
        }),
      ),
    ).toEqual([['breaks', 'not_for_shifts']]);
    const { entry, breaks } = openSession();
    expect(refusal(() => plan(entry, breaks, { breakMinutes: 30, reason: 'r' }))).toEqual([
      ['breakMinutes', 'open_session'],
    ]);
    expect(
      refusal(() => plan(shiftRow(), [], { clockIn: '2026-11-10T17:00:00+01:00', reason: 'r' })),
    ).toEqual([['clockOut', 'not_after_clock_in']]);
  });
});

describe('If-Match and day runs', () => {
  it('reads If-Match as sent: quoted, bare, weak, several, or any', () => {
    expect(parseIfMatch(undefined)).toBeNull();
    expect(parseIfMatch('*')).toBeNull();
    expect(parseIfMatch('')).toBeNull();
    expect(parseIfMatch('"3"')).toEqual([3]);
    expect(parseIfMatch('3')).toEqual([3]);
    expect(parseIfMatch('W/"3"')).toEqual([3]);
    expect(parseIfMatch('"2", "3"')).toEqual([2, 3]);
    expect(parseIfMatch(['"1"', '"4"'])).toEqual([1, 4]);
    expect(parseIfMatch('"abc"')).toEqual([-1]);
    expect(parseIfMatch('"0"')).toEqual([-1]);
  });

  it('groups the days a write lands on into runs of consecutive days', () => {
    expect(dayRuns([])).toEqual([]);
    expect(dayRuns(['2026-11-03', null, '2026-11-02', undefined, '2026-11-05', '2026-11-03'])).toEqual([
      { from: '2026-11-02', to: '2026-11-03' },
      { from: '2026-11-05', to: '2026-11-05' },
    ]);
    expect(dayRuns(['2026-11-30', '2026-12-01'])).toEqual([{ from: '2026-11-30', to: '2026-12-01' }]);
  });
});
