import { randomUUID } from 'node:crypto';
import type { RawRequestDefaultExpression } from 'fastify';
import fp from 'fastify-plugin';

const CORRELATION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Fastify's `genReqId`: the caller's `X-Correlation-Id` when it is well formed, else a fresh UUID. */
export function correlationIdOf(request: RawRequestDefaultExpression): string {
  const sent = request.headers['x-correlation-id'];
  return typeof sent === 'string' && CORRELATION_ID.test(sent) ? sent : randomUUID();
}

/** Every response carries the request's correlation id (also in problem bodies and the logs' `reqId`). */
export const correlationIdPlugin = fp(
  async (app) => {
    app.addHook('onRequest', async (request, reply) => {
      reply.header('x-correlation-id', request.id);
    });
  },
  { name: 'correlation-id' },
);
