import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ApiError, type ErrorName } from '../../domain/errors.js';
import { requirePermission } from '../../http/plugins/console-session.js';
import { type RouteContext, routeContext, type TypeBoxApp } from '../../http/route-context.js';
import { IdParamsSchema } from '../../http/schemas/common.js';
import { sessionErrors } from '../../http/schemas/responses.js';
import { PERMISSION_DECIDE_ENTRIES, PERMISSION_READ_ENTRIES } from '../auth/scopes.js';
import { actorOf, inTransaction } from '../context.js';
import type { ConsolePerson } from '../people/person.js';
import { ShiftBodySchema, TimeEntrySchema, WriteResultSchema } from '../time-tracking/schemas.js';
import { correctEntry } from './correct.js';
import { decideOnEntry } from './decisions.js';
import { deleteTimeEntry } from './delete.js';
import { addShiftFor } from './add-shift.js';
import { managerOfAdmin, parseIfMatch, readEntry } from './entry-access.js';
import { closePeriod, listPeriods, reopenPeriod } from './periods.js';
import { revisionsOf } from './revisions.js';
import {
  ClosePeriodBodySchema,
  CorrectionBodySchema,
  LockedPeriodListSchema,
  LockedPeriodSchema,
  ReasonBodySchema,
  RevisionListSchema,
} from './schemas.js';

/*
 * The console's operations of corrections (issue 30), on the same services as the public API.
 * Registered inside the admin API's guarded scope (app/admin-api-v1.ts): a console session, CSRF and
 * Origin on writes; permission 47 to read and 91 to change, only the person's own company. If-Match
 * is honoured as in the public API (412 version_mismatch).
 */

const READ = PERMISSION_READ_ENTRIES;
const MANAGE = PERMISSION_DECIDE_ENTRIES;
const CHANGE_ERRORS: ErrorName[] = [
  'forbidden',
  'not_found',
  'own_entry',
  'version_mismatch',
  'day_locked',
  'validation_failed',
];

const managerOf = (person: ConsolePerson) => managerOfAdmin(actorOf(person), person.companyId);

const AddShiftBodySchema = Type.Object(
  {
    ...ShiftBodySchema.properties,
    employee: Type.Object({ id: Type.String({ format: 'uuid' }) }, { additionalProperties: false }),
  },
  { additionalProperties: false },
);

function getEntryRoute(app: TypeBoxApp, { ctx }: RouteContext) {
  app.get(
    '/time-entries/:id',
    {
      schema: {
        summary: 'A time entry',
        operationId: 'getTimeEntry',
        description: 'The entry with its version (also the ETag). Permission 47.',
        tags: ['Time entries'],
        params: IdParamsSchema,
        response: { 200: TimeEntrySchema, ...sessionErrors(['forbidden', 'not_found']) },
      },
    },
    async (request, reply) => {
      const person = requirePermission(request, READ);
      const item = await readEntry(ctx.database.db, person.companyId, request.params.id);
      return reply.header('etag', `"${item.version}"`).send(item);
    },
  );
}

function entryRevisionsRoute(app: TypeBoxApp, { ctx }: RouteContext) {
  app.get(
    '/time-entries/:id/revisions',
    {
      schema: {
        summary: "A time entry's history",
        operationId: 'listTimeEntryRevisions',
        description: 'Who changed what, when and why, oldest first; also for a deleted entry. Permission 47.',
        tags: ['Time entries'],
        params: IdParamsSchema,
        response: { 200: RevisionListSchema, ...sessionErrors(['forbidden', 'not_found']) },
      },
    },
    async (request) => {
      const person = requirePermission(request, READ);
      const items = await revisionsOf(ctx.database.db, person.companyId, request.params.id.toLowerCase());
      if (items === null) throw new ApiError('not_found', 'no time entry with this id in your company');
      return { items };
    },
  );
}

function correctEntryRoute(app: TypeBoxApp, { ctx }: RouteContext) {
  app.patch(
    '/time-entries/:id',
    {
      schema: {
        summary: 'Correct a time entry',
        operationId: 'correctTimeEntry',
        description:
          'The public PATCH /time-entries/{id}: times, break, note, with a reason; If-Match honoured. Permission 91.',
        tags: ['Time entries'],
        params: IdParamsSchema,
        body: CorrectionBodySchema,
        response: {
          200: TimeEntrySchema,
          ...sessionErrors(
            [...CHANGE_ERRORS, 'overlaps_existing_entry', 'entry_too_old', 'business_rule_violation'],
            true,
          ),
        },
      },
    },
    async (request) => {
      const manager = managerOf(requirePermission(request, MANAGE));
      const ifMatch = parseIfMatch(request.headers['if-match']);
      return inTransaction(ctx, (tx, now) =>
        correctEntry(tx, now, manager, {
          entryId: request.params.id,
          body: request.body,
          ifMatch,
          dryRun: false,
        }),
      );
    },
  );
}

function deleteEntryRoute(app: TypeBoxApp, { ctx }: RouteContext) {
  app.delete(
    '/time-entries/:id',
    {
      schema: {
        summary: 'Delete a time entry',
        operationId: 'deleteTimeEntry',
        description: 'With a reason; its history stays. If-Match honoured. Permission 91.',
        tags: ['Time entries'],
        params: IdParamsSchema,
        body: ReasonBodySchema,
        response: {
          204: { type: 'null', description: 'Deleted' },
          ...sessionErrors([...CHANGE_ERRORS, 'entry_too_old'], true),
        },
      },
    },
    async (request, reply) => {
      const manager = managerOf(requirePermission(request, MANAGE));
      const ifMatch = parseIfMatch(request.headers['if-match']);
      await inTransaction(ctx, (tx, now) =>
        deleteTimeEntry(tx, now, manager, {
          entryId: request.params.id,
          reason: request.body.reason,
          ifMatch,
          dryRun: false,
        }),
      );
      return reply.code(204).send();
    },
  );
}

function reopenEntryRoute(app: TypeBoxApp, { ctx }: RouteContext) {
  app.post(
    '/time-entries/:id/reopen',
    {
      schema: {
        summary: 'Reopen a decided time entry',
        operationId: 'reopenTimeEntry',
        description:
          'An approved or rejected entry back to pending_approval, with a reason. If-Match honoured. Permission 91.',
        tags: ['Time entries'],
        params: IdParamsSchema,
        body: ReasonBodySchema,
        response: {
          200: TimeEntrySchema,
          ...sessionErrors([...CHANGE_ERRORS, 'invalid_status_transition'], true),
        },
      },
    },
    async (request) => {
      const manager = managerOf(requirePermission(request, MANAGE));
      const input = {
        entryId: request.params.id,
        decision: 'reopen' as const,
        reason: request.body.reason.trim(),
        ifMatch: parseIfMatch(request.headers['if-match']),
        dryRun: false,
      };
      return inTransaction(ctx, (tx, now) => decideOnEntry(tx, now, manager, input));
    },
  );
}

function addShiftRoute(app: TypeBoxApp, { ctx }: RouteContext) {
  app.post(
    '/time-entries',
    {
      schema: {
        summary: 'Add a missing shift',
        operationId: 'addShift',
        description:
          "The public POST /time-entries for an employee of the person's company, by the person; not for the employee " +
          'the person is linked to (403 own_entry); 403 time_tracking_disabled while the company has time tracking off. Permission 91.',
        tags: ['Time entries'],
        body: AddShiftBodySchema,
        response: {
          201: WriteResultSchema,
          ...sessionErrors(
            [
              'forbidden',
              'own_entry',
              'time_tracking_disabled',
              'employee_not_found',
              'overlaps_existing_entry',
              'day_locked',
              'business_rule_violation',
              'validation_failed',
            ],
            true,
          ),
        },
      },
    },
    async (request, reply) => {
      const person = requirePermission(request, MANAGE);
      const outcome = await inTransaction(ctx, (tx, now) => addShiftFor(tx, now, person, request.body));
      return reply.code(201).send(outcome.body);
    },
  );
}

function listPeriodsRoute(app: TypeBoxApp, { ctx }: RouteContext) {
  app.get(
    '/locked-periods',
    {
      schema: {
        summary: 'Closed periods',
        operationId: 'listLockedPeriods',
        description: "The company's closed periods, by first day. Permission 47.",
        tags: ['Timesheets'],
        response: { 200: LockedPeriodListSchema, ...sessionErrors(['forbidden']) },
      },
    },
    async (request) => listPeriods(ctx.database.db, requirePermission(request, READ).companyId),
  );
}

function closePeriodRoute(app: TypeBoxApp, { ctx }: RouteContext) {
  app.post(
    '/locked-periods',
    {
      schema: {
        summary: 'Close a period',
        operationId: 'closePeriod',
        description: 'No write may land on its days until it is reopened. Permission 91.',
        tags: ['Timesheets'],
        body: ClosePeriodBodySchema,
        response: { 201: LockedPeriodSchema, ...sessionErrors(['forbidden', 'validation_failed'], true) },
      },
    },
    async (request, reply) => {
      const person = requirePermission(request, MANAGE);
      const manager = { ...managerOf(person), companyId: person.companyId };
      const period = await inTransaction(ctx, (tx, now) =>
        closePeriod(tx, now, manager, request.body, { dryRun: false }),
      );
      return reply.code(201).send(period);
    },
  );
}

function reopenPeriodRoute(app: TypeBoxApp, { ctx }: RouteContext) {
  app.delete(
    '/locked-periods/:id',
    {
      schema: {
        summary: 'Reopen a period',
        operationId: 'reopenPeriod',
        description: 'With a reason: its days take writes again. Permission 91.',
        tags: ['Timesheets'],
        params: IdParamsSchema,
        body: ReasonBodySchema,
        response: {
          200: LockedPeriodSchema,
          ...sessionErrors(['forbidden', 'not_found', 'validation_failed'], true),
        },
      },
    },
    async (request) => {
      const manager = managerOf(requirePermission(request, MANAGE));
      const input = { periodId: request.params.id, reason: request.body.reason };
      return inTransaction(ctx, (tx, now) => reopenPeriod(tx, now, manager, input, { dryRun: false }));
    },
  );
}

/** The admin API's corrections and closed periods (issue 30). */
export const correctionAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const context = routeContext(app);
  getEntryRoute(app, context);
  entryRevisionsRoute(app, context);
  correctEntryRoute(app, context);
  deleteEntryRoute(app, context);
  reopenEntryRoute(app, context);
  addShiftRoute(app, context);
  listPeriodsRoute(app, context);
  closePeriodRoute(app, context);
  reopenPeriodRoute(app, context);
};
