import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppServices } from '../../app.js';
import { ApiError } from '../../errors.js';
import {
  abandonIdempotentRequest,
  beginIdempotentRequest,
  completeIdempotentRequest,
  requestFingerprint,
} from '../../use-cases/api/idempotency.js';
import type { WriteOutcome } from '../../use-cases/api/time-tracking.js';
import { PROBLEM_CONTENT_TYPE, pathOf } from '../problem.js';
import { readIdempotencyKey } from '../write-headers.js';
import { requirePrincipal } from './authenticate.js';

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

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
    return reply.code(outcome.status).type(JSON_CONTENT_TYPE).send(JSON.stringify(outcome.body));
  }
  const principal = requirePrincipal(request);
  const scope = {
    companyId: principal.companyId,
    apiKeyId: principal.id,
    key,
    requestHash: requestFingerprint(request.method, pathOf(request.url), request.body),
  };
  const start = await beginIdempotentRequest(services.ctx, scope);
  if (start.kind === 'replay')
    return reply
      .code(start.status)
      .header('idempotent-replayed', 'true')
      .type(start.status >= 400 ? PROBLEM_CONTENT_TYPE : JSON_CONTENT_TYPE)
      .send(start.body);
  // The outcome is stored in the write's own transaction: one commit instead of two, and no window in
  // which the write is committed while its key still reads "in flight" (a crash there would let a
  // retry take the key over and write twice). Outcomes that do not come out of that transaction (a
  // 4xx raised before or inside it, which rolls it back) are stored on their own, as before.
  let body: string | null = null;
  const store = services.ctx.store;
  const { result } = store.withTransactionHook(
    async (trx, value) => {
      const outcome = value as WriteOutcome;
      body = JSON.stringify(outcome.body);
      await completeIdempotentRequest(trx, scope, outcome.status, body);
    },
    () => write({ detectDuplicates: false }),
  );
  let outcome: WriteOutcome;
  try {
    outcome = await result;
  } catch (error) {
    if (error instanceof ApiError && error.status < 500) {
      const problem = JSON.stringify(services.problemFor(request, error));
      await completeIdempotentRequest(store.db, scope, error.status, problem);
      for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
      return reply.code(error.status).type(PROBLEM_CONTENT_TYPE).send(problem);
    }
    await abandonIdempotentRequest(services.ctx, scope).catch(() => {});
    throw error;
  }
  if (body === null) {
    body = JSON.stringify(outcome.body);
    await completeIdempotentRequest(store.db, scope, outcome.status, body);
  }
  return reply.code(outcome.status).type(JSON_CONTENT_TYPE).send(body);
}
