import { Type } from '@sinclair/typebox';
import { LimitQuery } from './common.js';

/* Webhooks (issue 22): the endpoints integrators register and the deliveries made to them. */

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) =>
  Type.Unsafe<string | null>({ ...Object.fromEntries(Object.entries(schema)), type: ['string', 'null'] });
const NullableInt = () => Type.Unsafe<number | null>({ type: ['integer', 'null'] });

const EVENT_TYPE_LIST =
  '`time_entry.opened`, `time_entry.completed`, `time_entry.approved`, `time_entry.rejected`, `day.confirmed`, ' +
  '`employee.created`, `employee.updated`, `employee.deleted`';

const EventTypesIn = Type.Array(Type.String({ maxLength: 64, pattern: '^[a-z_]+\\.[a-z_]+$' }), {
  minItems: 1,
  maxItems: 20,
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
