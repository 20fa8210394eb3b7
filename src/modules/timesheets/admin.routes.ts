import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static } from '@sinclair/typebox';
import { Readable } from 'node:stream';
import { requirePermission } from '../../http/plugins/console-session.js';
import { sessionErrors } from '../../http/schemas/responses.js';
import { PERMISSION_REPORTS } from '../auth/scopes.js';
import { CSV_COLUMNS, parseDelimiter, timesheetFileOf } from './csv.js';
import {
  AdminTimesheetPageSchema,
  AdminTimesheetsCsvQuerySchema,
  AdminTimesheetsQuerySchema,
} from './schemas.js';
import { timesheetsOf } from './service.js';

/**
 * Timesheets in the admin API: the public report's service for the person's company, as JSON with
 * names or as the payroll CSV.
 * Registered inside the admin API's guarded scope (app/admin-api-v1.ts): a console session, the CSRF
 * token and Origin on writes; the permission is checked here, and only the person's own company is reached.
 */
export const timesheetAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { services } = app;
  const { ctx } = services;

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
        requirePermission(request, PERMISSION_REPORTS),
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
      const person = requirePermission(request, PERMISSION_REPORTS);
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
