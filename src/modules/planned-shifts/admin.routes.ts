import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiError } from '../../domain/errors.js';
import { requirePermission, requirePerson } from '../../http/plugins/console-session.js';
import { type RouteContext, routeContext, type TypeBoxApp } from '../../http/route-context.js';
import { IdParamsSchema } from '../../http/schemas/common.js';
import { sessionErrors } from '../../http/schemas/responses.js';
import { PERMISSION_READ_EMPLOYEES, PERMISSION_READ_ENTRIES, PERMISSION_SHIFTS } from '../auth/scopes.js';
import { hasPermission } from '../people/service.js';
import {
  AdminPublishBodySchema,
  AdminPublishResultSchema,
  AttendanceNowQuerySchema,
  AttendanceNowSchema,
  CopyWeekBodySchema,
  CopyWeekResultSchema,
  RosterQuerySchema,
  RosterSchema,
  RosterShiftBodySchema,
} from './schemas.js';
import { attendanceNow } from './now.service.js';
import {
  copyPreviousWeek,
  createRosterShift,
  deleteRosterShift,
  publishRange,
  rosterOf,
  updateRosterShift,
} from './roster.service.js';

const RosterShiftSchema = RosterSchema.properties.shifts.items;
const shiftErrors = sessionErrors(
  ['forbidden', 'not_found', 'employee_not_found', 'validation_failed', 'shift_overlaps', 'already_exists'],
  true,
);

/**
 * GET /roster: permission 47 (read entries) or 97 (manage shifts). Least privilege (review of issue 33,
 * finding 8): 97 alone plans, so it reads the plan (names, ids, workplaces, shifts) but not the
 * attendance exceptions (47, like `attendance.read` on /attendance-exceptions: `exceptions` is null)
 * nor the employees' emails (52 or 47: `email` is null).
 */
function getRosterRoute(app: TypeBoxApp, { ctx }: RouteContext) {
  app.get(
    '/roster',
    {
      schema: {
        summary: "A workplace's shifts and exceptions",
        operationId: 'getRoster',
        description:
          "The workplace's shifts dated from..to (at most 31 days), its employees and anyone planned there, and the exceptions of those days. Permission 47 or 97; the exceptions need 47 (else `exceptions` is null) and the employees' emails 47 or 52 (else `email` is null).",
        tags: ['Roster'],
        querystring: RosterQuerySchema,
        response: { 200: RosterSchema, ...sessionErrors(['forbidden', 'not_found', 'validation_failed']) },
      },
    },
    async (request) => {
      const person = requirePerson(request);
      if (!hasPermission(person, PERMISSION_READ_ENTRIES) && !hasPermission(person, PERMISSION_SHIFTS))
        throw new ApiError(
          'forbidden',
          `this needs permission ${PERMISSION_READ_ENTRIES} or ${PERMISSION_SHIFTS}`,
        );
      const reads = (permission: number) => hasPermission(person, permission);
      return rosterOf(ctx, person, request.query, {
        exceptions: reads(PERMISSION_READ_ENTRIES),
        emails: reads(PERMISSION_READ_ENTRIES) || reads(PERMISSION_READ_EMPLOYEES),
      });
    },
  );
}

/** GET /attendance/now: the Now screen's late and not yet in (permission 47). */
function attendanceNowRoute(app: TypeBoxApp, { ctx }: RouteContext) {
  app.get(
    '/attendance/now',
    {
      schema: {
        summary: 'Who is late, who is not yet in',
        operationId: 'attendanceNow',
        description:
          'Published shifts that have started (or start within the hour) without a clock-in for them, per workplace: `late` once the grace has passed. Permission 47.',
        tags: ['Now'],
        querystring: AttendanceNowQuerySchema,
        response: {
          200: AttendanceNowSchema,
          ...sessionErrors(['forbidden', 'not_found', 'validation_failed']),
        },
      },
    },
    async (request) => attendanceNow(ctx, requirePermission(request, PERMISSION_READ_ENTRIES), request.query),
  );
}

/** POST /planned-shifts: one shift planned (permission 97). */
function createPlannedShiftRoute(app: TypeBoxApp, { ctx }: RouteContext) {
  app.post(
    '/planned-shifts',
    {
      schema: {
        summary: 'Plan a shift',
        operationId: 'createPlannedShift',
        description:
          "A draft shift on a day of the workplace, times in its zone (an end at or before the start is the next day). Overlapping another of the employee's shifts is 409 shift_overlaps. Permission 97.",
        tags: ['Roster'],
        body: RosterShiftBodySchema,
        response: { 201: RosterShiftSchema, ...shiftErrors },
      },
    },
    async (request, reply) => {
      const person = requirePermission(request, PERMISSION_SHIFTS);
      return reply.code(201).send(await createRosterShift(ctx, person, request.body));
    },
  );
}

/** PUT /planned-shifts/{id}: one shift changed or moved (permission 97). */
function updatePlannedShiftRoute(app: TypeBoxApp, { ctx }: RouteContext) {
  app.put(
    '/planned-shifts/:id',
    {
      schema: {
        summary: 'Change a planned shift',
        operationId: 'updatePlannedShift',
        description:
          'Its employee, day, times, break and note (moving it to another day or time); it keeps its status. Permission 97.',
        tags: ['Roster'],
        params: IdParamsSchema,
        body: RosterShiftBodySchema,
        response: { 200: RosterShiftSchema, ...shiftErrors },
      },
    },
    async (request) =>
      updateRosterShift(ctx, requirePermission(request, PERMISSION_SHIFTS), request.params.id, request.body),
  );
}

/** DELETE /planned-shifts/{id} (permission 97). */
function deletePlannedShiftRoute(app: TypeBoxApp, { ctx }: RouteContext) {
  app.delete(
    '/planned-shifts/:id',
    {
      schema: {
        summary: 'Delete a planned shift',
        operationId: 'deletePlannedShiftOfRoster',
        description: 'Permission 97.',
        tags: ['Roster'],
        params: IdParamsSchema,
        response: {
          204: { type: 'null', description: 'Deleted' },
          ...sessionErrors(['forbidden', 'not_found'], true),
        },
      },
    },
    async (request, reply) => {
      await deleteRosterShift(ctx, requirePermission(request, PERMISSION_SHIFTS), request.params.id);
      return reply.code(204).send();
    },
  );
}

/** POST /planned-shifts/copy-week (permission 97). */
function copyPreviousWeekRoute(app: TypeBoxApp, { ctx }: RouteContext) {
  app.post(
    '/planned-shifts/copy-week',
    {
      schema: {
        summary: 'Copy the previous week',
        operationId: 'copyPreviousWeek',
        description:
          "The workplace's shifts of the 7 days before `weekStart`, a week later at the same wall-clock times, as drafts; a copy that would overlap a shift already planned is skipped. Permission 97.",
        tags: ['Roster'],
        body: CopyWeekBodySchema,
        response: {
          200: CopyWeekResultSchema,
          ...sessionErrors(['forbidden', 'not_found', 'validation_failed'], true),
        },
      },
    },
    async (request) => copyPreviousWeek(ctx, requirePermission(request, PERMISSION_SHIFTS), request.body),
  );
}

/** POST /planned-shifts/publish (permission 97). */
function publishRosterRoute(app: TypeBoxApp, { ctx }: RouteContext) {
  app.post(
    '/planned-shifts/publish',
    {
      schema: {
        summary: 'Publish shifts',
        operationId: 'publishRoster',
        description: "The workplace's drafts dated from..to become published. Permission 97.",
        tags: ['Roster'],
        body: AdminPublishBodySchema,
        response: {
          200: AdminPublishResultSchema,
          ...sessionErrors(['forbidden', 'not_found', 'validation_failed'], true),
        },
      },
    },
    async (request) => publishRange(ctx, requirePermission(request, PERMISSION_SHIFTS), request.body),
  );
}

/**
 * The console's Roster screen and the Now screen's attendance (issue 33). Registered inside the admin
 * API's guarded scope (app/admin-api-v1.ts): a console session, the CSRF token and Origin on writes;
 * the permission is checked here (47 to read, 97 to change shifts), and only the person's own company
 * is reached (another company's id is 404).
 */
export const plannedShiftAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const context = routeContext(app);
  getRosterRoute(app, context);
  attendanceNowRoute(app, context);
  createPlannedShiftRoute(app, context);
  updatePlannedShiftRoute(app, context);
  deletePlannedShiftRoute(app, context);
  copyPreviousWeekRoute(app, context);
  publishRosterRoute(app, context);
};
