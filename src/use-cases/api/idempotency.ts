import { createHash } from 'node:crypto';
import { ApiError } from '../../errors.js';
import type { UseCaseContext } from '../context.js';

const RETENTION_MS = 24 * 3_600_000;
/** A first request that has not finished in this long died with its process; a retry may take over. */
const STALE_IN_FLIGHT_MS = 120_000;

export interface IdempotencyScope {
  companyId: string;
  apiKeyId: string;
  key: string;
  requestHash: string;
}

export type IdempotencyStart = { kind: 'proceed' } | { kind: 'replay'; status: number; body: string };

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/** Same operation and same JSON body (whatever the key order or spacing) hash the same. */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${path}\n${canonicalJson(body)}`)
    .digest('hex');
}

function where(scope: IdempotencyScope) {
  return {
    company_id: scope.companyId,
    api_key_id: scope.apiKeyId,
    idempotency_key: scope.key,
  };
}

/**
 * Spec, Idempotency rules 1-5. The primary key (company, API key, idempotency key) lets exactly one
 * request claim a key, across every instance on the database.
 */
export async function beginIdempotentRequest(
  ctx: UseCaseContext,
  scope: IdempotencyScope,
): Promise<IdempotencyStart> {
  const db = ctx.store.db;
  const key = where(scope);
  for (let attempt = 0; attempt < 2; attempt++) {
    const now = ctx.now();
    const nowIso = new Date(now).toISOString();
    const inserted = await db
      .insertInto('idempotency_records')
      .values({
        ...key,
        request_hash: scope.requestHash,
        state: 'in_flight',
        response_status: null,
        response_body: null,
        created_at: nowIso,
        expires_at: new Date(now + RETENTION_MS).toISOString(),
      })
      .onConflict((oc) => oc.columns(['company_id', 'api_key_id', 'idempotency_key']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return { kind: 'proceed' };

    const existing = await db
      .selectFrom('idempotency_records')
      .selectAll()
      .where('company_id', '=', key.company_id)
      .where('api_key_id', '=', key.api_key_id)
      .where('idempotency_key', '=', key.idempotency_key)
      .executeTakeFirst();
    if (!existing) continue;
    if (existing.expires_at <= nowIso) {
      await db
        .deleteFrom('idempotency_records')
        .where('company_id', '=', key.company_id)
        .where('api_key_id', '=', key.api_key_id)
        .where('idempotency_key', '=', key.idempotency_key)
        .where('expires_at', '<=', nowIso)
        .execute();
      continue;
    }
    if (existing.request_hash !== scope.requestHash)
      throw new ApiError('idempotency_key_reused', 'this Idempotency-Key was used with a different request');
    if (existing.state === 'done' && existing.response_status !== null && existing.response_body !== null)
      return { kind: 'replay', status: existing.response_status, body: existing.response_body };
    if (existing.created_at <= new Date(now - STALE_IN_FLIGHT_MS).toISOString()) {
      const taken = await db
        .updateTable('idempotency_records')
        .set({ created_at: nowIso })
        .where('company_id', '=', key.company_id)
        .where('api_key_id', '=', key.api_key_id)
        .where('idempotency_key', '=', key.idempotency_key)
        .where('state', '=', 'in_flight')
        .where('created_at', '=', existing.created_at)
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) === 1) return { kind: 'proceed' };
    }
    throw new ApiError(
      'idempotency_in_flight',
      'a request with this Idempotency-Key is still being processed',
    );
  }
  throw new ApiError('idempotency_in_flight', 'a request with this Idempotency-Key is still being processed');
}

export async function completeIdempotentRequest(
  ctx: UseCaseContext,
  scope: IdempotencyScope,
  status: number,
  body: string,
): Promise<void> {
  const key = where(scope);
  await ctx.store.db
    .updateTable('idempotency_records')
    .set({ state: 'done', response_status: status, response_body: body })
    .where('company_id', '=', key.company_id)
    .where('api_key_id', '=', key.api_key_id)
    .where('idempotency_key', '=', key.idempotency_key)
    .execute();
}

/** A 5xx is not stored (spec, rule 1 keeps 4xx only): the key is freed for a retry. */
export async function abandonIdempotentRequest(ctx: UseCaseContext, scope: IdempotencyScope): Promise<void> {
  const key = where(scope);
  await ctx.store.db
    .deleteFrom('idempotency_records')
    .where('company_id', '=', key.company_id)
    .where('api_key_id', '=', key.api_key_id)
    .where('idempotency_key', '=', key.idempotency_key)
    .where('state', '=', 'in_flight')
    .execute();
}

export async function purgeExpiredIdempotencyRecords(ctx: UseCaseContext): Promise<number> {
  const result = await ctx.store.db
    .deleteFrom('idempotency_records')
    .where('expires_at', '<=', new Date(ctx.now()).toISOString())
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
