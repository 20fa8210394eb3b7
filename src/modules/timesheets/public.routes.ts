import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { authenticate, requirePrincipal, requireTimeTracking } from '../../http/plugins/authenticate.js';
import { bearerSecurity } from '../../http/plugins/openapi.js';
import { errorResponses } from '../../http/schemas/responses.js';
import { CSV_COLUMNS, parseDelimiter, timesheetCsv } from './csv.js';
import { TimesheetPageSchema, TimesheetsQuerySchema } from './schemas.js';
import { planTimesheets, timesheetPage } from './service.js';

/** The media types of an Accept header with their weights (RFC 9110 §12.5.1), lower-cased. */
function acceptWeights(accept: string | undefined): Map<string, number> {
  const weights = new Map<string, number>();
  for (const part of (accept ?? '').split(',')) {
    const [type, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    if (!type) continue;
    const q = params.find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    weights.set(type, Number.isFinite(weight) ? weight : 0);
  }
  return weights;
}

/** CSV when the client asks for text/csv and does not prefer JSON; JSON otherwise (and by default). */
export function wantsCsv(accept: string | undefined): boolean {
  const weights = acceptWeights(accept);
  const csv = weights.get('text/csv') ?? 0;
  const json = weights.get('application/json') ?? 0;
  return csv > 0 && csv > json;
}

export const timesheetRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { services } = app;
  const guard = { ...services, limiter: services.resourceLimiter };

  app.get(
    '/reports/timesheets',
    {
      onRequest: authenticate(guard, 'attendance.reports'),
      schema: {
        summary: 'Timesheets: worked, regular and overtime hours per employee and day',
        operationId: 'listTimesheets',
        description:
          'One timesheet per employee (all of the company, one workplace, or one employee), ordered by id and cursor-paginated, over ' +
          '`from`..`to` (work dates, inclusive; at most 92 days; by default the last 30 days up to today). ' +
          'An entry counts whole on its work date; `pending_approval` and `approved` entries count (`status=approved`: approved only), ' +
          '`draft` and `rejected` never, open sessions only in `openSessions`. Overtime follows the company’s settings: hours above the ' +
          'daily threshold, then regular hours crossing the weekly hours of the schedule effective on the workweek’s first day. ' +
          'Sums are taken in seconds and rounded once, to 2 decimals. ' +
          'Absences and holidays count as a time account: each day owes its `targetHours` (the schedule’s daily hours on a work day, 0 on days off and holidays, half on half-day holidays); ' +
          'approved absences of types that count as work time are `credited`, others lower the target; `balanceHours` = worked + credited − target over every day of the range. Overtime stays on hours worked. ' +
          'Days listed: those with counted entries, an approved absence or a holiday; `days=all` lists every day. ' +
          `With \`Accept: text/csv\` the answer is one CSV file (RFC 4180, CRLF) of every matching employee, one row per employee and day, columns ${CSV_COLUMNS.join(', ')}; ` +
          '`delimiter=semicolon` and `bom=true` suit spreadsheet imports; a text cell beginning with =, +, -, @, tab or CR is prefixed with an apostrophe; `limit` does not apply.',
        tags: ['Reports'],
        security: bearerSecurity('attendance.reports'),
        querystring: TimesheetsQuerySchema,
        response: {
          200: {
            description: 'A page of timesheets (JSON), or the whole report as a CSV file',
            content: {
              'application/json': { schema: TimesheetPageSchema },
              'text/csv': {
                schema: {
                  type: 'string',
                  description: `header row: ${CSV_COLUMNS.join(',')}; then one row per employee and listed day`,
                },
              },
            },
          },
          ...errorResponses([
            'invalid_token',
            'insufficient_scope',
            'time_tracking_disabled',
            'employee_not_found',
            'validation_failed',
            'rate_limited',
          ]),
        },
      },
    },
    async (request, reply) => {
      const principal = requirePrincipal(request);
      requireTimeTracking(principal);
      const query = request.query;
      // Every check runs before the answer starts: a refused CSV request is a problem document too.
      const plan = await planTimesheets(services.ctx, services.cursors, principal, query);
      if (!wantsCsv(request.headers.accept)) {
        reply.type('application/json; charset=utf-8');
        return timesheetPage(services.ctx, services.cursors, plan, query.limit ?? 25);
      }
      // Bytes, not objects: in object mode Readable.from reads 16 batches ahead of the socket (the
      // default object high-water mark), most of a large file; this way about one batch at a time.
      const csv = Readable.from(
        timesheetCsv(services.ctx, plan, {
          delimiter: parseDelimiter(query.delimiter),
          bom: query.bom === true,
        }),
        { objectMode: false, highWaterMark: 64 * 1024 },
      );
      // A database failure halfway cannot become a status any more: the connection is cut, so the
      // client sees a truncated file rather than a file that looks complete.
      csv.on('error', (error) => request.log.error({ err: error }, 'timesheet CSV failed while streaming'));
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="timesheets-${plan.from}-${plan.to}.csv"`)
        .send(csv);
    },
  );
};
