import Holidays from 'date-holidays';
import { ApiError, validationError } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { addDays, daysBetween, isValidDate, todayIn } from '../../domain/time-zone.js';
import type { Executor, Tx } from '../../platform/db/database.js';
import { recordAudit } from '../audit/queries.js';
import type { AppContext } from '../context.js';
import type { HolidayMark } from './calendar.js';
import { assertCalendarDaysOpen } from './closed-days.js';
import {
  deleteOverride,
  findOverride,
  findOverrideById,
  findWorkplace,
  type HolidayOverrideRow,
  insertOverride,
  listOverrides,
  workplaceRegions,
} from './calendar.queries.js';
import type { Holiday, HolidayPortion } from './schemas.js';

/*
 * Public holidays (issue 31): a workplace's region code (`DE-BY`, `US-CA`, `FR`) gives the region's
 * public holidays, computed offline by date-holidays (only its `public` type; names in English where
 * it has them); the company's overrides add a day, remove a day or make a half day, for the whole
 * company or one workplace. For one day the workplace's override wins over the company's, which wins
 * over the region's.
 */

export const MAX_HOLIDAY_RANGE_DAYS = 366;
const REGION = /^([A-Z]{2})(?:-([A-Z0-9]{1,3})(?:-([A-Z0-9]{1,6}))?)?$/;

const catalogue = new Holidays();

/** `DE-BY` as date-holidays' country, state and region, when date-holidays knows them; else null. */
export function parseRegion(code: string): { country: string; state?: string; region?: string } | null {
  const match = REGION.exec(code.toUpperCase());
  if (!match) return null;
  const [, country, state, region] = match as unknown as [string, string, string?, string?];
  if (!catalogue.getCountries()?.[country]) return null;
  if (state === undefined) return { country };
  if (!catalogue.getStates(country)?.[state]) return null;
  if (region === undefined) return { country, state };
  if (!catalogue.getRegions(country, state)?.[region]) return null;
  return { country, state, region };
}

/** A region code as stored (upper case), or a 422 naming `field`. */
export function requireRegion(code: string, field: string): string {
  if (parseRegion(code) === null)
    throw validationError([
      {
        field,
        message: `unknown holiday region ${code}; use a country code (FR), or country-state (DE-BY, US-CA)`,
        code: 'holiday_region',
      },
    ]);
  return code.toUpperCase();
}

const calendars = new Map<string, Holidays>();
const byYear = new Map<string, { date: string; name: string; portion: HolidayPortion }[]>();
const MAX_CACHED_YEARS = 2000;

/*
 * Computing a region's year costs milliseconds (date-holidays evaluates every rule), and a month's
 * timesheets ask for the same few regions and years again and again: the results are kept in memory.
 * They are pure functions of the region and the year (the library's data), so nothing goes stale.
 */
function regionYear(code: string, year: number) {
  const key = `${code}:${year}`;
  const cached = byYear.get(key);
  if (cached) return cached;
  let calendar = calendars.get(code);
  if (!calendar) {
    const parsed = parseRegion(code);
    if (!parsed) return [];
    calendar = new Holidays(parsed.country, parsed.state ?? '', parsed.region ?? '', {
      types: ['public'],
      languages: ['en'],
    });
    calendars.set(code, calendar);
  }
  const days: { date: string; name: string; portion: HolidayPortion }[] = [];
  for (const holiday of calendar.getHolidays(year, 'en') || []) {
    if (holiday.type !== 'public') continue;
    const first = holiday.date.slice(0, 10);
    // A holiday starting after midnight (an afternoon off) is a half day; one of several days, each day.
    const portion: HolidayPortion = holiday.date.slice(11, 19) === '00:00:00' ? 'full' : 'half';
    const length = Math.max(1, Math.round((holiday.end.getTime() - holiday.start.getTime()) / 86_400_000));
    for (let i = 0; i < length; i++) days.push({ date: addDays(first, i), name: holiday.name, portion });
  }
  if (byYear.size >= MAX_CACHED_YEARS) byYear.clear();
  byYear.set(key, days);
  return days;
}

/** The region's public holidays from `from` to `to`. */
export function regionHolidays(code: string | null, from: string, to: string): Holiday[] {
  if (code === null) return [];
  const items: Holiday[] = [];
  for (let year = Number(from.slice(0, 4)); year <= Number(to.slice(0, 4)); year++)
    for (const day of regionYear(code, year))
      if (day.date >= from && day.date <= to) items.push({ ...day, source: 'region' });
  return items;
}

/** The holidays of one workplace (null: none; then only the company's own), region and overrides merged. */
export function mergeHolidays(
  region: readonly Holiday[],
  overrides: readonly HolidayOverrideRow[],
  workplaceId: string | null,
): Holiday[] {
  const byDate = new Map<string, Holiday>(region.map((h) => [h.date, h]));
  const apply = (row: HolidayOverrideRow) => {
    if (row.kind === 'remove') byDate.delete(row.date);
    else
      byDate.set(row.date, {
        date: row.date,
        name: row.name ?? 'Holiday',
        portion: row.portion === 'half' ? 'half' : 'full',
        source: 'company',
      });
  };
  for (const row of overrides) if (row.workplace_id === null) apply(row);
  for (const row of overrides) if (workplaceId !== null && row.workplace_id === workplaceId) apply(row);
  return [...byDate.values()].sort((a, b) => (a.date < b.date ? -1 : 1));
}

export function holidayMarks(holidays: readonly Holiday[]): Map<string, HolidayMark> {
  return new Map(holidays.map((h) => [h.date, { name: h.name, portion: h.portion }]));
}

/** Every workplace's holidays over `from`..`to` (key null: employees without a workplace), in two statements. */
export async function holidaysByWorkplace(
  db: Executor,
  companyId: string,
  from: string,
  to: string,
): Promise<Map<string | null, Holiday[]>> {
  const [workplaces, overrides] = await Promise.all([
    workplaceRegions(db, companyId),
    listOverrides(db, companyId, { from, to }),
  ]);
  const result = new Map<string | null, Holiday[]>([[null, mergeHolidays([], overrides, null)]]);
  for (const w of workplaces)
    result.set(w.id, mergeHolidays(regionHolidays(w.holiday_region, from, to), overrides, w.id));
  return result;
}

/** A range of dates of at most 366 days, by default this calendar year in the company's zone. */
export function yearRange(
  ctx: AppContext,
  timeZone: string | null,
  query: { from?: string; to?: string },
): { from: string; to: string } {
  const year = todayIn(timeZone, ctx.now()).slice(0, 4);
  const from = query.from ?? (query.to !== undefined ? `${query.to.slice(0, 4)}-01-01` : `${year}-01-01`);
  const to = query.to ?? `${from.slice(0, 4)}-12-31`;
  if (from > to) throw validationError([{ field: 'from', message: 'must not be after to', code: 'range' }]);
  if (daysBetween(from, to) + 1 > MAX_HOLIDAY_RANGE_DAYS)
    throw validationError([
      { field: 'to', message: `the range spans at most ${MAX_HOLIDAY_RANGE_DAYS} days`, code: 'range' },
    ]);
  return { from, to };
}

/** GET /holidays: a workplace's holidays over at most 366 days (404 for another company's workplace). */
export async function listHolidays(
  ctx: AppContext,
  company: { companyId: string; timeZone: string | null },
  query: { workplaceId: string; from?: string; to?: string },
) {
  const { from, to } = yearRange(ctx, company.timeZone, query);
  const db = ctx.database.db;
  const workplace = await findWorkplace(db, company.companyId, query.workplaceId.toLowerCase());
  if (!workplace) throw new ApiError('not_found', `no workplace ${query.workplaceId} in this company`);
  const overrides = await listOverrides(db, company.companyId, { from, to });
  return {
    items: mergeHolidays(regionHolidays(workplace.holiday_region, from, to), overrides, workplace.id),
  };
}

export function overrideView(row: HolidayOverrideRow) {
  return {
    id: row.id,
    workplaceId: row.workplace_id,
    date: row.date,
    kind: row.kind as 'add' | 'remove',
    name: row.name,
    portion: (row.portion === 'half' ? 'half' : 'full') as HolidayPortion,
  };
}

export interface OverrideInput {
  companyId: string;
  workplaceId?: string | null;
  date: string;
  name?: string | null;
  portion?: string;
}

function checkOverride(input: OverrideInput, adding: boolean) {
  const errors = [];
  if (!isValidDate(input.date))
    errors.push({ field: 'date', message: 'must be a date YYYY-MM-DD', code: 'format' });
  const name = input.name?.trim() ?? '';
  if (adding && (name === '' || name.length > 100 || name.includes('\u0000')))
    errors.push({ field: 'name', message: 'must be 1 to 100 characters', code: 'length' });
  const portion = input.portion ?? 'full';
  if (portion !== 'full' && portion !== 'half')
    errors.push({ field: 'portion', message: 'must be full or half', code: 'enum' });
  if (errors.length > 0) throw validationError(errors);
  return { name, portion };
}

/**
 * `holiday add` / `holiday remove`: the day's override of that scope (the company, or one workplace)
 * becomes an added holiday, or a removed one; one override per day and scope (the unique indexes).
 */
export async function setHolidayOverride(
  tx: Tx,
  now: number,
  input: OverrideInput,
  kind: 'add' | 'remove',
  actor: { type: 'api_key' | 'user' | 'cli'; id: string | null },
) {
  const { name, portion } = checkOverride(input, kind === 'add');
  const workplaceId = input.workplaceId ? input.workplaceId.toLowerCase() : null;
  if (workplaceId !== null && !(await findWorkplace(tx, input.companyId, workplaceId)))
    throw new ApiError('not_found', `no workplace ${input.workplaceId} in this company`);
  await assertCalendarDaysOpen(
    tx,
    input.companyId,
    workplaceId,
    { from: input.date, to: input.date },
    `a holiday override on ${input.date}`,
  );
  const at = new Date(now).toISOString();
  const existing = await findOverride(tx, input.companyId, workplaceId, input.date);
  if (existing) await deleteOverride(tx, input.companyId, existing.id);
  const row = {
    id: newId(),
    company_id: input.companyId,
    workplace_id: workplaceId,
    date: input.date,
    kind,
    name: kind === 'add' ? name : null,
    portion: kind === 'add' ? portion : 'full',
    created_at: at,
  };
  await insertOverride(tx, row);
  await recordAudit(tx, {
    companyId: input.companyId,
    actorType: actor.type,
    actorId: actor.id,
    action: `holiday.${kind}`,
    targetType: 'holiday_override',
    targetId: row.id,
    details: { date: row.date, workplaceId, name: row.name, portion: row.portion },
    at,
  });
  return overrideView(row);
}

/** Drops one override (the day follows the region, or the company's override, again). */
export async function clearHolidayOverride(
  tx: Tx,
  now: number,
  companyId: string,
  id: string,
  actor: { type: 'api_key' | 'user' | 'cli'; id: string | null },
) {
  const override = await findOverrideById(tx, companyId, id);
  if (!override) throw new ApiError('not_found', `no holiday override ${id} in this company`);
  await assertCalendarDaysOpen(
    tx,
    companyId,
    override.workplace_id,
    { from: override.date, to: override.date },
    `dropping the holiday override on ${override.date}`,
  );
  if ((await deleteOverride(tx, companyId, id)) === 0)
    throw new ApiError('not_found', `no holiday override ${id} in this company`);
  await recordAudit(tx, {
    companyId,
    actorType: actor.type,
    actorId: actor.id,
    action: 'holiday.clear',
    targetType: 'holiday_override',
    targetId: id,
    at: new Date(now).toISOString(),
  });
  return { id, deleted: true as const };
}
