import { type CursorCodec } from '../../domain/cursor.js';
import { ApiError, validationError } from '../../domain/errors.js';
import { addDays, daysBetween, todayIn } from '../../domain/time-zone.js';
import { type Principal } from '../auth/service.js';
import { type AppContext } from '../context.js';
import { resolveEmployee } from '../employees/service.js';
import { findBreaksOfEntries } from './queries/breaks.js';
import { findEmployeeEntriesPage } from './queries/entries.js';
import { isPunchedSource, timeEntryListItem } from './results.js';
import { type Page, invalidCursor } from '../../shared/pages.js';
import { isStorableText } from '../../shared/stored-text.js';

/* Lists of time entries (GET /time-entries) and the range rules every read over work dates shares. */

const MAX_RANGE_DAYS = 92;
const DEFAULT_RANGE_DAYS = 30;

/**
 * Spec, GET /time-entries: `from`..`to` (work dates, inclusive), by default the last 30 days up to
 * today in the company's zone, at most 92 days. Shared by every read over a range of work dates.
 */
export function workDateRange(
  ctx: AppContext,
  principal: Pick<Principal, 'company'>,
  query: { from?: string; to?: string },
): { from: string; to: string } {
  const to = query.to ?? todayIn(principal.company.timeZone, ctx.now());
  const from = query.from ?? addDays(to, -DEFAULT_RANGE_DAYS);
  if (from > to) throw validationError([{ field: 'from', message: 'must not be after to', code: 'range' }]);
  if (daysBetween(from, to) > MAX_RANGE_DAYS)
    throw validationError([
      { field: 'to', message: `the range spans at most ${MAX_RANGE_DAYS} days`, code: 'range' },
    ]);
  return { from, to };
}

/** A 422 unless at most one of the `names` was sent (filters that exclude each other). */
export function atMostOneOf<K extends string>(query: Partial<Record<K, unknown>>, names: readonly K[]): void {
  const given = names.filter((name) => query[name] !== undefined);
  if (given.length > 1)
    throw validationError([
      {
        field: given[1]!,
        message: `send at most one of ${names.join(', ').replace(/, ([^,]*)$/, ' and $1')}`,
        code: 'one_of',
      },
    ]);
}

/** The payload of a cursor of this listing (this company, this range), or false. */
function decodeEntriesCursor(
  cursors: CursorCodec,
  text: string,
  principal: Pick<Principal, 'companyId'>,
  from: string,
  to: string,
): Record<string, unknown> | false {
  const p = cursors.decode(text);
  return p?.k === 'entries' &&
    p.c === principal.companyId &&
    p.f === from &&
    p.t === to &&
    typeof p.e === 'string' &&
    typeof p.w === 'string' &&
    typeof p.a === 'string'
    ? p
    : false;
}

export async function listTimeEntries(
  ctx: AppContext,
  cursors: CursorCodec,
  principal: Principal,
  query: {
    employeeId?: string;
    externalId?: string;
    from?: string;
    to?: string;
    cursor?: string;
    limit?: number;
  },
): Promise<Page<ReturnType<typeof timeEntryListItem>>> {
  if ((query.employeeId === undefined) === (query.externalId === undefined))
    throw validationError([
      { field: 'employeeId', message: 'send exactly one of employeeId and externalId', code: 'one_of' },
    ]);
  const { from, to } = workDateRange(ctx, principal, query);
  const limit = query.limit ?? 25;
  const selector = { id: query.employeeId ?? null, externalId: query.externalId ?? null };
  // The cursor's own checks (signature, listing, range) come first; whether it belongs to this
  // employee is known once the employee is read, in the same statement as the page (see below).
  const cursor =
    query.cursor === undefined ? null : decodeEntriesCursor(cursors, query.cursor, principal, from, to);
  if (cursor === false) {
    // Spec order: an unknown employee is 404 before a bad cursor is 422.
    await resolveEmployee(ctx.database.db, principal.companyId, selector);
    throw invalidCursor();
  }
  if (selector.externalId !== null && !isStorableText(selector.externalId))
    throw new ApiError(
      'employee_not_found',
      `no employee with external id ${selector.externalId} in this company`,
    );
  const page = {
    companyId: principal.companyId,
    from,
    to,
    after: cursor ? { workDate: cursor.w as string, id: cursor.a as string } : null,
    limit: limit + 1,
  };
  // The employee and the page in one statement.
  const { employee, rows } = await findEmployeeEntriesPage(ctx.database.db, {
    ...page,
    selector: selector.id !== null ? { id: selector.id.toLowerCase() } : { externalId: selector.externalId! },
  });
  if (!employee)
    throw new ApiError(
      'employee_not_found',
      selector.id !== null
        ? `no employee ${selector.id} in this company`
        : `no employee with external id ${selector.externalId} in this company`,
    );
  if (cursor && cursor.e !== employee.id) throw invalidCursor();
  const hasMore = rows.length > limit;
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  // Entries of the time clock carry their breaks (one more read, only when the page has such entries).
  const clocked = items.filter((row) => isPunchedSource(row.source)).map((row) => row.id);
  const breaks = await findBreaksOfEntries(ctx.database.db, clocked);
  return {
    items: items.map((row) => timeEntryListItem(row, employee, breaks.get(row.id))),
    nextCursor:
      hasMore && last
        ? cursors.encode({
            k: 'entries',
            c: principal.companyId,
            e: employee.id,
            f: from,
            t: to,
            w: last.work_date,
            a: last.id,
          })
        : null,
    hasMore,
  };
}
