import type { CursorCodec } from '../../domain/cursor.js';
import { ApiError } from '../../domain/errors.js';
import type { ConsolePerson } from '../console/service.js';
import type { AppContext } from '../context.js';
import {
  planTimesheets,
  type TimesheetPlan,
  type TimesheetQuery,
  timesheetCsv,
  timesheetPage,
} from '../timesheets/service.js';
import { findEmployeeOfCompany, findWorkplaceOfCompany, namesOfEmployees } from './queries.js';

/*
 * The console's Timesheets screen: the public GET /reports/timesheets service (planTimesheets,
 * timesheetPage, timesheetCsv) for the person's own company, with names added to each timesheet.
 */

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
