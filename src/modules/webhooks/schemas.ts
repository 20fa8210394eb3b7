import { Type } from '@sinclair/typebox';
import { LimitQuery } from '../../http/schemas/common.js';

/* Webhooks (issue 22): the endpoints integrators register and the deliveries made to them. */

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) =>
  Type.Unsafe<string | null>({ ...Object.fromEntries(Object.entries(schema)), type: ['string', 'null'] });
const NullableInt = () => Type.Unsafe<number | null>({ type: ['integer', 'null'] });

const EVENT_TYPE_LIST =
  '`time_entry.opened`, `time_entry.completed`, `time_entry.approved`, `time_entry.rejected`, `day.confirmed`, ' +
  '`employee.created`, `employee.updated`, `employee.deleted`, `time_entry.break_started`, `time_entry.break_ended`, ' +
  '`time_entry.updated`, `time_entry.deleted`, `time_entry.reopened`, `period.closed`, `period.reopened`, ' +
  '`attendance.exception_detected`, `attendance.exception_resolved`, ' +
  '`absence.requested`, `absence.approved`, `absence.rejected`, `absence.cancelled`, ' +
  '`correction.requested`, `correction.approved`, `correction.rejected`, `correction.withdrawn`';

// At most 50 types: 20 until issue 31, when the 21st type arrived and an endpoint could no longer ask
// for every type by name (raising the limit refuses nothing that was accepted).
const EventTypesIn = Type.Array(Type.String({ maxLength: 64, pattern: '^[a-z_]+\\.[a-z_]+$' }), {
  minItems: 1,
  maxItems: 50,
  description: `the event types to receive, of ${EVENT_TYPE_LIST}`,
});

const Url = Type.String({
  minLength: 1,
  maxLength: 2000,
  description: 'absolute https URL of the receiver; it must resolve to a public address',
});

export const WebhookCreateSchema = Type.Object(
  {
    url: Url,
    eventTypes: EventTypesIn,
    description: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
  },
  { additionalProperties: false },
);

export const WebhookUpdateSchema = Type.Object(
  {
    url: Type.Optional(Url),
    eventTypes: Type.Optional(EventTypesIn),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
    status: Type.Optional(
      Type.Unsafe<'active'>({
        type: 'string',
        enum: ['active'],
        description: '`active` re-enables a disabled endpoint',
      }),
    ),
  },
  { additionalProperties: false },
);

export const WebhookEndpointSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  url: Type.String(),
  eventTypes: Type.Array(Type.String()),
  description: Nullable(Type.String()),
  status: Type.Unsafe<'active' | 'disabled'>({ type: 'string', enum: ['active', 'disabled'] }),
  disabledReason: Nullable(Type.String({ description: 'why the endpoint was disabled; null while active' })),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

export const WebhookEndpointWithSecretSchema = Type.Object({
  ...WebhookEndpointSchema.properties,
  secret: Type.String({
    description:
      'the signing secret, `whsec_` + base64: shown only now; verify deliveries with it (Standard Webhooks)',
  }),
});

export const WebhookRotationSchema = Type.Object({
  ...WebhookEndpointWithSecretSchema.properties,
  previousSecretValidUntil: Type.String({
    format: 'date-time',
    description: 'until then deliveries carry a second signature, made with the previous secret',
  }),
});

export const WebhookPageSchema = Type.Object({
  items: Type.Array(WebhookEndpointSchema),
  nextCursor: Nullable(Type.String()),
  hasMore: Type.Boolean(),
});

export const WebhookParamsSchema = Type.Object({ id: Type.String({ format: 'uuid' }) });

export const WebhookListQuerySchema = Type.Object(
  { cursor: Type.Optional(Type.String({ maxLength: 1024 })), limit: Type.Optional(LimitQuery) },
  { additionalProperties: false },
);

export const WebhookDeliverySchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  eventId: Type.String({ description: 'the `webhook-id` header of the delivery: the event id' }),
  eventType: Type.String(),
  origin: Type.Unsafe<'event' | 'replay' | 'test'>({ type: 'string', enum: ['event', 'replay', 'test'] }),
  status: Type.Unsafe<'pending' | 'succeeded' | 'failed'>({
    type: 'string',
    enum: ['pending', 'succeeded', 'failed'],
  }),
  attempts: Type.Integer({ description: 'attempts made so far' }),
  statusCode: NullableInt(),
  error: Nullable(
    Type.String({ description: 'why the last attempt got no status (timeout, network, refused)' }),
  ),
  durationMs: NullableInt(),
  lastAttemptAt: Nullable(Type.String({ format: 'date-time' })),
  nextAttemptAt: Nullable(Type.String({ format: 'date-time', description: 'the next retry, while pending' })),
  createdAt: Type.String({ format: 'date-time' }),
});

export const WebhookDeliveryPageSchema = Type.Object({
  items: Type.Array(WebhookDeliverySchema),
  nextCursor: Nullable(Type.String()),
  hasMore: Type.Boolean(),
});

export const WebhookReplaySchema = Type.Union(
  [
    Type.Object(
      {
        from: Type.String({ format: 'date-time' }),
        to: Type.String({ format: 'date-time' }),
      },
      {
        additionalProperties: false,
        description: "re-send the endpoint's events that occurred in [from, to)",
      },
    ),
    Type.Object(
      { deliveryId: Type.String({ format: 'uuid' }) },
      { additionalProperties: false, description: 'send one earlier delivery again' },
    ),
  ],
  { description: '`{from, to}` or `{deliveryId}`' },
);

export const WebhookQueuedSchema = Type.Object({
  queued: Type.Integer({ description: 'deliveries queued' }),
});

/** The body of every delivery (Standard Webhooks): `{type, timestamp, data}`. */
export const webhookPayloadSchema = (type: string, data: Record<string, unknown>) => ({
  type: 'object',
  required: ['type', 'timestamp', 'data'],
  properties: {
    type: { type: 'string', enum: [type] },
    timestamp: { type: 'string', format: 'date-time', description: 'when the event occurred' },
    data,
  },
});

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Each delivery's `data`, by event type (the change feed's `data`), and the ping's. */
export const WEBHOOK_EVENT_DATA: Record<string, { description: string; data: Record<string, unknown> }> = {
  'time_entry.opened': { description: 'A clock-in opened a time entry.', data: ref('TimeEntry') },
  'time_entry.completed': {
    description:
      'A time entry was completed (a clock-out, a completed shift recorded, a correction closing an open session, or the automatic clock-out).',
    data: ref('TimeEntry'),
  },
  'time_entry.approved': {
    description:
      'A time entry was approved (in the console, by the command line, or by POST /time-entries/{id}/approve).',
    data: ref('TimeEntry'),
  },
  'time_entry.rejected': { description: 'A time entry was rejected.', data: ref('TimeEntry') },
  'time_entry.break_started': {
    description: 'A break began in an open time entry (its `breaks` end with the open one).',
    data: ref('TimeEntry'),
  },
  'time_entry.break_ended': {
    description: "An open time entry's break ended.",
    data: ref('TimeEntry'),
  },
  'time_entry.updated': {
    description: 'A time entry was corrected (its times, breaks or note), with a reason in its revisions.',
    data: ref('TimeEntry'),
  },
  'time_entry.deleted': {
    description: 'A time entry was deleted; its revisions keep it readable.',
    data: {
      type: 'object',
      required: ['id', 'employee', 'workDate'],
      properties: {
        id: { type: 'string', format: 'uuid' },
        employee: ref('EmployeeRef'),
        workDate: { type: 'string', format: 'date' },
      },
    },
  },
  'time_entry.reopened': {
    description: 'An approved or rejected time entry went back to pending_approval.',
    data: ref('TimeEntry'),
  },
  'period.closed': { description: 'A period was closed for payroll.', data: ref('LockedPeriod') },
  'period.reopened': { description: 'A closed period was reopened.', data: ref('LockedPeriod') },
  'day.confirmed': {
    description: "An employee's day was confirmed (locked).",
    data: {
      type: 'object',
      required: ['employee', 'date'],
      properties: { employee: ref('EmployeeRef'), date: { type: 'string', format: 'date' } },
    },
  },
  'employee.created': { description: 'An employee was created.', data: ref('EmployeeListItem') },
  'employee.updated': { description: 'An employee was changed.', data: ref('EmployeeListItem') },
  'employee.deleted': { description: 'An employee was deleted.', data: ref('EmployeeRef') },
  // Planned shifts (issue 33).
  'attendance.exception_detected': {
    description:
      'The exceptions job found a late clock-in, an early clock-out, a no-show, a missed clock-out or unplanned work.',
    data: ref('AttendanceException'),
  },
  'attendance.exception_resolved': {
    description: 'A no-show got its clock-in, a missed clock-out its clock-out, or the shift changed.',
    data: ref('AttendanceException'),
  },
  // Issue 31: the absence as GET /absences/{id} shows it after the change (needs leave.read).
  'absence.requested': {
    description: 'An absence was requested (one whose type needs no approval is approved at once, too).',
    data: ref('Absence'),
  },
  'absence.approved': { description: 'An absence was approved.', data: ref('Absence') },
  'absence.rejected': { description: 'A requested absence was rejected.', data: ref('Absence') },
  'absence.cancelled': {
    description: 'A requested absence was withdrawn, or an approved one cancelled.',
    data: ref('Absence'),
  },
  // Issue 35: an employee's correction request as the console shows it (needs attendance.read).
  'correction.requested': {
    description: 'An employee asked for a correction of a time entry, or for a missing one.',
    data: ref('CorrectionRequest'),
  },
  'correction.approved': {
    description:
      'A manager approved a correction request; the correction itself follows as `time_entry.updated` (or `time_entry.completed` for a missing entry).',
    data: ref('CorrectionRequest'),
  },
  'correction.rejected': {
    description: 'A manager rejected a correction request, with a reason.',
    data: ref('CorrectionRequest'),
  },
  'correction.withdrawn': {
    description: 'The employee withdrew a waiting correction request.',
    data: ref('CorrectionRequest'),
  },
  ping: {
    description: 'A test delivery, sent by POST /webhooks/{id}/test.',
    data: {
      type: 'object',
      required: ['endpointId'],
      properties: { endpointId: { type: 'string', format: 'uuid' } },
    },
  },
};

const DELIVERY_HEADERS = [
  {
    name: 'webhook-id',
    description: 'The event id: the same on every retry and replay of the event; deduplicate on it.',
  },
  {
    name: 'webhook-timestamp',
    description:
      'Seconds since the epoch when this attempt was signed; refuse deliveries more than 5 minutes off.',
  },
  {
    name: 'webhook-signature',
    description:
      '`v1,` + base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` keyed with the base64-decoded secret (after `whsec_`); ' +
      'two space-separated signatures for 24 hours after a rotation. Any one matching is enough.',
  },
];

/** The published top-level `webhooks` (OpenAPI 3.1): one entry per event type, the delivery it receives. */
export function webhookDescriptions(): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(WEBHOOK_EVENT_DATA).map(([type, { description, data }]) => [
      type,
      {
        post: {
          summary: `${type} delivery`,
          description:
            `${description} Delivered per Standard Webhooks 1.0 to the endpoints asking for \`${type}\`` +
            (type === 'ping' ? '' : ' whose creating key may read it') +
            '. Any 2xx acknowledges; `410 Gone` disables the endpoint; anything else is retried with exponential back-off for about three days.',
          operationId: `${type.replace(/[._](\w)/g, (_m, c: string) => c.toUpperCase())}Webhook`,
          tags: ['Webhooks'],
          // Punchclock calls the receiver (signed, see webhook-signature): none of this API's schemes apply.
          security: [],
          parameters: DELIVERY_HEADERS.map((h) => ({
            name: h.name,
            in: 'header',
            required: true,
            description: h.description,
            schema: { type: 'string' },
          })),
          requestBody: {
            required: true,
            content: { 'application/json': { schema: webhookPayloadSchema(type, data) } },
          },
          responses: {
            '200': { description: 'Acknowledged (any 2xx does)' },
            '410': { description: 'Gone: the endpoint is disabled, nothing more is sent' },
          },
        },
      },
    ]),
  );
}
