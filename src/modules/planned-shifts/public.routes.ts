import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { ApiError } from '../../domain/errors.js';
import { authenticate, requirePrincipal, requireTimeTracking } from '../../http/plugins/authenticate.js';
import { idempotentLongWrite, idempotentWrite } from '../../http/plugins/idempotency.js';
import { bearerSecurity } from '../../http/plugins/openapi.js';
import { API_PREFIX } from '../../http/paths.js';
import { problemBody } from '../../http/problem.js';
import { described, ProblemSchema, WriteHeadersSchema } from '../../http/schemas/common.js';
import { BODY_ERRORS, errorResponses } from '../../http/schemas/responses.js';
import { compileBodyCheck, shapeValidatorCompiler } from '../../http/validation.js';
import { parseDryRun } from '../../http/write-headers.js';
import type { Principal } from '../auth/service.js';
import { type ItemOutcome, type PlanScope, upsertShifts } from './batch.js';
import { listExceptions } from './exceptions.service.js';
import {
  AttendanceExceptionPageSchema,
  AttendanceExceptionsQuerySchema,
  PlannedShiftBatchBodySchema,
  PlannedShiftBatchResultSchema,
  PlannedShiftInputSchema,
  PlannedShiftPageSchema,
  PlannedShiftSchema,
  PlannedShiftsQuerySchema,
  PublishBodySchema,
  PublishResultSchema,
  ShiftIdParamsSchema,
} from './schemas.js';
import { deleteShift, listShifts, publishShifts } from './shifts.service.js';
import { type TypeBoxApp } from '../../http/route-context.js';

const BATCH_PATH = `${API_PREFIX}/planned-shifts/batch`;
/** 500 shifts with their notes are larger than the 64 KiB every other body may be. */
const BATCH_BODY_LIMIT_BYTES = 1024 * 1024;
const checkItem = compileBodyCheck(PlannedShiftInputSchema);

const READ_ERRORS = [
  'invalid_token',
  'insufficient_scope',
  'time_tracking_disabled',
  'validation_failed',
  'rate_limited',
] as const;
const WRITE_ERRORS = [
  ...READ_ERRORS,
  'idempotency_in_flight',
  'idempotency_key_reused',
  ...BODY_ERRORS,
] as const;

export function planScope(principal: Principal): PlanScope {
  return {
    companyId: principal.companyId,
    companyZone: principal.company.timeZone,
    // A kiosk device's token never reaches these routes (authenticate refuses it).
    actor: { type: principal.kind === 'user' ? 'user' : 'api_key', id: principal.id },
  };
}

/**
 * The batch's answer as text, each item's body serialised by its own schema (the response's union
 * would make the serializer validate every body against both branches to choose one).
 */
export function batchAnswer(
  request: FastifyRequest,
  serialize: { shift: (body: unknown) => string; problem: (body: unknown) => string },
  outcomes: readonly ItemOutcome[],
): string {
  const problem = (error: ApiError) =>
    problemBody(error, {
      problemBase: request.server.services.urls.problemBase,
      instance: BATCH_PATH,
      correlationId: request.id,
    });
  const results = outcomes.map(
    (o) =>
      `{"index":${o.index},"status":${o.status},"body":${'error' in o ? serialize.problem(problem(o.error)) : serialize.shift(o.body)}}`,
  );
  return `{"results":[${results.join(',')}]}`;
}

/** What the routes below share, made once per registration. */
function shiftRouteContext(app: TypeBoxApp) {
  const { services } = app;
  const guard = { ...services, limiter: services.resourceLimiter };
  return { services, guard };
}

type ShiftRouteContext = ReturnType<typeof shiftRouteContext>;

/** GET /planned-shifts (attendance.read). */
function listPlannedShiftsRoute(app: TypeBoxApp, { services, guard }: ShiftRouteContext) {
  app.get(
    '/planned-shifts',
    {
      onRequest: authenticate(guard, 'attendance.read'),
      schema: {
        summary: 'List planned shifts',
        operationId: 'listPlannedShifts',
        description:
          "The company's planned shifts dated `from`..`to` (the day in the workplace's zone; at most 92 days), drafts and published, " +
          "of one employee (`employeeId` / `externalId`, the employee's), one workplace or one scheduler id (`shiftExternalId`), at most one of these; ordered by start, then id; cursor-paginated. " +
          'An employee the company does not have is `404 employee_not_found`, as on `/time-entries`.',
        tags: ['Planned shifts'],
        security: bearerSecurity('attendance.read'),
        querystring: PlannedShiftsQuerySchema,
        response: {
          200: described(PlannedShiftPageSchema, 'A page of planned shifts, by start then id'),
          ...errorResponses([...READ_ERRORS, 'employee_not_found']),
        },
      },
    },
    async (request) => {
      const principal = requirePrincipal(request);
      requireTimeTracking(principal);
      return listShifts(services.ctx.database.db, services.cursors, principal.companyId, request.query);
    },
  );
}

/** GET /attendance-exceptions (attendance.read). */
function listAttendanceExceptionsRoute(app: TypeBoxApp, { services, guard }: ShiftRouteContext) {
  app.get(
    '/attendance-exceptions',
    {
      onRequest: authenticate(guard, 'attendance.read'),
      schema: {
        summary: 'List attendance exceptions',
        operationId: 'listAttendanceExceptions',
        description:
          'What the exceptions job found comparing published shifts with the punches: `late_in`, `early_out`, `no_show`, `missed_clock_out`, `unplanned`. ' +
          'Dated `from`..`to` (by default the last 30 days up to today; at most 92 days), of one employee (`employeeId` / `externalId`) or workplace, of one `kind`; by date, then id; cursor-paginated. ' +
          'Each is detected once; `no_show` and `missed_clock_out` get `resolvedAt` when the clock-in or clock-out comes. The change feed and webhooks carry `attendance.exception_detected` and `attendance.exception_resolved`.',
        tags: ['Planned shifts'],
        security: bearerSecurity('attendance.read'),
        querystring: AttendanceExceptionsQuerySchema,
        response: {
          200: described(AttendanceExceptionPageSchema, 'A page of exceptions, by date then id'),
          ...errorResponses([...READ_ERRORS, 'employee_not_found']),
        },
      },
    },
    async (request) => {
      const principal = requirePrincipal(request);
      requireTimeTracking(principal);
      return listExceptions(services.ctx, services.cursors, principal, request.query);
    },
  );
}

/** POST /planned-shifts/batch (shifts.manage). */
function upsertPlannedShiftsRoute(app: TypeBoxApp, { services, guard }: ShiftRouteContext) {
  app.post(
    '/planned-shifts/batch',
    {
      onRequest: authenticate(guard, 'shifts.manage'),
      bodyLimit: BATCH_BODY_LIMIT_BYTES,
      validatorCompiler: shapeValidatorCompiler,
      schema: {
        summary: 'Create or update up to 500 planned shifts',
        operationId: 'upsertPlannedShifts',
        description:
          "Each item in the order sent: with an `externalId` (the scheduler's shift id) it updates the company's shift with that id, or creates it; without one it creates a shift. " +
          "The workplace defaults to the employee's; a new shift is `draft` unless it says `published`, an existing one keeps its status unless sent; `breakMinutes` defaults to 0. " +
          'The end is after the start and less than 24 hours later; two shifts of one employee may not overlap (`409 shift_overlaps`). ' +
          'Answered 200 with one result per item (`201` created, `200` updated or unchanged, or the refusal as a problem document); one refused item stops nothing. ' +
          "A body that is not `{shifts: [...]}` of 1 to 500 objects with the fields and JSON types of an item is one `422` naming `shifts[i].field`, and nothing runs; an item's values are its own result. " +
          '`Idempotency-Key` replays the whole answer; `X-Service-Dry-Run: true` judges every item and stores nothing.',
        tags: ['Planned shifts'],
        security: bearerSecurity('shifts.manage'),
        headers: WriteHeadersSchema,
        body: PlannedShiftBatchBodySchema,
        response: {
          200: described(PlannedShiftBatchResultSchema, 'One result per item, in the order sent'),
          ...errorResponses([...WRITE_ERRORS]),
        },
      },
    },
    async (request, reply) => {
      const principal = requirePrincipal(request);
      requireTimeTracking(principal);
      const dryRun = parseDryRun(request.headers);
      const items = request.body.shifts.map((item) => ({ item, invalid: checkItem(item) }));
      const serialize = {
        shift: reply.compileSerializationSchema(PlannedShiftSchema) as (body: unknown) => string,
        problem: reply.compileSerializationSchema(ProblemSchema) as (body: unknown) => string,
      };
      // One transaction for the whole batch; the request's key is claimed before it and completed after.
      return idempotentLongWrite(request, reply, { dryRun }, async () => {
        const outcomes = await services.ctx.database.transaction((tx) =>
          upsertShifts(tx, services.ctx.now(), planScope(principal), items, { dryRun }),
        );
        return batchAnswer(request, serialize, outcomes);
      });
    },
  );
}

/** DELETE /planned-shifts/{id} (shifts.manage). */
function deletePlannedShiftRoute(app: TypeBoxApp, { services, guard }: ShiftRouteContext) {
  app.delete(
    '/planned-shifts/:id',
    {
      onRequest: authenticate(guard, 'shifts.manage'),
      schema: {
        summary: 'Delete a planned shift',
        operationId: 'deletePlannedShift',
        description:
          'The shift goes; exceptions it had left open are resolved by the next run of the exceptions job.',
        tags: ['Planned shifts'],
        security: bearerSecurity('shifts.manage'),
        params: ShiftIdParamsSchema,
        response: {
          204: { description: 'Deleted', type: 'null' },
          ...errorResponses([...READ_ERRORS, 'not_found']),
        },
      },
    },
    async (request, reply) => {
      const principal = requirePrincipal(request);
      requireTimeTracking(principal);
      await services.ctx.database.transaction((tx) =>
        deleteShift(tx, services.ctx.now(), planScope(principal), request.params.id),
      );
      return reply.code(204).send();
    },
  );
}

/** POST /planned-shifts/publish (shifts.manage). */
function publishPlannedShiftsRoute(app: TypeBoxApp, { services, guard }: ShiftRouteContext) {
  app.post(
    '/planned-shifts/publish',
    {
      onRequest: authenticate(guard, 'shifts.manage'),
      schema: {
        summary: 'Publish the planned shifts of a range',
        operationId: 'publishPlannedShifts',
        description:
          'Every draft dated `from`..`to` (at most 92 days), of one workplace when `workplaceId` is sent, becomes published: the exceptions job judges published shifts only. ' +
          'Publishing again publishes nothing more. `X-Service-Dry-Run: true` counts without publishing.',
        tags: ['Planned shifts'],
        security: bearerSecurity('shifts.manage'),
        headers: WriteHeadersSchema,
        body: PublishBodySchema,
        response: {
          200: described(PublishResultSchema, 'How many shifts were published'),
          ...errorResponses([...WRITE_ERRORS]),
        },
      },
    },
    async (request, reply) => {
      const principal = requirePrincipal(request);
      requireTimeTracking(principal);
      const dryRun = parseDryRun(request.headers);
      return idempotentWrite(request, reply, { dryRun }, async (tx) => ({
        status: 200,
        body: await publishShifts(tx, services.ctx.now(), planScope(principal), request.body, { dryRun }),
      }));
    },
  );
}

/** Planned shifts and attendance exceptions in v1 of the public API (issue 33, additive). */
export const plannedShiftRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const context = shiftRouteContext(app);
  listPlannedShiftsRoute(app, context);
  listAttendanceExceptionsRoute(app, context);
  upsertPlannedShiftsRoute(app, context);
  deletePlannedShiftRoute(app, context);
  publishPlannedShiftsRoute(app, context);
};
