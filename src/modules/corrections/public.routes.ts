import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../http/services.js';
import type { FastifyReply, FastifyRequest, FastifySchemaCompiler } from 'fastify';
import { authenticate, requirePrincipal, requireTimeTracking } from '../../http/plugins/authenticate.js';
import { idempotentWrite } from '../../http/plugins/idempotency.js';
import { bearerSecurity } from '../../http/plugins/openapi.js';
import { described, WriteHeadersSchema } from '../../http/schemas/common.js';
import { BODY_ERRORS, errorResponses } from '../../http/schemas/responses.js';
import { validatorCompiler } from '../../http/validation.js';
import { parseDryRun } from '../../http/write-headers.js';
import { type TypeBoxApp } from '../../http/route-context.js';
import { correctEntry } from './correct.js';
import { type Decision, decideOnEntry } from './decisions.js';
import { deleteTimeEntry } from './delete.js';
import { managerOfPrincipal, parseIfMatch, readEntry } from './entry-access.js';
import { revisionsOf } from './revisions.js';
import { closePeriod, listPeriods, reopenPeriod } from './periods.js';
import {
  ApproveBodySchema,
  ChangeHeadersSchema,
  ClosePeriodBodySchema,
  CorrectionBodySchema,
  EntryIdParamsSchema,
  EntryWithETag,
  LockedPeriodListSchema,
  LockedPeriodSchema,
  PeriodIdParamsSchema,
  ReasonBodySchema,
  RevisionListSchema,
} from './schemas.js';
import { ApiError, type ErrorName } from '../../domain/errors.js';

/** Errors of every change of an entry (besides the bearer-token ones). */
const CHANGE_ERRORS: ErrorName[] = [
  'insufficient_scope',
  'time_tracking_disabled',
  'own_entry',
  'not_found',
  'invalid_status_transition',
  'day_locked',
  'idempotency_in_flight',
  'version_mismatch',
  'validation_failed',
  'idempotency_key_reused',
  ...BODY_ERRORS,
];

const DECISIONS: Record<Decision, { summary: string; description: string }> = {
  approve: {
    summary: 'Approve a time entry',
    description:
      'A `pending_approval` entry becomes `approved` (`approvedAt` set); any other status is 409 invalid_status_transition. An optional `note` is kept with the revision.',
  },
  reject: {
    summary: 'Reject a time entry',
    description:
      'A `pending_approval` entry becomes `rejected`, with a `reason`; any other status is 409 invalid_status_transition.',
  },
  reopen: {
    summary: 'Reopen a decided time entry',
    description:
      'An `approved` or `rejected` entry goes back to `pending_approval` (`approvedAt` null), with a `reason`; any other status is 409 invalid_status_transition.',
  },
};

const COMMON =
  ' Scope attendance.manage. `If-Match` (the ETag of GET /time-entries/{id}) makes it conditional: a stale version is 412 version_mismatch and changes nothing. ' +
  "A person linked to the entry's employee gets 403 own_entry; a day in a closed period 409 day_locked. Takes `Idempotency-Key` and `X-Service-Dry-Run` (a dry run answers what the change would give).";

/** The ETag of an answer carrying an entry: its version, quoted (also on a replayed answer). */
async function etagOfEntry(_request: FastifyRequest, reply: FastifyReply, payload: unknown) {
  if (reply.statusCode === 200 && typeof payload === 'string') {
    const version = /"version":(\d+)/.exec(payload)?.[1];
    if (version !== undefined) reply.header('etag', `"${version}"`);
  }
  return payload;
}

/** A body that may be left out (then `{}`): the approval's optional note. */
const optionalBody: FastifySchemaCompiler<unknown> = (route) => {
  const validate = validatorCompiler(route);
  if (route.httpPart !== 'body') return validate;
  return (data: unknown) => (data === null ? { value: {} } : validate(data));
};

/** Route guards of this room: a token with the scope, the rate limit. */
function guards(services: Services) {
  const deps = { ...services, limiter: services.resourceLimiter };
  return { read: authenticate(deps, 'attendance.read'), manage: authenticate(deps, 'attendance.manage') };
}

const READ_ERRORS: ErrorName[] = [
  'insufficient_scope',
  'time_tracking_disabled',
  'not_found',
  'validation_failed',
];

function getEntryRoute(app: TypeBoxApp): void {
  const { services } = app;
  const { read } = guards(services);
  app.get(
    '/time-entries/:id',
    {
      onRequest: read,
      onSend: etagOfEntry,
      schema: {
        summary: 'Read one time entry',
        operationId: 'getTimeEntry',
        description:
          "The entry as the list has it, with its `version`, also as the ETag header (send it as If-Match on a change). Another company's, an unknown or a deleted id: 404.",
        tags: ['Time tracking'],
        security: bearerSecurity('attendance.read'),
        params: EntryIdParamsSchema,
        response: { 200: EntryWithETag('The time entry'), ...errorResponses(READ_ERRORS) },
      },
    },
    async (request) => {
      const principal = requirePrincipal(request);
      requireTimeTracking(principal);
      return readEntry(services.ctx.database.db, principal.companyId, request.params.id);
    },
  );
}

function entryRevisionsRoute(app: TypeBoxApp): void {
  const { services } = app;
  const { read } = guards(services);
  app.get(
    '/time-entries/:id/revisions',
    {
      onRequest: read,
      schema: {
        summary: "A time entry's history",
        operationId: 'listTimeEntryRevisions',
        description:
          "The recording of the entry (revision 1, the values as they were sent) and every change after it, oldest first: who, when, why, and each field before and after. Also for a deleted entry. Another company's or an unknown id: 404.",
        tags: ['Time tracking'],
        security: bearerSecurity('attendance.read'),
        params: EntryIdParamsSchema,
        response: {
          200: described(RevisionListSchema, "The entry's revisions, oldest first"),
          ...errorResponses(READ_ERRORS),
        },
      },
    },
    async (request) => {
      const principal = requirePrincipal(request);
      requireTimeTracking(principal);
      const items = await revisionsOf(
        services.ctx.database.db,
        principal.companyId,
        request.params.id.toLowerCase(),
      );
      if (items === null)
        throw new ApiError('not_found', `no time entry ${request.params.id} in this company`);
      return { items };
    },
  );
}

/** What every change of this room reads from the request: the principal, dry run, If-Match. */
function changeOf(request: FastifyRequest) {
  const principal = requirePrincipal(request);
  requireTimeTracking(principal);
  return {
    manager: managerOfPrincipal(principal),
    dryRun: parseDryRun(request.headers),
    ifMatch: parseIfMatch(request.headers['if-match']),
  };
}

function decisionRoute(app: TypeBoxApp, decision: Decision): void {
  const { services } = app;
  app.post(
    `/time-entries/:id/${decision}`,
    {
      onRequest: guards(services).manage,
      onSend: etagOfEntry,
      ...(decision === 'approve' ? { validatorCompiler: optionalBody } : {}),
      schema: {
        summary: DECISIONS[decision].summary,
        operationId: `${decision}TimeEntry`,
        description: DECISIONS[decision].description + COMMON,
        tags: ['Time tracking'],
        security: bearerSecurity('attendance.manage'),
        headers: ChangeHeadersSchema,
        params: EntryIdParamsSchema,
        body: decision === 'approve' ? ApproveBodySchema : ReasonBodySchema,
        ...(decision === 'approve' ? { 'x-optional-body': true } : {}),
        response: { 200: EntryWithETag('The entry after the decision'), ...errorResponses(CHANGE_ERRORS) },
      },
    },
    async (request, reply) => {
      const { manager, dryRun, ifMatch } = changeOf(request);
      const body = (request.body ?? {}) as { note?: string; reason?: string };
      const sent = (body.reason ?? body.note)?.trim();
      // A blank note of an approval is none; a blank reason is refused (422).
      const reason = decision === 'approve' ? sent || null : (sent ?? '');
      return idempotentWrite(request, reply, { dryRun }, async (tx) => ({
        status: 200,
        body: await decideOnEntry(tx, services.ctx.now(), manager, {
          entryId: request.params.id,
          decision,
          reason,
          ifMatch,
          dryRun,
        }),
      }));
    },
  );
}

function correctEntryRoute(app: TypeBoxApp): void {
  const { services } = app;
  app.patch(
    '/time-entries/:id',
    {
      onRequest: guards(services).manage,
      onSend: etagOfEntry,
      schema: {
        summary: 'Correct a time entry',
        operationId: 'correctTimeEntry',
        description:
          'Changes `clockIn`, `clockOut`, the break (`breakMinutes`, or `breaks` for an entry of the time clock) and the `note`, with a `reason`. A `clockOut` on an open session closes it (`pending_approval`). ' +
          'Every rule of POST /time-entries holds for the result (under 24 hours, net at least 15 minutes, no overlap, the old and new days open, the time-zone rule) except the 30-day and 5-minute windows; ' +
          'entries older than 400 days (before or after the change) are 409 entry_too_old; as for POST /time-entries, the employee needs a workplace and a schedule in force on the new work date (409 business_rule_violation). An approved or rejected entry that is changed goes back to `pending_approval`.' +
          COMMON,
        tags: ['Time tracking'],
        security: bearerSecurity('attendance.manage'),
        headers: ChangeHeadersSchema,
        params: EntryIdParamsSchema,
        body: CorrectionBodySchema,
        response: {
          200: EntryWithETag('The entry after the correction'),
          ...errorResponses([
            ...CHANGE_ERRORS,
            'overlaps_existing_entry',
            'entry_too_old',
            'business_rule_violation',
          ]),
        },
      },
    },
    async (request, reply) => {
      const { manager, dryRun, ifMatch } = changeOf(request);
      return idempotentWrite(request, reply, { dryRun }, async (tx) => ({
        status: 200,
        body: await correctEntry(tx, services.ctx.now(), manager, {
          entryId: request.params.id,
          body: request.body,
          ifMatch,
          dryRun,
        }),
      }));
    },
  );
}

function deleteEntryRoute(app: TypeBoxApp): void {
  const { services } = app;
  app.delete(
    '/time-entries/:id',
    {
      onRequest: guards(services).manage,
      schema: {
        summary: 'Delete a time entry',
        operationId: 'deleteTimeEntry',
        description:
          'Removes the entry from every list and report, with a `reason`; it stays readable through its revisions (GET /time-entries/{id}/revisions). Entries older than 400 days are 409 entry_too_old.' +
          COMMON,
        tags: ['Time tracking'],
        security: bearerSecurity('attendance.manage'),
        headers: ChangeHeadersSchema,
        params: EntryIdParamsSchema,
        body: ReasonBodySchema,
        response: {
          204: { type: 'null', description: 'Deleted (on a dry run: it would be)' },
          ...errorResponses([
            ...CHANGE_ERRORS.filter((e) => e !== 'invalid_status_transition'),
            'entry_too_old',
          ]),
        },
      },
    },
    async (request, reply) => {
      const { manager, dryRun, ifMatch } = changeOf(request);
      return idempotentWrite(request, reply, { dryRun }, async (tx) => {
        const input = { entryId: request.params.id, reason: request.body.reason, ifMatch, dryRun };
        await deleteTimeEntry(tx, services.ctx.now(), manager, input);
        return { status: 204, body: null };
      });
    },
  );
}

function closePeriodRoute(app: TypeBoxApp): void {
  const { services } = app;
  const { manage } = guards(services);
  app.post(
    '/locked-periods',
    {
      onRequest: manage,
      schema: {
        summary: 'Close a period',
        operationId: 'closePeriod',
        description:
          'Closes the days `from`..`to` (at most 92 days after `from`) for payroll, for the whole company or one workplace: while closed, every write landing on them (punches, shifts, batches, corrections, decisions) is 409 day_locked. ' +
          'Scope attendance.manage. Takes `Idempotency-Key` and `X-Service-Dry-Run`.',
        tags: ['Time tracking'],
        security: bearerSecurity('attendance.manage'),
        headers: WriteHeadersSchema,
        body: ClosePeriodBodySchema,
        response: {
          200: described(LockedPeriodSchema, 'Dry run: the period it would be; nothing stored'),
          201: described(LockedPeriodSchema, 'Closed'),
          ...errorResponses(CHANGE_ERRORS.filter((e) => !ENTRY_ONLY.includes(e))),
        },
      },
    },
    async (request, reply) => {
      const { manager, dryRun } = changeOf(request);
      const company = { ...manager, companyId: manager.companyId! };
      return idempotentWrite(request, reply, { dryRun }, async (tx) => ({
        status: dryRun ? 200 : 201,
        body: await closePeriod(tx, services.ctx.now(), company, request.body, { dryRun }),
      }));
    },
  );
}

function listPeriodsRoute(app: TypeBoxApp): void {
  const { services } = app;
  const { read } = guards(services);
  app.get(
    '/locked-periods',
    {
      onRequest: read,
      schema: {
        summary: 'Closed periods',
        operationId: 'listLockedPeriods',
        description: "The company's closed periods (not reopened), by first day. Scope attendance.read.",
        tags: ['Time tracking'],
        security: bearerSecurity('attendance.read'),
        response: {
          200: described(LockedPeriodListSchema, 'The closed periods'),
          ...errorResponses(['insufficient_scope', 'time_tracking_disabled']),
        },
      },
    },
    async (request) => {
      const principal = requirePrincipal(request);
      requireTimeTracking(principal);
      return listPeriods(services.ctx.database.db, principal.companyId);
    },
  );
}

function reopenPeriodRoute(app: TypeBoxApp): void {
  const { services } = app;
  const { manage } = guards(services);
  app.delete(
    '/locked-periods/:id',
    {
      onRequest: manage,
      schema: {
        summary: 'Reopen a period',
        operationId: 'reopenPeriod',
        description:
          'Reopens a closed period, with a `reason`: its days take writes again. Scope attendance.manage. Takes `Idempotency-Key` and `X-Service-Dry-Run`.',
        tags: ['Time tracking'],
        security: bearerSecurity('attendance.manage'),
        headers: WriteHeadersSchema,
        params: PeriodIdParamsSchema,
        body: ReasonBodySchema,
        response: {
          204: { type: 'null', description: 'Reopened (on a dry run: it would be)' },
          ...errorResponses([...CHANGE_ERRORS.filter((e) => !ENTRY_ONLY.includes(e)), 'not_found']),
        },
      },
    },
    async (request, reply) => {
      const { manager, dryRun } = changeOf(request);
      return idempotentWrite(request, reply, { dryRun }, async (tx) => {
        const input = { periodId: request.params.id, reason: request.body.reason };
        await reopenPeriod(tx, services.ctx.now(), manager, input, { dryRun });
        return { status: 204, body: null };
      });
    },
  );
}

/** Errors only a change of an entry meets. */
const ENTRY_ONLY: ErrorName[] = [
  'own_entry',
  'not_found',
  'invalid_status_transition',
  'day_locked',
  'version_mismatch',
];

/**
 * The v1 operations of corrections (issue 30): one entry, its decisions, corrections, deletion and
 * history; closed periods.
 */
export const correctionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  getEntryRoute(app);
  entryRevisionsRoute(app);
  for (const decision of ['approve', 'reject', 'reopen'] as const) decisionRoute(app, decision);
  correctEntryRoute(app);
  deleteEntryRoute(app);
  closePeriodRoute(app);
  listPeriodsRoute(app);
  reopenPeriodRoute(app);
};
