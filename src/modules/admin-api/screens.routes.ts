import { Readable } from 'node:stream';
import type { Static } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiError } from '../../domain/errors.js';
import { consoleGuard, requirePermission, requirePerson } from '../../http/plugins/console-session.js';
import { IdParamsSchema, sessionErrors } from '../../http/schemas/admin.js';
import {
  AdminClockStatusPageSchema,
  AdminClockStatusQuerySchema,
  AdminEmployeeDetailSchema,
  AdminTimesheetPageSchema,
  AdminTimesheetsCsvQuerySchema,
  AdminTimesheetsQuerySchema,
  AuditPageSchema,
  AuditQuerySchema,
  CreateEmployeeBodySchema,
  ScheduleListSchema,
  UpdateEmployeeBodySchema,
  WorkplaceListSchema,
} from '../../http/schemas/admin-screens.js';
import { PERMISSION_MANAGE_COMPANY, PERMISSION_MANAGE_EMPLOYEES, scopeInfo } from '../auth/scopes.js';
import { hasPermission } from '../console/service.js';
import { listAuditLog } from './audit.service.js';
import { timesheetFileOf, timesheetsOf } from './reports.service.js';
import { CSV_COLUMNS, parseDelimiter } from '../timesheets/service.js';
import {
  createEmployeeOf,
  deleteEmployeeOf,
  getEmployee,
  listSchedules,
  listWorkplaces,
  updateEmployeeOf,
  whoIsIn,
} from './people.service.js';

const READ_ENTRIES = scopeInfo('attendance.read').permission;
const READ_EMPLOYEES = scopeInfo('employees.read').permission;
const REPORTS = scopeInfo('attendance.reports').permission;
/** The audit log shows every change of the company: for those who manage it (93), or a super admin. */
const READ_AUDIT = PERMISSION_MANAGE_COMPANY;

/**
 * The admin API's operations behind the console's Now, Employees and Audit log screens (issue 23).
 * Like every admin route: a console session, CSRF and Origin on writes, the permission checked here,
 * and only the person's own company (another company's id is 404).
 */
export const adminScreenRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { services } = app;
  const { ctx } = services;
  app.addHook('onRequest', consoleGuard(services));

  app.get(
    '/time-clock/status',
    {
      schema: {
        summary: 'Who is clocked in now',
        operationId: 'whoIsIn',
        description:
          'Every open session of the company, oldest first, with names and workplaces: the public ' +
          "GET /time-clock/status's service. Filter by `workplaceId` (another company's: 404). Permission 47.",
        tags: ['Now'],
        querystring: AdminClockStatusQuerySchema,
        response: {
          200: AdminClockStatusPageSchema,
          ...sessionErrors(['forbidden', 'not_found', 'validation_failed']),
        },
      },
    },
    async (request) =>
      whoIsIn(ctx, services.cursors, requirePermission(request, READ_ENTRIES), request.query),
  );

  app.get(
    '/workplaces',
    {
      schema: {
        summary: "The company's workplaces",
        operationId: 'listWorkplaces',
        description: 'By name. Permission 52 or 47.',
        tags: ['Employees'],
        response: { 200: WorkplaceListSchema, ...sessionErrors(['forbidden']) },
      },
    },
    async (request) => {
      const person = requirePerson(request);
      if (!hasPermission(person, READ_EMPLOYEES) && !hasPermission(person, READ_ENTRIES))
        throw new ApiError('forbidden', `this needs permission ${READ_EMPLOYEES} or ${READ_ENTRIES}`);
      return listWorkplaces(ctx, person);
    },
  );

  app.get(
    '/schedules',
    {
      schema: {
        summary: "The company's schedules",
        operationId: 'listSchedules',
        description: 'By name. Permission 52.',
        tags: ['Employees'],
        response: { 200: ScheduleListSchema, ...sessionErrors(['forbidden']) },
      },
    },
    async (request) => listSchedules(ctx, requirePermission(request, READ_EMPLOYEES)),
  );

  app.get(
    '/employees/:id',
    {
      schema: {
        summary: 'An employee',
        operationId: 'getEmployee',
        description: 'With the schedule assigned last and the day it applies from. Permission 52.',
        tags: ['Employees'],
        params: IdParamsSchema,
        response: { 200: AdminEmployeeDetailSchema, ...sessionErrors(['forbidden', 'not_found']) },
      },
    },
    async (request) => getEmployee(ctx, requirePermission(request, READ_EMPLOYEES), request.params.id),
  );

  app.post(
    '/employees',
    {
      schema: {
        summary: 'Create an employee',
        operationId: 'createEmployee',
        description:
          "The CLI's `employee create`: its checks, each refusal a 422 naming the field; an external id " +
          'another employee holds is 409 already_exists (naming externalId). Permission 92.',
        tags: ['Employees'],
        body: CreateEmployeeBodySchema,
        response: {
          201: AdminEmployeeDetailSchema,
          ...sessionErrors(['forbidden', 'validation_failed', 'already_exists'], true),
        },
      },
    },
    async (request, reply) => {
      const person = requirePermission(request, PERMISSION_MANAGE_EMPLOYEES);
      return reply.code(201).send(await createEmployeeOf(ctx, person, request.body));
    },
  );

  app.patch(
    '/employees/:id',
    {
      schema: {
        summary: 'Change an employee',
        operationId: 'updateEmployee',
        description:
          "The CLI's `employee update`: only the fields sent change; null clears a name, the external id, " +
          'the workplace or the schedule. A schedule applies from `scheduleFrom` (default: 60 days ago). Permission 92.',
        tags: ['Employees'],
        params: IdParamsSchema,
        body: UpdateEmployeeBodySchema,
        response: {
          200: AdminEmployeeDetailSchema,
          ...sessionErrors(['forbidden', 'not_found', 'validation_failed', 'already_exists'], true),
        },
      },
    },
    async (request) =>
      updateEmployeeOf(
        ctx,
        requirePermission(request, PERMISSION_MANAGE_EMPLOYEES),
        request.params.id,
        request.body,
      ),
  );

  app.delete(
    '/employees/:id',
    {
      schema: {
        summary: 'Delete an employee',
        operationId: 'deleteEmployee',
        description: "The CLI's `employee delete` (a soft delete: their time entries stay). Permission 92.",
        tags: ['Employees'],
        params: IdParamsSchema,
        response: {
          204: { type: 'null', description: 'Deleted' },
          ...sessionErrors(['forbidden', 'not_found'], true),
        },
      },
    },
    async (request, reply) => {
      await deleteEmployeeOf(ctx, requirePermission(request, PERMISSION_MANAGE_EMPLOYEES), request.params.id);
      return reply.code(204).send();
    },
  );

  app.get(
    '/audit-log',
    {
      schema: {
        summary: "The company's audit log",
        operationId: 'listAuditLog',
        description:
          'Who did what (a person, an API key or the command line) and when, newest first. Filters: ' +
          '`actorType`, `actorId`, `action` (exact, or a prefix ending in "."), `from` / `to` (days in the ' +
          "company's zone). Cursor-paginated. Permission 93 (the company's managers) or super admin.",
        tags: ['Audit log'],
        querystring: AuditQuerySchema,
        response: { 200: AuditPageSchema, ...sessionErrors(['forbidden', 'validation_failed']) },
      },
    },
    async (request) =>
      listAuditLog(ctx, services.cursors, requirePermission(request, READ_AUDIT), request.query),
  );

  app.get(
    '/timesheets',
    {
      schema: {
        summary: 'Timesheets of a range of days',
        operationId: 'listTimesheets',
        description:
          "The public GET /reports/timesheets's service for the person's company: per employee the days, " +
          "worked, regular and overtime hours and the working-time rule pack's flags, with names. " +
          '`workplaceId` / `employeeId` of another company: 404. Permission 49.',
        tags: ['Timesheets'],
        querystring: AdminTimesheetsQuerySchema,
        response: {
          200: AdminTimesheetPageSchema,
          ...sessionErrors(['forbidden', 'not_found', 'validation_failed']),
        },
      },
    },
    async (request) =>
      // Day statuses are a Record<string, number> (they may grow); the schema names the two there are.
      (await timesheetsOf(
        ctx,
        services.cursors,
        requirePermission(request, REPORTS),
        request.query,
      )) as unknown as Static<typeof AdminTimesheetPageSchema>,
  );

  app.get(
    '/timesheets/csv',
    {
      schema: {
        summary: 'The payroll CSV of a range of days',
        operationId: 'downloadTimesheetsCsv',
        description:
          "The public operation's CSV file (the same columns, quoting and formula guard) of every matching " +
          'employee, as an attachment: the console links to it, the session cookie is the credential. Permission 49.',
        tags: ['Timesheets'],
        querystring: AdminTimesheetsCsvQuerySchema,
        response: {
          200: {
            description: 'The CSV file',
            content: {
              'text/csv': {
                schema: { type: 'string', description: `header row: ${CSV_COLUMNS.join(',')}` },
              },
            },
          },
          ...sessionErrors(['forbidden', 'not_found', 'validation_failed']),
        },
      },
    },
    async (request, reply) => {
      const person = requirePermission(request, REPORTS);
      const { delimiter, bom, ...query } = request.query;
      const { plan, chunks } = await timesheetFileOf(ctx, services.cursors, person, query, {
        delimiter: parseDelimiter(delimiter),
        bom: bom === true,
      });
      const csv = Readable.from(chunks, { objectMode: false, highWaterMark: 64 * 1024 });
      csv.on('error', (error) => request.log.error({ err: error }, 'timesheet CSV failed while streaming'));
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="timesheets-${plan.from}-${plan.to}.csv"`)
        .send(csv);
    },
  );
};
