import { COUNTED_STATUSES, type Timesheet, type TimesheetDay } from '../../domain/timesheets/timesheet.js';
import type { Executor } from '../../platform/db/database.js';
import { totalHours } from '../time-tracking/punch-rules.js';
import {
  buildCalendar,
  type CalendarDay,
  datesOf,
  type HolidayMark,
  rangeDays,
  secondsTaken,
} from './calendar.js';
import { holidayMarks, holidaysByWorkplace } from './holidays.js';
import { type ApprovedAbsenceRow, listApprovedAbsences } from './queries.js';
import { type ScheduleRow } from './calendar.queries.js';
import type { AbsencePortion, Holiday } from './schemas.js';
import { type CalendarEmployee, spansByEmployee } from './working-days.js';

/*
 * Timesheets count absences and holidays as a time account (issue 31; docs/timesheets.md, "Absences
 * and holidays"). Each day owes its target (the schedule's daily hours on a work day, 0 on days off
 * and on holidays, half on half-day holidays). An approved absence of a type that counts as work time
 * is credited (the target, half of it, or its hours); one that does not lowers the day's target
 * instead, so unpaid leave neither adds nor owes time. Holidays are never credited (their target is
 * already 0). Balance = worked + credited − target, over every day of the range. Overtime stays
 * computed on hours worked.
 */

export interface DayAccount {
  date: string;
  targetSeconds: number;
  credited: readonly { code: string; seconds: number }[];
  /** Codes of the approved absences touching the day. */
  absences: readonly string[];
  holiday: HolidayMark | null;
}

// Most days have no absence: they share these (never changed) instead of two new arrays each, which a
// month's report for 1,000 employees would otherwise make 60,000 of.
const NOT_CREDITED: DayAccount['credited'] = Object.freeze([]);
const NO_CODES: DayAccount['absences'] = Object.freeze([]);

/** The day's account: its target, what approved absences credit or take off the target. */
export function dayAccount(day: CalendarDay, absences: readonly ApprovedAbsenceRow[]): DayAccount {
  let credited: { code: string; seconds: number }[] | null = null;
  let codes: string[] | null = null;
  let lowered = 0;
  for (const absence of absences) {
    if (absence.start_date > day.date || absence.end_date < day.date) continue;
    (codes ??= []).push(absence.code);
    const seconds = secondsTaken(
      day,
      absence.portion as AbsencePortion,
      absence.hours === null ? null : Number(absence.hours),
    );
    if (seconds === 0) continue;
    if (absence.counts_as_work_time === 1) (credited ??= []).push({ code: absence.code, seconds });
    else lowered += seconds;
  }
  return {
    date: day.date,
    targetSeconds: Math.max(0, day.targetSeconds - lowered),
    credited: credited ?? NOT_CREDITED,
    absences: codes ?? NO_CODES,
    holiday: day.holiday,
  };
}

/** The approved absences of a batch of employees touching `from`..`to` (one statement). */
export function approvedAbsences(
  db: Executor,
  companyId: string,
  employeeIds: readonly string[],
  from: string,
  to: string,
): Promise<ApprovedAbsenceRow[]> {
  return listApprovedAbsences(db, companyId, employeeIds, from, to);
}

/** Every employee's day accounts over `from`..`to`, from rows already read. */
export function dayAccounts(input: {
  employees: readonly CalendarEmployee[];
  schedules: readonly ScheduleRow[];
  absences: readonly ApprovedAbsenceRow[];
  holidays: ReadonlyMap<string | null, Holiday[]>;
  from: string;
  to: string;
}): Map<string, DayAccount[]> {
  const absencesOf = new Map<string, ApprovedAbsenceRow[]>();
  for (const row of input.absences) {
    const list = absencesOf.get(row.employee_id);
    if (list) list.push(row);
    else absencesOf.set(row.employee_id, [row]);
  }
  const spans = spansByEmployee(input.schedules);
  const marks = new Map([...input.holidays].map(([workplace, list]) => [workplace, holidayMarks(list)]));
  const result = new Map<string, DayAccount[]>();
  const days = rangeDays(input.from, input.to);
  for (const employee of input.employees) {
    const calendar = buildCalendar({
      from: input.from,
      to: input.to,
      days,
      schedules: spans.get(employee.id) ?? [],
      employment: { hiredOn: employee.hired_on, leftOn: employee.left_on },
      holidays: marks.get(employee.workplace_id) ?? marks.get(null) ?? new Map(),
    });
    const own = absencesOf.get(employee.id) ?? [];
    result.set(
      employee.id,
      calendar.map((day) => dayAccount(day, own)),
    );
  }
  return result;
}

/** Every workplace's holidays over the report's range (read once per report). */
export function reportHolidays(db: Executor, companyId: string, from: string, to: string) {
  return holidaysByWorkplace(db, companyId, from, to);
}

export type CountedDay = TimesheetDay & Omit<DayAccount, 'date'> & { creditedSeconds: number };

export interface CountedTimesheet {
  days: CountedDay[];
  totals: Timesheet['totals'] & { targetSeconds: number; creditedSeconds: number; balanceSeconds: number };
}

function emptyDay(date: string): TimesheetDay {
  return {
    date,
    workedSeconds: 0,
    breakMinutes: 0,
    regularSeconds: 0,
    overtimeSeconds: 0,
    entries: 0,
    statuses: Object.fromEntries(COUNTED_STATUSES.map((s) => [s, 0])),
    flags: [],
  };
}

/**
 * The timesheet with its accounts: days with counted entries, plus days an absence or a holiday
 * touches and the dates of `alsoListed` (days with a published planned shift, issue 33); with
 * `allDays`, every day of the range. Totals over every day of the range.
 */
export function withAccounts(
  sheet: Timesheet,
  accounts: readonly DayAccount[],
  options: {
    from: string;
    to: string;
    allDays: boolean;
    alsoListed?: { has(date: string): boolean };
  },
): CountedTimesheet {
  const worked = new Map(sheet.days.map((day) => [day.date, day]));
  const totals = { ...sheet.totals, targetSeconds: 0, creditedSeconds: 0, balanceSeconds: 0 };
  const days: CountedDay[] = [];
  for (const account of coveringRange(accounts, options.from, options.to)) {
    let creditedSeconds = 0;
    for (const c of account.credited) creditedSeconds += c.seconds;
    totals.targetSeconds += account.targetSeconds;
    totals.creditedSeconds += creditedSeconds;
    const day = worked.get(account.date);
    const listed =
      day !== undefined ||
      options.allDays ||
      account.absences.length > 0 ||
      account.holiday !== null ||
      options.alsoListed?.has(account.date) === true;
    if (listed) days.push({ ...(day ?? emptyDay(account.date)), ...account, creditedSeconds });
  }
  totals.balanceSeconds = totals.workedSeconds + totals.creditedSeconds - totals.targetSeconds;
  return { days, totals };
}

/** One account per day of the range, in date order: `accounts` itself when it is (as dayAccounts makes it). */
function coveringRange(accounts: readonly DayAccount[], from: string, to: string): readonly DayAccount[] {
  if (accounts.length > 0 && accounts[0]!.date === from && accounts.at(-1)!.date === to) return accounts;
  const byDate = new Map(accounts.map((a) => [a.date, a]));
  return datesOf(from, to).map(
    (date) =>
      byDate.get(date) ?? {
        date,
        targetSeconds: 0,
        credited: NOT_CREDITED,
        absences: NO_CODES,
        holiday: null,
      },
  );
}

/** A day's account as the timesheet's JSON shows it (hours rounded once, from seconds). */
export function accountFields(day: CountedDay) {
  return {
    targetHours: totalHours(day.targetSeconds),
    creditedHours: totalHours(day.creditedSeconds),
    balanceHours: totalHours(day.workedSeconds + day.creditedSeconds - day.targetSeconds),
    credited: day.credited.map((c) => ({ code: c.code, hours: totalHours(c.seconds) })),
    absences: day.absences,
    holiday: day.holiday,
  };
}

/** The range's account totals as the timesheet's JSON shows them. */
export function accountTotals(totals: CountedTimesheet['totals']) {
  return {
    targetHours: totalHours(totals.targetSeconds),
    creditedHours: totalHours(totals.creditedSeconds),
    balanceHours: totalHours(totals.balanceSeconds),
  };
}

/** The CSV's columns of a day's account, after the existing ones (numbers: see timesheets/csv.ts). */
export function accountCells(day: CountedDay): (number | string)[] {
  return [
    totalHours(day.targetSeconds),
    totalHours(day.creditedSeconds),
    totalHours(day.workedSeconds + day.creditedSeconds - day.targetSeconds),
    day.absences.join(' '),
  ];
}
