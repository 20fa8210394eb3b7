import type { CursorCodec } from '../../domain/cursor.js';
import { validationError } from '../../domain/errors.js';
import type { Tx } from '../../platform/db/database.js';
import type { AppContext } from '../context.js';
import { recordClockEvent } from '../time-tracking/clock-event.js';
import { listTimeEntries } from '../time-tracking/entries.js';
import { ENTRY_SOURCES, type WriteOutcome } from '../time-tracking/results.js';
import { clockStatus } from '../time-tracking/status.js';
import { addressAllowed, principalOfSelf, type Self, todayOf } from './self.js';

/* The personal web clock (issue 35, item 3): the person punches for the employee they are. */

export type WebClockPunch = 'clock_in' | 'break_start' | 'break_end' | 'clock_out';

/**
 * How far back a web-clock punch may be dated: a phone that queued punches offline sends their real
 * time, but a person may not date their own punches back as the API's 30 days allow a terminal.
 */
export const WEB_CLOCK_MAX_DELAY_MS = 24 * 3_600_000;

function checkOccurredAt(occurredAt: string | undefined, now: number): void {
  if (occurredAt === undefined) return;
  const at = Date.parse(occurredAt);
  if (Number.isFinite(at) && at < now - WEB_CLOCK_MAX_DELAY_MS)
    throw validationError([
      { field: 'occurredAt', message: 'a web-clock punch is at most 24 hours old', code: 'too_far_in_past' },
    ]);
}

/**
 * One punch of the web clock: POST /time-clock/events' rules (window, one open session, breaks inside
 * it, locked days), recorded with source `web_clock` and the person as its actor. The gate
 * (assertWebClockAllowed) is the caller's, before the transaction.
 */
export function punch(
  tx: Tx,
  now: number,
  self: Self,
  body: { type: WebClockPunch; occurredAt?: string },
  options: { detectDuplicates: boolean },
): Promise<WriteOutcome> {
  checkOccurredAt(body.occurredAt, now);
  return recordClockEvent(
    tx,
    now,
    principalOfSelf(self),
    {
      employee: { id: self.employee.id },
      type: body.type,
      occurredAt: body.occurredAt ?? new Date(now).toISOString(),
    },
    { dryRun: false, detectDuplicates: options.detectDuplicates, source: ENTRY_SOURCES.webClock },
  );
}

interface DayItem {
  endTime: string | null;
  totalHours: number;
  breaks?: { startedAt: string; endedAt: string | null }[];
}

/** Net seconds of an open session up to `now`: its time less its breaks (an open break up to now). */
function openSeconds(since: string, item: DayItem | undefined, now: number): number {
  const breaks = (item?.breaks ?? []).reduce(
    (sum, b) => sum + ((b.endedAt === null ? now : Date.parse(b.endedAt)) - Date.parse(b.startedAt)),
    0,
  );
  return Math.max(0, (now - Date.parse(since) - breaks) / 1000);
}

/** GET /self: the employee, today's state and hours, and whether the web clock is open to this address. */
export async function selfToday(ctx: AppContext, cursors: CursorCodec, self: Self, address: string) {
  const now = ctx.now();
  const today = todayOf(self, now);
  const principal = principalOfSelf(self);
  const status = await clockStatus(ctx, cursors, principal, { employeeId: self.employee.id, limit: 1 });
  const open = status.items[0];
  const day = await listTimeEntries(ctx, cursors, principal, {
    employeeId: self.employee.id,
    from: today,
    to: today,
    limit: 100,
  });
  let seconds = 0;
  for (const item of day.items)
    if (item.endTime !== null || open === undefined) seconds += item.totalHours * 3600;
  if (open !== undefined)
    seconds += openSeconds(
      open.since,
      day.items.find((item) => item.id === open.timeEntryId),
      now,
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
