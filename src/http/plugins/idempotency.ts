import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppServices } from '../../app.js';
import type { Tx } from '../../db/database.js';
import { ApiError } from '../../errors.js';
import {
  abandonIdempotentRequest,
  beginIdempotentRequest,
  claimInTransaction,
  completeIdempotentRequest,
  completeIdempotentRequestOnCommit,
  type IdempotencyScope,
  type InTransactionStart,
  isKeyInFlight,
  isKeyTaken,
  keyInFlight,
  keyReused,
  requestFingerprint,
} from '../../use-cases/api/idempotency.js';
import type { WriteOutcome } from '../../use-cases/api/time-tracking.js';
import { JSON_CONTENT_TYPE, sendJson } from '../json-reply.js';
import { PROBLEM_CONTENT_TYPE, pathOf } from '../problem.js';
import { readIdempotencyKey } from '../write-headers.js';
import { requirePrincipal } from './authenticate.js';

/**
 * Runs a write under the spec's idempotency rules: with a key, the first result (4xx included) is
 * stored and later replayed byte for byte; without one, the write runs as is. A dry run stores nothing.
 */
export async function runIdempotentWrite(
  services: AppServices,
  request: FastifyRequest,
  reply: FastifyReply,
  dryRun: boolean,
  write: (options: { detectDuplicates: boolean }) => Promise<WriteOutcome>,
) {
  const key = readIdempotencyKey(request.headers);
  if (key === null || dryRun) {
    const outcome = await write({ detectDuplicates: key === null });
    return sendJson(reply, outcome.status, outcome.body);
  }
  const principal = requirePrincipal(request);
  const scope: IdempotencyScope = {
    companyId: principal.companyId,
    apiKeyId: principal.id,
    key,
    requestHash: requestFingerprint(request.method, pathOf(request.url), request.body),
  };
  const store = services.ctx.store;
  /*
   * Spec rules 3 and 4 for requests this process is still running: a request with the same key is in
   * flight (409), or reuses the key for another request (422), without waiting for the first one's
   * transaction. (On SQLite the write transactions of one database run one at a time, so without
   * this the second would wait for the first and then replay it.) Across processes the database
   * decides: see claimInTransaction.
   */
  const running = runningKeys(store);
  const id = `${scope.companyId}|${scope.apiKeyId}|${scope.key}`;
  const holder = running.get(id);
  if (holder !== undefined) {
    if (holder !== scope.requestHash) throw keyReused();
    throw keyInFlight();
  }
  running.set(id, scope.requestHash);
  try {
    return await runWithKey(services, request, reply, scope, write);
  } finally {
    running.delete(id);
  }
}

/** Keys (company, API key, idempotency key) of the writes this process is running, with their request hash. */
const runningByStore = new WeakMap<object, Map<string, string>>();

function runningKeys(store: object): Map<string, string> {
  let running = runningByStore.get(store);
  if (running === undefined) runningByStore.set(store, (running = new Map()));
  return running;
}

async function runWithKey(
  services: AppServices,
  request: FastifyRequest,
  reply: FastifyReply,
  scope: IdempotencyScope,
  write: (options: { detectDuplicates: boolean }) => Promise<WriteOutcome>,
) {
  const store = services.ctx.store;
  const send = (status: number, body: string, replayed = false) => {
    if (replayed) reply.header('idempotent-replayed', 'true');
    return reply
      .code(status)
      .type(status >= 400 ? PROBLEM_CONTENT_TYPE : JSON_CONTENT_TYPE)
      .send(body);
  };
  const sendProblem = (error: ApiError, body: string) => {
    for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
    return send(error.status, body);
  };

  /*
   * The claim, the write and its stored outcome in the write's own transaction: one commit, and no
   * window in which the write is committed while its key still reads "in flight" (a crash there
   * would let a retry take the key over and write twice). See claimInTransaction for the rules.
   */
  let claimed = true;
  const claimedAt = services.ctx.now();
  const outcomeHook = storingOutcome((trx, status, body) =>
    completeIdempotentRequestOnCommit(trx, scope, claimed, status, body, claimedAt),
  );
  const { result } = store.withTransactionHook(
    {
      begin: async (trx) => {
        let start: InTransactionStart;
        try {
          start = await claimInTransaction(trx, store.dialect, scope, claimedAt);
        } catch (error) {
          // 409 in flight, 422 reused, or a database failure: all end the request before the write.
          throw new Settled(error instanceof Error ? error : new Error(String(error)));
        }
        if (start.kind !== 'proceed') throw new Settled(start);
        claimed = start.claimed;
      },
      beforeCommit: outcomeHook.beforeCommit,
    },
    () => write({ detectDuplicates: false }),
  );
  let outcome: WriteOutcome;
  try {
    outcome = await result;
  } catch (error) {
    if (error instanceof Settled) {
      const settled = error.settled;
      if (settled instanceof Error) throw settled; // 409 in flight or 422 reused: answered, never stored
      return send(settled.status, settled.body, true);
    }
    // PostgreSQL: the key was not free for the pipelined claim (see claimInTransaction).
    if (isKeyInFlight(error)) throw keyInFlight();
    if (isKeyTaken(error)) return runSeparately(services, request, reply, scope, write, send, sendProblem);
    // A 4xx raised before the transaction (input checks) or inside it (which rolled it back, claim
    // included): settled on its own, like the separate flow does.
    if (error instanceof ApiError && error.status < 500)
      return storeProblem(services, request, scope, error, send, sendProblem);
    // A failure: nothing was stored, the key stays free for a retry.
    throw error;
  }
  if (outcomeHook.stored !== null) return send(outcome.status, outcomeHook.stored);
  // The write did not run in a transaction of its own (it did not take the hook): store it after.
  const body = JSON.stringify(outcome.body);
  const start = await beginIdempotentRequest(services.ctx, scope);
  if (start.kind === 'proceed') await completeIdempotentRequest(store.db, scope, outcome.status, body);
  return send(outcome.status, body);
}

/** Carries the settlement of a key out of the write's transaction (which it rolls back). */
class Settled extends Error {
  constructor(readonly settled: Exclude<InTransactionStart, { kind: 'proceed' }> | Error) {
    super('idempotency key settled before the write');
  }
}

type Send = (status: number, body: string, replayed?: boolean) => FastifyReply;
type SendProblem = (error: ApiError, body: string) => FastifyReply;

/** Stores a 4xx outcome, unless the key meanwhile holds another (which is then what the key replays). */
async function storeProblem(
  services: AppServices,
  request: FastifyRequest,
  scope: IdempotencyScope,
  error: ApiError,
  send: Send,
  sendProblem: SendProblem,
) {
  const start = await beginIdempotentRequest(services.ctx, scope);
  if (start.kind === 'replay') return send(start.status, start.body, true);
  const problem = JSON.stringify(services.problemFor(request, error));
  await completeIdempotentRequest(services.ctx.store.db, scope, error.status, problem);
  return sendProblem(error, problem);
}

/**
 * The separate flow, for the rare cases the write's transaction cannot settle (PostgreSQL: the key
 * already has a record, to replay, refuse as reused, or take over when expired or stale): claim in a
 * statement of its own, then the write with its outcome stored in its transaction.
 */
async function runSeparately(
  services: AppServices,
  request: FastifyRequest,
  _reply: FastifyReply,
  scope: IdempotencyScope,
  write: (options: { detectDuplicates: boolean }) => Promise<WriteOutcome>,
  send: Send,
  sendProblem: SendProblem,
) {
  const start = await beginIdempotentRequest(services.ctx, scope);
  if (start.kind === 'replay') return send(start.status, start.body, true);
  const store = services.ctx.store;
  // Claimed by beginIdempotentRequest above: the outcome updates that record.
  const outcomeHook = storingOutcome((trx, status, body) =>
    completeIdempotentRequestOnCommit(trx, scope, true, status, body, services.ctx.now()),
  );
  const { result } = store.withTransactionHook({ beforeCommit: outcomeHook.beforeCommit }, () =>
    write({ detectDuplicates: false }),
  );
  let outcome: WriteOutcome;
  try {
    outcome = await result;
  } catch (error) {
    if (error instanceof ApiError && error.status < 500) {
      const problem = JSON.stringify(services.problemFor(request, error));
      await completeIdempotentRequest(store.db, scope, error.status, problem);
      return sendProblem(error, problem);
    }
    await abandonIdempotentRequest(services.ctx, scope).catch(() => {});
    throw error;
  }
  if (outcomeHook.stored !== null) return send(outcome.status, outcomeHook.stored);
  const body = JSON.stringify(outcome.body);
  await completeIdempotentRequest(store.db, scope, outcome.status, body);
  return send(outcome.status, body);
}

/** A `beforeCommit` hook that stores the write's outcome in its transaction; `stored` is that body once it ran. */
function storingOutcome(record: (trx: Tx, status: number, body: string) => Promise<void>) {
  const hook = {
    stored: null as string | null,
    beforeCommit: async (trx: Tx, value: unknown) => {
      const outcome = value as WriteOutcome;
      const body = JSON.stringify(outcome.body);
      await record(trx, outcome.status, body);
      hook.stored = body;
    },
  };
  return hook;
}
