import type { FastifyInstance } from 'fastify';
import type { AppServices } from '../../app.js';
import { ApiError } from '../../errors.js';

const READINESS_TIMEOUT_MS = 2_000;

export function registerHealthRoutes(app: FastifyInstance, services: AppServices): void {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { hide: true } }, async () => {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        services.ctx.store.ping(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('database ping timed out')), READINESS_TIMEOUT_MS);
        }),
      ]);
    } catch {
      throw new ApiError('service_unavailable', 'the database does not answer');
    } finally {
      clearTimeout(timer);
    }
    return { status: 'ready' };
  });

  app.get('/.well-known/jwks.json', { schema: { hide: true } }, async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=300');
    return services.tokens.jwks();
  });
}
