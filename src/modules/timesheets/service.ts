import { type CursorCodec } from '../../domain/cursor.js';
import { ApiError } from '../../domain/errors.js';
import { isWeekday } from '../../domain/timesheets/overtime.js';
import { isRulePack } from '../../domain/timesheets/rules.js';
import {
  type Timesheet,
  type TimesheetEntry,
  type TimesheetSettings,
  buildTimesheet,
  lookbackStart,
} from '../../domain/timesheets/timesheet.js';
import { type Principal } from '../auth/service.js';
import { findWorkplaceOfCompany } from '../companies/queries.js';
import { type AppContext } from '../context.js';
import { findEmployeeOfCompany, namesOfEmployees } from '../employees/queries.js';
import { resolveEmployee } from '../employees/service.js';
import { employeeRef } from '../employees/views.js';
import { totalHours } from '../time-tracking/punch-rules.js';
import {
  type EmployeeFilter,
  type ReportBreakRow,
  type ReportEmployeeRow,
  type ReportEntryRow,
  type ReportScheduleRow,
  findTimesheetSettings,
  listReportBreaks,
  listReportEmployees,
  listReportEntries,
  listReportSchedules,
} from './queries.js';
import { type Page, invalidCursor } from '../../shared/pages.js';
import { atMostOneOf, workDateRange } from '../time-tracking/entries.js';
import { type ConsolePerson } from '../people/person.js';
import {
  type PlannedFigures,
  plannedFigures,
  roundingPolicyOf,
  withPlannedDays,
} from '../planned-shifts/report.js';
import { type RoundingPolicy, roundedWorkedSeconds } from '../planned-shifts/rounding.js';
/*
 * GET /reports/timesheets (additive within v1, scope attendance.reports): one timesheet per employee
 * over a range of work dates, as JSON pages or as one CSV file (docs/timesheets.md).
 */

export interface TimesheetQuery {
  from?: string;
  to?: string;
  employeeId?: string;
  externalId?: string;
  workplaceId?: string;
  status?: 'approved' | 'all';
  cursor?: string;
  limit?: number;
}

/** What a request asks for, checked before any answer starts (a CSV cannot turn into a 422 halfway). */
export interface TimesheetPlan {
  companyId: string;
  from: string;
  to: string;
  approvedOnly: boolean;
  filter: EmployeeFilter;
  filterKey: string;
  afterId: string | null;
  settings: TimesheetSettings;
  /** Reports only (issue 33): how worked time is rounded. */
  rounding: RoundingPolicy;
}

export async function planTimesheets(
  ctx: AppContext,
  cursors: CursorCodec,
  principal: Pick<Principal, 'companyId' | 'company'>,
  query: TimesheetQuery,
): Promise<TimesheetPlan> {
  atMostOneOf(query, ['employeeId', 'externalId', 'workplaceId']);
  const { from, to } = workDateRange(ctx, principal, query);
  const status = query.status ?? 'all';
  const db = ctx.database.db;
  let filter: EmployeeFilter = null;
  if (query.employeeId !== undefined || query.externalId !== undefined) {
    // The employee list's rules: resolved inside the company only, 404 when unknown.
    const employee = await resolveEmployee(db, principal.companyId, {
      id: query.employeeId ?? null,
      externalId: query.externalId ?? null,
    });
    filter = { employeeId: employee.id };
  } else if (query.workplaceId !== undefined) {
    filter = { workplaceId: query.workplaceId.toLowerCase() };
  }
  const filterKey = filter === null ? '' : JSON.stringify(filter);
  let afterId: string | null = null;
  if (query.cursor !== undefined) {
    const p = cursors.decode(query.cursor);
    // A cursor belongs to its listing: the same company, range, status and filter.
    if (
      p?.k !== 'timesheets' ||
      p.c !== principal.companyId ||
      p.f !== from ||
      p.t !== to ||
      p.s !== status ||
      p.w !== filterKey ||
      typeof p.a !== 'string'
    )
      throw invalidCursor();
    afterId = p.a;
  }
  const row = await findTimesheetSettings(db, principal.companyId);
  const settings: TimesheetSettings = {
    workweekStart: row && isWeekday(row.workweek_start) ? row.workweek_start : 'monday',
    dailyOvertimeAfterSeconds: row?.daily_overtime_after_seconds ?? null,
    rules: row && isRulePack(row.working_time_rules) ? row.working_time_rules : 'none',
  };
  return {
    companyId: principal.companyId,
    from,
    to,
    approvedOnly: status === 'approved',
    filter,
    filterKey,
    afterId,
    settings,
    rounding: roundingPolicyOf(row),
  };
}

export interface EmployeeTimesheet {
  employee: ReportEmployeeRow;
  sheet: Timesheet;
  /** Issue 33: planned hours by date and the exceptions' counts. */
  planned: PlannedFigures;
}

/** The weekly threshold of the workweek starting on `first`: the schedule effective that day. */
function weeklyThreshold(schedules: readonly ReportScheduleRow[]) {
  return (first: string): number | null => {
    let hours: number | null = null;
    for (const schedule of schedules) {
      if (schedule.effective_from > first) break;
      hours = schedule.weekly_hours;
    }
    return hours === null ? null : Math.round(Number(hours) * 3600);
  };
}

function groupBy<T extends { employee_id: string }>(rows: readonly T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const group = groups.get(row.employee_id);
    if (group) group.push(row);
    else groups.set(row.employee_id, [row]);
  }
  return groups;
}

/** The closed punched breaks by entry id, as spans in epoch milliseconds. */
function breaksByEntry(rows: readonly ReportBreakRow[]): Map<string, { startMs: number; endMs: number }[]> {
  const byEntry = new Map<string, { startMs: number; endMs: number }[]>();
  for (const row of rows) {
    if (row.end_at === null) continue;
    const span = { startMs: Date.parse(row.start_at), endMs: Date.parse(row.end_at) };
    const list = byEntry.get(row.time_entry_id);
    if (list) list.push(span);
    else byEntry.set(row.time_entry_id, [span]);
  }
  return byEntry;
}

/** An entry as buildTimesheet reads it; its worked seconds rounded when the company rounds (issue 33). */
function timesheetEntry(
  e: ReportEntryRow,
  rounding: RoundingPolicy,
  breaksOf: ReadonlyMap<string, { startMs: number; endMs: number }[]>,
): TimesheetEntry {
  const netSeconds = e.net_seconds === null ? null : Number(e.net_seconds);
  return {
    workDate: e.work_date,
    startAt: e.start_at,
    endAt: e.end_at,
    netSeconds,
    ...(netSeconds !== null && e.end_time !== null && rounding.mode !== 'none'
      ? {
          reportedSeconds: roundedWorkedSeconds(rounding, {
            netSeconds,
            startTime: e.start_time,
            endTime: e.end_time,
          }),
        }
      : {}),
    breakMinutes: e.break_minutes === null ? null : Number(e.break_minutes),
    breaks: breaksOf.get(e.id),
    status: e.status,
  };
}

/** One batch: the next `limit` employees and their timesheets, in four statements. */
export async function timesheetBatch(
  ctx: AppContext,
  plan: TimesheetPlan,
  afterId: string | null,
  limit: number,
): Promise<{ sheets: EmployeeTimesheet[]; hasMore: boolean }> {
  const db = ctx.database.db;
  const rows = await listReportEmployees(db, {
    companyId: plan.companyId,
    filter: plan.filter,
    afterId,
    limit: limit + 1,
  });
  const employees = rows.slice(0, limit);
  const ids = employees.map((e) => e.id);
  const range = {
    companyId: plan.companyId,
    employeeIds: ids,
    from: lookbackStart(plan.from, plan.settings),
    to: plan.to,
  };
  const [entries, breaks, schedules, planned] = await Promise.all([
    listReportEntries(db, range),
    listReportBreaks(db, range),
    listReportSchedules(db, { employeeIds: ids, to: plan.to }),
    plannedFigures(db, { companyId: plan.companyId, employeeIds: ids, from: plan.from, to: plan.to }),
  ]);
  const entriesOf = groupBy<ReportEntryRow>(entries);
  const breaksOf = breaksByEntry(breaks);
  const schedulesOf = groupBy(schedules);
  return {
    hasMore: rows.length > limit,
    sheets: employees.map((employee) => ({
      employee,
      planned: planned(employee.id),
      sheet: buildTimesheet({
        from: plan.from,
        to: plan.to,
        entries: (entriesOf.get(employee.id) ?? []).map((e) => timesheetEntry(e, plan.rounding, breaksOf)),
        approvedOnly: plan.approvedOnly,
        settings: plan.settings,
        weeklyThresholdSeconds: weeklyThreshold(schedulesOf.get(employee.id) ?? []),
      }),
    })),
  };
}

/** The JSON item of one employee: hours rounded once, from the sums in seconds. */
function timesheetItem({ employee, sheet, planned }: EmployeeTimesheet) {
  return {
    employee: employeeRef(employee),
    days: withPlannedDays(sheet.days, planned).map((day) => ({
      date: day.date,
      workedHours: totalHours(day.workedSeconds),
      breakMinutes: day.breakMinutes,
      regularHours: totalHours(day.regularSeconds),
      overtimeHours: totalHours(day.overtimeSeconds),
      entries: day.entries,
      statuses: day.statuses,
      flags: day.flags,
      plannedHours: totalHours(day.plannedSeconds),
    })),
    totals: {
      workedHours: totalHours(sheet.totals.workedSeconds),
      regularHours: totalHours(sheet.totals.regularSeconds),
      overtimeHours: totalHours(sheet.totals.overtimeSeconds),
      breakMinutes: sheet.totals.breakMinutes,
      approvedHours: totalHours(sheet.totals.approvedSeconds),
      pendingHours: totalHours(sheet.totals.pendingSeconds),
      openSessions: sheet.totals.openSessions,
      plannedHours: totalHours([...planned.byDate.values()].reduce((sum, s) => sum + s, 0)),
      exceptions: planned.exceptions,
    },
  };
}

export type TimesheetItem = ReturnType<typeof timesheetItem>;

/** One page of timesheets (cursor-paginated over employees, ordered by id). */
export async function timesheetPage(
  ctx: AppContext,
  cursors: CursorCodec,
  plan: TimesheetPlan,
  limit: number,
): Promise<Page<TimesheetItem>> {
  const { sheets, hasMore } = await timesheetBatch(ctx, plan, plan.afterId, limit);
  const last = sheets.at(-1);
  return {
    items: sheets.map(timesheetItem),
    nextCursor:
      hasMore && last
        ? cursors.encode({
            k: 'timesheets',
            c: plan.companyId,
            f: plan.from,
            t: plan.to,
            s: plan.approvedOnly ? 'approved' : 'all',
            w: plan.filterKey,
            a: last.employee.id,
          })
        : null,
    hasMore,
  };
}

export type AdminTimesheetQuery = Omit<TimesheetQuery, 'externalId'> & { from: string; to: string };

/** The plan of the public operation, after making sure the employee or workplace named is the company's. */
export async function planOf(
  ctx: AppContext,
  cursors: CursorCodec,
  person: ConsolePerson,
  query: AdminTimesheetQuery,
): Promise<TimesheetPlan> {
  const db = ctx.database.db;
  if (
    query.workplaceId !== undefined &&
    !(await findWorkplaceOfCompany(db, person.companyId, query.workplaceId))
  )
    throw new ApiError('not_found', 'no workplace with this id in your company');
  if (
    query.employeeId !== undefined &&
    !(await findEmployeeOfCompany(db, person.companyId, query.employeeId))
  )
    throw new ApiError('not_found', 'no employee with this id in your company');
  return planTimesheets(
    ctx,
    cursors,
    { companyId: person.companyId, company: { timeZone: person.company.timeZone, timeTracking: true } },
    query,
  );
}

export async function timesheetsOf(
  ctx: AppContext,
  cursors: CursorCodec,
  person: ConsolePerson,
  query: AdminTimesheetQuery,
) {
  const plan = await planOf(ctx, cursors, person, query);
  const page = await timesheetPage(ctx, cursors, plan, query.limit ?? 25);
  const names = await namesOfEmployees(
    ctx.database.db,
    person.companyId,
    page.items.map((item) => item.employee.id),
  );
  const byId = new Map(names.map((row) => [row.id, row]));
  return {
    ...page,
    items: page.items.map((item) => {
      const row = byId.get(item.employee.id);
      return {
        ...item,
        employee: {
          ...item.employee,
          firstName: row?.first_name ?? null,
          lastName: row?.last_name ?? null,
          email: row?.email ?? '',
        },
      };
    }),
    from: plan.from,
    to: plan.to,
    settings: {
      workweekStart: plan.settings.workweekStart,
      dailyOvertimeHours:
        plan.settings.dailyOvertimeAfterSeconds === null
          ? null
          : plan.settings.dailyOvertimeAfterSeconds / 3600,
      workingTimeRules: plan.settings.rules,
    },
  };
}
