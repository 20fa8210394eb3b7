import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requirePermission } from '../../http/plugins/console-session.js';
import { type RouteContext, routeContext, type TypeBoxApp } from '../../http/route-context.js';
import { IdParamsSchema } from '../../http/schemas/common.js';
import { sessionErrors } from '../../http/schemas/responses.js';
import { PERMISSION_DECIDE_ENTRIES, PERMISSION_MANAGE_EMPLOYEES } from '../auth/scopes.js';
import { actorOf, inTransaction } from '../context.js';
import {
  approveCorrectionRequest,
  companyCorrectionRequests,
  rejectCorrectionRequest,
} from './correction-requests.js';
import { inviteEmployees } from './invite-employees.js';
import {
  CorrectionRequestSchema,
  InvitedEmployeesSchema,
  InviteEmployeesBodySchema,
  ManagerCorrectionRequestListSchema,
  ManagerRequestsQuerySchema,
  RejectBodySchema,
} from './schemas.js';

/*
 * The managers' side of self-service (issue 35): correction requests on the Time entries screen
 * (permission 91: approve applies the correction as a revision by the manager; reject with a reason;
 * a person deciding on their own employee's request is 403 own_entry), and "invite everyone" on the
 * Employees screen (permission 92). Only the person's own company.
 */

const TAG = ['Correction requests'];
const MANAGE = PERMISSION_DECIDE_ENTRIES;

function listRoute(app: TypeBoxApp, { services, ctx }: RouteContext) {
  app.get(
    '/correction-requests',
    {
      schema: {
        summary: "Employees' correction requests",
        operationId: 'listCorrectionRequests',
        description:
          "Newest first, by default the waiting ones, 100 a page: send the page's `nextCursor` as `cursor` for the next. Permission 91.",
        tags: TAG,
        querystring: ManagerRequestsQuerySchema,
        response: {
          200: ManagerCorrectionRequestListSchema,
          ...sessionErrors(['forbidden', 'validation_failed']),
        },
      },
    },
    async (request) =>
      companyCorrectionRequests(ctx.database.db, services.cursors, requirePermission(request, MANAGE), {
        ...(request.query.status !== undefined ? { status: request.query.status } : {}),
        ...(request.query.cursor !== undefined ? { cursor: request.query.cursor } : {}),
      }),
  );
}

function decideRoutes(app: TypeBoxApp, { ctx }: RouteContext) {
  app.post(
    '/correction-requests/:id/approve',
    {
      schema: {
        summary: 'Approve a correction request',
        operationId: 'approveCorrectionRequest',
        description:
          "Applies the proposed times through the correction of PATCH /time-entries/{id} (or records the missing shift) as the manager, with a reason naming the request, then approves it; every refusal of that correction applies. The entry changed since the request was filed: 412 version_mismatch (reject it and ask the employee to file again). Permission 91; one's own request: 403 own_entry.",
        tags: TAG,
        params: IdParamsSchema,
        response: {
          200: CorrectionRequestSchema,
          ...sessionErrors(
            [
              'forbidden',
              'not_found',
              'own_entry',
              'invalid_status_transition',
              'version_mismatch',
              'overlaps_existing_entry',
              'entry_too_old',
              'day_locked',
              'business_rule_violation',
              'time_tracking_disabled',
              'employee_not_found',
              'validation_failed',
            ],
            true,
          ),
        },
      },
    },
    async (request) => {
      const person = requirePermission(request, MANAGE);
      return inTransaction(ctx, (tx, now) => approveCorrectionRequest(tx, now, person, request.params.id));
    },
  );
  app.post(
    '/correction-requests/:id/reject',
    {
      schema: {
        summary: 'Reject a correction request',
        operationId: 'rejectCorrectionRequest',
        description: "With a reason the employee sees. Permission 91; one's own request: 403 own_entry.",
        tags: TAG,
        params: IdParamsSchema,
        body: RejectBodySchema,
        response: {
          200: CorrectionRequestSchema,
          ...sessionErrors(
            ['forbidden', 'not_found', 'own_entry', 'invalid_status_transition', 'validation_failed'],
            true,
          ),
        },
      },
    },
    async (request) => {
      const person = requirePermission(request, MANAGE);
      return inTransaction(ctx, (tx, now) =>
        rejectCorrectionRequest(tx, now, person, request.params.id, request.body.reason),
      );
    },
  );
}

function inviteRoute(app: TypeBoxApp, { services, ctx }: RouteContext) {
  app.post(
    '/employees/invite-all',
    {
      schema: {
        summary: 'Invite every employee to self-service',
        operationId: 'inviteEmployees',
        description:
          'A self-service person (no permissions) for every employee active or on leave with an email and no person linked yet (optionally of one workplace), each with a one-use link valid 72 hours: shown once. Employees left out are listed under `skipped` with the reason. The caller holds working links of every employee (they act as them until used): permissions 91 (deciding on entries) and 92 (managing employees) both, or a super admin. Audited as the caller, with one `employees.invite_all` row.',
        tags: ['Employees'],
        body: InviteEmployeesBodySchema,
        response: {
          200: InvitedEmployeesSchema,
          ...sessionErrors(['forbidden', 'not_found', 'validation_failed'], true),
        },
      },
    },
    async (request) => {
      // Both 91 and 92 (or a super admin): the caller gets working links of every employee, so they
      // can act as any of them (punch, file requests); managing employees alone is not enough.
      const person = requirePermission(request, PERMISSION_MANAGE_EMPLOYEES);
      requirePermission(request, PERMISSION_DECIDE_ENTRIES);
      return inTransaction(ctx, (tx, now) =>
        inviteEmployees(tx, now, {
          companyId: person.companyId,
          workplaceId: request.body.workplaceId ?? null,
          publicBaseUrl: services.urls.publicBaseUrl,
          actor: actorOf(person),
        }),
      );
    },
  );
}

/** The admin API's correction requests and "invite everyone" (issue 35). */
export const correctionRequestAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const context = routeContext(app);
  listRoute(app, context);
  decideRoutes(app, context);
  inviteRoute(app, context);
};
