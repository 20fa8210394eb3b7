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
  let outcome: WriteOutcome;
  try {
    outcome = await write({ detectDuplicates: false });
  } catch (error) {
    if (error instanceof ApiError && error.status < 500) {
      const body = JSON.stringify(services.problemFor(request, error));
      await completeIdempotentRequest(services.ctx, scope, error.status, body);
      for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
      return reply.code(error.status).type(PROBLEM_CONTENT_TYPE).send(body);
    }
    await abandonIdempotentRequest(services.ctx, scope).catch(() => {});
    throw error;
  }
  const body = JSON.stringify(outcome.body);
  await completeIdempotentRequest(services.ctx, scope, outcome.status, body);
  return reply.code(outcome.status).type(JSON_CONTENT_TYPE).send(body);
}
