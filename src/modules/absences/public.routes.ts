import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorName } from '../../domain/errors.js';
import { authenticate, requirePrincipal } from '../../http/plugins/authenticate.js';
import { idempotentWrite } from '../../http/plugins/idempotency.js';
import { bearerSecurity } from '../../http/plugins/openapi.js';
import { type TypeBoxApp } from '../../http/route-context.js';
import { described } from '../../http/schemas/common.js';
import { BODY_ERRORS, errorResponses } from '../../http/schemas/responses.js';
import { parseDryRun } from '../../http/write-headers.js';
import { createAbsence, getAbsence, listAbsences } from './absences.js';
import { callerOfPrincipal, etagOf, parseIfMatch } from './actors.js';
import { decideAbsence, type Decision } from './decisions.js';
import { listHolidays } from './holidays.js';
import { leaveBalances } from './leave.js';
import {
  AbsenceCreateSchema,
  AbsencePageSchema,
  AbsenceParamsSchema,
  AbsenceResultSchema,
  AbsenceSchema,
  AbsencesQuerySchema,
  AbsenceTypeListSchema,
  AbsenceWriteHeadersSchema,
  HolidayListSchema,
  HolidaysQuerySchema,
  LeaveBalancesQuerySchema,
  LeaveBalancesSchema,
  ReasonBodySchema,
} from './schemas.js';
import { listAbsenceTypes } from './types.js';

/*
 * The v1 operations of absences, leave balances and holidays (issue 31, additive within v1): reads
 * need leave.read, writes leave.manage (permission 96; a person's own token may use it when the person
 * holds 96). Writes take Idempotency-Key and X-Service-Dry-Run; decisions also If-Match.
 */

const TAG = 'Absences';
const READ: ErrorName[] = ['invalid_token', 'insufficient_scope', 'validation_failed', 'rate_limited'];
const WRITE: ErrorName[] = [
  ...READ,
  'idempotency_in_flight',
  'idempotency_key_reused',
  'day_locked',
  ...BODY_ERRORS,
];

/** What the routes below share, made once per registration. */
function leaveRouteContext(app: TypeBoxApp) {
  const { services } = app;
  const guard = { ...services, limiter: services.resourceLimiter };
  return {
    ctx: services.ctx,
    cursors: services.cursors,
    read: { onRequest: authenticate(guard, 'leave.read') },
    manage: { onRequest: authenticate(guard, 'leave.manage') },
    readSchema: { tags: [TAG], security: bearerSecurity('leave.read') },
    manageSchema: { tags: [TAG], security: bearerSecurity('leave.manage') },
  };
}

type LeaveRouteContext = ReturnType<typeof leaveRouteContext>;

function companyOf(request: FastifyRequest) {
  const principal = requirePrincipal(request);
  return { companyId: principal.companyId, timeZone: principal.company.timeZone };
}

function listAbsenceTypesRoute(app: TypeBoxApp, { ctx, read, readSchema }: LeaveRouteContext) {
  app.get(
    '/absence-types',
    {
      ...read,
      schema: {
        ...readSchema,
        summary: "The company's absence types",
        operationId: 'listAbsenceTypes',
        description: 'Every absence type of the company, by code, with the rules it counts by.',
        response: { 200: described(AbsenceTypeListSchema, 'The absence types'), ...errorResponses(READ) },
      },
    },
    async (request) => listAbsenceTypes(ctx.database.db, companyOf(request).companyId),
  );
}

function listHolidaysRoute(app: TypeBoxApp, { ctx, read, readSchema }: LeaveRouteContext) {
  app.get(
    '/holidays',
    {
      ...read,
      schema: {
        ...readSchema,
        summary: "A workplace's public and company holidays",
        operationId: 'listHolidays',
        description:
          "The holidays of the workplace's region (computed offline; e.g. DE-BY, US-CA, FR) merged with the company's overrides " +
          '(added, removed or half days, for the company or the workplace): `workplaceId` required, `from`..`to` at most 366 days (default this calendar year).',
        querystring: HolidaysQuerySchema,
        response: {
          200: described(HolidayListSchema, 'The holidays, by date'),
          ...errorResponses([...READ, 'not_found']),
        },
      },
    },
    async (request) => listHolidays(ctx, companyOf(request), request.query),
  );
}

function leaveBalancesRoute(app: TypeBoxApp, { ctx, read, readSchema }: LeaveRouteContext) {
  app.get(
    '/leave-balances',
    {
      ...read,
      schema: {
        ...readSchema,
        summary: "An employee's leave balances of a year",
        operationId: 'listLeaveBalances',
        description:
          'Per type that deducts from the balance: entitlement (set for the year, else the yearly days prorated by whole months employed), ' +
          'carried over (last year’s remainder up to the type’s maximum, usable through its expiry day), taken (approved up to today), ' +
          'planned (approved later), requested (waiting) and remaining (entitlement + carried (unexpired) − taken − planned). Exactly one of `employeeId` / `externalId`.',
        querystring: LeaveBalancesQuerySchema,
        response: {
          200: described(LeaveBalancesSchema, 'The balances'),
          ...errorResponses([...READ, 'employee_not_found']),
        },
      },
    },
    async (request) => leaveBalances(ctx.database.db, ctx.now(), companyOf(request), request.query),
  );
}

function listAbsencesRoute(app: TypeBoxApp, { ctx, cursors, read, readSchema }: LeaveRouteContext) {
  app.get(
    '/absences',
    {
      ...read,
      schema: {
        ...readSchema,
        summary: 'List absences',
        operationId: 'listAbsences',
        description:
          'Absences touching `from`..`to` (at most 366 days; by default this calendar year), ordered by start date then id, cursor pages. ' +
          'Filter by one employee (`employeeId` or `externalId`), `status`, `typeCode`.',
        querystring: AbsencesQuerySchema,
        response: {
          200: described(AbsencePageSchema, 'A page of absences'),
          ...errorResponses([...READ, 'employee_not_found']),
        },
      },
    },
    async (request) => listAbsences(ctx, cursors, companyOf(request), request.query),
  );
}

function getAbsenceRoute(app: TypeBoxApp, { ctx, read, readSchema }: LeaveRouteContext) {
  app.get(
    '/absences/:id',
    {
      ...read,
      schema: {
        ...readSchema,
        summary: 'An absence',
        operationId: 'getAbsence',
        description: 'With an `ETag` of its version (send it as `If-Match` to decide on what you read).',
        params: AbsenceParamsSchema,
        response: {
          200: described(AbsenceSchema, 'The absence'),
          ...errorResponses([...READ, 'not_found']),
        },
      },
    },
    async (request, reply) => {
      const absence = await getAbsence(ctx.database.db, companyOf(request).companyId, request.params.id);
      reply.header('etag', etagOf(absence.version));
      return absence;
    },
  );
}

function createAbsenceRoute(app: TypeBoxApp, { ctx, manage, manageSchema }: LeaveRouteContext) {
  app.post(
    '/absences',
    {
      ...manage,
      schema: {
        ...manageSchema,
        summary: 'Request an absence',
        operationId: 'createAbsence',
        description:
          '`days` counts the employee’s working days in the range less holidays. A type that needs no approval is approved at once. ' +
          'Refusals: an overlapping requested or approved absence 409 `absence_overlaps`; beyond the balance of a deducting type without negative balances 409 `insufficient_balance`; ' +
          'a half day or hours over more than one day, an end before the start, a range without a working day 422 naming the field; a day the employee confirmed or of a closed payroll period 409 `day_locked`. ' +
          '`X-Service-Dry-Run: true` answers 200 with the absence it would create (id null) and `balanceAfter`.',
        headers: AbsenceWriteHeadersSchema,
        body: AbsenceCreateSchema,
        response: {
          200: described(AbsenceResultSchema, 'Dry run: what would be created (nothing is stored)'),
          201: described(AbsenceResultSchema, 'Requested (or approved at once)'),
          ...errorResponses([...WRITE, 'employee_not_found', 'absence_overlaps', 'insufficient_balance']),
        },
      },
    },
    async (request, reply) => {
      const dryRun = parseDryRun(request.headers);
      const caller = await callerOfPrincipal(ctx.database.db, requirePrincipal(request));
      return idempotentWrite(request, reply, { dryRun }, async (tx) => {
        const outcome = await createAbsence(tx, ctx.now(), caller, request.body, { dryRun });
        if (!dryRun) reply.header('etag', etagOf(outcome.body.version));
        return outcome;
      });
    },
  );
}

const DECISIONS: { decision: Decision; summary: string; withReason: boolean }[] = [
  { decision: 'approve', summary: 'Approve a requested absence', withReason: false },
  { decision: 'reject', summary: 'Reject a requested absence, with a reason', withReason: true },
  {
    decision: 'cancel',
    summary: 'Withdraw a requested absence or cancel an approved one, with a reason',
    withReason: true,
  },
];

async function decide(
  request: FastifyRequest,
  reply: FastifyReply,
  decision: Decision,
  id: string,
  reason: string | null,
) {
  const { ctx } = request.server.services;
  const dryRun = parseDryRun(request.headers);
  const ifMatch = parseIfMatch(request.headers);
  const caller = await callerOfPrincipal(ctx.database.db, requirePrincipal(request));
  return idempotentWrite(request, reply, { dryRun }, async (tx) => {
    const outcome = await decideAbsence(tx, ctx.now(), caller, id, decision, { reason, ifMatch, dryRun });
    if (!dryRun) reply.header('etag', etagOf(outcome.body.version));
    return outcome;
  });
}

const DECISION_ERRORS: ErrorName[] = [
  ...WRITE,
  'not_found',
  'version_mismatch',
  'own_entry',
  'invalid_status_transition',
];

function decideAbsenceRoute(
  app: TypeBoxApp,
  { manage, manageSchema }: LeaveRouteContext,
  { decision, summary, withReason }: (typeof DECISIONS)[number],
) {
  app.post(
    `/absences/:id/${decision}`,
    {
      ...manage,
      schema: {
        ...manageSchema,
        summary,
        operationId: `${decision}Absence`,
        description:
          'requested → approved | rejected | cancelled; approved → cancelled (also after it started). Another transition is 409 `invalid_status_transition`; ' +
          'a person deciding on their own absence 403 `own_entry` (withdrawing one’s own request is allowed); `If-Match` naming another version 412 `version_mismatch`.' +
          (decision === 'approve' ? ' Approving beyond the balance is 409 `insufficient_balance`.' : ''),
        params: AbsenceParamsSchema,
        headers: AbsenceWriteHeadersSchema,
        ...(withReason ? { body: ReasonBodySchema } : {}),
        response: {
          200: described(AbsenceResultSchema, 'The absence as decided (on a dry run: as it would be)'),
          ...errorResponses(
            decision === 'approve' ? [...DECISION_ERRORS, 'insufficient_balance'] : DECISION_ERRORS,
          ),
        },
      },
    },
    async (request, reply) => {
      const body = request.body as { reason?: string } | undefined;
      return decide(request, reply, decision, request.params.id, body?.reason ?? null);
    },
  );
}

export const absencePublicRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const context = leaveRouteContext(app);
  listAbsenceTypesRoute(app, context);
  listHolidaysRoute(app, context);
  leaveBalancesRoute(app, context);
  listAbsencesRoute(app, context);
  getAbsenceRoute(app, context);
  createAbsenceRoute(app, context);
  for (const decision of DECISIONS) decideAbsenceRoute(app, context, decision);
};
