import { type CursorCodec } from '../../domain/cursor.js';
import { type Principal } from '../auth/service.js';
import { findWorkplaceOfCompany, listWorkplacesOfCompany } from '../companies/queries.js';
import { type AppContext } from '../context.js';
import { namesOfEmployees } from '../employees/queries.js';
import { employeeRef } from '../employees/views.js';
import { atMostOneOf } from './entries.js';
import { listOpenSessions } from './queries/status.js';
import { notInYourCompany } from '../../shared/input-checks.js';
import { invalidCursor } from '../../shared/pages.js';
import { needsCorrection } from '../corrections/hooks.js';
import { isStorableText } from '../../shared/stored-text.js';
import { type ConsolePerson } from '../people/person.js';
/* Who is clocked in: the public GET /time-clock/status, and the admin API's view of it with names. */

/** Who is clocked in, oldest first: clockStatus (the public operation's service) plus names and workplaces. */
export async function whoIsIn(
  ctx: AppContext,
  cursors: CursorCodec,
  person: ConsolePerson,
  query: { workplaceId?: string; cursor?: string; limit?: number },
) {
  const db = ctx.database.db;
  if (
    query.workplaceId !== undefined &&
    !(await findWorkplaceOfCompany(db, person.companyId, query.workplaceId))
  )
    throw notInYourCompany('workplace');
  const page = await clockStatus(ctx, cursors, { companyId: person.companyId }, query);
  const [names, workplaces] = await Promise.all([
    namesOfEmployees(
      db,
      person.companyId,
      page.items.map((item) => item.employee.id),
    ),
    listWorkplacesOfCompany(db, person.companyId),
  ]);
  const byId = new Map(names.map((row) => [row.id, row]));
  const workplaceById = new Map(workplaces.map((row) => [row.id, row]));
  return {
    ...page,
    items: page.items.map((item) => {
      const employee = byId.get(item.employee.id);
      const workplace = item.workplaceId ? workplaceById.get(item.workplaceId) : undefined;
      return {
        ...item,
        employee: {
          ...item.employee,
          firstName: employee?.first_name ?? null,
          lastName: employee?.last_name ?? null,
          email: employee?.email ?? '',
        },
        workplace: workplace ? { id: workplace.id, name: workplace.name } : null,
      };
    }),
    timeZone: person.company.timeZone ?? 'UTC',
  };
}

/**
 * Who is clocked in (additive within v1, GET /time-clock/status): every open session however old,
 * oldest first, for the whole company or one workplace or one employee, with the break in progress.
 */
export async function clockStatus(
  ctx: AppContext,
  cursors: CursorCodec,
  principal: Pick<Principal, 'companyId'>,
  query: { workplaceId?: string; employeeId?: string; externalId?: string; cursor?: string; limit?: number },
) {
  atMostOneOf(query, ['workplaceId', 'employeeId', 'externalId']);
  const filter: { workplaceId: string } | { employeeId: string } | { externalId: string } | null =
    query.workplaceId !== undefined
      ? { workplaceId: query.workplaceId.toLowerCase() }
      : query.employeeId !== undefined
        ? { employeeId: query.employeeId.toLowerCase() }
        : query.externalId !== undefined
          ? { externalId: query.externalId }
          : null;
  const filterKey = filter === null ? '' : JSON.stringify(filter);
  let after: { start: string; id: string } | null = null;
  if (query.cursor !== undefined) {
    const p = cursors.decode(query.cursor);
    if (
      p?.k !== 'status' ||
      p.c !== principal.companyId ||
      p.f !== filterKey ||
      typeof p.s !== 'string' ||
      typeof p.a !== 'string'
    )
      throw invalidCursor();
    after = { start: p.s, id: p.a };
  }
  if (filter !== null && 'externalId' in filter && !isStorableText(filter.externalId))
    return { items: [], nextCursor: null, hasMore: false };
  const limit = query.limit ?? 25;
  const now = ctx.now();
  const rows = await listOpenSessions(ctx.database.db, {
    companyId: principal.companyId,
    filter,
    after,
    limit: limit + 1,
  });
  const hasMore = rows.length > limit;
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return {
    items: items.map((row) => ({
      employee: employeeRef({ id: row.employee_id, external_id: row.external_id }),
      timeEntryId: row.id,
      workplaceId: row.workplace_id,
      since: row.start_at,
      sinceTime: row.start_time,
      onBreak: row.break_since !== null,
      breakSince: row.break_since,
      needsCorrection: needsCorrection(row.start_at, now),
    })),
    nextCursor:
      hasMore && last
        ? cursors.encode({ k: 'status', c: principal.companyId, f: filterKey, s: last.start_at, a: last.id })
        : null,
    hasMore,
  };
}
