import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from '@sinclair/typebox';
import { ApiError, type ErrorName } from '../../domain/errors.js';
import { idempotentWrite } from '../../http/plugins/idempotency.js';
import { requirePerson } from '../../http/plugins/console-session.js';
import { type RouteContext, routeContext, type TypeBoxApp } from '../../http/route-context.js';
import { IdParamsSchema } from '../../http/schemas/common.js';
import { sessionErrors } from '../../http/schemas/responses.js';
import { createAbsence, employeeAbsences, getAbsence } from '../absences/absences.js';
import { callerOfPerson } from '../absences/actors.js';
import { decideAbsence } from '../absences/decisions.js';
import { leaveBalances } from '../absences/leave.js';
import { AbsenceResultSchema, AbsenceSchema, LeaveBalancesSchema } from '../absences/schemas.js';
import { inTransaction } from '../context.js';
import { listTimeEntries } from '../time-tracking/entries.js';
import { PUNCH_REFUSALS, TimeEntryPageSchema, WriteResultSchema } from '../time-tracking/schemas.js';
import { AdminTimesheetPageSchema } from '../timesheets/schemas.js';
import { timesheetsOf } from '../timesheets/service.js';
import {
  fileCorrectionRequest,
  ownCorrectionRequests,
  withdrawCorrectionRequest,
} from './correction-requests.js';
import {
  CorrectionRequestBodySchema,
  CorrectionRequestListSchema,
  CorrectionRequestSchema,
  OwnRequestsQuerySchema,
  SelfAbsenceBodySchema,
  SelfEntriesQuerySchema,
  SelfRangeQuerySchema,
  SelfSchema,
  SelfYearQuerySchema,
  WebClockBodySchema,
} from './schemas.js';
import { assertWebClockAllowed, principalOfSelf, requireSelf, requireWritingSelf, todayOf } from './self.js';
import { browserClockOffset, punch, recordRefusedOfflinePunch, selfToday } from './web-clock.js';

/*
 * Self-service in the console (issue 35): a person linked to an employee, with or without
 * permissions, sees and changes only that employee's data. No route here takes an employee id: the
 * employee is the session's person's, read from the database on every request (403 not_an_employee
 * for a person without one, or whose employee was deleted). Ids in paths (absences, correction
 * requests) are looked up within that employee only: another employee's id is 404, as an unknown one.
 * Writes carry the console's CSRF token and Origin (the guard of app/admin-api-v1.ts).
 */

const TAG = ['Self-service'];
const SELF: ErrorName[] = ['not_an_employee'];
/** A write's refusals of the caller: no employee, or one who does not work (terminated, suspended, inactive). */
const WRITER: ErrorName[] = [...SELF, 'employee_not_active'];
const year = (query: { year?: number }, today: string) => query.year ?? Number(today.slice(0, 4));

function selfRoute(app: TypeBoxApp, { services, ctx }: RouteContext) {
  app.get(
    '/self',
    {
      schema: {
        summary: 'Who I am, today',
        operationId: 'getSelf',
        description:
          "The employee the signed-in person is, today's state (clocked in, on a break, since) and net hours, and whether the web clock is on and allowed from this address.",
        tags: TAG,
        response: { 200: SelfSchema, ...sessionErrors(SELF) },
      },
    },
    async (request) => {
      const self = await requireSelf(ctx.database.db, requirePerson(request));
      return selfToday(ctx, services.cursors, self, request.ip);
    },
  );
}

function webClockRoute(app: TypeBoxApp, { ctx }: RouteContext) {
  app.post(
    '/self/clock',
    {
      schema: {
        summary: 'Punch on the web clock',
        operationId: 'punchWebClock',
        description:
          "Clock in, start or end a break, clock out, for the employee the person is: POST /time-clock/events' rules, recorded with source `web_clock` and the person as actor. Send each punch with its own Idempotency-Key: a retry with the same key answers the stored result. `occurredAt` (the moment of the punch; default now: a live punch omits it, only a punch that waited in the browser's queue sends it) is judged after correcting it by the browser's measured clock offset (server time minus `X-Device-Clock`): at most 2 minutes ahead of the server's time and at most 12 hours behind it (else `422 validation_failed`, code `not_live`); more than 2 minutes old it is an offline punch and its entry carries `reviewFlags: [\"offline_punch\"]`, and an offset of more than 2 minutes adds `device_clock_skew` (in the entry's events too). A workplace with address ranges accepts only live punches (`occurredAt` within 2 minutes, else `422 not_live`): the range must hold at the moment of the punch. A final refusal of a punch more than 2 minutes old is written once per key to the audit log (`time_entry.punch_refused`). Refused for an employee who is not active or on leave (403 employee_not_active), while the company's web clock is off (403 web_clock_disabled) or from an address outside the workplace's ranges (403 address_not_allowed).",
        tags: TAG,
        headers: Type.Object({
          'idempotency-key': Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 128,
              description: 'A fresh key per punch: a retry with the same key answers the stored result.',
            }),
          ),
          'x-device-clock': Type.Optional(
            Type.String({
              maxLength: 64,
              description:
                'The browser\'s own clock at the moment it sends (RFC 3339 date-time): `occurredAt` is judged corrected by the offset (server time minus this). More than 2 minutes off the server\'s time: the entry the punch stores carries `reviewFlags: ["device_clock_skew"]`. Not recorded otherwise.',
            }),
          ),
        }),
        body: WebClockBodySchema,
        response: {
          200: WriteResultSchema,
          201: WriteResultSchema,
          ...sessionErrors(
            [
              ...WRITER,
              'time_tracking_disabled',
              'web_clock_disabled',
              'address_not_allowed',
              'employee_not_found',
              'validation_failed',
              ...PUNCH_REFUSALS,
              'idempotency_in_flight',
              'idempotency_key_reused',
            ],
            true,
          ),
        },
      },
    },
    async (request, reply) => {
      const person = requirePerson(request);
      const self = await requireWritingSelf(ctx.database.db, person);
      assertWebClockAllowed(self, request.ip);
      const clockOffsetMs = browserClockOffset(request.headers['x-device-clock'], ctx.now());
      return idempotentWrite(
        request,
        reply,
        {
          dryRun: false,
          owner: { companyId: person.companyId, id: person.id },
          // A queued (offline) punch refused for good is kept for the administrator (audit log).
          onRefused: (tx, error) =>
            recordRefusedOfflinePunch(tx, ctx.now(), self, person, request.body, {
              clockOffsetMs,
              error: error.errorName,
              idempotencyKey: request.headers['idempotency-key'] as string,
            }),
        },
        (tx, options) => punch(tx, ctx.now(), self, request.body, { ...options, clockOffsetMs }),
      );
    },
  );
}

function entriesRoute(app: TypeBoxApp, { services, ctx }: RouteContext) {
  app.get(
    '/self/time-entries',
    {
      schema: {
        summary: 'My time entries',
        operationId: 'listOwnTimeEntries',
        description:
          "The entries of the employee the person is, worked from..to (at most 92 days), 100 a page: send the page's `nextCursor` as `cursor` for the next.",
        tags: TAG,
        querystring: SelfEntriesQuerySchema,
        response: { 200: TimeEntryPageSchema, ...sessionErrors([...SELF, 'validation_failed']) },
      },
    },
    async (request) => {
      const self = await requireSelf(ctx.database.db, requirePerson(request));
      return listTimeEntries(ctx, services.cursors, principalOfSelf(self), {
        employeeId: self.employee.id,
        from: request.query.from,
        to: request.query.to,
        ...(request.query.cursor !== undefined ? { cursor: request.query.cursor } : {}),
        limit: 100,
      });
    },
  );
  app.get(
    '/self/timesheet',
    {
      schema: {
        summary: 'My timesheet',
        operationId: 'getOwnTimesheet',
        description:
          "The timesheet of the employee the person is, from..to (a week, say): every day's hours.",
        tags: TAG,
        querystring: SelfRangeQuerySchema,
        response: { 200: AdminTimesheetPageSchema, ...sessionErrors([...SELF, 'validation_failed']) },
      },
    },
    async (request) => {
      const person = requirePerson(request);
      const self = await requireSelf(ctx.database.db, person);
      // Day statuses are a Record<string, number> (they may grow), as the Timesheets screen's route has it.
      return (await timesheetsOf(ctx, services.cursors, person, {
        employeeId: self.employee.id,
        from: request.query.from,
        to: request.query.to,
        status: 'all',
        days: 'all',
      })) as unknown as Static<typeof AdminTimesheetPageSchema>;
    },
  );
}

function absenceReadRoutes(app: TypeBoxApp, { ctx }: RouteContext) {
  app.get(
    '/self/absences',
    {
      schema: {
        summary: 'My absences',
        operationId: 'listOwnAbsences',
        description: 'The absences of the employee the person is, touching the year (default this year).',
        tags: TAG,
        querystring: SelfYearQuerySchema,
        response: {
          200: Type.Object({ items: Type.Array(AbsenceSchema) }),
          ...sessionErrors([...SELF, 'validation_failed']),
        },
      },
    },
    async (request) => {
      const person = requirePerson(request);
      const self = await requireSelf(ctx.database.db, person);
      const caller = await callerOfPerson(ctx.database.db, person);
      const y = year(request.query, todayOf(self, ctx.now()));
      return employeeAbsences(ctx, caller, {
        employeeId: self.employee.id,
        from: `${y}-01-01`,
        to: `${y}-12-31`,
      });
    },
  );
  app.get(
    '/self/leave-balances',
    {
      schema: {
        summary: 'My leave balances',
        operationId: 'getOwnLeaveBalances',
        description: 'One balance per type that deducts from the balance, of the employee the person is.',
        tags: TAG,
        querystring: SelfYearQuerySchema,
        response: { 200: LeaveBalancesSchema, ...sessionErrors([...SELF, 'validation_failed']) },
      },
    },
    async (request) => {
      const person = requirePerson(request);
      const self = await requireSelf(ctx.database.db, person);
      return leaveBalances(
        ctx.database.db,
        ctx.now(),
        { companyId: person.companyId, timeZone: person.company.timeZone },
        {
          employeeId: self.employee.id,
          ...(request.query.year !== undefined ? { year: request.query.year } : {}),
        },
      );
    },
  );
}

function absenceWriteRoutes(app: TypeBoxApp, { ctx }: RouteContext) {
  app.post(
    '/self/absences',
    {
      schema: {
        summary: 'Request an absence',
        operationId: 'requestOwnAbsence',
        description:
          "POST /absences' rules for the employee the person is: the working days counted, overlaps, locked days and the balance refused as there. A type that needs no approval is approved at once.",
        tags: TAG,
        body: SelfAbsenceBodySchema,
        response: {
          201: AbsenceResultSchema,
          ...sessionErrors(
            [...WRITER, 'validation_failed', 'absence_overlaps', 'day_locked', 'insufficient_balance'],
            true,
          ),
        },
      },
    },
    async (request, reply) => {
      const person = requirePerson(request);
      const self = await requireWritingSelf(ctx.database.db, person);
      const caller = await callerOfPerson(ctx.database.db, person);
      const result = await inTransaction(ctx, (tx, now) =>
        createAbsence(
          tx,
          now,
          caller,
          { ...request.body, employee: { id: self.employee.id } },
          { dryRun: false },
        ),
      );
      return reply.code(201).send(result.body);
    },
  );
  app.post(
    '/self/absences/:id/withdraw',
    {
      schema: {
        summary: 'Withdraw my absence request',
        operationId: 'withdrawOwnAbsence',
        description:
          'A requested absence of the employee the person is goes to cancelled. Another employee’s id: 404.',
        tags: TAG,
        params: IdParamsSchema,
        response: {
          200: AbsenceResultSchema,
          ...sessionErrors([...WRITER, 'not_found', 'invalid_status_transition', 'own_entry'], true),
        },
      },
    },
    async (request) => {
      const person = requirePerson(request);
      const self = await requireWritingSelf(ctx.database.db, person);
      const absence = await getAbsence(ctx.database.db, person.companyId, request.params.id).catch(
        () => null,
      );
      if (absence === null || absence.employee.id !== self.employee.id)
        throw new ApiError('not_found', `no absence ${request.params.id} of yours`);
      const caller = await callerOfPerson(ctx.database.db, person);
      if (absence.status !== 'requested')
        throw new ApiError(
          'invalid_status_transition',
          `the absence is ${absence.status}: only a requested one can be withdrawn here`,
        );
      const result = await inTransaction(ctx, (tx, now) =>
        decideAbsence(tx, now, caller, absence.id, 'cancel', { reason: null, ifMatch: null, dryRun: false }),
      );
      return result.body;
    },
  );
}

function correctionRequestRoutes(app: TypeBoxApp, { services, ctx }: RouteContext) {
  app.get(
    '/self/correction-requests',
    {
      schema: {
        summary: 'My correction requests',
        operationId: 'listOwnCorrectionRequests',
        description: "Newest first, 100 a page: send the page's `nextCursor` as `cursor` for the next.",
        tags: TAG,
        querystring: OwnRequestsQuerySchema,
        response: { 200: CorrectionRequestListSchema, ...sessionErrors([...SELF, 'validation_failed']) },
      },
    },
    async (request) =>
      ownCorrectionRequests(
        ctx.database.db,
        services.cursors,
        await requireSelf(ctx.database.db, requirePerson(request)),
        request.query.cursor,
      ),
  );
  app.post(
    '/self/correction-requests',
    {
      schema: {
        summary: 'Request a correction',
        operationId: 'fileCorrectionRequest',
        description:
          "On an entry of the employee the person is (another employee's entry: 404), or for a missing one (`timeEntryId` null, `date` and both times required). The rules of a manager's correction are checked at once (a dry run): overlaps, locked days, entries older than 400 days, the times themselves. One waiting request per entry (409 correction_request_open).",
        tags: TAG,
        body: CorrectionRequestBodySchema,
        response: {
          201: CorrectionRequestSchema,
          ...sessionErrors(
            [
              ...WRITER,
              'not_found',
              'validation_failed',
              'correction_request_open',
              'overlaps_existing_entry',
              'entry_too_old',
              'day_locked',
              'business_rule_violation',
              'employee_not_found',
            ],
            true,
          ),
        },
      },
    },
    async (request, reply) => {
      const self = await requireWritingSelf(ctx.database.db, requirePerson(request));
      const view = await inTransaction(ctx, (tx, now) => fileCorrectionRequest(tx, now, self, request.body));
      return reply.code(201).send(view);
    },
  );
  app.post(
    '/self/correction-requests/:id/withdraw',
    {
      schema: {
        summary: 'Withdraw my correction request',
        operationId: 'withdrawCorrectionRequest',
        description: "A waiting request of the employee the person is; another employee's id: 404.",
        tags: TAG,
        params: IdParamsSchema,
        response: {
          200: CorrectionRequestSchema,
          ...sessionErrors([...WRITER, 'not_found', 'invalid_status_transition'], true),
        },
      },
    },
    async (request) => {
      const self = await requireWritingSelf(ctx.database.db, requirePerson(request));
      return inTransaction(ctx, (tx, now) => withdrawCorrectionRequest(tx, now, self, request.params.id));
    },
  );
}

/** The admin API's self-service routes (issue 35). */
export const selfServiceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const context = routeContext(app);
  selfRoute(app, context);
  webClockRoute(app, context);
  entriesRoute(app, context);
  absenceReadRoutes(app, context);
  absenceWriteRoutes(app, context);
  correctionRequestRoutes(app, context);
};
