import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { clockStatus, createShift, listTimeEntries, recordClockEvent } from './service.js';
import { authenticate, requirePrincipal, requireTimeTracking } from '../../http/plugins/authenticate.js';
import { idempotentWrite } from '../../http/plugins/idempotency.js';
import { bearerSecurity } from '../../http/plugins/openapi.js';
import { BODY_ERRORS, errorResponses } from '../../http/schemas/responses.js';
import {
  ClockEventBodySchema,
  ClockStatusPageSchema,
  ClockStatusQuerySchema,
  ShiftBodySchema,
  TimeEntriesQuerySchema,
  TimeEntryPageSchema,
  WriteHeadersSchema,
  WriteResultSchema,
  described,
} from '../../http/schemas/common.js';
import { parseDryRun } from '../../http/write-headers.js';

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

/** Errors of live punches that a completed shift cannot meet. */
const PUNCH_ONLY_ERRORS: readonly string[] = [
  'no_open_session',
  'already_clocked_in',
  'clock_out_before_clock_in',
  'session_too_long',
];

export const timeTrackingRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { services } = app;
  const guard = { ...services, limiter: services.resourceLimiter };

  app.post(
    '/time-clock/events',
    {
      onRequest: authenticate(guard, 'attendance.record'),
      schema: {
        summary: 'Record a clock event (clock_in, clock_out or toggle)',
        operationId: 'recordClockEvent',
        description:
          '`toggle` is `clock_out` when the employee has an open session (that day or the previous day), else `clock_in`. ' +
          "`occurredAt` is converted into the workplace's time zone, else the company's, else kept as sent. " +
          '`clock_out` completes the open session and submits it for approval; a session of 24 hours or more is refused. ' +
          'Send an `Idempotency-Key` on every write; without one, the same punch within 60 seconds returns the existing entry (200).',
        tags: ['Time tracking'],
        security: bearerSecurity('attendance.record'),
        headers: WriteHeadersSchema,
        body: ClockEventBodySchema,
        response: {
          200: described(
            WriteResultSchema,
            'Dry run (nothing stored), or the existing entry when the same punch arrived within 60 seconds without an Idempotency-Key',
          ),
          201: described(WriteResultSchema, 'Recorded'),
          ...errorResponses([...WRITE_ERRORS, ...BODY_ERRORS]),
        },
      },
    },
    async (request, reply) => {
      const principal = requirePrincipal(request);
      requireTimeTracking(principal);
      const dryRun = parseDryRun(request.headers);
      return idempotentWrite(request, reply, { dryRun }, (tx, { detectDuplicates }) =>
        recordClockEvent(tx, services.ctx.now(), principal, request.body, { dryRun, detectDuplicates }),
      );
    },
  );

  app.post(
    '/time-entries',
    {
      onRequest: authenticate(guard, 'attendance.record'),
      schema: {
        summary: 'Record a completed shift',
        operationId: 'recordShift',
        description:
          'A completed shift, dated by its clock-in day; an overnight shift sets `endsNextDay` and takes no break. ' +
          'Net working time must be at least 15 minutes and the shift under 24 hours. Submitted for approval.',
        tags: ['Time tracking'],
        security: bearerSecurity('attendance.record'),
        headers: WriteHeadersSchema,
        body: ShiftBodySchema,
        response: {
          200: described(WriteResultSchema, 'Dry run: every check ran, nothing was stored'),
          201: described(WriteResultSchema, 'Recorded and submitted for approval'),
          ...errorResponses([...WRITE_ERRORS.filter((e) => !PUNCH_ONLY_ERRORS.includes(e)), ...BODY_ERRORS]),
        },
      },
    },
    async (request, reply) => {
      const principal = requirePrincipal(request);
      requireTimeTracking(principal);
      const dryRun = parseDryRun(request.headers);
      return idempotentWrite(request, reply, { dryRun }, (tx) =>
        createShift(tx, services.ctx.now(), principal, request.body, { dryRun }),
      );
    },
  );

  app.get(
    '/time-entries',
    {
      onRequest: authenticate(guard, 'attendance.read'),
      schema: {
        summary: "List an employee's time entries",
        operationId: 'listTimeEntries',
        description:
          "An employee's entries (exactly one of `employeeId` / `externalId`) ordered by work date, then id. " +
          'The range `from`..`to` spans at most 92 days; by default the last 30 days up to today. Cursor-paginated like every list.',
        tags: ['Time tracking'],
        security: bearerSecurity('attendance.read'),
        querystring: TimeEntriesQuerySchema,
        response: {
          200: described(TimeEntryPageSchema, 'A page of time entries, ordered by work date, then id'),
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
      return listTimeEntries(services.ctx, services.cursors, principal, request.query);
    },
  );

  app.get(
    '/time-clock/status',
    {
      onRequest: authenticate(guard, 'attendance.read'),
      schema: {
        summary: 'Who is clocked in',
        operationId: 'clockStatus',
        description:
          "Every open session, however old, oldest first: who is clocked in, since when (the instant and the wall clock in the entry's zone), on a break or not. " +
          'Filter by `workplaceId`, `employeeId` or `externalId` (at most one). Cursor-paginated like every list.',
        tags: ['Time tracking'],
        security: bearerSecurity('attendance.read'),
        querystring: ClockStatusQuerySchema,
        response: {
          200: described(ClockStatusPageSchema, 'A page of open sessions, oldest first'),
          ...errorResponses([
            'invalid_token',
            'insufficient_scope',
            'time_tracking_disabled',
            'validation_failed',
            'rate_limited',
          ]),
        },
      },
    },
    async (request) => {
      const principal = requirePrincipal(request);
      requireTimeTracking(principal);
      return clockStatus(services.ctx, services.cursors, principal, request.query);
    },
  );
};
