import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from '@sinclair/typebox';
import type { Tx } from '../../platform/db/database.js';
import { ApiError, type FieldError, validationError } from '../../domain/errors.js';
import { API_PREFIX } from '../../http/paths.js';
import { authenticate, requirePrincipal, requireTimeTracking } from '../../http/plugins/authenticate.js';
import { idempotentLongWrite, idempotentWrite, type WriteOutcome } from '../../http/plugins/idempotency.js';
import { type BatchWrite, settleWrites } from '../../http/plugins/idempotency-batch.js';
import { lockEmployeesForBatch } from '../employees/service.js';
import { bearerSecurity } from '../../http/plugins/openapi.js';
import { deviceSecurity } from '../../http/openapi-security.js';
import { WriteHeadersSchema, described } from '../../http/schemas/common.js';
import { BODY_ERRORS, errorResponses } from '../../http/schemas/responses.js';
import { compileBodyCheck, shapeValidatorCompiler } from '../../http/validation.js';
import { parseDryRun } from '../../http/write-headers.js';
import { requestFingerprint } from '../idempotency/service.js';
import {
  ClockEventBatchBodySchema,
  ClockEventBatchResultSchema,
  ClockEventBodySchema,
  ClockStatusPageSchema,
  ClockStatusQuerySchema,
  PUNCH_REFUSALS,
  ShiftBodySchema,
  TimeEntriesQuerySchema,
  TimeEntryPageSchema,
  WriteResultSchema,
} from './schemas.js';
import { parseIdempotencyKey } from '../../shared/idempotency-key.js';
import { clockStatus } from './status.js';
import { createShift } from './shift.js';
import { listTimeEntries } from './entries.js';
import { recordClockEvent } from './clock-event.js';
import {
  byBadgeOnly,
  deviceEvent,
  forPrincipal,
  punchAsAnswered,
  refuseDeviceDryRun,
} from './device-punches.js';
import { type Principal } from '../auth/service.js';
import { type AppContext } from '../context.js';
import type { FastifyRequest } from 'fastify';
import {
  flagSkewedPunch,
  isSkewed,
  recordDeviceClock,
  recordRefusedPunch,
  skewFlags,
} from '../devices/sync.js';
import { punchesAsSet } from './batch-set.js';
import { assertBadgesOpen, recordUnknownBadges } from '../devices/pins.js';
import { DeviceHeadersSchema } from '../devices/schemas.js';
import { type TypeBoxApp } from '../../http/route-context.js';

const WRITE_ERRORS = [
  'invalid_token',
  'insufficient_scope',
  'time_tracking_disabled',
  'employee_not_found',
  ...PUNCH_REFUSALS,
  'idempotency_in_flight',
  'validation_failed',
  'idempotency_key_reused',
  'rate_limited',
  // A kiosk device after 20 unknown badges in 15 minutes (issue 35).
  'badge_locked',
] as const;

/** Errors of live punches that a completed shift cannot meet. */
const PUNCH_ONLY_ERRORS: readonly string[] = [
  'no_open_session',
  'already_clocked_in',
  'clock_out_before_clock_in',
  'session_too_long',
  'already_on_break',
  'not_on_break',
  'break_out_of_order',
  'badge_locked',
];

const EVENTS_PATH = `${API_PREFIX}/time-clock/events`;
/** A batch of 100 punches with their notes is larger than the 64 KiB every other body may be. */
const BATCH_BODY_LIMIT_BYTES = 512 * 1024;
/** The single endpoint's checks of a punch's values (formats, enums, lengths), with its field names. */
const checkClockEvent = compileBodyCheck(ClockEventBodySchema);

/** What the routes below share, made once per registration. */
function timeTrackingRouteContext(app: TypeBoxApp) {
  const { services } = app;
  const guard = { ...services, limiter: services.resourceLimiter };
  return { services, guard };
}

function recordClockEventRoute(
  app: TypeBoxApp,
  { services, guard }: ReturnType<typeof timeTrackingRouteContext>,
) {
  app.post(
    '/time-clock/events',
    {
      onRequest: authenticate(guard, 'attendance.record', 'allowed'),
      schema: {
        summary: 'Record a clock event (clock_in, clock_out or toggle)',
        operationId: 'recordClockEvent',
        description:
          '`toggle` is `clock_out` when the employee has an open session (that day or the previous day), else `clock_in`. ' +
          '`break_start` starts a break inside the open session (`no_open_session` without one, `already_on_break` during one); `break_end` ends the break in progress (`not_on_break` without one); ' +
          "a break punch earlier than what it follows (the clock-in, the previous break's end, its own start) is `break_out_of_order`. A `clock_out` (or `toggle`) during a break ends the break at the clock-out; " +
          "the completed entry's `breakMinutes` is the sum of its breaks and `totalHours` the net time. The result's `type` is the effective type. " +
          "`occurredAt` is converted into the workplace's time zone, else the company's, else kept as sent. " +
          '`clock_out` completes the open session and submits it for approval; a session of 24 hours or more is refused. ' +
          'Send an `Idempotency-Key` on every write; without one, the same punch within 60 seconds returns the existing entry (200). ' +
          "A kiosk device's token (issue 35) punches only for employees of its workplace (another's: `404 employee_not_found`), with source `kiosk` and its id as `deviceId`; it may not send `X-Service-Dry-Run: true` (`403 insufficient_scope`), and its answers name the employee by id only (`externalId: null`). " +
          'A punch of a device naming its employee by `externalId` only (a badge) counts an unknown one (404) against the device, as POST /kiosk/identify does: after 20 within 15 minutes such punches are `429 badge_locked` with `Retry-After`.',
        tags: ['Time tracking'],
        security: deviceSecurity(...bearerSecurity('attendance.record')),
        headers: Type.Composite([WriteHeadersSchema, DeviceHeadersSchema]),
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
      refuseDeviceDryRun(principal, dryRun);
      const clockOffset = await recordDeviceClock(services.ctx, principal, request.headers);
      const body = deviceEvent(principal, request.body);
      const badgeOnly = byBadgeOnly(principal, body.employee);
      if (badgeOnly) await assertBadgesOpen(services.ctx, principal.id);
      const device = { companyId: principal.companyId, deviceId: principal.id };
      try {
        const answer = await idempotentWrite(request, reply, { dryRun, takesKey: true }, (tx, options) =>
          punchAsAnswered(tx, services.ctx.now(), principal, body, { dryRun, clockOffset, ...options }),
        );
        // A stored 404 replayed under its key is an unknown badge tried again.
        if (badgeOnly && reply.statusCode === 404) await recordUnknownBadges(services.ctx, device, 1);
        return answer;
      } catch (error) {
        if (badgeOnly && error instanceof ApiError && error.errorName === 'employee_not_found')
          await recordUnknownBadges(services.ctx, device, 1);
        throw error;
      }
    },
  );
}

type BatchEvent = Static<typeof ClockEventBatchBodySchema>['events'][number];
type BatchFields = Omit<BatchEvent, 'idempotencyKey'>;

/** The single endpoint's checks of an event's values and key, before it runs: its 422's field errors. */
function eventErrors(event: BatchEvent): { fields: BatchFields; errors: FieldError[]; key: string | null } {
  const { idempotencyKey, ...fields } = event;
  const errors: FieldError[] = [...(checkClockEvent(fields) ?? [])];
  const key =
    idempotencyKey === undefined ? { ok: true as const, key: null } : parseIdempotencyKey(idempotencyKey);
  if (!key.ok) errors.push({ field: 'idempotencyKey', message: key.reason, code: 'invalid' });
  // Like the single endpoint, whose 422 for a bad value comes before the key is read: not stored.
  return { fields, errors, key: key.ok && errors.length === 0 ? key.key : null };
}

/** Each event of a batch as a write: its key, its fingerprint for the key, and the single endpoint's write. */
function batchWrites(
  checked: ReturnType<typeof eventErrors>[],
  record: (tx: Tx, fields: BatchFields, detectDuplicates: boolean) => Promise<WriteOutcome<unknown>>,
): BatchWrite<unknown>[] {
  return checked.map(({ fields, errors, key }) => ({
    key,
    requestHash: requestFingerprint('POST', EVENTS_PATH, fields),
    write: async (tx, { detectDuplicates }) => {
      // A value the single endpoint refuses before it runs: this event's 422.
      if (errors.length > 0) throw validationError(errors);
      return record(tx, fields, detectDuplicates);
    },
  }));
}

/**
 * The batch's events in one transaction (settleWrites), each as the single endpoint; for a kiosk
 * device (issue 35) its id as deviceId, the clock-skew flag and, after the commit, its refusals.
 */
async function settleBatch(
  request: FastifyRequest,
  ctx: AppContext,
  principal: Principal,
  sent: BatchEvent[],
  options: { dryRun: boolean; clockOffset: number | null; serialize: (body: unknown) => string },
): Promise<string> {
  const { dryRun, clockOffset, serialize } = options;
  const events = sent.map((event) => deviceEvent(principal, event));
  // A device locked for unknown badges sends no batch with badge-only events (nothing runs; it retries).
  const badgeOnly = events.map((event) => byBadgeOnly(principal, event.employee));
  if (badgeOnly.includes(true)) await assertBadgesOpen(ctx, principal.id);
  const checked = events.map(eventErrors);
  const writes = batchWrites(checked, async (tx, fields, detectDuplicates) => {
    const outcome = await recordClockEvent(tx, ctx.now(), principal, fields, {
      dryRun,
      detectDuplicates,
      reviewFlags: skewFlags(clockOffset),
    });
    // A kiosk device's clock more than 2 minutes off flags the entry, in the punch's savepoint.
    await flagSkewedPunch(tx, clockOffset, outcome);
    return forPrincipal(principal, outcome);
  });
  const settled = await settleWrites(
    request,
    {
      dryRun,
      instance: EVENTS_PATH,
      serialize,
      prepare: (tx) =>
        lockEmployeesForBatch(
          tx,
          principal.companyId,
          events.map((event) => event.employee),
        ),
    },
    writes,
    // Issue 32: decided as a set, unless a kiosk's clock is off (its entries are flagged one by one).
    isSkewed(clockOffset)
      ? undefined
      : punchesAsSet(
          principal,
          () => ctx.now(),
          checked.map((c) => c.fields),
          checked.map((c) => c.errors),
          (outcome) => forPrincipal(principal, outcome),
        ),
  );
  // A kiosk device's refused events, kept for the administrator (after the batch's commit).
  if (!dryRun)
    for (const [index, result] of settled.entries()) {
      const { idempotencyKey, ...fields } = events[index]!;
      await recordRefusedPunch(ctx, principal, fields, idempotencyKey ?? null, result);
    }
  const unknown = settled.filter((result, index) => badgeOnly[index] && result.status === 404).length;
  if (unknown > 0)
    await recordUnknownBadges(ctx, { companyId: principal.companyId, deviceId: principal.id }, unknown);
  const results = settled.map(
    (result, index) => `{"index":${index},"status":${result.status},"body":${result.body}}`,
  );
  return `{"results":[${results.join(',')}]}`;
}

function recordClockEventsRoute(
  app: TypeBoxApp,
  { services, guard }: ReturnType<typeof timeTrackingRouteContext>,
) {
  app.post(
    '/time-clock/events/batch',
    {
      onRequest: authenticate(guard, 'attendance.record', 'allowed'),
      bodyLimit: BATCH_BODY_LIMIT_BYTES,
      // The shape first (one 422 for the whole batch, nothing runs); each event's values are its own result.
      validatorCompiler: shapeValidatorCompiler,
      schema: {
        summary: 'Record up to 100 clock events in one request',
        operationId: 'recordClockEvents',
        description:
          'A backlog of punches (an offline terminal), 1 to 100, processed in the order sent, in one transaction, each with exactly the rules, statuses and bodies of POST /time-clock/events as if sent alone after the ones before it: ' +
          "each result's `status` and `body` are what that endpoint would have answered for the event (`index` its zero-based position); one failing event does not stop the others. " +
          'The body is validated for its shape first: not `{events: [...]}` of 1 to 100 objects with the fields and JSON types of a clock event (a required field missing, a wrong type, an unknown field) is one `422 validation_failed` naming `events[i].field`, and nothing runs; ' +
          "an event's values (formats, enums, lengths, offsets, time windows) are checked as the single endpoint checks them and are that event's own result. " +
          "An event's `idempotencyKey` behaves exactly like the Idempotency-Key header of POST /time-clock/events (same scope, 24 hours, replay, `422 idempotency_key_reused` with another punch); " +
          'an event whose key is held by a request still running waits for its outcome (up to 10 seconds, else `409 idempotency_in_flight` for that event) and replays it. ' +
          "The request's own Idempotency-Key replays the whole answer; `X-Service-Dry-Run: true` applies to every event. A batch counts as one request against the rate limit. " +
          "A kiosk device's token (issue 35) may send its events for employees of its workplace only (another's: that event's `404 employee_not_found`); its entries get source `kiosk` and `deviceId`; it may not send `X-Service-Dry-Run: true` (`403 insufficient_scope`), and its results name the employee by id only (`externalId: null`); its events naming employees by `externalId` only (badges) count their 404s as unknown badges, and while 20 within 15 minutes lock the device's badges such a batch is refused whole with `429 badge_locked` (nothing runs). " +
          'It may say its own clock (`X-Device-Clock`, RFC 3339) and how many punches wait in its queue (`X-Kiosk-Queue`): an entry it stores while its clock is more than 2 minutes off carries `reviewFlags: ["device_clock_skew"]`, and its refused events are kept for the administrator.',
        tags: ['Time tracking'],
        security: deviceSecurity(...bearerSecurity('attendance.record')),
        headers: Type.Composite([WriteHeadersSchema, DeviceHeadersSchema]),
        body: ClockEventBatchBodySchema,
        response: {
          200: described(ClockEventBatchResultSchema, 'One result per event, in the order sent'),
          ...errorResponses([
            'invalid_token',
            'insufficient_scope',
            'time_tracking_disabled',
            'idempotency_in_flight',
            'validation_failed',
            'idempotency_key_reused',
            'rate_limited',
            'badge_locked',
            ...BODY_ERRORS,
          ]),
        },
      },
    },
    async (request, reply) => {
      const principal = requirePrincipal(request);
      requireTimeTracking(principal);
      const dryRun = parseDryRun(request.headers);
      refuseDeviceDryRun(principal, dryRun);
      const clockOffset = await recordDeviceClock(services.ctx, principal, request.headers);
      const serialize = reply.compileSerializationSchema(WriteResultSchema) as (body: unknown) => string;
      return idempotentLongWrite(request, reply, { dryRun }, () =>
        settleBatch(request, services.ctx, principal, request.body.events, {
          dryRun,
          clockOffset,
          serialize,
        }),
      );
    },
  );
}

function recordShiftRoute(app: TypeBoxApp, { services, guard }: ReturnType<typeof timeTrackingRouteContext>) {
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
      return idempotentWrite(request, reply, { dryRun, takesKey: true }, (tx, { key }) =>
        createShift(tx, services.ctx.now(), principal, request.body, { dryRun, key }),
      );
    },
  );
}

function listTimeEntriesRoute(
  app: TypeBoxApp,
  { services, guard }: ReturnType<typeof timeTrackingRouteContext>,
) {
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
}

function clockStatusRoute(app: TypeBoxApp, { services, guard }: ReturnType<typeof timeTrackingRouteContext>) {
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
}

export const timeTrackingRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const context = timeTrackingRouteContext(app);
  recordClockEventRoute(app, context);
  recordClockEventsRoute(app, context);
  recordShiftRoute(app, context);
  listTimeEntriesRoute(app, context);
  clockStatusRoute(app, context);
};
