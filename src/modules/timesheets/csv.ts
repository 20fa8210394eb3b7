import { stringify } from 'csv-stringify/sync';
import { type CursorCodec } from '../../domain/cursor.js';
import { type AppContext } from '../context.js';
import { totalHours } from '../time-tracking/punch-rules.js';
import {
  type AdminTimesheetQuery,
  type EmployeeTimesheet,
  type TimesheetPlan,
  planOf,
  timesheetBatch,
} from './service.js';
import { type ConsolePerson } from '../people/person.js';
import { withPlannedDays } from '../planned-shifts/report.js';
/* The payroll CSV of a range of days: its columns, quoting and formula guard, written in batches. */

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
  // Issue 33, last: columns added later (the absences issue's) come after it, no published column moves.
  'planned_hours',
] as const;

/**
 * Employees per batch of the CSV file: four statements per batch, memory bounded by one batch. 50
 * rather than 200 lowered the peak RSS of a 5,000-employee file at no measurable cost in time
 * (docs/performance.md, "Timesheets on payday").
 */
export const CSV_BATCH = 50;

function csvRows({ employee, sheet, planned }: EmployeeTimesheet): string[][] {
  return withPlannedDays(sheet.days, planned).map((day) => [
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
    totalHours(day.plannedSeconds).toFixed(2),
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

/** The payroll CSV of the range: the public operation's file, every matching employee. */
export async function timesheetFileOf(
  ctx: AppContext,
  cursors: CursorCodec,
  person: ConsolePerson,
  query: AdminTimesheetQuery,
  options: { delimiter: ',' | ';'; bom: boolean },
) {
  const plan = await planOf(ctx, cursors, person, query);
  return { plan, chunks: timesheetCsv(ctx, plan, options) };
}
