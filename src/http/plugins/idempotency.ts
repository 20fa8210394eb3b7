import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../../domain/errors.js';
import {
  claimKey,
  type IdempotencyScope,
  purgeExpiredIdempotencyRecords,
  requestFingerprint,
  storeOutcome,
} from '../../modules/idempotency/service.js';
import type { Tx } from '../../platform/db/database.js';
import { PROBLEM_CONTENT_TYPE, pathOf } from '../problem.js';
import { readIdempotencyKey } from '../write-headers.js';
import { requirePrincipal } from './authenticate.js';

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
const PURGE_INTERVAL_MS = 10 * 60_000;

/** What a write answers when it succeeds: its status and body (a 4xx is thrown as an ApiError). */
export interface WriteOutcome<B = unknown> {
  status: 200 | 201;
  body: B;
}

/** A write of the public API, run inside the transaction it is given. */
export type Write<B> = (tx: Tx, options: { detectDuplicates: boolean }) => Promise<WriteOutcome<B>>;

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
  options: { dryRun: boolean },
  write: Write<B>,
): Promise<FastifyReply> {
  const { database, now } = request.server.services.ctx;
  const key = readIdempotencyKey(request.headers);
  if (key === null || options.dryRun) {
    const outcome = await database.transaction((tx) => write(tx, { detectDuplicates: key === null }));
    return reply.code(outcome.status).send(outcome.body);
  }
  const principal = requirePrincipal(request);
  const scope: IdempotencyScope = {
    companyId: principal.companyId,
    apiKeyId: principal.id,
    key,
    requestHash: requestFingerprint(request.method, pathOf(request.url), request.body),
  };
  const at = now();
  let answer: { status: number; body: string; replayed: boolean; headers?: Record<string, string> };
  try {
    answer = await database.transaction(async (tx) => {
      const claim = await claimKey(tx, scope, at);
      if (claim.kind === 'refused') throw claim.error;
      if (claim.kind === 'replay') return { status: claim.status, body: claim.body, replayed: true };
      // The write: e.g. recordClockEvent(tx, …).
      const outcome = await write(tx, { detectDuplicates: false });
      const body = String(reply.code(outcome.status).serialize(outcome.body));
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
    answer = await storeRefusal(request, scope, error, at);
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
async function storeRefusal(request: FastifyRequest, scope: IdempotencyScope, error: ApiError, at: number) {
  const { database } = request.server.services.ctx;
  const answer = await database.transaction(async (tx) => {
    const claim = await claimKey(tx, scope, at);
    if (claim.kind === 'refused') throw claim.error;
    if (claim.kind === 'replay') return { status: claim.status, body: claim.body, replayed: true };
    const body = JSON.stringify(request.server.services.problemFor(request, error));
    await storeOutcome(tx, scope, { status: error.status, body }, at);
    return { status: error.status, body, replayed: false };
  });
  // A fresh refusal keeps its own headers; a replay is the stored answer alone.
  return { ...answer, headers: answer.replayed ? {} : error.headers };
}

/** Spec, Limits: outcomes are kept 24 hours; expired ones are removed every ten minutes (and on reuse). */
export const idempotencyPurgePlugin = fp(
  async (app) => {
    const purge = setInterval(() => {
      purgeExpiredIdempotencyRecords(app.services.ctx).catch((error: unknown) =>
        app.log.warn({ err: error }, 'idempotency purge failed'),
      );
    }, PURGE_INTERVAL_MS);
    purge.unref();
    app.addHook('onClose', async () => clearInterval(purge));
  },
  { name: 'idempotency-purge' },
);
