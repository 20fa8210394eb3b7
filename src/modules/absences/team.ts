import type { CursorCodec } from '../../domain/cursor.js';
import { ApiError } from '../../domain/errors.js';
import { todayIn } from '../../domain/time-zone.js';
import type { ConsolePerson } from '../people/person.js';
import type { AppContext } from '../context.js';
import { invalidCursor, type Page } from '../../shared/pages.js';
import { absenceView } from './absences.js';
import type { AdminAbsence } from './admin-schemas.js';
import { findWorkplace, listOverrides, workplaceRegions } from './calendar.queries.js';
import { mergeHolidays, overrideView, regionHolidays } from './holidays.js';
import {
  type AbsenceWithType,
  listAbsencePage,
  listAbsencesOfEmployees,
  listTeam,
  namesOf,
} from './queries.js';

/*
 * The console's Absences screen (issue 31): a month's team calendar of a workplace (who is away,
 * holidays), the requests waiting for a decision, and the Company screen's holiday settings. Only the
 * person's own company: another company's workplace is 404.
 */

const TEAM_LIMIT = 300;

type Names = { first_name: string | null; last_name: string | null; email: string };

function withPerson(row: AbsenceWithType, names: ReadonlyMap<string, Names>): AdminAbsence {
  const name = names.get(row.employee_id);
  return {
    ...absenceView(row),
    person: {
      firstName: name?.first_name ?? null,
      lastName: name?.last_name ?? null,
      email: name?.email ?? '',
    },
  };
}

function monthRange(month: string): { from: string; to: string } {
  const [year, monthNumber] = month.split('-').map(Number) as [number, number];
  // Day 0 of the next month is this month's last day (no ISO string of year 10000 on the way).
  const last = new Date(Date.UTC(year, monthNumber, 0)).getUTCDate();
  return { from: `${month}-01`, to: `${month}-${String(last).padStart(2, '0')}` };
}

export async function teamCalendar(
  ctx: AppContext,
  person: ConsolePerson,
  query: { month: string; workplaceId?: string },
) {
  const db = ctx.database.db;
  const { from, to } = monthRange(query.month);
  const workplaceId = query.workplaceId?.toLowerCase() ?? null;
  const workplace = workplaceId === null ? null : await findWorkplace(db, person.companyId, workplaceId);
  if (workplaceId !== null && !workplace)
    throw new ApiError('not_found', 'no workplace with this id in your company');
  const [team, overrides] = await Promise.all([
    listTeam(db, person.companyId, workplaceId, TEAM_LIMIT + 1),
    listOverrides(db, person.companyId, { from, to }),
  ]);
  const employees = team.slice(0, TEAM_LIMIT);
  const rows = await listAbsencesOfEmployees(
    db,
    person.companyId,
    employees.map((e) => e.id),
    from,
    to,
  );
  const names = new Map(employees.map((e) => [e.id, e]));
  return {
    from,
    to,
    holidays: mergeHolidays(
      regionHolidays(workplace?.holiday_region ?? null, from, to),
      overrides,
      workplaceId,
    ),
    employees: employees.map((e) => ({
      id: e.id,
      externalId: e.external_id,
      firstName: e.first_name,
      lastName: e.last_name,
      email: e.email,
    })),
    truncated: team.length > TEAM_LIMIT,
    absences: rows.map((row) => withPerson(row, names)),
  };
}

/** Requested absences of the company (of every year), by start date then id, with names. */
export async function waitingRequests(
  ctx: AppContext,
  cursors: CursorCodec,
  person: ConsolePerson,
  query: { cursor?: string; limit?: number },
): Promise<Page<AdminAbsence>> {
  const db = ctx.database.db;
  let after: { startDate: string; id: string } | null = null;
  if (query.cursor !== undefined) {
    const p = cursors.decode(query.cursor);
    if (p?.k !== 'absence-requests' || p.c !== person.companyId || !Array.isArray(p.a)) throw invalidCursor();
    after = { startDate: String(p.a[0]), id: String(p.a[1]) };
  }
  const limit = query.limit ?? 25;
  const rows = await listAbsencePage(db, {
    companyId: person.companyId,
    employeeId: null,
    from: '0000-01-01',
    to: '9999-12-31',
    status: 'requested',
    typeCode: null,
    after,
    limit: limit + 1,
  });
  const items = rows.slice(0, limit);
  const names = new Map(
    (await namesOf(db, person.companyId, [...new Set(items.map((r) => r.employee_id))])).map((n) => [
      n.id,
      n,
    ]),
  );
  const last = items.at(-1);
  const hasMore = rows.length > limit;
  return {
    items: items.map((row) => withPerson(row, names)),
    nextCursor:
      hasMore && last
        ? cursors.encode({ k: 'absence-requests', c: person.companyId, a: [last.start_date, last.id] })
        : null,
    hasMore,
  };
}

/** The Company screen's holidays: each workplace's region, and the overrides since 1 January of last year. */
export async function holidaySettings(ctx: AppContext, person: ConsolePerson) {
  const db = ctx.database.db;
  const since = `${Number(todayIn(person.company.timeZone, ctx.now()).slice(0, 4)) - 1}-01-01`;
  const [workplaces, overrides] = await Promise.all([
    workplaceRegions(db, person.companyId),
    listOverrides(db, person.companyId, { from: since, to: '9999-12-31' }),
  ]);
  return {
    workplaces: workplaces.map((w) => ({ id: w.id, name: w.name, holidayRegion: w.holiday_region })),
    overrides: overrides.map(overrideView),
  };
}
