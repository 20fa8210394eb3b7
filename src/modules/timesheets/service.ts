import { stringify } from 'csv-stringify/sync';
import type { CursorCodec } from '../../domain/cursor.js';
import { isWeekday } from '../../domain/timesheets/overtime.js';
import { isRulePack } from '../../domain/timesheets/rules.js';
import {
  buildTimesheet,
  lookbackStart,
  type Timesheet,
  type TimesheetSettings,
} from '../../domain/timesheets/timesheet.js';
import type { AppContext } from '../context.js';
import type { Principal } from '../auth/service.js';
import { resolveEmployee } from '../employees/service.js';
import { invalidCursor, type Page } from '../../shared/pages.js';
import { atMostOneOf, workDateRange } from '../time-tracking/service.js';
import { totalHours } from '../time-tracking/punch-rules.js';
import { employeeRef } from '../views.js';
import {
  type EmployeeFilter,
  findTimesheetSettings,
  listReportEmployees,
  listReportBreaks,
  listReportEntries,
  listReportSchedules,
  type ReportBreakRow,
  type ReportEmployeeRow,
  type ReportEntryRow,
  type ReportScheduleRow,
} from './queries.js';

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
  };
}

interface EmployeeTimesheet {
  employee: ReportEmployeeRow;
  sheet: Timesheet;
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

/** One batch: the next `limit` employees and their timesheets, in four statements. */
async function timesheetBatch(
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
  const [entries, breaks, schedules] = await Promise.all([
    listReportEntries(db, range),
    listReportBreaks(db, range),
    listReportSchedules(db, { employeeIds: ids, to: plan.to }),
  ]);
  const entriesOf = groupBy<ReportEntryRow>(entries);
  const breaksOf = breaksByEntry(breaks);
  const schedulesOf = groupBy(schedules);
  return {
    hasMore: rows.length > limit,
    sheets: employees.map((employee) => ({
      employee,
      sheet: buildTimesheet({
        from: plan.from,
        to: plan.to,
        entries: (entriesOf.get(employee.id) ?? []).map((e) => ({
          workDate: e.work_date,
          startAt: e.start_at,
          endAt: e.end_at,
          netSeconds: e.net_seconds === null ? null : Number(e.net_seconds),
          breakMinutes: e.break_minutes === null ? null : Number(e.break_minutes),
          breaks: breaksOf.get(e.id),
          status: e.status,
        })),
        approvedOnly: plan.approvedOnly,
        settings: plan.settings,
        weeklyThresholdSeconds: weeklyThreshold(schedulesOf.get(employee.id) ?? []),
      }),
    })),
  };
}

/** The JSON item of one employee: hours rounded once, from the sums in seconds. */
function timesheetItem({ employee, sheet }: EmployeeTimesheet) {
  return {
    employee: employeeRef(employee),
    days: sheet.days.map((day) => ({
      date: day.date,
      workedHours: totalHours(day.workedSeconds),
      breakMinutes: day.breakMinutes,
      regularHours: totalHours(day.regularSeconds),
      overtimeHours: totalHours(day.overtimeSeconds),
      entries: day.entries,
      statuses: day.statuses,
      flags: day.flags,
    })),
    totals: {
      workedHours: totalHours(sheet.totals.workedSeconds),
      regularHours: totalHours(sheet.totals.regularSeconds),
      overtimeHours: totalHours(sheet.totals.overtimeSeconds),
      breakMinutes: sheet.totals.breakMinutes,
      approvedHours: totalHours(sheet.totals.approvedSeconds),
      pendingHours: totalHours(sheet.totals.pendingSeconds),
      openSessions: sheet.totals.openSessions,
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

/** The payroll file's columns, in this order (docs/timesheets.md); stable within v1. */
export const CSV_COLUMNS = [
  'employee_id',
  'external_id',
  'first_name',
  'last_name',
  'date',
  'worked_hours',
  'regular_hours',
  'overtime_hours',
  'break_minutes',
  'entries',
  'statuses',
  'flags',
  'flag_messages',
] as const;

/**
 * Employees per batch of the CSV file: four statements per batch, memory bounded by one batch. 50
 * rather than 200 lowered the peak RSS of a 5,000-employee file at no measurable cost in time
 * (docs/performance.md, "Timesheets on payday").
 */
export const CSV_BATCH = 50;

function csvRows({ employee, sheet }: EmployeeTimesheet): string[][] {
  return sheet.days.map((day) => [
    employee.id,
    employee.external_id ?? '',
    employee.first_name ?? '',
    employee.last_name ?? '',
    day.date,
    totalHours(day.workedSeconds).toFixed(2),
    totalHours(day.regularSeconds).toFixed(2),
    totalHours(day.overtimeSeconds).toFixed(2),
    String(day.breakMinutes),
    String(day.entries),
    Object.entries(day.statuses)
      .filter(([, n]) => n > 0)
      .map(([status, n]) => `${status}=${n}`)
      .join(' '),
    day.flags.map((flag) => flag.rule).join(' '),
    day.flags.map((flag) => `${flag.rule}: ${flag.message}`).join(' | '),
  ]);
}

/*
 * CSV text by csv-stringify (adaltas/node-csv, widely used and kept) rather than a quoting function of
 * our own: RFC 4180 quoting and the formula-injection guard (`escape_formulas`: a cell beginning with
 * =, +, -, @, tab or carriage return gets a leading ') are its own tested options. Its synchronous API
 * formats one batch of rows at a time, so the file streams batch by batch from the database and memory
 * stays bounded by one batch. `quoted_match` quotes any cell holding a line break: with CRLF records,
 * csv-stringify quotes only cells holding the whole CRLF, and a lone CR or LF would split a row.
 */
export function csvText(rows: string[][], delimiter: string, header: boolean): string {
  return stringify(rows, {
    delimiter,
    record_delimiter: 'windows',
    escape_formulas: true,
    quoted_match: /[\r\n]/,
    header,
    columns: header ? [...CSV_COLUMNS] : undefined,
  });
}

/**
 * The CSV file of `plan`, in chunks of one batch of employees each (the first with the header row,
 * preceded by a byte-order mark when asked), every employee after the plan's cursor.
 */
export async function* timesheetCsv(
  ctx: AppContext,
  plan: TimesheetPlan,
  options: { delimiter: ',' | ';'; bom: boolean; batchSize?: number },
): AsyncGenerator<string, void, undefined> {
  let afterId = plan.afterId;
  let first = true;
  for (;;) {
    const { sheets, hasMore } = await timesheetBatch(ctx, plan, afterId, options.batchSize ?? CSV_BATCH);
    const rows = sheets.flatMap(csvRows);
    const text = csvText(rows, options.delimiter, first);
    yield first && options.bom ? `\uFEFF${text}` : text;
    first = false;
    if (!hasMore || sheets.length === 0) return;
    afterId = sheets.at(-1)!.employee.id;
  }
}

export function parseDelimiter(value: 'comma' | 'semicolon' | undefined): ',' | ';' {
  return value === 'semicolon' ? ';' : ',';
}
