import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { validationError } from '../../domain/errors.js';
import { requirePermission, requirePerson } from '../../http/plugins/console-session.js';
import { type RouteContext, routeContext, type TypeBoxApp } from '../../http/route-context.js';
import { IdParamsSchema } from '../../http/schemas/common.js';
import { sessionErrors } from '../../http/schemas/responses.js';
import { PERMISSION_MANAGE_COMPANY, scopeInfo } from '../auth/scopes.js';
import { actorOf, inTransaction } from '../context.js';
import { callerOfPerson, parseIfMatch } from './actors.js';
import {
  AbsenceTypeItemsSchema,
  AdminBalancesQuerySchema,
  AdminDecisionBodySchema,
  AdminTypeCreateSchema,
  AdminTypeUpdateSchema,
  HolidayOverrideBodySchema,
  HolidayOverrideSchema,
  HolidayRegionBodySchema,
  HolidaySettingsSchema,
  RequestsPageSchema,
  RequestsQuerySchema,
  TeamCalendarQuerySchema,
  TeamCalendarSchema,
} from './admin-schemas.js';
import { decideAbsence } from './decisions.js';
import { clearHolidayOverride, setHolidayOverride } from './holidays.js';
import { leaveBalances } from './leave.js';
import { AbsenceResultSchema, AbsenceTypeSchema, LeaveBalancesSchema } from './schemas.js';
import { holidaySettings, teamCalendar, waitingRequests } from './team.js';
import { createAbsenceType, listAbsenceTypes, updateAbsenceType } from './types.js';
import { setHolidayRegion } from './working-days.js';

/*
 * The admin API's operations of absences (issue 31), for the console: the Absences screen (team
 * calendar, requests, decisions, balances: read 72, decide 96) and the Company screen's absence types
 * and holidays (read: anyone signed in; change: 93). The same services as the public API and the CLI.
 */

const TAG = 'Absences';
const READ_LEAVE = scopeInfo('leave.read').permission;
const MANAGE_LEAVE = scopeInfo('leave.manage').permission;

function listAbsenceTypesRoute(app: TypeBoxApp, { ctx }: RouteContext) {
  app.get(
    '/absence-types',
    {
      schema: {
        summary: "The company's absence types",
        operationId: 'listAbsenceTypes',
        description: 'By code. Anyone signed in.',
        tags: [TAG],
        response: { 200: AbsenceTypeItemsSchema, ...sessionErrors([]) },
      },
    },
    async (request) => listAbsenceTypes(ctx.database.db, requirePerson(request).companyId),
  );
}

function createAbsenceTypeRoute(app: TypeBoxApp, { ctx }: RouteContext) {
  app.post(
    '/absence-types',
    {
      schema: {
        summary: 'Create an absence type',
        operationId: 'createAbsenceType',
        description:
          'The CLI’s `absence-type create`; a code the company has is 409 already_exists. Permission 93.',
        tags: [TAG],
        body: AdminTypeCreateSchema,
        response: {
          201: AbsenceTypeSchema,
          ...sessionErrors(['forbidden', 'validation_failed', 'already_exists'], true),
        },
      },
    },
    async (request, reply) => {
      const person = requirePermission(request, PERMISSION_MANAGE_COMPANY);
      const created = await inTransaction(ctx, (tx, now) =>
        createAbsenceType(tx, now, person.companyId, request.body, actorOf(person)),
      );
      return reply.code(201).send(created);
    },
  );
}

function updateAbsenceTypeRoute(app: TypeBoxApp, { ctx }: RouteContext) {
  app.patch(
    '/absence-types/:id',
    {
      schema: {
        summary: 'Change an absence type',
        operationId: 'updateAbsenceType',
        description: 'Its rules (not its code). Permission 93.',
        tags: [TAG],
        params: IdParamsSchema,
        body: AdminTypeUpdateSchema,
        response: {
          200: AbsenceTypeSchema,
          ...sessionErrors(['forbidden', 'not_found', 'validation_failed'], true),
        },
      },
    },
    async (request) => {
      const person = requirePermission(request, PERMISSION_MANAGE_COMPANY);
      return inTransaction(ctx, (tx, now) =>
        updateAbsenceType(tx, now, person.companyId, request.params.id, request.body, actorOf(person)),
      );
    },
  );
}

function holidaySettingsRoute(app: TypeBoxApp, { ctx }: RouteContext) {
  app.get(
    '/holiday-settings',
    {
      schema: {
        summary: "Each workplace's holiday region and the company's holiday overrides",
        operationId: 'getHolidaySettings',
        description: 'Overrides from 1 January of last year on. Anyone signed in.',
        tags: [TAG],
        response: { 200: HolidaySettingsSchema, ...sessionErrors([]) },
      },
    },
    async (request) => holidaySettings(ctx, requirePerson(request)),
  );
}

function setHolidayRegionRoute(app: TypeBoxApp, { ctx }: RouteContext) {
  app.put(
    '/workplaces/:id/holiday-region',
    {
      schema: {
        summary: "Set a workplace's holiday region",
        operationId: 'setHolidayRegion',
        description: 'A region date-holidays knows (DE-BY, US-CA, FR), or null for none. Permission 93.',
        tags: [TAG],
        params: IdParamsSchema,
        body: HolidayRegionBodySchema,
        response: {
          200: HolidaySettingsSchema,
          ...sessionErrors(['forbidden', 'not_found', 'validation_failed'], true),
        },
      },
    },
    async (request) => {
      const person = requirePermission(request, PERMISSION_MANAGE_COMPANY);
      await inTransaction(ctx, (tx, now) =>
        setHolidayRegion(
          tx,
          now,
          request.params.id,
          request.body.holidayRegion,
          actorOf(person),
          person.companyId,
        ),
      );
      return holidaySettings(ctx, person);
    },
  );
}

function setHolidayOverrideRoute(app: TypeBoxApp, { ctx }: RouteContext) {
  app.post(
    '/holiday-overrides',
    {
      schema: {
        summary: 'Add or remove a holiday of the company or a workplace',
        operationId: 'setHolidayOverride',
        description: 'The day’s override of that scope is replaced. Permission 93.',
        tags: [TAG],
        body: HolidayOverrideBodySchema,
        response: {
          201: HolidayOverrideSchema,
          ...sessionErrors(['forbidden', 'not_found', 'validation_failed'], true),
        },
      },
    },
    async (request, reply) => {
      const person = requirePermission(request, PERMISSION_MANAGE_COMPANY);
      const { kind, ...rest } = request.body;
      const input = { ...rest, companyId: person.companyId };
      const override = await inTransaction(ctx, (tx, now) =>
        setHolidayOverride(tx, now, input, kind, actorOf(person)),
      );
      return reply.code(201).send(override);
    },
  );
}

function clearHolidayOverrideRoute(app: TypeBoxApp, { ctx }: RouteContext) {
  app.delete(
    '/holiday-overrides/:id',
    {
      schema: {
        summary: 'Drop a holiday override',
        operationId: 'clearHolidayOverride',
        description: 'The day follows the region (or the company’s override) again. Permission 93.',
        tags: [TAG],
        params: IdParamsSchema,
        response: {
          204: { type: 'null', description: 'Dropped' },
          ...sessionErrors(['forbidden', 'not_found'], true),
        },
      },
    },
    async (request, reply) => {
      const person = requirePermission(request, PERMISSION_MANAGE_COMPANY);
      await inTransaction(ctx, (tx, now) =>
        clearHolidayOverride(tx, now, person.companyId, request.params.id, actorOf(person)),
      );
      return reply.code(204).send();
    },
  );
}

function teamCalendarRoute(app: TypeBoxApp, { ctx }: RouteContext) {
  app.get(
    '/absences/calendar',
    {
      schema: {
        summary: "A month's team calendar",
        operationId: 'teamCalendar',
        description:
          'The employees (of a workplace) by name, their requested and approved absences touching the month, and the holidays. Permission 72.',
        tags: [TAG],
        querystring: TeamCalendarQuerySchema,
        response: {
          200: TeamCalendarSchema,
          ...sessionErrors(['forbidden', 'not_found', 'validation_failed']),
        },
      },
    },
    async (request) => teamCalendar(ctx, requirePermission(request, READ_LEAVE), request.query),
  );
}

function absenceRequestsRoute(app: TypeBoxApp, { ctx, services }: RouteContext) {
  app.get(
    '/absences/requests',
    {
      schema: {
        summary: 'Absences waiting for a decision',
        operationId: 'absenceRequests',
        description: 'Requested absences of the company, by start date. Permission 72.',
        tags: [TAG],
        querystring: RequestsQuerySchema,
        response: { 200: RequestsPageSchema, ...sessionErrors(['forbidden', 'validation_failed']) },
      },
    },
    async (request) =>
      waitingRequests(ctx, services.cursors, requirePermission(request, READ_LEAVE), request.query),
  );
}

function leaveBalancesRoute(app: TypeBoxApp, { ctx }: RouteContext) {
  app.get(
    '/leave-balances',
    {
      schema: {
        summary: "An employee's leave balances of a year",
        operationId: 'leaveBalances',
        description: 'As GET /leave-balances of the public API. Permission 72.',
        tags: [TAG],
        querystring: AdminBalancesQuerySchema,
        response: {
          200: LeaveBalancesSchema,
          ...sessionErrors(['forbidden', 'employee_not_found', 'validation_failed']),
        },
      },
    },
    async (request) => {
      const person = requirePermission(request, READ_LEAVE);
      const company = { companyId: person.companyId, timeZone: person.company.timeZone };
      return leaveBalances(ctx.database.db, ctx.now(), company, request.query);
    },
  );
}

function decideAbsenceRoute(
  app: TypeBoxApp,
  { ctx }: RouteContext,
  decision: 'approve' | 'reject' | 'cancel',
) {
  app.post(
    `/absences/:id/${decision}`,
    {
      schema: {
        summary: `${decision[0]!.toUpperCase()}${decision.slice(1)} an absence`,
        operationId: `${decision}Absence`,
        description:
          'The public operation’s rules (own absences 403 own_entry, 409 invalid_status_transition, If-Match 412). ' +
          (decision === 'approve' ? 'No reason.' : 'A reason is required.') +
          ' Permission 96.',
        tags: [TAG],
        params: IdParamsSchema,
        body: AdminDecisionBodySchema,
        response: {
          200: AbsenceResultSchema,
          ...sessionErrors(
            [
              'forbidden',
              'not_found',
              'validation_failed',
              'own_entry',
              'invalid_status_transition',
              'version_mismatch',
              'day_locked',
              'insufficient_balance',
            ],
            true,
          ),
        },
      },
    },
    async (request) => {
      const person = requirePermission(request, MANAGE_LEAVE);
      const reason = request.body.reason ?? null;
      if (decision !== 'approve' && reason === null)
        throw validationError([{ field: 'reason', message: 'is required', code: 'required' }]);
      const ifMatch = parseIfMatch(request.headers);
      const caller = await callerOfPerson(ctx.database.db, person);
      const outcome = await inTransaction(ctx, (tx, now) =>
        decideAbsence(tx, now, caller, request.params.id, decision, { reason, ifMatch, dryRun: false }),
      );
      return outcome.body;
    },
  );
}

export const absenceAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const context = routeContext(app);
  listAbsenceTypesRoute(app, context);
  createAbsenceTypeRoute(app, context);
  updateAbsenceTypeRoute(app, context);
  holidaySettingsRoute(app, context);
  setHolidayRegionRoute(app, context);
  setHolidayOverrideRoute(app, context);
  clearHolidayOverrideRoute(app, context);
  teamCalendarRoute(app, context);
  absenceRequestsRoute(app, context);
  leaveBalancesRoute(app, context);
  for (const decision of ['approve', 'reject', 'cancel'] as const) decideAbsenceRoute(app, context, decision);
};
