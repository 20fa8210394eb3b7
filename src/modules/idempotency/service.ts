import { createHash } from 'node:crypto';
import { ApiError } from '../../domain/errors.js';
import { type AppContext } from '../context.js';
import {
  type Executor,
  type Tx,
  tryTransactionLock,
  tryTransactionLocks,
} from '../../platform/db/database.js';
import { chunked, prepareQuery } from '../../platform/db/prepared.js';
import { columnsOf, insertRows } from '../../platform/db/update-rows.js';
import type { WritePlan } from '../../platform/db/write-plan.js';
import { type IdempotencyRecordRow } from '../../platform/db/schema.js';

/** Spec, Limits: a key's outcome is kept 24 hours. */
const RETENTION_MS = 24 * 3_600_000;
/**
 * A record still `in_flight` after this long belongs to a request that died with its process (records
 * of this state were written by earlier versions, whose claim and outcome were separate commits);
 * a retry may take it over.
 */
const STALE_IN_FLIGHT_MS = 120_000;

/** Who sent a key, the key, and what it was sent with. */
export interface IdempotencyScope {
  companyId: string;
  apiKeyId: string;
  key: string;
  requestHash: string;
}

/** What a key allows at the start of a write's transaction. */
export type KeyClaim =
  /** The key is free: run the write and store its outcome (`storeOutcome`) in the same transaction. */
  | { kind: 'claimed' }
  /** The key's request already ran: answer its stored outcome again. */
  | { kind: 'replay'; status: number; body: string }
  /** Spec, Idempotency rule 4 (409) or rule 3 (422): the request is refused, nothing is stored. */
  | { kind: 'refused'; error: ApiError };

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

const findRecord = prepareQuery((db, scope: IdempotencyScope) =>
  db
    .selectFrom('idempotency_records')
    .selectAll()
    .where('company_id', '=', scope.companyId)
    .where('api_key_id', '=', scope.apiKeyId)
    .where('idempotency_key', '=', scope.key),
);

const deleteRecord = prepareQuery((db, scope: IdempotencyScope) =>
  db
    .deleteFrom('idempotency_records')
    .where('company_id', '=', scope.companyId)
    .where('api_key_id', '=', scope.apiKeyId)
    .where('idempotency_key', '=', scope.key),
);

const insertRecord = prepareQuery(
  (db, p: IdempotencyScope & { status: number; body: string; createdAt: string; expiresAt: string }) =>
    db.insertInto('idempotency_records').values({
      company_id: p.companyId,
      api_key_id: p.apiKeyId,
      idempotency_key: p.key,
      request_hash: p.requestHash,
      state: 'done',
      response_status: p.status,
      response_body: p.body,
      created_at: p.createdAt,
      expires_at: p.expiresAt,
    }),
);

/**
 * Spec, Idempotency rules 1-5, as the first step of the write's own transaction. The key is locked
 * for the rest of the transaction (`tryTransactionLock`): a second request with the same key while
 * the first one's transaction runs, in this process or another, is told it is in flight (409); once
 * the first has committed, its stored outcome is replayed. An expired record frees the key; a record
 * of the same key for another request refuses it (422).
 */
export async function claimKey(tx: Tx, scope: IdempotencyScope, now: number): Promise<KeyClaim> {
  if (!(await tryTransactionLock(tx, keyLockName(scope)))) return { kind: 'refused', error: keyInFlight() };
  const existing = await findRecord.executeTakeFirst(tx, scope);
  if (existing === undefined) return { kind: 'claimed' };
  const verdict = judgeRecord(existing, scope, now);
  if (verdict.kind === 'free') {
    await deleteRecord.executeWrite(tx, scope);
    return { kind: 'claimed' };
  }
  return verdict;
}

/**
 * A keyed write that takes its key's claim into its own statements (issue 32, item 3: a keyed punch in
 * five round trips) instead of claimKey's two and storeOutcome's one: it tries the key's lock
 * (`lockName`) in the statement of its first lock, throwing `busy()` when another transaction holds it;
 * reads the key's record in its context statement (`ownerId`, `key`) and asks `admit` about it, before
 * anything else it decides; and adds the stored outcome to its own writes (`store`). The same rules as
 * claimKey and storeOutcome, in the same transaction: the answer is the same, byte for byte.
 */
export interface KeyInWrite {
  lockName: string;
  ownerId: string;
  key: string;
  busy: () => ApiError;
  /**
   * True: the key is free (or freed: its record is replaced by `store`), go on. False: the key's
   * stored answer is replayed; the write stops and writes nothing. A refusal (409 in flight, 422
   * reused) is thrown.
   */
  admit(record: IdempotencyRecordRow | undefined): boolean;
  /** The write's answer stored with the key, as a write of the write's own plan. */
  store(plan: WritePlan, outcome: { status: number; body: unknown }): void;
}

/** What a write that took its key returns when the key's stored answer is replayed instead (it wrote nothing). */
export const KEY_REPLAYED = Symbol('key replayed');

/** A KeyInWrite for `scope`; `answer()` is what the request answers once the write returned. */
export function keyInWrite(
  scope: IdempotencyScope,
  now: number,
  serialize: (outcome: { status: number; body: unknown }) => string,
): KeyInWrite & { answer(): { status: number; body: string; replayed: boolean } } {
  let answer: { status: number; body: string; replayed: boolean } | null = null;
  let admitted = false;
  return {
    lockName: keyLockName(scope),
    ownerId: scope.apiKeyId,
    key: scope.key,
    busy: keyInFlight,
    admit(record) {
      const verdict = record === undefined ? ({ kind: 'claimed' } as const) : judgeRecord(record, scope, now);
      if (verdict.kind === 'refused') throw verdict.error;
      if (verdict.kind === 'replay') {
        answer = { status: verdict.status, body: verdict.body, replayed: true };
        return false;
      }
      admitted = true;
      return true;
    },
    store(plan, outcome) {
      if (!admitted) throw new Error('a keyed write stored its outcome before its key was admitted');
      const body = serialize(outcome);
      planOutcome(plan, scope, { status: outcome.status, body }, now);
      answer = { status: outcome.status, body, replayed: false };
    },
    answer() {
      if (answer === null)
        throw new Error('a keyed write returned without its key judged and its outcome stored');
      return answer;
    },
  };
}

function keyLockName(scope: Pick<IdempotencyScope, 'companyId' | 'apiKeyId' | 'key'>): string {
  return `idempotency|${scope.companyId}|${scope.apiKeyId}|${scope.key}`;
}

export function judgeRecord(
  existing: IdempotencyRecordRow,
  scope: IdempotencyScope,
  now: number,
): KeyClaim | { kind: 'free' } {
  if (existing.expires_at <= new Date(now).toISOString()) return { kind: 'free' };
  if (existing.request_hash !== scope.requestHash) return { kind: 'refused', error: keyReused() };
  if (existing.state === 'done' && existing.response_status !== null && existing.response_body !== null)
    return { kind: 'replay', status: existing.response_status, body: existing.response_body };
  const stale = existing.created_at <= new Date(now - STALE_IN_FLIGHT_MS).toISOString();
  return stale ? { kind: 'free' } : { kind: 'refused', error: keyInFlight() };
}

/**
 * The outcome (status and the exact body sent) of the request that claimed the key, stored in the
 * write's transaction: the write and its record commit together or not at all. The primary key
 * (company, API key, idempotency key) lets exactly one outcome exist per key.
 */
export async function storeOutcome(
  tx: Tx,
  scope: IdempotencyScope,
  outcome: { status: number; body: string },
  now: number,
): Promise<void> {
  await insertRecord.executeWrite(tx, {
    ...scope,
    status: outcome.status,
    body: outcome.body,
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(now + RETENTION_MS).toISOString(),
  });
}

/**
 * storeOutcome as one write of a plan (a keyed punch's writes in one statement, issue 32), replacing the
 * key's record where one was freed (expired, or in flight and stale: judgeRecord), as claimKey's delete
 * and storeOutcome's insert would.
 */
export function planOutcome(
  plan: WritePlan,
  scope: IdempotencyScope,
  outcome: { status: number; body: string },
  now: number,
): void {
  const row = {
    company_id: scope.companyId,
    api_key_id: scope.apiKeyId,
    idempotency_key: scope.key,
    request_hash: scope.requestHash,
    state: 'done',
    response_status: outcome.status,
    response_body: outcome.body,
    created_at: new Date(now).toISOString(),
    expires_at: new Date(now + RETENTION_MS).toISOString(),
  };
  plan.upsert('idempotency_records', columnsOf([row]), row, ['company_id', 'api_key_id', 'idempotency_key']);
}

/*
 * A batch of writes decided as a set (issue 32): every key of the batch locked (as claimKey locks one)
 * and its record read in one statement each, judged in memory (judgeRecord), the records of freed
 * keys deleted and every outcome stored in multi-row statements.
 */

/** The records of `keys` (one caller's), locked as claimKey locks one; null when one is held elsewhere. */
export async function readKeysForBatch(
  tx: Tx,
  caller: { companyId: string; apiKeyId: string },
  keys: string[],
): Promise<Map<string, IdempotencyRecordRow> | null> {
  const records = new Map<string, IdempotencyRecordRow>();
  const distinct = [...new Set(keys)];
  if (distinct.length === 0) return records;
  const names = distinct.map((key) => keyLockName({ ...caller, key }));
  if (!(await tryTransactionLocks(tx, names))) return null;
  for (const chunk of chunked(distinct, 500)) {
    const rows = await tx
      .selectFrom('idempotency_records')
      .selectAll()
      .where('company_id', '=', caller.companyId)
      .where('api_key_id', '=', caller.apiKeyId)
      .where('idempotency_key', 'in', chunk)
      .execute();
    for (const row of rows) records.set(row.idempotency_key, row);
  }
  return records;
}

/** The outcomes of a batch's keys, each as storeOutcome stores one, after deleting the records of freed keys. */
export async function storeOutcomes(
  tx: Tx,
  caller: { companyId: string; apiKeyId: string },
  freed: string[],
  outcomes: { scope: IdempotencyScope; status: number; body: string; now: number }[],
): Promise<void> {
  for (const chunk of chunked(freed, 500))
    await tx
      .deleteFrom('idempotency_records')
      .where('company_id', '=', caller.companyId)
      .where('api_key_id', '=', caller.apiKeyId)
      .where('idempotency_key', 'in', chunk)
      .execute();
  const rows = outcomes.map(({ scope, status, body, now }) => ({
    company_id: scope.companyId,
    api_key_id: scope.apiKeyId,
    idempotency_key: scope.key,
    request_hash: scope.requestHash,
    state: 'done',
    response_status: status,
    response_body: body,
    created_at: new Date(now).toISOString(),
    expires_at: new Date(now + RETENTION_MS).toISOString(),
  }));
  if (rows.length > 0) await insertRows(tx, 'idempotency_records', columnsOf(rows), rows);
}

/** Spec, Limits: outcomes are kept 24 hours; the server removes expired ones periodically. */
export async function purgeExpiredIdempotencyRecords(ctx: AppContext): Promise<number> {
  const result = await ctx.database.db
    .deleteFrom('idempotency_records')
    .where('expires_at', '<=', new Date(ctx.now()).toISOString())
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

const insertInFlight = prepareQuery((db, p: IdempotencyScope & { createdAt: string; expiresAt: string }) =>
  db.insertInto('idempotency_records').values({
    company_id: p.companyId,
    api_key_id: p.apiKeyId,
    idempotency_key: p.key,
    request_hash: p.requestHash,
    state: 'in_flight',
    response_status: null,
    response_body: null,
    created_at: p.createdAt,
    expires_at: p.expiresAt,
  }),
);

const completeInFlight = prepareQuery(
  (db, p: IdempotencyScope & { status: number; body: string; expiresAt: string }) =>
    db
      .updateTable('idempotency_records')
      .set({ state: 'done', response_status: p.status, response_body: p.body, expires_at: p.expiresAt })
      .where('company_id', '=', p.companyId)
      .where('api_key_id', '=', p.apiKeyId)
      .where('idempotency_key', '=', p.key)
      .where('state', '=', 'in_flight'),
);

const deleteInFlight = prepareQuery((db, scope: IdempotencyScope) =>
  db
    .deleteFrom('idempotency_records')
    .where('company_id', '=', scope.companyId)
    .where('api_key_id', '=', scope.apiKeyId)
    .where('idempotency_key', '=', scope.key)
    .where('state', '=', 'in_flight'),
);

/**
 * A key for a write that runs in several transactions of its own (a batch of punches, each one its
 * own transaction): the claim is committed as an `in_flight` record, so that a second request with
 * the key, in any instance, is told it is in flight until `finishLongWrite` stores the outcome (or
 * `abandonLongWrite` frees the key after a failure). A record left `in_flight` by a process that died
 * frees itself after two minutes (see judgeRecord).
 */
export async function claimKeyForLongWrite(tx: Tx, scope: IdempotencyScope, now: number): Promise<KeyClaim> {
  const claim = await claimKey(tx, scope, now);
  if (claim.kind === 'claimed')
    await insertInFlight.executeWrite(tx, {
      ...scope,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + RETENTION_MS).toISOString(),
    });
  return claim;
}

/** The outcome of a long write, stored with its key (kept 24 hours from now). */
export async function finishLongWrite(
  tx: Tx,
  scope: IdempotencyScope,
  outcome: { status: number; body: string },
  now: number,
): Promise<void> {
  await completeInFlight.executeWrite(tx, {
    ...scope,
    status: outcome.status,
    body: outcome.body,
    expiresAt: new Date(now + RETENTION_MS).toISOString(),
  });
}

/** A long write failed with no answer to keep: its key is free again. */
export async function abandonLongWrite(db: Executor, scope: IdempotencyScope): Promise<void> {
  await deleteInFlight.executeWrite(db, scope);
}
