import { type CursorCodec } from '../../domain/cursor.js';
import { ApiError, validationError } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { type AppContext } from '../context.js';
import { PING_TYPE, type WebhookManager, audit, notFound, receivableTypes } from './endpoints.js';
import {
  type DeliveryRow,
  type EndpointRow,
  countPendingDeliveries,
  deleteFinishedDeliveriesBefore,
  eventsBetween,
  findDelivery,
  findEndpoint,
  insertDeliveries,
  keyScopes,
  listDeliveriesPage,
} from './queries.js';
import { type Executor, type Tx } from '../../platform/db/database.js';
/*
 * Webhook deliveries: queueing the events an endpoint receives, a test ping, replaying a range or one
 * delivery, the list of recent deliveries, and their retention. Sending them is dispatcher.ts's.
 */

/** Most events one replay re-sends. */
export const MAX_REPLAY_EVENTS = 10_000;

/** A replay is refused while the endpoint has more pending deliveries than this. */
export const MAX_PENDING_FOR_REPLAY = 10_000;

function deliveryRow(
  endpoint: EndpointRow,
  event: { id: string; type: string; payload: string },
  origin: 'event' | 'replay' | 'test',
  at: string,
): DeliveryRow {
  return {
    id: newId(),
    endpoint_id: endpoint.id,
    company_id: endpoint.company_id,
    event_id: event.id,
    event_type: event.type,
    origin,
    payload: event.payload,
    state: 'pending',
    attempts: 0,
    next_attempt_at: at,
    lease_owner: null,
    lease_until: null,
    last_status: null,
    last_error: null,
    last_duration_ms: null,
    last_attempt_at: null,
    created_at: at,
  };
}

/** The body of a delivery: `{type, timestamp, data}` with the event's data as stored. */
export function payloadOf(type: string, occurredAt: string, data: string): string {
  return `{"type":${JSON.stringify(type)},"timestamp":${JSON.stringify(occurredAt)},"data":${data}}`;
}

/** The deliveries of `events` to `endpoint` (fan-out and replays). */
export async function queueEvents(
  tx: Tx,
  endpoint: EndpointRow,
  events: { id: string; type: string; occurred_at: string; data: string }[],
  origin: 'event' | 'replay',
  at: string,
): Promise<number> {
  const rows = events.map((e) =>
    deliveryRow(
      endpoint,
      { id: e.id, type: e.type, payload: payloadOf(e.type, e.occurred_at, e.data) },
      origin,
      at,
    ),
  );
  await insertDeliveries(tx, rows);
  return rows.length;
}

/** POST …/test: a `ping` delivery (a fresh webhook-id), sent like any other. */
export async function queuePing(ctx: AppContext, companyId: string, id: string) {
  return ctx.database.transaction(async (tx) => {
    const endpoint = await findEndpoint(tx, companyId, id);
    if (!endpoint) throw notFound(id);
    const at = new Date(ctx.now()).toISOString();
    const eventId = newId();
    const row = deliveryRow(
      endpoint,
      {
        id: eventId,
        type: PING_TYPE,
        payload: payloadOf(PING_TYPE, at, JSON.stringify({ endpointId: endpoint.id })),
      },
      'test',
      at,
    );
    await insertDeliveries(tx, [row]);
    return { deliveryId: row.id, eventId, queued: 1 };
  });
}

async function creatorScopes(db: Executor, endpoint: EndpointRow): Promise<string[] | null> {
  if (endpoint.created_by_key_id === null) return null;
  return (await keyScopes(db, endpoint.created_by_key_id)) ?? [];
}

export type ReplayInput = { from: string; to: string } | { deliveryId: string };

/**
 * POST …/replay: the endpoint's events of a time range, or one earlier delivery, sent again (same
 * webhook-id). Only types both the endpoint's key and the calling key read are re-sent (an operator
 * reads every type); a delivery of another type is not found.
 */
export async function replay(
  ctx: AppContext,
  companyId: string,
  manager: WebhookManager,
  id: string,
  input: ReplayInput,
) {
  return ctx.database.transaction(async (tx) => {
    const endpoint = await findEndpoint(tx, companyId, id);
    if (!endpoint) throw notFound(id);
    const at = new Date(ctx.now()).toISOString();
    if ((await countPendingDeliveries(tx, endpoint.id, MAX_PENDING_FOR_REPLAY + 1)) > MAX_PENDING_FOR_REPLAY)
      throw validationError([
        {
          field: 'from',
          message: `the endpoint already has more than ${MAX_PENDING_FOR_REPLAY} pending deliveries; replay once they are sent`,
          code: 'too_many_pending',
        },
      ]);
    const callerScopes = manager.kind === 'api_key' ? ((await keyScopes(tx, manager.keyId)) ?? []) : null;
    const readable = (types: string[]) => receivableTypes(types, callerScopes);
    if ('deliveryId' in input) {
      const earlier = await findDelivery(tx, endpoint.id, input.deliveryId);
      const allowed =
        earlier !== undefined &&
        (earlier.event_type === PING_TYPE ||
          (readable([earlier.event_type]).length === 1 &&
            receivableTypes([earlier.event_type], await creatorScopes(tx, endpoint)).length === 1));
      if (!earlier || !allowed)
        throw new ApiError('not_found', `no delivery ${input.deliveryId} of this endpoint`);
      const row = deliveryRow(
        endpoint,
        { id: earlier.event_id, type: earlier.event_type, payload: earlier.payload },
        'replay',
        at,
      );
      await insertDeliveries(tx, [row]);
      await audit(tx, companyId, manager, 'webhook.replayed', endpoint.id, at, { ...input, queued: 1 });
      return { queued: 1 };
    }
    const from = Date.parse(input.from);
    const to = Date.parse(input.to);
    if (Number.isNaN(from) || Number.isNaN(to) || from >= to)
      throw validationError([{ field: 'to', message: 'must be a date-time after from', code: 'range' }]);
    const types = readable(
      receivableTypes(JSON.parse(endpoint.event_types) as string[], await creatorScopes(tx, endpoint)),
    );
    const events = await eventsBetween(tx, companyId, {
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
      afterSeq: endpoint.start_seq,
      types,
      limit: MAX_REPLAY_EVENTS + 1,
    });
    if (events.length > MAX_REPLAY_EVENTS)
      throw validationError([
        {
          field: 'from',
          message: `the range holds more than ${MAX_REPLAY_EVENTS} events; replay a shorter one`,
          code: 'too_many',
        },
      ]);
    const queued = await queueEvents(tx, endpoint, events, 'replay', at);
    await audit(tx, companyId, manager, 'webhook.replayed', endpoint.id, at, { ...input, queued });
    return { queued };
  });
}

export async function listDeliveries(
  db: Executor,
  cursors: CursorCodec,
  companyId: string,
  id: string,
  query: { cursor?: string; limit?: number },
) {
  const endpoint = await findEndpoint(db, companyId, id);
  if (!endpoint) throw notFound(id);
  const limit = query.limit ?? 25;
  let before: { createdAt: string; id: string } | null = null;
  if (query.cursor !== undefined) {
    const payload = cursors.decode(query.cursor);
    if (
      payload?.k !== 'webhook-deliveries' ||
      payload.e !== id ||
      typeof payload.t !== 'string' ||
      typeof payload.i !== 'string'
    )
      throw validationError([
        { field: 'cursor', message: 'is not a cursor of this listing', code: 'invalid_cursor' },
      ]);
    before = { createdAt: payload.t, id: payload.i };
  }
  const rows = await listDeliveriesPage(db, id, before, limit + 1);
  const hasMore = rows.length > limit;
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return {
    items: items.map((row) => ({
      id: row.id,
      eventId: row.event_id,
      eventType: row.event_type,
      origin: row.origin as 'event' | 'replay' | 'test',
      status: row.state as 'pending' | 'succeeded' | 'failed',
      attempts: Number(row.attempts),
      statusCode: row.last_status === null ? null : Number(row.last_status),
      error: row.last_error,
      durationMs: row.last_duration_ms === null ? null : Number(row.last_duration_ms),
      lastAttemptAt: row.last_attempt_at,
      nextAttemptAt: row.state === 'pending' ? row.next_attempt_at : null,
      createdAt: row.created_at,
    })),
    nextCursor:
      hasMore && last
        ? cursors.encode({ k: 'webhook-deliveries', e: id, t: last.created_at, i: last.id })
        : null,
    hasMore,
  };
}

/**
 * Deliveries keep a copy of their event's payload: finished ones (succeeded or failed) are removed
 * after EVENT_RETENTION_DAYS like the events; pending ones stay until they finish.
 */
export async function pruneDeliveries(ctx: AppContext, retentionDays: number): Promise<number> {
  const cutoff = new Date(ctx.now() - retentionDays * 86_400_000).toISOString();
  return ctx.database.transaction((tx) => deleteFinishedDeliveriesBefore(tx, cutoff));
}
