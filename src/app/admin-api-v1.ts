import type { FastifyPluginAsync } from 'fastify';
import { type AdminRoute, adminOpenApiDocument, collectRoute } from '../http/plugins/admin-openapi.js';
import { ADMIN_OPENAPI_PATH, ADMIN_PREFIX } from '../http/paths.js';
import { adminRoutes } from '../modules/admin-api/routes.js';
import { adminScreenRoutes } from '../modules/admin-api/screens.routes.js';
import { adminWebhookRoutes } from '../modules/admin-api/webhooks.routes.js';
import { sessionRoutes } from '../modules/admin-api/session.routes.js';

/**
 * v1 of the admin API (the console's), registered once with `prefix: '/api/admin/v1'`. Its routes are
 * hidden from the public description and described in a document of their own.
 */
export const adminApiV1: FastifyPluginAsync = async (app) => {
  const routes: AdminRoute[] = [];
  app.decorateRequest('consoleSession', null);
  app.addHook('onRoute', (options) => {
    // @fastify/swagger (the public description) reads this flag when it builds its document.
    options.schema = { ...(options.schema ?? {}), hide: true };
    collectRoute(routes, options);
  });
  // Nothing the console is sent is kept by a cache or shared by a proxy.
  app.addHook('onSend', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
  });
  await app.register(sessionRoutes);
  await app.register(adminRoutes);
  await app.register(adminScreenRoutes);
  await app.register(adminWebhookRoutes);

  let document: Record<string, unknown> | undefined;
  app.get(ADMIN_OPENAPI_PATH.slice(ADMIN_PREFIX.length), { schema: { hide: true } }, async () => {
    document ??= adminOpenApiDocument(routes, ADMIN_PREFIX, app.services.urls.publicBaseUrl);
    return document;
  });
};
