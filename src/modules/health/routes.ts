import type { FastifyPluginAsync } from 'fastify';
import { ApiError } from '../../domain/errors.js';

const READINESS_TIMEOUT_MS = 2_000;

/** Liveness, readiness (the database answers) and the public keys that verify access tokens. */
export const healthRoutes: FastifyPluginAsync = async (app) => {
  const { services } = app;
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { hide: true } }, async () => {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        services.ctx.database.ping(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('database ping timed out')), READINESS_TIMEOUT_MS);
        }),
      ]);
    } catch {
      throw new ApiError('service_unavailable', 'the database does not answer');
    } finally {
      clearTimeout(timer);
    }
    // Reads work: ready. Whether writes find room is said beside it (a full disk: reads still served).
    const storage = services.ctx.database.storage();
    return storage.writable
      ? { status: 'ready', writable: true }
      : { status: 'ready', writable: false, reason: storage.reason, since: storage.since };
  });

  app.get('/.well-known/jwks.json', { schema: { hide: true } }, async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=300');
    return services.tokens.jwks();
  });
};
