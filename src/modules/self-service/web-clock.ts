import type { CursorCodec } from '../../domain/cursor.js';
import { validationError } from '../../domain/errors.js';
import { addDays, startOfDayIn } from '../../domain/time-zone.js';
import type { Tx } from '../../platform/db/database.js';
import type { AppContext } from '../context.js';
import { recordAudit } from '../audit/queries.js';
import { recordClockEvent } from '../time-tracking/clock-event.js';
import { listTimeEntries } from '../time-tracking/entries.js';
import { ENTRY_SOURCES, type WriteOutcome } from '../time-tracking/results.js';
import { clockStatus } from '../time-tracking/status.js';
import { addressAllowed, allowedRanges, principalOfSelf, type Self, todayOf } from './self.js';
import { addEntryFlags } from '../devices/queries.js';
import { CLOCK_SKEW_FLAG, isSkewed } from '../devices/sync.js';

/* The personal web clock (issue 35, item 3): the person punches for the employee they are. */

export type WebClockPunch = 'clock_in' | 'break_start' | 'break_end' | 'clock_out';

/**
 * The web clock records the time of the punch, taken by the person's own browser (issue 35): a punch
 * may be at most 2 minutes ahead of the server's time (a phone's clock a little off) and at most 12
 * hours behind it, for a punch taken while the browser was offline and sent from its queue when the
 * network returned (the console's offline clock). A punch more than 2 minutes old is an offline punch:
 * its entry carries the review flag `offline_punch`. Older than 12 hours, or ahead, is `422
 * validation_failed` code `not_live`: nobody dates their punches back as a terminal's 30 days allow.
 * The console sends a live punch without `occurredAt` (the server's time); only a punch that waited in
 * its queue says when it was taken. A workplace limited to address ranges accepts only live punches
 * (the range must hold at the moment of the punch).
 */
export const WEB_CLOCK_TOLERANCE_MS = 2 * 60_000;
export const WEB_CLOCK_OFFLINE_MS = 12 * 3_600_000;
export const OFFLINE_PUNCH_FLAG = 'offline_punch';

/**
 * The punch's instant as judged: `occurredAt` corrected by the browser's measured clock offset
 * (server minus X-Device-Clock) when it sent one, so a phone's clock that is off neither makes a live
 * punch "offline" nor lets an old one through. Ahead of the server by more than 2 minutes or older
 * than 12 hours is `not_live`; at a workplace limited to address ranges, anything older than 2
 * minutes is `not_live` too (the range must hold at the moment of the punch: only live punches).
 */
function judgedInstant(
  occurredAt: string | undefined,
  now: number,
  clockOffsetMs: number | null,
  liveOnly: boolean,
): number {
  if (occurredAt === undefined) return now;
  const sent = Date.parse(occurredAt);
  if (!Number.isFinite(sent)) return now;
  const at = sent + (clockOffsetMs ?? 0);
  const server = new Date(now).toISOString();
  const problem =
    at - now > WEB_CLOCK_TOLERANCE_MS
      ? `occurredAt is more than 2 minutes ahead of the server's time (${server}); check the clock of this device, or leave it out`
      : liveOnly && now - at > WEB_CLOCK_TOLERANCE_MS
        ? `this workplace accepts only live punches: its address ranges must hold at the moment of the punch, and occurredAt is more than 2 minutes before the server's time (${server}); ask a manager to correct the day`
        : now - at > WEB_CLOCK_OFFLINE_MS
          ? `occurredAt is more than 12 hours before the server's time (${server}): the web clock keeps offline punches for 12 hours only; ask a manager to correct the day`
          : null;
  if (problem !== null) throw validationError([{ field: 'occurredAt', message: problem, code: 'not_live' }]);
  return at;
}

/**
 * The review flags of a web-clock punch: `offline_punch` for one taken (judged: corrected by the
 * browser's offset) more than 2 minutes before the server's time; `device_clock_skew` when the
 * browser's own clock (header X-Device-Clock, as a kiosk sends it) was more than 2 minutes off the
 * server's at sending.
 */
export function webClockFlags(at: number, now: number, clockOffsetMs: number | null): string[] {
  const flags: string[] = [];
  if (now - at > WEB_CLOCK_TOLERANCE_MS) flags.push(OFFLINE_PUNCH_FLAG);
  if (isSkewed(clockOffsetMs)) flags.push(CLOCK_SKEW_FLAG);
  return flags;
}

/** The offset (server minus browser, ms) of the X-Device-Clock header's instant; null without one. */
export function browserClockOffset(header: string | undefined, now: number): number | null {
  const at = header === undefined ? Number.NaN : Date.parse(header);
  return Number.isNaN(at) ? null : now - at;
}

/**
 * One punch of the web clock: POST /time-clock/events' rules (window, one open session, breaks inside
 * it, locked days), recorded with source `web_clock` and the person as its actor, its entry flagged
 * (webClockFlags) when stored. The gate (assertWebClockAllowed) is the caller's, before the transaction.
 */
export async function punch(
  tx: Tx,
  now: number,
  self: Self,
  body: { type: WebClockPunch; occurredAt?: string },
  options: { detectDuplicates: boolean; clockOffsetMs?: number | null },
): Promise<WriteOutcome> {
  const clockOffsetMs = options.clockOffsetMs ?? null;
  const at = judgedInstant(body.occurredAt, now, clockOffsetMs, allowedRanges(self.employee).length > 0);
  const flags = webClockFlags(at, now, clockOffsetMs);
  const outcome = await recordClockEvent(
    tx,
    now,
    principalOfSelf(self),
    {
      employee: { id: self.employee.id },
      type: body.type,
      occurredAt: body.occurredAt ?? new Date(now).toISOString(),
    },
    {
      dryRun: false,
      detectDuplicates: options.detectDuplicates,
      source: ENTRY_SOURCES.webClock,
      reviewFlags: flags,
    },
  );
  // The events carry the flags (recordClockEvent); the entry's row gets them here, merged.
  if (outcome.status === 201 && outcome.body.timeEntryId !== null && flags.length > 0)
    await addEntryFlags(tx, outcome.body.timeEntryId, flags);
  return outcome;
}

/**
 * A queued punch (`occurredAt` more than 2 minutes old, judged by the browser's offset) refused for
 * good: an audit row `time_entry.punch_refused` (the person, the employee, type, occurredAt, the
 * error's name), so an administrator sees it in the audit log (console Audit log, CLI `audit list`),
 * not only the person's browser. Written once per Idempotency-Key, with the stored refusal.
 */
export async function recordRefusedOfflinePunch(
  tx: Tx,
  now: number,
  self: Self,
  person: { id: string; companyId: string },
  body: { type: WebClockPunch; occurredAt?: string },
  refusal: { clockOffsetMs: number | null; error: string; idempotencyKey: string },
): Promise<void> {
  if (body.occurredAt === undefined) return;
  const sent = Date.parse(body.occurredAt);
  if (!Number.isFinite(sent) || now - (sent + (refusal.clockOffsetMs ?? 0)) <= WEB_CLOCK_TOLERANCE_MS) return;
  await recordAudit(tx, {
    companyId: person.companyId,
    actorType: 'user',
    actorId: person.id,
    action: 'time_entry.punch_refused',
    targetType: 'employee',
    targetId: self.employee.id,
    details: {
      personId: person.id,
      employeeId: self.employee.id,
      type: body.type,
      occurredAt: body.occurredAt,
      error: refusal.error,
      idempotencyKey: refusal.idempotencyKey,
      source: ENTRY_SOURCES.webClock,
    },
    at: new Date(now).toISOString(),
  });
}

interface DayItem {
  id: string;
  workDate: string;
  endTime: string | null;
  endsNextDay: boolean;
  totalHours: number;
  breaks?: { startedAt: string; endedAt: string | null }[];
}

/** Milliseconds of [from, to] inside [since, until]. */
function overlap(from: number, to: number, since: number, until: number): number {
  return Math.max(0, Math.min(to, until) - Math.max(from, since));
}

/** Net seconds of an open session from today's midnight (or its start) up to `now`, less its breaks. */
function openSeconds(since: string, item: DayItem | undefined, now: number, midnight: number): number {
  const start = Math.max(Date.parse(since), midnight);
  const breaks = (item?.breaks ?? []).reduce(
    (sum, b) =>
      sum + overlap(Date.parse(b.startedAt), b.endedAt === null ? now : Date.parse(b.endedAt), start, now),
    0,
  );
  return Math.max(0, (now - start - breaks) / 1000);
}

const secondsOf = (time: string) => {
  const [h, m, s] = time.split(':').map(Number);
  return (h ?? 0) * 3600 + (m ?? 0) * 60 + (s ?? 0);
};

/**
 * Today's part of yesterday's entry that ended today: from midnight to its end, less its punched
 * breaks after midnight (an overnight shift recorded whole has no break).
 */
function nightSecondsToday(item: DayItem, midnight: number): number {
  const end = secondsOf(item.endTime!);
  const breaks = (item.breaks ?? []).reduce(
    (sum, b) =>
      sum +
      overlap(Date.parse(b.startedAt), Date.parse(b.endedAt ?? b.startedAt), midnight, midnight + end * 1000),
    0,
  );
  return Math.max(0, end - breaks / 1000);
}

/** GET /self: the employee, today's state and hours, and whether the web clock is open to this address. */
export async function selfToday(ctx: AppContext, cursors: CursorCodec, self: Self, address: string) {
  const now = ctx.now();
  const today = todayOf(self, now);
  const midnight = Date.parse(startOfDayIn(self.timeZone, today));
  const principal = principalOfSelf(self);
  const status = await clockStatus(ctx, cursors, principal, { employeeId: self.employee.id, limit: 1 });
  const open = status.items[0];
  // Yesterday's entries too: a night shift or a session still open since yesterday counts from midnight.
  const days = await listTimeEntries(ctx, cursors, principal, {
    employeeId: self.employee.id,
    from: addDays(today, -1),
    to: today,
    limit: 100,
  });
  let seconds = 0;
  for (const item of days.items as DayItem[]) {
    if (item.endTime === null || item.id === open?.timeEntryId) continue;
    if (item.workDate === today) seconds += item.totalHours * 3600;
    else if (item.endsNextDay) seconds += nightSecondsToday(item, midnight);
  }
  if (open !== undefined)
    seconds += openSeconds(
      open.since,
      (days.items as DayItem[]).find((item) => item.id === open.timeEntryId),
      now,
      midnight,
    );
  const { employee } = self;
  return {
    employee: {
      id: employee.id,
      externalId: employee.external_id,
      firstName: employee.first_name,
      lastName: employee.last_name,
      workplaceId: employee.workplace_id,
    },
    timeZone: self.timeZone,
    today,
    state: {
      clockedIn: open !== undefined,
      onBreak: open?.onBreak ?? false,
      since: open?.since ?? null,
      timeEntryId: open?.timeEntryId ?? null,
    },
    todayHours: Math.round((seconds / 3600) * 100) / 100,
    webClock: { enabled: employee.web_clock === 1, allowedHere: addressAllowed(self, address) },
  };
}
