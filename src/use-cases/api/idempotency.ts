import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import {
  type Dialect,
  type Executor,
  isUniqueViolation,
  type Tx,
  uniqueViolationTarget,
} from '../../db/database.js';
import { prepareQuery } from '../../db/prepared.js';
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

/** Spec, Idempotency rule 4: the key's first request has not finished. */
export function keyInFlight(): ApiError {
  return new ApiError(
    'idempotency_in_flight',
    'a request with this Idempotency-Key is still being processed',
  );
}

/** Spec, Idempotency rule 3: the key was used with another request. */
export function keyReused(): ApiError {
  return new ApiError('idempotency_key_reused', 'this Idempotency-Key was used with a different request');
}

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

// Two or three of these run on every write with a key: compiled once (see db/prepared.ts).
const claim = prepareQuery(
  6,
  (
    db: Executor,
    companyId: string,
    apiKeyId: string,
    key: string,
    requestHash: string,
    createdAt: string,
    expiresAt: string,
  ) =>
    db
      .insertInto('idempotency_records')
      .values({
        company_id: companyId,
        api_key_id: apiKeyId,
        idempotency_key: key,
        request_hash: requestHash,
        state: 'in_flight',
        response_status: null,
        response_body: null,
        created_at: createdAt,
        expires_at: expiresAt,
      })
      .onConflict((oc) => oc.columns(['company_id', 'api_key_id', 'idempotency_key']).doNothing()),
);
/*
 * PostgreSQL, inside the write's transaction, pipelined (see db/prepared.ts): nobody waits for its
 * answer, the write's first lookups travel right behind it. The claim needs the key's advisory lock,
 * taken without waiting: a concurrent request with the same key holds it until its transaction ends.
 * Both ways a key can be unavailable fail the statement, and so the transaction, and the failure is
 * what the write's next statement throws: the primary key if the key has a record (then the separate
 * flow settles it: replay, reuse or a stale claim), or, for a held lock, a cast that cannot succeed
 * (PostgreSQL has no plain-SQL "raise"; the text names the reason and `isKeyInFlight` knows it).
 * The CASE reads the lock, a volatile call, so it is never folded into a constant while planning.
 */
const IN_FLIGHT_TEXT = 'idempotency key in flight';
const claimPipelined = prepareQuery(
  7,
  (
    _db: Executor,
    companyId: string,
    apiKeyId: string,
    key: string,
    requestHash: string,
    createdAt: string,
    expiresAt: string,
    lockKey: string,
  ) =>
    sql`insert into idempotency_records
          (company_id, api_key_id, idempotency_key, request_hash, state, response_status, response_body, created_at, expires_at)
        select ${companyId}, ${apiKeyId}, ${key}, ${requestHash}, 'in_flight', cast(null as integer), cast(null as text), ${createdAt}, ${expiresAt}
        where cast(case when pg_try_advisory_xact_lock(hashtextextended(${lockKey}, 0)) then 'true' else ${sql.lit(IN_FLIGHT_TEXT)} end as boolean)`,
);

/** The claim failed because another transaction holds the key (PostgreSQL, see `claimPipelined`). */
export function isKeyInFlight(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  return e?.code === '22P02' && typeof e.message === 'string' && e.message.includes(IN_FLIGHT_TEXT);
}

/** The claim failed because the key already has a record (PostgreSQL, see `claimPipelined`). */
export function isKeyTaken(error: unknown): boolean {
  return isUniqueViolation(error) && uniqueViolationTarget(error).includes('idempotency_records');
}

const findRecord = prepareQuery(3, (db: Executor, companyId: string, apiKeyId: string, key: string) =>
  db
    .selectFrom('idempotency_records')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('api_key_id', '=', apiKeyId)
    .where('idempotency_key', '=', key),
);
const complete = prepareQuery(
  5,
  (db: Executor, companyId: string, apiKeyId: string, key: string, status: number, body: string) =>
    db
      .updateTable('idempotency_records')
      .set({ state: 'done', response_status: status, response_body: body })
      .where('company_id', '=', companyId)
      .where('api_key_id', '=', apiKeyId)
      .where('idempotency_key', '=', key),
);

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
  return claimKey(ctx.store.db, scope, ctx.now);
}

/** The rules on `db`: the database itself (separate flow), or SQLite's exclusive write transaction. */
async function claimKey(
  db: Executor,
  scope: IdempotencyScope,
  clock: () => number,
): Promise<IdempotencyStart> {
  const key = where(scope);
  for (let attempt = 0; attempt < 2; attempt++) {
    const now = clock();
    const nowIso = new Date(now).toISOString();
    const inserted = await claim.executeWrite(
      db,
      scope.companyId,
      scope.apiKeyId,
      scope.key,
      scope.requestHash,
      nowIso,
      new Date(now + RETENTION_MS).toISOString(),
    );
    if (inserted === 1) return { kind: 'proceed' };

    const existing = await findRecord.executeTakeFirst(db, scope.companyId, scope.apiKeyId, scope.key);
    if (!existing) continue;
    const state = judgeRecord(existing, scope, now);
    if (state.kind === 'expired') {
      await removeExpired.executeWrite(db, scope.companyId, scope.apiKeyId, scope.key, nowIso);
      continue;
    }
    if (state.kind === 'replay') return state;
    if (state.stale) {
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
    throw keyInFlight();
  }
  throw keyInFlight();
}

type RecordRow = NonNullable<Awaited<ReturnType<typeof findRecord.executeTakeFirst>>>;

/**
 * Spec, Idempotency rules 2-5 for a key that has a record: expired (the key is free again), used with
 * another request (422, thrown), settled (replay), or still in flight, `stale` when its request died
 * with its process (a retry may take it over).
 */
function judgeRecord(
  existing: RecordRow,
  scope: IdempotencyScope,
  now: number,
):
  | { kind: 'expired' }
  | { kind: 'replay'; status: number; body: string }
  | { kind: 'in_flight'; stale: boolean } {
  if (existing.expires_at <= new Date(now).toISOString()) return { kind: 'expired' };
  if (existing.request_hash !== scope.requestHash) throw keyReused();
  if (existing.state === 'done' && existing.response_status !== null && existing.response_body !== null)
    return { kind: 'replay', status: existing.response_status, body: existing.response_body };
  return {
    kind: 'in_flight',
    stale: existing.created_at <= new Date(now - STALE_IN_FLIGHT_MS).toISOString(),
  };
}

/*
 * SQLite, inside the write's transaction, which holds the database's write lock: nobody else can
 * claim or settle the key meanwhile, so it is read, not claimed, and a new key's record is written
 * once, complete, with the outcome (one write instead of a claim and an update).
 */
async function settleUnderWriteLock(
  trx: Tx,
  scope: IdempotencyScope,
  now: number,
): Promise<InTransactionStart> {
  const existing = await findRecord.executeTakeFirst(trx, scope.companyId, scope.apiKeyId, scope.key);
  if (!existing) return { kind: 'proceed', claimed: false };
  const state = judgeRecord(existing, scope, now);
  if (state.kind === 'expired') {
    const nowIso = new Date(now).toISOString();
    await removeExpired.executeWrite(trx, scope.companyId, scope.apiKeyId, scope.key, nowIso);
    return { kind: 'proceed', claimed: false };
  }
  if (state.kind === 'replay') return state;
  // In flight: a separate flow elsewhere holds it, or one that died did (then it is taken over).
  if (state.stale) return { kind: 'proceed', claimed: true };
  throw keyInFlight();
}

const removeExpired = prepareQuery(
  4,
  (db: Executor, companyId: string, apiKeyId: string, key: string, nowIso: string) =>
    db
      .deleteFrom('idempotency_records')
      .where('company_id', '=', companyId)
      .where('api_key_id', '=', apiKeyId)
      .where('idempotency_key', '=', key)
      .where('expires_at', '<=', nowIso),
);

const insertDone = prepareQuery(
  8,
  (
    db: Executor,
    companyId: string,
    apiKeyId: string,
    key: string,
    requestHash: string,
    status: number,
    body: string,
    createdAt: string,
    expiresAt: string,
  ) =>
    db.insertInto('idempotency_records').values({
      company_id: companyId,
      api_key_id: apiKeyId,
      idempotency_key: key,
      request_hash: requestHash,
      state: 'done',
      response_status: status,
      response_body: body,
      created_at: createdAt,
      expires_at: expiresAt,
    }),
);

/** How the key stands at the start of the write's transaction. */
export type InTransactionStart =
  | { kind: 'replay'; status: number; body: string }
  /** `claimed`: the key's record exists (as in flight) and the outcome updates it; else it is inserted. */
  | { kind: 'proceed'; claimed: boolean };

/**
 * Spec, Idempotency rules 1-5, as the first statement(s) of the write's own transaction, so that the
 * claim, the write and the stored outcome commit together (one commit instead of three).
 *
 * SQLite: the transaction holds the database's write lock (BEGIN IMMEDIATE), so no other request, in
 * this process or another, can hold the key meanwhile: the rules run as in the separate flow (see
 * `settleUnderWriteLock`). A second request with the same key waits for the lock and then finds the
 * stored outcome.
 * PostgreSQL: the claim is pipelined and always answers `proceed`; a key that is not free fails the
 * transaction instead (see `claimPipelined`): the caller answers 409 for `isKeyInFlight`, and settles
 * `isKeyTaken` (a replay, a reused key, an expired record or a stale claim) in the separate flow.
 */
export async function claimInTransaction(
  trx: Tx,
  dialect: Dialect,
  scope: IdempotencyScope,
  now: number,
): Promise<InTransactionStart> {
  if (dialect === 'sqlite') return settleUnderWriteLock(trx, scope, now);
  await claimPipelined.executePipelined(
    trx,
    scope.companyId,
    scope.apiKeyId,
    scope.key,
    scope.requestHash,
    new Date(now).toISOString(),
    new Date(now + RETENTION_MS).toISOString(),
    `${scope.companyId}|${scope.apiKeyId}|${scope.key}`,
  );
  return { kind: 'proceed', claimed: true };
}

/**
 * Stores the outcome as the write transaction's last statement, pipelined with its commit (see
 * prepared.ts): if it fails, the commit fails and nothing of the write is kept.
 */
export async function completeIdempotentRequestOnCommit(
  trx: Tx,
  scope: IdempotencyScope,
  claimed: boolean,
  status: number,
  body: string,
  now: number,
): Promise<void> {
  if (claimed) {
    await complete.executePipelined(trx, scope.companyId, scope.apiKeyId, scope.key, status, body);
    return;
  }
  await insertDone.executePipelined(
    trx,
    scope.companyId,
    scope.apiKeyId,
    scope.key,
    scope.requestHash,
    status,
    body,
    new Date(now).toISOString(),
    new Date(now + RETENTION_MS).toISOString(),
  );
}

export async function completeIdempotentRequest(
  db: Executor,
  scope: IdempotencyScope,
  status: number,
  body: string,
): Promise<void> {
  await complete.executeWrite(db, scope.companyId, scope.apiKeyId, scope.key, status, body);
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
