import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../domain/errors.js';
import { requirePrincipal } from './authenticate.js';
import {
  outcomeOf,
  type SettledWrite,
  settleWrite,
  storedProblem,
  type Write,
  type WriteOutcome,
} from './idempotency.js';
import {
  claimKey,
  type IdempotencyScope,
  judgeRecord,
  keyReused,
  readKeysForBatch,
  storeOutcome,
  storeOutcomes,
} from '../../modules/idempotency/service.js';
import { isDatabaseUnavailable, savepoint, type Tx } from '../../platform/db/database.js';

/*
 * Issue 32, item 2: a batch of writes in one transaction and one commit. Each write runs exactly as
 * `settleWrite` would run it alone (the same claim of its key, the same write, the same stored outcome
 * or stored refusal), inside a savepoint of the batch's transaction: a refused write is rolled back to
 * its savepoint and changes nothing of the others, and each write sees what the writes before it did,
 * as it would have after their commits. What one transaction cannot do as the writes one by one would
 * (a key held by a request still running, which the batch waits for; a deadlock; a unique index that
 * refuses a write) rolls the whole transaction back and the batch runs write by write instead
 * (`settleWrite`), so every result is still exactly the single endpoint's.
 */

/** One write of a batch: its key (null: none), the request's fingerprint for the key, the write. */
export interface BatchWrite<B> {
  key: string | null;
  requestHash: string;
  write: Write<B>;
}

export interface BatchOptions<B> {
  dryRun: boolean;
  /** The single endpoint's path, which the problem documents name. */
  instance: string;
  serialize: (body: B) => string;
  /** First in the transaction: e.g. the row locks of every employee of the batch, in one order. */
  prepare: (tx: Tx) => Promise<void>;
}

/** The batch cannot be one transaction: it runs write by write. */
class RunOneByOne extends Error {}

/** The batch cannot be decided as a set: it runs write by write in one transaction (settleTogether). */
class NotAsSet extends Error {
  constructor(readonly reason: FallbackReason) {
    super(reason);
  }
}

/**
 * Why a batch did not run as a set (punchclock_batch_forms_total's `reason`, docs/operations.md):
 * a dry run or no set form for it (a kiosk's skewed clock); the set form declined (`load`); a key
 * held by a request still running; the database refused a statement; any other error, a defect of
 * the set form (logged at warn). A batch run as a set has the reason `none`; one run a transaction
 * per write (its one transaction refused too) keeps the reason it did not run as a set.
 */
export type FallbackReason =
  'none' | 'dry_run' | 'no_set_form' | 'declined' | 'key_in_flight' | 'db_refused' | 'set_error';

/**
 * Why the set form's transaction was given up, or `error` rethrown: the database refused something (not
 * an answer of the rules), unless it is gone; any other error is a defect of the set form: the answers
 * stay right (the batch runs as below), but it is logged at warn.
 */
function fallbackReason(request: FastifyRequest, error: unknown): FallbackReason {
  if (error instanceof NotAsSet) return error.reason;
  if (error instanceof ApiError || isDatabaseUnavailable(error)) throw error;
  if (isDatabaseError(error)) {
    request.log.info({ err: error }, 'a batch ran write by write after the database refused its set form');
    return 'db_refused';
  }
  request.log.warn({ err: error }, 'a batch ran write by write after an error in its set form');
  return 'set_error';
}

/** Whether `error` was raised by the database (a SQLite or a PostgreSQL error), not by the code. */
function isDatabaseError(error: unknown): boolean {
  const e = error as { code?: unknown; severity?: unknown } | null;
  if (typeof e?.code !== 'string') return false;
  return e.code.startsWith('SQLITE_') || (typeof e.severity === 'string' && /^[0-9A-Z]{5}$/.test(e.code));
}

/*
 * Issue 32, item 2, the set form: the batch's transaction reads once what every write needs (`load`:
 * e.g. every employee's rows, in a few statements) and the records of every key (one statement);
 * each write is then decided in order, in memory, on the state the writes before it left (`decide`:
 * the single endpoint's pure rules), its key judged as claimKey judges it; and every accepted write,
 * every stored outcome, is written at the end in multi-row statements (`flush`). What the set form
 * cannot answer as the writes one by one would (a key held by a request still running, a database
 * refusal) rolls it back, and the batch runs as above (settleTogether, then write by write).
 */
export interface SetForm<B> {
  /** First in the transaction: locks and reads what every write needs; null: not as a set. */
  load(tx: Tx): Promise<SetBatch<B> | null>;
}

export interface SetBatch<B> {
  /** Write `index` on the state the writes before it left; its refusal (an ApiError) changes nothing. */
  decide(index: number, options: { detectDuplicates: boolean }): Promise<WriteOutcome<B>>;
  /** Every accepted write, in multi-row statements. */
  flush(tx: Tx): Promise<void>;
}

/** Every write's result, in order: in one transaction, or (see above) one transaction per write. */
export async function settleWrites<B>(
  request: FastifyRequest,
  options: BatchOptions<B>,
  writes: BatchWrite<B>[],
  setForm?: SetForm<B>,
): Promise<SettledWrite[]> {
  const forms = request.server.services.metrics.batchForms;
  let reason: FallbackReason = options.dryRun ? 'dry_run' : 'no_set_form';
  if (setForm && !options.dryRun) {
    const asSet = await settleAsSet(request, options, writes, setForm);
    if (!('reason' in asSet)) {
      forms.inc({ form: 'set', reason: 'none' });
      return asSet.results;
    }
    reason = asSet.reason;
  }
  const together = await settleTogether(request, options, writes);
  if (together !== null) {
    forms.inc({ form: 'together', reason });
    return together;
  }
  forms.inc({ form: 'one_by_one', reason });
  const results: SettledWrite[] = [];
  for (const { key, requestHash, write } of writes)
    results.push(await settleWrite(request, { ...options, key, requestHash }, write));
  return results;
}

async function settleAsSet<B>(
  request: FastifyRequest,
  options: BatchOptions<B>,
  writes: BatchWrite<B>[],
  setForm: SetForm<B>,
): Promise<{ results: SettledWrite[] } | { reason: FallbackReason }> {
  const { database, now } = request.server.services.ctx;
  const metrics = request.server.services.metrics.idempotency;
  const problem = storedProblem(request, options.instance);
  const principal = requirePrincipal(request);
  const caller = { companyId: principal.companyId, apiKeyId: principal.id };
  const counted: ('replay' | 'reused')[] = [];
  let results: SettledWrite[];
  try {
    results = await database.transaction(async (tx) => {
      const batch = await setForm.load(tx);
      if (batch === null) throw new NotAsSet('declined');
      const keys = writes.flatMap((item) => (item.key === null ? [] : [item.key]));
      const records = await readKeysForBatch(tx, caller, keys);
      if (records === null) throw new NotAsSet('key_in_flight');
      // The outcomes stored by this batch, by key; the keys whose records were freed (expired, stale).
      const stored = new Map<string, { requestHash: string; status: number; body: string }>();
      const freed: string[] = [];
      const outcomes: { scope: IdempotencyScope; status: number; body: string; now: number }[] = [];
      const settled: SettledWrite[] = [];
      for (const [index, item] of writes.entries()) {
        const at = now();
        const scope: IdempotencyScope | null =
          item.key === null ? null : { ...caller, key: item.key, requestHash: item.requestHash };
        if (scope) {
          const verdict = judgeInBatch(scope, stored.get(scope.key), records.get(scope.key), at);
          if (verdict.kind === 'replay') {
            counted.push('replay');
            settled.push({ status: verdict.status, body: verdict.body, replayed: true });
            continue;
          }
          if (verdict.kind === 'refused') {
            if (verdict.error.errorName === 'idempotency_in_flight') throw new NotAsSet('key_in_flight');
            counted.push('reused');
            settled.push({ status: verdict.error.status, body: problem(verdict.error), replayed: false });
            continue;
          }
          if (verdict.kind === 'free') {
            freed.push(scope.key);
            records.delete(scope.key);
          }
        }
        let status: number;
        let body: string;
        try {
          const outcome = await batch.decide(index, { detectDuplicates: item.key === null });
          status = outcome.status;
          body = options.serialize(outcome.body);
        } catch (error) {
          if (!(error instanceof ApiError) || error.status >= 500) throw error;
          status = error.status;
          body = problem(error);
        }
        if (scope) {
          stored.set(scope.key, { requestHash: scope.requestHash, status, body });
          outcomes.push({ scope, status, body, now: at });
        }
        settled.push({ status, body, replayed: false });
      }
      await batch.flush(tx);
      await storeOutcomes(tx, caller, freed, outcomes);
      return settled;
    });
  } catch (error) {
    return { reason: fallbackReason(request, error) };
  }
  for (const outcome of counted) metrics.inc({ outcome });
  return { results };
}

/** What claimKey would answer for a key of the batch: on its record read, or on this batch's own outcome. */
function judgeInBatch(
  scope: IdempotencyScope,
  mine: { requestHash: string; status: number; body: string } | undefined,
  record: Parameters<typeof judgeRecord>[0] | undefined,
  at: number,
): ReturnType<typeof judgeRecord> {
  if (mine)
    return mine.requestHash === scope.requestHash
      ? { kind: 'replay', status: mine.status, body: mine.body }
      : { kind: 'refused', error: keyReused() };
  return record ? judgeRecord(record, scope, at) : { kind: 'claimed' };
}

async function settleTogether<B>(
  request: FastifyRequest,
  options: BatchOptions<B>,
  writes: BatchWrite<B>[],
): Promise<SettledWrite[] | null> {
  const { database, now } = request.server.services.ctx;
  const metrics = request.server.services.metrics.idempotency;
  const problem = storedProblem(request, options.instance);
  const principal = requirePrincipal(request);
  let results: SettledWrite[];
  const counted: ('replay' | 'reused')[] = [];
  try {
    results = await database.transaction(async (tx) => {
      await options.prepare(tx);
      const settled: SettledWrite[] = [];
      for (const item of writes) {
        const scope: IdempotencyScope | null =
          item.key === null || options.dryRun
            ? null
            : {
                companyId: principal.companyId,
                apiKeyId: principal.id,
                key: item.key,
                requestHash: item.requestHash,
              };
        const one = await settleOne(tx, item, scope, {
          at: now(),
          detectDuplicates: item.key === null,
          serialize: options.serialize,
          problem,
        });
        if (one.replayed) counted.push('replay');
        if (one.reused) counted.push('reused');
        settled.push({ status: one.status, body: one.body, replayed: one.replayed });
      }
      return settled;
    });
  } catch (error) {
    if (error instanceof RunOneByOne) return null;
    // The database refused something (not an answer of the rules): one by one, unless it is gone.
    if (!(error instanceof ApiError) && !isDatabaseUnavailable(error)) {
      request.log.info({ err: error }, 'a batch ran write by write after its transaction was refused');
      return null;
    }
    throw error;
  }
  for (const outcome of counted) metrics.inc({ outcome });
  return results;
}

interface ItemContext<B> {
  at: number;
  detectDuplicates: boolean;
  serialize: (body: B) => string;
  problem: (error: ApiError) => string;
}

type ItemResult = SettledWrite & { reused?: boolean };

/** The claim of the key inside the batch: a key in flight elsewhere sends the batch one by one. */
async function claim(tx: Tx, scope: IdempotencyScope, at: number, problem: (error: ApiError) => string) {
  const claimed = await claimKey(tx, scope, at);
  if (claimed.kind === 'refused') {
    if (claimed.error.errorName === 'idempotency_in_flight') throw new RunOneByOne();
    return { status: claimed.error.status, body: problem(claimed.error), replayed: false, reused: true };
  }
  if (claimed.kind === 'replay') return { status: claimed.status, body: claimed.body, replayed: true };
  return null;
}

/** One write in its savepoint, as settleWrite runs it in a transaction of its own. */
async function settleOne<B>(
  tx: Tx,
  item: BatchWrite<B>,
  scope: IdempotencyScope | null,
  context: ItemContext<B>,
): Promise<ItemResult> {
  const { at, serialize, problem } = context;
  const point = await savepoint(tx);
  try {
    const answered = scope ? await claim(tx, scope, at, problem) : null;
    if (answered) {
      await point.release();
      return answered;
    }
    const outcome = outcomeOf(await item.write(tx, { detectDuplicates: context.detectDuplicates }));
    const body = serialize(outcome.body);
    if (scope) await storeOutcome(tx, scope, { status: outcome.status, body }, at);
    await point.release();
    return { status: outcome.status, body, replayed: false };
  } catch (error) {
    if (error instanceof RunOneByOne) throw error;
    await point.rollback();
    if (!(error instanceof ApiError) || error.status >= 500) throw error;
    if (!scope) return { status: error.status, body: problem(error), replayed: false };
    // The write's refusal is the key's outcome, stored like settleWrite stores it.
    const answered = await claim(tx, scope, at, problem);
    if (answered) return answered;
    const body = problem(error);
    await storeOutcome(tx, scope, { status: error.status, body }, at);
    return { status: error.status, body, replayed: false };
  }
}
