import type { CursorCodec } from '../../domain/cursor.js';
import type { Principal } from '../auth/service.js';
import type { AppContext } from '../context.js';
import { invalidCursor, type Page } from '../../shared/pages.js';
import { resolveEmployee } from '../employees/service.js';
import { atMostOneOf, workDateRange } from '../time-tracking/entries.js';
import { type ExceptionFilter, listExceptionsPage } from './queries/exceptions.js';
import type { ExceptionKind } from './schemas.js';
import { exceptionView, type ExceptionView } from './views.js';

export interface ExceptionsQuery {
  from?: string;
  to?: string;
  employeeId?: string;
  externalId?: string;
  workplaceId?: string;
  kind?: ExceptionKind;
  cursor?: string;
  limit?: number;
}

/**
 * GET /attendance-exceptions: the company's exceptions dated from..to (work dates like every range:
 * by default the last 30 days up to today, at most 92), of one employee or workplace and one kind,
 * by date then id, cursor-paginated.
 */
export async function listExceptions(
  ctx: AppContext,
  cursors: CursorCodec,
  principal: Pick<Principal, 'companyId' | 'company'>,
  query: ExceptionsQuery,
): Promise<Page<ExceptionView>> {
  atMostOneOf(query, ['employeeId', 'externalId', 'workplaceId']);
  const { from, to } = workDateRange(ctx, principal, query);
  const db = ctx.database.db;
  let filter: ExceptionFilter = null;
  if (query.employeeId !== undefined || query.externalId !== undefined) {
    const employee = await resolveEmployee(db, principal.companyId, {
      id: query.employeeId ?? null,
      externalId: query.externalId ?? null,
    });
    filter = { employeeId: employee.id };
  } else if (query.workplaceId !== undefined) filter = { workplaceId: query.workplaceId.toLowerCase() };
  const filterKey = `${filter === null ? '' : JSON.stringify(filter)}|${query.kind ?? ''}`;
  let after: { date: string; id: string } | null = null;
  if (query.cursor !== undefined) {
    const p = cursors.decode(query.cursor);
    if (
      p?.k !== 'exceptions' ||
      p.c !== principal.companyId ||
      p.f !== from ||
      p.t !== to ||
      p.w !== filterKey ||
      typeof p.d !== 'string' ||
      typeof p.a !== 'string'
    )
      throw invalidCursor();
    after = { date: p.d, id: p.a };
  }
  const limit = query.limit ?? 25;
  const rows = await listExceptionsPage(db, {
    companyId: principal.companyId,
    from,
    to,
    filter,
    kind: query.kind ?? null,
    after,
    limit: limit + 1,
  });
  const hasMore = rows.length > limit;
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return {
    items: items.map((row) =>
      exceptionView(row, { id: row.employee_id, external_id: row.employee_external_id }),
    ),
    nextCursor:
      hasMore && last
        ? cursors.encode({
            k: 'exceptions',
            c: principal.companyId,
            f: from,
            t: to,
            w: filterKey,
            d: last.date,
            a: last.id,
          })
        : null,
    hasMore,
  };
}
