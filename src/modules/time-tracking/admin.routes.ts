import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requirePermission } from '../../http/plugins/console-session.js';
import { sessionErrors } from '../../http/schemas/responses.js';
import { PERMISSION_DECIDE_ENTRIES, PERMISSION_READ_ENTRIES } from '../auth/scopes.js';
import { confirmEmployeeDay, decideEntries, listEntries } from './approval.js';
import {
  AdminClockStatusPageSchema,
  AdminClockStatusQuerySchema,
  AdminTimeEntriesQuerySchema,
  AdminTimeEntryListSchema,
  ConfirmDayBodySchema,
  ConfirmedDaySchema,
  DecisionsBodySchema,
  DecisionsResultSchema,
} from './schemas.js';
import { whoIsIn } from './status.js';
import { type TypeBoxApp, type RouteContext, routeContext } from '../../http/route-context.js';

/**
 * Time tracking in the admin API: who is clocked in, an employee's entries of some days, approving or
 * rejecting entries, confirming days.
 * Registered inside the admin API's guarded scope (app/admin-api-v1.ts): a console session, the CSRF
 * token and Origin on writes; the permission is checked here, and only the person's own company is reached.
 */

function whoIsInRoute(app: TypeBoxApp, { services, ctx }: RouteContext) {
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
      whoIsIn(ctx, services.cursors, requirePermission(request, PERMISSION_READ_ENTRIES), request.query),
  );
}

function listTimeEntriesRoute(app: TypeBoxApp, { ctx }: RouteContext) {
  app.get(
    '/time-entries',
    {
      schema: {
        summary: "An employee's time entries of some days",
        operationId: 'listTimeEntries',
        description:
          'The entries of the days from `from` to `to` (at most 62), an overnight entry on the day it started, ' +
          'pending ones first; and which of those days are confirmed. Permission 47.',
        tags: ['Time entries'],
        querystring: AdminTimeEntriesQuerySchema,
        response: {
          200: AdminTimeEntryListSchema,
          ...sessionErrors(['forbidden', 'not_found', 'validation_failed']),
        },
      },
    },
    async (request) => listEntries(ctx, requirePermission(request, PERMISSION_READ_ENTRIES), request.query),
  );
}

function decideTimeEntriesRoute(app: TypeBoxApp, { services, ctx }: RouteContext) {
  app.post(
    '/time-entries/decisions',
    {
      schema: {
        summary: 'Approve or reject entries',
        operationId: 'decideTimeEntries',
        description:
          'Decides each pending entry in a transaction of its own: per entry 200 with the entry, 404 (not in ' +
          'your company), 403 own_entry (the person is linked to its employee) or 409 (not pending, or a day ' +
          'in a closed period), 412 version_mismatch (the entry is not at the version sent in `versions`). ' +
          'Permission 91.',
        tags: ['Time entries'],
        body: DecisionsBodySchema,
        response: {
          200: DecisionsResultSchema,
          ...sessionErrors(['forbidden', 'validation_failed'], true),
        },
      },
    },
    async (request) => {
      const person = requirePermission(request, PERMISSION_DECIDE_ENTRIES);
      const { ids, decision, versions } = request.body;
      const results = await decideEntries(ctx, person, { ids, decision, versions });
      return {
        results: results.map((result) =>
          result.status === 200
            ? result
            : { id: result.id, status: result.status, problem: services.problemFor(request, result.error) },
        ),
      };
    },
  );
}

function confirmDayRoute(app: TypeBoxApp, { ctx }: RouteContext) {
  app.post(
    '/confirmed-days',
    {
      schema: {
        summary: "Confirm an employee's day",
        operationId: 'confirmDay',
        description:
          'Locks the day: no punch or shift may change it any more (409 day_locked). Confirming twice is ' +
          'harmless. Permission 91.',
        tags: ['Time entries'],
        body: ConfirmDayBodySchema,
        response: {
          201: ConfirmedDaySchema,
          ...sessionErrors(['forbidden', 'not_found', 'validation_failed'], true),
        },
      },
    },
    async (request, reply) => {
      const person = requirePermission(request, PERMISSION_DECIDE_ENTRIES);
      return reply.code(201).send(await confirmEmployeeDay(ctx, person, request.body));
    },
  );
}

export const timeTrackingAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const context = routeContext(app);
  whoIsInRoute(app, context);
  listTimeEntriesRoute(app, context);
  decideTimeEntriesRoute(app, context);
  confirmDayRoute(app, context);
};
