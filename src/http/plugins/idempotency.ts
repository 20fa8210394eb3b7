import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../../domain/errors.js';
import { requirePrincipal } from './authenticate.js';
import { PROBLEM_CONTENT_TYPE, pathOf, problemBody } from '../problem.js';
import { readIdempotencyKey } from '../write-headers.js';
import {
  type IdempotencyScope,
  abandonLongWrite,
  claimKey,
  claimKeyForLongWrite,
  finishLongWrite,
  KEY_REPLAYED,
  type KeyInWrite,
  keyInWrite,
  purgeExpiredIdempotencyRecords,
  requestFingerprint,
  storeOutcome,
} from '../../modules/idempotency/service.js';
import { type Database, type Tx } from '../../platform/db/database.js';

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
const PURGE_INTERVAL_MS = 10 * 60_000;

/** What a write answers when it succeeds: its status and body (a 4xx is thrown as an ApiError). */
export interface WriteOutcome<B = unknown> {
  /** 204: no body (a deletion). */
  status: 200 | 201 | 204;
  body: B;
}

/**
 * A write of the public API, run inside the transaction it is given. `key`: given to a write that
 * takes its Idempotency-Key's claim into its own statements (`takesKey`, see KeyInWrite).
 */
export type Write<B> = (
  tx: Tx,
  options: { detectDuplicates: boolean; key?: KeyInWrite },
) => Promise<WriteOutcome<B> | typeof KEY_REPLAYED>;

/** A write's outcome where no key was given to it (only a write given its key replays that key's answer). */
export function outcomeOf<B>(written: WriteOutcome<B> | typeof KEY_REPLAYED): WriteOutcome<B> {
  if (written === KEY_REPLAYED) throw new Error('a write replayed a key it was not given');
  return written;
}

/**
 * Runs a write under the spec's idempotency rules and answers it. Without an `Idempotency-Key` (or on
 * a dry run, which stores nothing) the write runs in a transaction of its own; without a key it also
 * looks for a header-less duplicate (spec, Idempotency rule 6). With a key, the claim, the write and
 * its stored outcome are one transaction (see below); a 4xx outcome is stored too, and later requests
 * with the key get the stored answer again, byte for byte.
 */
export async function idempotentWrite<B>(
  request: FastifyRequest,
  reply: FastifyReply,
  options: {
    dryRun: boolean;
    owner?: { companyId: string; id: string };
    /** Called once per key for a fresh 4xx refusal, in the transaction that stores it (not the write's). */
    onRefused?: (tx: Tx, error: ApiError) => Promise<void>;
    /** The write claims its key in its own statements (KeyInWrite; a keyed punch, issue 32). */
    takesKey?: boolean;
  },
  write: Write<B>,
): Promise<FastifyReply> {
  const { database, now } = request.server.services.ctx;
  const key = readIdempotencyKey(request.headers);
  if (key === null || options.dryRun) {
    const outcome = outcomeOf(
      await database.transaction((tx) => write(tx, { detectDuplicates: key === null })),
    );
    return reply.code(outcome.status).send(outcome.body);
  }
  // Whose keys these are: the token's principal, or (the console's web clock, issue 35) the person.
  const owner = options.owner ?? requirePrincipal(request);
  const scope: IdempotencyScope = {
    companyId: owner.companyId,
    apiKeyId: owner.id,
    key,
    requestHash: requestFingerprint(request.method, pathOf(request.url), request.body),
  };
  const at = now();
  let answer: { status: number; body: string; replayed: boolean; headers?: Record<string, string> };
  try {
    answer = await database.transaction(async (tx) => {
      if (options.takesKey) {
        const key = keyInWrite(scope, at, (outcome) => {
          reply.code(outcome.status);
          return outcome.status === 204 ? '' : String(reply.serialize(outcome.body));
        });
        await write(tx, { detectDuplicates: false, key });
        return key.answer();
      }
      const claim = await claimKey(tx, scope, at);
      if (claim.kind === 'refused') throw claim.error;
      if (claim.kind === 'replay') return { status: claim.status, body: claim.body, replayed: true };
      // The write: e.g. recordClockEvent(tx, …).
      const outcome = outcomeOf(await write(tx, { detectDuplicates: false }));
      reply.code(outcome.status);
      const body = outcome.status === 204 ? '' : String(reply.serialize(outcome.body));
      await storeOutcome(tx, scope, { status: outcome.status, body }, at);
      return { status: outcome.status, body, replayed: false };
    });
  } catch (error) {
    // A write refused with a 4xx rolled back everything, claim included; the refusal is the key's
    // outcome and is stored on its own (unless the key is refused itself: in flight, or reused).
    if (error instanceof ApiError && isKeyRefusal(error))
      request.server.services.metrics.idempotency.inc({
        outcome: error.errorName === 'idempotency_in_flight' ? 'in_flight' : 'reused',
      });
    if (!(error instanceof ApiError) || error.status >= 500 || isKeyRefusal(error)) throw error;
    answer = await storeRefusal(request, scope, error, at, options.onRefused);
  }
  if (answer.replayed) {
    reply.header('idempotent-replayed', 'true');
    request.server.services.metrics.idempotency.inc({ outcome: 'replay' });
  }
  if (answer.headers) reply.headers(answer.headers);
  return reply
    .code(answer.status)
    .type(answer.status >= 400 ? PROBLEM_CONTENT_TYPE : JSON_CONTENT_TYPE)
    .send(answer.body);
}

function isKeyRefusal(error: ApiError): boolean {
  return error.errorName === 'idempotency_in_flight' || error.errorName === 'idempotency_key_reused';
}

/** Stores a write's 4xx as the key's outcome, unless the key meanwhile holds one (then that replays). */
async function storeRefusal(
  request: FastifyRequest,
  scope: IdempotencyScope,
  error: ApiError,
  at: number,
  onRefused?: (tx: Tx, error: ApiError) => Promise<void>,
) {
  const { database } = request.server.services.ctx;
  const answer = await database.transaction(async (tx) => {
    const claim = await claimKey(tx, scope, at);
    if (claim.kind === 'refused') throw claim.error;
    if (claim.kind === 'replay') return { status: claim.status, body: claim.body, replayed: true };
    const body = JSON.stringify(request.server.services.problemFor(request, error));
    await storeOutcome(tx, scope, { status: error.status, body }, at);
    await onRefused?.(tx, error);
    return { status: error.status, body, replayed: false };
  });
  // A fresh refusal keeps its own headers; a replay is the stored answer alone.
  return { ...answer, headers: answer.replayed ? {} : error.headers };
}

/** What one write of a batch answered: its status and the exact body text the single endpoint would send. */
export interface SettledWrite {
  status: number;
  body: string;
  replayed: boolean;
}

/** How long a batch's write waits for another request holding its key, and how often it looks. */
export const IN_FLIGHT_WAIT = { maxMs: 10_000, firstPollMs: 20, maxPollMs: 200 };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One write of a batch, under exactly the rules `idempotentWrite` applies to a single request with
 * `key` as its Idempotency-Key (null: none), answered as a status and body text instead of a reply:
 * the write runs in a transaction of its own; a refusal (4xx) is its answer, stored with the key like
 * the single endpoint stores it. `instance` is the single endpoint's path, which the problem documents
 * name (a later single request with the key replays them byte for byte). A key held by a request still
 * running is waited for (polling, up to IN_FLIGHT_WAIT.maxMs) and its outcome replayed; a key that
 * never settles answers `409 idempotency_in_flight`. A 5xx is thrown: the batch stops there.
 */
/** A write without a key (or a dry run): its outcome or its refusal, nothing stored. */
async function writeUnkeyed<B>(
  database: Database,
  write: Write<B>,
  writeOptions: { detectDuplicates: boolean },
  serialize: (body: B) => string,
  problem: (error: ApiError) => string,
): Promise<SettledWrite> {
  try {
    const outcome = outcomeOf(await database.transaction((tx) => write(tx, writeOptions)));
    return { status: outcome.status, body: serialize(outcome.body), replayed: false };
  } catch (error) {
    if (!(error instanceof ApiError) || error.status >= 500) throw error;
    return { status: error.status, body: problem(error), replayed: false };
  }
}

/** A refusal as the stored outcome's body: the problem document of `instance`, with the request's id. */
export function storedProblem(request: FastifyRequest, instance: string) {
  return (error: ApiError) =>
    JSON.stringify(
      problemBody(error, {
        problemBase: request.server.services.urls.problemBase,
        instance,
        correlationId: request.id,
      }),
    );
}

export async function settleWrite<B>(
  request: FastifyRequest,
  options: {
    key: string | null;
    requestHash: string;
    dryRun: boolean;
    instance: string;
    serialize: (body: B) => string;
  },
  write: Write<B>,
): Promise<SettledWrite> {
  const { database, now } = request.server.services.ctx;
  const problem = storedProblem(request, options.instance);
  const { key } = options;
  if (key === null || options.dryRun)
    return writeUnkeyed(database, write, { detectDuplicates: key === null }, options.serialize, problem);
  const principal = requirePrincipal(request);
  const scope: IdempotencyScope = {
    companyId: principal.companyId,
    apiKeyId: principal.id,
    key,
    requestHash: options.requestHash,
  };
  const metrics = request.server.services.metrics.idempotency;
  const at = now();
  const deadline = Date.now() + IN_FLIGHT_WAIT.maxMs;
  let pollMs = IN_FLIGHT_WAIT.firstPollMs;
  for (;;) {
    let settled: SettledWrite;
    try {
      settled = await database.transaction(async (tx) => {
        const claim = await claimKey(tx, scope, at);
        if (claim.kind === 'refused') throw claim.error;
        if (claim.kind === 'replay') return { status: claim.status, body: claim.body, replayed: true };
        const outcome = outcomeOf(await write(tx, { detectDuplicates: false }));
        const body = options.serialize(outcome.body);
        await storeOutcome(tx, scope, { status: outcome.status, body }, at);
        return { status: outcome.status, body, replayed: false };
      });
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      if (error.errorName === 'idempotency_in_flight' && Date.now() < deadline) {
        // Another request holds the key: wait for its outcome, then replay it.
        await sleep(pollMs);
        pollMs = Math.min(pollMs * 2, IN_FLIGHT_WAIT.maxPollMs);
        continue;
      }
      if (isKeyRefusal(error)) {
        metrics.inc({ outcome: error.errorName === 'idempotency_in_flight' ? 'in_flight' : 'reused' });
        return { status: error.status, body: problem(error), replayed: false };
      }
      // The write's refusal is the key's outcome, stored on its own (see storeRefusal).
      try {
        settled = await database.transaction(async (tx) => {
          const claim = await claimKey(tx, scope, at);
          if (claim.kind === 'refused') throw claim.error;
          if (claim.kind === 'replay') return { status: claim.status, body: claim.body, replayed: true };
          const body = problem(error);
          await storeOutcome(tx, scope, { status: error.status, body }, at);
          return { status: error.status, body, replayed: false };
        });
      } catch (refusal) {
        if (!(refusal instanceof ApiError) || refusal.status >= 500) throw refusal;
        if (refusal.errorName === 'idempotency_in_flight' && Date.now() < deadline) {
          await sleep(pollMs);
          continue;
        }
        return { status: refusal.status, body: problem(refusal), replayed: false };
      }
    }
    if (settled.replayed) metrics.inc({ outcome: 'replay' });
    return settled;
  }
}

/**
 * A write made of several transactions (a batch) under the request's own Idempotency-Key: the key is
 * claimed first (committed as in flight, claimKeyForLongWrite), `produce` runs, and its answer (status
 * 200 and the body text) is stored with the key, so a retry replays the whole answer. Without a key,
 * or on a dry run, `produce` just runs. A failure (5xx) frees the key again.
 */
export async function idempotentLongWrite(
  request: FastifyRequest,
  reply: FastifyReply,
  options: { dryRun: boolean },
  produce: () => Promise<string>,
): Promise<FastifyReply> {
  const { database, now } = request.server.services.ctx;
  const key = readIdempotencyKey(request.headers);
  if (key === null || options.dryRun)
    return reply
      .code(200)
      .type(JSON_CONTENT_TYPE)
      .send(await produce());
  const principal = requirePrincipal(request);
  const scope: IdempotencyScope = {
    companyId: principal.companyId,
    apiKeyId: principal.id,
    key,
    requestHash: requestFingerprint(request.method, pathOf(request.url), request.body),
  };
  const metrics = request.server.services.metrics.idempotency;
  const claim = await database.transaction((tx) => claimKeyForLongWrite(tx, scope, now()));
  if (claim.kind === 'refused') {
    metrics.inc({ outcome: claim.error.errorName === 'idempotency_in_flight' ? 'in_flight' : 'reused' });
    throw claim.error;
  }
  if (claim.kind === 'replay') {
    metrics.inc({ outcome: 'replay' });
    return reply
      .code(claim.status)
      .header('idempotent-replayed', 'true')
      .type(claim.status >= 400 ? PROBLEM_CONTENT_TYPE : JSON_CONTENT_TYPE)
      .send(claim.body);
  }
  let body: string;
  try {
    body = await produce();
    await database.transaction((tx) => finishLongWrite(tx, scope, { status: 200, body }, now()));
  } catch (error) {
    await abandonLongWrite(database.db, scope).catch((cleanup: unknown) =>
      request.log.warn({ err: cleanup }, 'could not free an idempotency key'),
    );
    throw error;
  }
  return reply.code(200).type(JSON_CONTENT_TYPE).send(body);
}

/** Spec, Limits: outcomes are kept 24 hours; expired ones are removed every ten minutes (and on reuse). */
export const idempotencyPurgePlugin = fp(
  async (app) => {
    let running: Promise<unknown> | null = null;
    const purge = setInterval(() => {
      running ??= purgeExpiredIdempotencyRecords(app.services.ctx)
        .catch((error: unknown) => app.log.warn({ err: error }, 'idempotency purge failed'))
        .finally(() => (running = null));
    }, PURGE_INTERVAL_MS);
    purge.unref();
    app.addHook('onClose', async () => {
      clearInterval(purge);
      await running;
    });
  },
  { name: 'idempotency-purge' },
);
