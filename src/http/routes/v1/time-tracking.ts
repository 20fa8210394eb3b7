import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../../app.js';
import { createShift, listTimeEntries, recordClockEvent } from '../../../use-cases/api/time-tracking.js';
import { authenticate, requirePrincipal, requireTimeTracking } from '../../plugins/authenticate.js';
import { runIdempotentWrite } from '../../plugins/idempotency.js';
import { errorResponses } from '../../schemas/responses.js';
import {
  ClockEventBodySchema,
  pageOf,
  ShiftBodySchema,
  TimeEntriesQuerySchema,
  TimeEntrySchema,
  WriteHeadersSchema,
  WriteResultSchema,
} from '../../schemas/v1.js';
import { parseDryRun } from '../../write-headers.js';

const WRITE_ERRORS = [
  'invalid_token',
  'insufficient_scope',
  'time_tracking_disabled',
  'employee_not_found',
  'already_clocked_in',
  'no_open_session',
  'clock_out_before_clock_in',
  'session_too_long',
  'overlaps_existing_entry',
  'day_locked',
  'business_rule_violation',
  'idempotency_in_flight',
  'validation_failed',
  'idempotency_key_reused',
  'rate_limited',
] as const;

export function registerTimeClockRoutes(app: FastifyInstance, services: AppServices): void {
  const guard = { ...services, limiter: services.resourceLimiter };

  app.post(
    '/api/public/v1/time-clock/events',
    {
      onRequest: authenticate(guard, 'attendance.record'),
      schema: {
        summary: 'Record a clock event (clock_in, clock_out or toggle)',
        tags: ['Time tracking'],
        headers: WriteHeadersSchema,
        body: ClockEventBodySchema,
        response: {
          200: WriteResultSchema,
          201: WriteResultSchema,
          ...errorResponses([...WRITE_ERRORS]),
        },
      },
    },
    async (request, reply) => {
      const principal = requirePrincipal(request);
      requireTimeTracking(principal);
      const dryRun = parseDryRun(request.headers);
      const body = request.body as Parameters<typeof recordClockEvent>[2];
      return runIdempotentWrite(services, request, reply, dryRun, ({ detectDuplicates }) =>
        recordClockEvent(services.ctx, principal, body, { dryRun, detectDuplicates }),
      );
    },
  );

  app.post(
    '/api/public/v1/time-entries',
    {
      onRequest: authenticate(guard, 'attendance.record'),
      schema: {
        summary: 'Record a completed shift',
        tags: ['Time tracking'],
        headers: WriteHeadersSchema,
        body: ShiftBodySchema,
        response: {
          200: WriteResultSchema,
          201: WriteResultSchema,
          ...errorResponses(
            [...WRITE_ERRORS].filter(
              (e) =>
                ![
                  'no_open_session',
                  'already_clocked_in',
                  'clock_out_before_clock_in',
                  'session_too_long',
                ].includes(e),
            ),
          ),
        },
      },
    },
    async (request, reply) => {
      const principal = requirePrincipal(request);
      requireTimeTracking(principal);
      const dryRun = parseDryRun(request.headers);
      const body = request.body as Parameters<typeof createShift>[2];
      return runIdempotentWrite(services, request, reply, dryRun, () =>
        createShift(services.ctx, principal, body, { dryRun }),
      );
    },
  );

  app.get(
    '/api/public/v1/time-entries',
    {
      onRequest: authenticate(guard, 'attendance.read'),
      schema: {
        summary: "List an employee's time entries",
        tags: ['Time tracking'],
        querystring: TimeEntriesQuerySchema,
        response: {
          200: pageOf(TimeEntrySchema),
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
    async (request) => {
      const principal = requirePrincipal(request);
      requireTimeTracking(principal);
      return listTimeEntries(services.ctx, services.cursors, principal, request.query as never);
    },
  );
}
