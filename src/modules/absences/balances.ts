import { ApiError } from '../../domain/errors.js';
import { isValidDate, todayIn } from '../../domain/time-zone.js';
import type { Executor } from '../../platform/db/database.js';
import { type CalendarDay, dayShare, round2 } from './calendar.js';
import type { LeaveCaller } from './actors.js';
import { lastLiveAbsenceEnd, type LeaveEmployeeRow, listEntitlements, listLiveAbsences } from './queries.js';
import { type AbsenceTypeRow } from './calendar.queries.js';
import type { AbsencePortion, LeaveBalance } from './schemas.js';
import { type CalendarEmployee, employeeCalendar } from './working-days.js';

/*
 * Leave balances (issue 31; docs/timesheets.md, "Leave balances"), per employee, type and year:
 * - entitlement: the days set for the year (`leave entitlement set`), else the type's yearly days
 *   prorated by the whole calendar months the employee is employed that year (hiredOn / leftOn);
 * - carriedOver: last year's remainder, at most the type's carry-over maximum, never below 0;
 *   carried days are used first and are usable up to and including the expiry day (MM-DD of the
 *   year); what was not used by then lapses the day after;
 * - taken: approved days up to today; planned: approved days after today; requested: waiting;
 * - remaining: entitlement + carried (unexpired) − taken − planned.
 * Days are counted on the employee's calendar as it is now (schedules, holidays, employment).
 * Years are followed back at most three, and never before the type was created or the employee was
 * hired (unless entitlements were set for earlier years): no carry-over comes from years the system
 * has no record of.
 */

export const LOOKBACK_YEARS = 3;

/** Whole calendar months of `year` in which the employee is employed every day. */
export function wholeMonthsEmployed(year: number, hiredOn: string | null, leftOn: string | null): number {
  let months = 0;
  for (let month = 1; month <= 12; month++) {
    const first = `${year}-${String(month).padStart(2, '0')}-01`;
    const last = new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10);
    if ((hiredOn === null || hiredOn <= first) && (leftOn === null || leftOn >= last)) months++;
  }
  return months;
}

export function proratedEntitlement(yearly: number, months: number): number {
  return round2((yearly * months) / 12);
}

/** The last day carried days count in `year` (29 February in a year without one: 28 February). */
export function expiryDate(year: number, monthDay: string | null): string | null {
  if (monthDay === null) return null;
  const date = `${year}-${monthDay}`;
  return isValidDate(date) ? date : `${year}-02-28`;
}

export interface DayAmount {
  date: string;
  days: number;
  status: 'requested' | 'approved';
}

export interface BalanceRules {
  carryOverMaxDays: number;
  carryOverExpiresOn: string | null;
  entitlementOf: (year: number) => number;
}

interface YearFigures {
  entitlement: number;
  carried: number;
  approved: number;
  approvedByExpiry: number;
  taken: number;
  planned: number;
  requested: number;
  expiresOn: string | null;
}

function yearFigures(
  year: number,
  carried: number,
  amounts: readonly DayAmount[],
  rules: BalanceRules,
  today: string,
) {
  const expiresOn = expiryDate(year, rules.carryOverExpiresOn);
  const f: YearFigures = {
    entitlement: rules.entitlementOf(year),
    carried,
    approved: 0,
    approvedByExpiry: 0,
    taken: 0,
    planned: 0,
    requested: 0,
    expiresOn,
  };
  const prefix = String(year);
  for (const a of amounts) {
    if (!a.date.startsWith(prefix)) continue;
    if (a.status === 'requested') {
      f.requested += a.days;
      continue;
    }
    f.approved += a.days;
    if (expiresOn !== null && a.date <= expiresOn) f.approvedByExpiry += a.days;
    if (a.date <= today) f.taken += a.days;
    else f.planned += a.days;
  }
  return f;
}

/** Carried days that still count: all of them up to the expiry day, afterwards only those used by then. */
function usableCarry(f: YearFigures, asOf: string | null): number {
  if (f.expiresOn === null) return f.carried;
  if (asOf !== null && asOf <= f.expiresOn) return f.carried;
  return Math.min(f.carried, f.approvedByExpiry);
}

/**
 * The balance of `year` from every counted day of `firstYear`..`year` (carry-over starts at 0 in
 * `firstYear`), with `projected`: what remains at the year's end once the carried days not used by
 * their expiry have lapsed (the figure a new or approved absence must not take below zero).
 */
export function computeBalance(input: {
  year: number;
  firstYear: number;
  today: string;
  amounts: readonly DayAmount[];
  rules: BalanceRules;
}): Omit<LeaveBalance, 'type'> & { projected: number } {
  const { rules, today } = input;
  let carried = 0;
  let f = yearFigures(input.firstYear, 0, input.amounts, rules, today);
  for (let year = input.firstYear; ; year++) {
    f = yearFigures(year, carried, input.amounts, rules, today);
    if (year === input.year) break;
    const remainder = f.entitlement + usableCarry(f, null) - f.approved;
    carried = Math.min(rules.carryOverMaxDays, Math.max(0, remainder));
  }
  return {
    year: input.year,
    entitlement: round2(f.entitlement),
    carriedOver: round2(f.carried),
    carryOverExpiresOn: f.expiresOn,
    taken: round2(f.taken),
    planned: round2(f.planned),
    requested: round2(f.requested),
    remaining: round2(f.entitlement + usableCarry(f, today) - f.taken - f.planned),
    projected: round2(f.entitlement + usableCarry(f, null) - f.approved),
  };
}

/** An absence as the balance counts it (an existing row, or the one being requested). */
export interface CountedAbsence {
  id: string | null;
  startDate: string;
  endDate: string;
  portion: AbsencePortion;
  hours: number | null;
  status: 'requested' | 'approved';
}

/** Each absence's days, day by day, on the calendar (which must cover them). */
export function amountsOf(
  calendar: readonly CalendarDay[],
  absences: readonly CountedAbsence[],
): DayAmount[] {
  const byDate = new Map(calendar.map((day) => [day.date, day]));
  const amounts: DayAmount[] = [];
  for (const absence of absences) {
    for (const day of calendar) {
      if (day.date < absence.startDate || day.date > absence.endDate) continue;
      const days = dayShare(byDate.get(day.date)!, absence.portion, absence.hours);
      if (days > 0) amounts.push({ date: day.date, days, status: absence.status });
    }
  }
  return amounts;
}

export function firstBalanceYear(
  year: number,
  typeCreatedAt: string,
  hiredOn: string | null,
  entitlementYears: readonly number[],
): number {
  const recorded = Math.min(Number(typeCreatedAt.slice(0, 4)), ...entitlementYears);
  const hired = hiredOn === null ? 0 : Number(hiredOn.slice(0, 4));
  return Math.min(year, Math.max(year - LOOKBACK_YEARS, recorded, hired));
}

/**
 * The balance of one employee, type and year, read from the database: `counting` replaces the stored
 * absence with its id (an approval counts it as approved) or adds a new one (a request, as if approved).
 */
export async function typeBalance(
  db: Executor,
  input: {
    companyId: string;
    employee: CalendarEmployee;
    type: AbsenceTypeRow;
    year: number;
    today: string;
    counting?: CountedAbsence;
  },
) {
  const { employee, type, year } = input;
  const entitlements = await listEntitlements(db, employee.id, type.id);
  const explicit = new Map(entitlements.map((e) => [Number(e.year), Number(e.days)]));
  const firstYear = firstBalanceYear(year, type.created_at, employee.hired_on, [...explicit.keys()]);
  const from = `${firstYear}-01-01`;
  const to = `${year}-12-31`;
  const [calendar, rows] = await Promise.all([
    employeeCalendar(db, input.companyId, employee, from, to),
    listLiveAbsences(db, employee.id, from, to, type.id),
  ]);
  const absences: CountedAbsence[] = rows
    .filter((row) => row.id !== input.counting?.id)
    .map((row) => ({
      id: row.id,
      startDate: row.start_date,
      endDate: row.end_date,
      portion: row.portion as AbsencePortion,
      hours: row.hours === null ? null : Number(row.hours),
      status: row.status as 'requested' | 'approved',
    }));
  if (input.counting) absences.push(input.counting);
  const yearly = Number(type.yearly_entitlement_days);
  const balance = computeBalance({
    year,
    firstYear,
    today: input.today,
    amounts: amountsOf(calendar, absences),
    rules: {
      carryOverMaxDays: Number(type.carry_over_max_days),
      carryOverExpiresOn: type.carry_over_expires_on,
      entitlementOf: (y) =>
        explicit.get(y) ??
        proratedEntitlement(yearly, wholeMonthsEmployed(y, employee.hired_on, employee.left_on)),
    },
  });
  const { projected, ...figures } = balance;
  return { balance: { type: { id: type.id, code: type.code }, ...figures }, projected };
}

/**
 * Refuses (409 insufficient_balance) what would take a deducting type's balance below zero once the
 * carried days not used by their expiry have lapsed (so carried days never pay for days after their
 * expiry); answers `remaining` as it would be with the absence approved (the lowest of its years).
 */
export async function checkBalance(
  db: Executor,
  now: number,
  caller: LeaveCaller,
  employee: LeaveEmployeeRow,
  type: AbsenceTypeRow,
  counting: {
    id: string | null;
    startDate: string;
    endDate: string;
    portion: AbsencePortion;
    hours: number | null;
  },
): Promise<number | null> {
  if (type.deducts_from_balance !== 1) return null;
  const today = todayIn(caller.timeZone, now);
  let remaining: number | null = null;
  let projected: number | null = null;
  for (
    let year = Number(counting.startDate.slice(0, 4));
    year <= Number(counting.endDate.slice(0, 4));
    year++
  ) {
    const counted = await typeBalance(db, {
      companyId: caller.companyId,
      employee,
      type,
      year,
      today,
      counting: { ...counting, status: 'approved' },
    });
    remaining = Math.min(remaining ?? Infinity, counted.balance.remaining);
    projected = Math.min(projected ?? Infinity, counted.projected);
  }
  // Days taken in one year lower what it carries into the next: a later year whose approved absences
  // rest on that carry-over must not go below zero either (review of issue 31). Its figure joins the
  // check, not the answer's `remaining`, which stays the absence's own years'.
  let later: { year: number; projected: number } | null = null;
  if (Number(type.carry_over_max_days) > 0) {
    const last = await lastLiveAbsenceEnd(db, employee.id, type.id);
    const lastYear = last === null ? 0 : Number(last.slice(0, 4));
    for (let year = Number(counting.endDate.slice(0, 4)) + 1; year <= lastYear; year++) {
      const counted = await typeBalance(db, {
        companyId: caller.companyId,
        employee,
        type,
        year,
        today,
        counting: { ...counting, status: 'approved' },
      });
      if (later === null || counted.projected < later.projected)
        later = { year, projected: counted.projected };
    }
  }
  if (later !== null && later.projected < 0 && type.allow_negative !== 1)
    throw new ApiError(
      'insufficient_balance',
      `this would leave ${later.projected} days of ${type.code} in ${later.year}, whose absences count on the days carried over; the type does not allow a negative balance`,
    );
  if (projected !== null && projected < 0 && type.allow_negative !== 1)
    throw new ApiError(
      'insufficient_balance',
      remaining !== null && remaining >= 0
        ? `carried-over days of ${type.code} count only up to their expiry: this would leave ${projected} days after it; the type does not allow a negative balance`
        : `this would leave ${projected} days of ${type.code}; the type does not allow a negative balance`,
    );
  return remaining;
}
