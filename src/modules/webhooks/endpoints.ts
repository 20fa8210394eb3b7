import { type CursorCodec } from '../../domain/cursor.js';
import { ApiError, validationError } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { recordAudit } from '../audit/queries.js';
import { type AppContext } from '../context.js';
import { sequenceOf } from '../events/queries.js';
import { EVENT_TYPES, visibleFamilies } from '../events/service.js';
import { type OutboundPolicy, UnsafeTarget, checkUrl, hostOf, vetHost } from './address-guard.js';
import {
  type EndpointRow,
  countEndpoints,
  deleteEndpointRows,
  deletePendingDeliveriesExcept,
  findEndpoint,
  insertEndpoint,
  keyScopes,
  keyState,
  listEndpointsPage,
  lockCompany,
  updateEndpointRow,
} from './queries.js';
import { newWebhookSecret, sealSecret } from './secrets.js';
import { type Executor, type Tx } from '../../platform/db/database.js';

/** Endpoints a company may have at once. */
export const MAX_ENDPOINTS_PER_COMPANY = 20;

/** How long the previous secret keeps signing beside the new one after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

/** What management needs besides the database: the secrets' key and the outbound policy. */
export const PING_TYPE = 'ping';

export interface WebhookSettings {
  key: Buffer;
  policy: OutboundPolicy;
  /** A refused URL's details (resolved addresses), for the server's log: the caller is told less. */
  onRefusal?: (detail: string) => void;
}

/**
 * Who manages: an API key (its scopes limit what its endpoints receive) or an operator (CLI: no
 * id; a signed-in person: `userId`, recorded in the audit log).
 */
export type WebhookManager = { kind: 'api_key'; keyId: string } | { kind: 'operator'; userId?: string };

export async function audit(
  tx: Tx,
  companyId: string,
  manager: WebhookManager,
  action: string,
  endpointId: string,
  at: string,
  details: Record<string, unknown> | null = null,
): Promise<void> {
  await recordAudit(tx, {
    companyId,
    actorType: manager.kind === 'api_key' ? 'api_key' : manager.userId !== undefined ? 'user' : 'cli',
    actorId: manager.kind === 'api_key' ? manager.keyId : (manager.userId ?? null),
    action,
    targetType: 'webhook_endpoint',
    targetId: endpointId,
    details,
    at,
  });
}

/**
 * An API key that changes an endpoint's URL or event types, or rotates its secret, takes it over:
 * the endpoint is re-bound to that key (it then receives only what that key's scopes read), and
 * its pending deliveries of types the key cannot read are dropped (they would go to the new URL).
 */
async function rebindTo(
  tx: Tx,
  endpoint: EndpointRow,
  manager: WebhookManager,
): Promise<Partial<EndpointRow>> {
  if (manager.kind !== 'api_key' || endpoint.created_by_key_id === manager.keyId) return {};
  const scopes = (await keyScopes(tx, manager.keyId)) ?? [];
  await deletePendingDeliveriesExcept(tx, endpoint.id, [...receivableTypes(EVENT_TYPES, scopes), PING_TYPE]);
  return { created_by_key_id: manager.keyId };
}

/** Why the key that created (or last took over) an endpoint can no longer feed it, or null. */
async function deadKeyReason(db: Executor, keyId: string | null, nowIso: string): Promise<string | null> {
  if (keyId === null) return null;
  const key = await keyState(db, keyId);
  if (!key) return 'was deleted';
  if (key.revoked_at !== null) return 'was revoked';
  if (key.expires_at !== null && key.expires_at <= nowIso) return 'expired';
  return null;
}

export function endpointView(row: EndpointRow) {
  return {
    id: row.id,
    url: row.url,
    eventTypes: JSON.parse(row.event_types) as string[],
    description: row.description,
    status: row.status as 'active' | 'disabled',
    disabledReason: row.disabled_reason,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function notFound(id: string): ApiError {
  return new ApiError('not_found', `no webhook endpoint ${id} in this company`);
}

/** The event types an endpoint created by a key with `scopes` may receive (null scopes: an operator's, every type). */
export function receivableTypes(requested: readonly string[], scopes: readonly string[] | null): string[] {
  if (scopes === null) return [...requested];
  const families = visibleFamilies({ scopes });
  return requested.filter((type) => families.some((family) => type.startsWith(family)));
}

function checkEventTypes(types: readonly string[]): string[] {
  const unknown = types.filter((t) => !(EVENT_TYPES as readonly string[]).includes(t));
  if (unknown.length > 0)
    throw validationError([
      {
        field: 'eventTypes',
        message: `unknown event type ${unknown.join(', ')}; known: ${EVENT_TYPES.join(', ')}`,
        code: 'unknown_event_type',
      },
    ]);
  if (types.length === 0)
    throw validationError([
      { field: 'eventTypes', message: 'must name at least one event type', code: 'required' },
    ]);
  return [...new Set(types)];
}

/** The URL's checks, DNS included (run before the transaction: resolving may take a while). */
async function checkTarget(
  raw: string,
  policy: OutboundPolicy,
  onRefusal?: (detail: string) => void,
): Promise<string> {
  const refuse = (message: string, code: string) => validationError([{ field: 'url', message, code }]);
  if (raw.length > 2000) throw refuse('must be at most 2000 characters', 'max_length');
  const checked = checkUrl(raw, policy);
  if ('problem' in checked) throw refuse(checked.problem, 'invalid_url');
  try {
    await vetHost(hostOf(checked.url), policy);
  } catch (error) {
    if (error instanceof UnsafeTarget) {
      onRefusal?.(error.detail);
      throw refuse(`is refused: ${error.message}`, 'unsafe_target');
    }
    throw error;
  }
  return checked.url.toString();
}

function checkDescription(description: string | null | undefined): string | null {
  if (description === undefined || description === null) return null;
  if (description.length > 500 || description.includes('\u0000'))
    throw validationError([
      { field: 'description', message: 'must be at most 500 characters', code: 'max_length' },
    ]);
  return description;
}

export interface CreateEndpointInput {
  url: string;
  eventTypes: string[];
  description?: string | null;
}

/**
 * POST /webhooks (and `webhook create`): the endpoint receives the events committed after this
 * moment; its secret is returned here only.
 */
export async function createEndpoint(
  ctx: AppContext,
  settings: WebhookSettings,
  companyId: string,
  manager: WebhookManager,
  input: CreateEndpointInput,
) {
  const eventTypes = checkEventTypes(input.eventTypes);
  const description = checkDescription(input.description);
  const url = await checkTarget(input.url, settings.policy, settings.onRefusal);
  const secret = newWebhookSecret();
  return ctx.database.transaction(async (tx) => {
    if (!(await lockCompany(tx, companyId))) throw new ApiError('not_found', `no company ${companyId}`);
    if ((await countEndpoints(tx, companyId)) >= MAX_ENDPOINTS_PER_COMPANY)
      throw validationError([
        {
          field: 'url',
          message: `a company may have at most ${MAX_ENDPOINTS_PER_COMPANY} webhook endpoints`,
          code: 'limit_reached',
        },
      ]);
    const at = new Date(ctx.now()).toISOString();
    const { lastSeq } = await sequenceOf(tx, companyId);
    const row: EndpointRow = {
      id: newId(),
      company_id: companyId,
      url,
      event_types: JSON.stringify(eventTypes),
      description,
      status: 'active',
      disabled_reason: null,
      secret: sealSecret(settings.key, secret),
      previous_secret: null,
      previous_secret_until: null,
      created_by_key_id: manager.kind === 'api_key' ? manager.keyId : null,
      start_seq: lastSeq,
      after_seq: lastSeq,
      failing_since: null,
      created_at: at,
      updated_at: at,
    };
    await insertEndpoint(tx, row);
    await audit(tx, companyId, manager, 'webhook.created', row.id, at, { url, eventTypes });
    return { ...endpointView(row), secret };
  });
}

export async function listEndpoints(
  db: Executor,
  cursors: CursorCodec,
  companyId: string,
  query: { cursor?: string; limit?: number },
) {
  const limit = query.limit ?? 25;
  let afterId: string | null = null;
  if (query.cursor !== undefined) {
    const payload = cursors.decode(query.cursor);
    if (payload?.k !== 'webhooks' || payload.c !== companyId || typeof payload.a !== 'string')
      throw validationError([
        { field: 'cursor', message: 'is not a cursor of this listing', code: 'invalid_cursor' },
      ]);
    afterId = payload.a;
  }
  const rows = await listEndpointsPage(db, companyId, afterId, limit + 1);
  const hasMore = rows.length > limit;
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return {
    items: items.map(endpointView),
    nextCursor: hasMore && last ? cursors.encode({ k: 'webhooks', c: companyId, a: last.id }) : null,
    hasMore,
  };
}

export async function getEndpoint(db: Executor, companyId: string, id: string) {
  const row = await findEndpoint(db, companyId, id);
  if (!row) throw notFound(id);
  return endpointView(row);
}

export interface UpdateEndpointInput {
  url?: string;
  eventTypes?: string[];
  description?: string | null;
  /** `disabled` (the console's "disable"): nothing more is sent until it is re-enabled. */
  status?: 'active' | 'disabled';
}

/** Why an endpoint a person disabled is disabled. */
export const DISABLED_BY_PERSON = 'disabled by a person in the console';

/**
 * PATCH: url, event types, description; `status: active` re-enables (from the log's head: replay
 * covers the gap). An API key changing the URL or the event types takes the endpoint over (see
 * rebindTo). Re-enabling is refused while the key the endpoint is bound to is revoked, expired or
 * deleted, unless this request re-binds it to the calling key.
 */
export async function updateEndpoint(
  ctx: AppContext,
  settings: WebhookSettings,
  companyId: string,
  manager: WebhookManager,
  id: string,
  input: UpdateEndpointInput,
) {
  const eventTypes = input.eventTypes === undefined ? undefined : checkEventTypes(input.eventTypes);
  const description = input.description === undefined ? undefined : checkDescription(input.description);
  const url =
    input.url === undefined ? undefined : await checkTarget(input.url, settings.policy, settings.onRefusal);
  return ctx.database.transaction(async (tx) => {
    const row = await findEndpoint(tx, companyId, id, true);
    if (!row) throw notFound(id);
    const at = new Date(ctx.now()).toISOString();
    const set: Partial<EndpointRow> = { updated_at: at };
    if (url !== undefined || eventTypes !== undefined) Object.assign(set, await rebindTo(tx, row, manager));
    if (input.status === 'active' && row.status !== 'active') {
      const dead = await deadKeyReason(tx, set.created_by_key_id ?? row.created_by_key_id, at);
      if (dead !== null)
        throw validationError([
          {
            field: 'status',
            message: `cannot be re-enabled: the API key this endpoint is bound to ${dead}; an API key that changes its url takes it over and may re-enable it`,
            code: 'key_inactive',
          },
        ]);
    }
    if (url !== undefined) set.url = url;
    if (eventTypes !== undefined) set.event_types = JSON.stringify(eventTypes);
    if (description !== undefined) set.description = description;
    if (input.status === 'active' && row.status !== 'active') {
      const { lastSeq } = await sequenceOf(tx, companyId);
      Object.assign(set, {
        status: 'active',
        disabled_reason: null,
        failing_since: null,
        after_seq: lastSeq,
      });
    }
    if (input.status === 'disabled' && row.status !== 'disabled')
      Object.assign(set, { status: 'disabled', disabled_reason: DISABLED_BY_PERSON });
    await updateEndpointRow(tx, id, set);
    await audit(tx, companyId, manager, 'webhook.updated', id, at, {
      fields: Object.keys(input),
      ...(set.created_by_key_id !== undefined ? { reboundFrom: row.created_by_key_id } : {}),
    });
    return endpointView({ ...row, ...set });
  });
}

export async function deleteEndpoint(
  ctx: AppContext,
  companyId: string,
  manager: WebhookManager,
  id: string,
): Promise<void> {
  await ctx.database.transaction(async (tx) => {
    const row = await findEndpoint(tx, companyId, id, true);
    if (!row) throw notFound(id);
    await deleteEndpointRows(tx, id);
    await audit(tx, companyId, manager, 'webhook.deleted', id, new Date(ctx.now()).toISOString(), {
      url: row.url,
    });
  });
}

/** A new secret; the current one keeps signing beside it for 24 hours (a second signature in the header). */
export async function rotateEndpointSecret(
  ctx: AppContext,
  settings: WebhookSettings,
  companyId: string,
  manager: WebhookManager,
  id: string,
) {
  const secret = newWebhookSecret();
  return ctx.database.transaction(async (tx) => {
    const row = await findEndpoint(tx, companyId, id, true);
    if (!row) throw notFound(id);
    const now = ctx.now();
    const set: Partial<EndpointRow> = {
      ...(await rebindTo(tx, row, manager)),
      secret: sealSecret(settings.key, secret),
      previous_secret: row.secret,
      previous_secret_until: new Date(now + ROTATION_OVERLAP_MS).toISOString(),
      updated_at: new Date(now).toISOString(),
    };
    await updateEndpointRow(tx, id, set);
    await audit(tx, companyId, manager, 'webhook.secret_rotated', id, set.updated_at!, {
      ...(set.created_by_key_id !== undefined ? { reboundFrom: row.created_by_key_id } : {}),
    });
    return {
      ...endpointView({ ...row, ...set }),
      secret,
      previousSecretValidUntil: set.previous_secret_until!,
    };
  });
}
