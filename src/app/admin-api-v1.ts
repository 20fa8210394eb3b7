import type { FastifyPluginAsync } from 'fastify';
import { ADMIN_OPENAPI_PATH, ADMIN_PREFIX } from '../http/paths.js';
import { absenceAdminRoutes } from '../modules/absences/admin.routes.js';
import { type AdminRoute, adminOpenApiDocument, collectRoute } from '../http/plugins/admin-openapi.js';
import { consoleGuard } from '../http/plugins/console-session.js';
import { apiKeyAdminRoutes } from '../modules/api-keys/admin.routes.js';
import { auditAdminRoutes } from '../modules/audit/admin.routes.js';
import { companyAdminRoutes } from '../modules/companies/admin.routes.js';
import { correctionAdminRoutes } from '../modules/corrections/admin.routes.js';
import { employeeAdminRoutes } from '../modules/employees/admin.routes.js';
import { sessionRoutes } from '../modules/people/admin.routes.js';
import { ssoAdminRoutes } from '../modules/sso/admin.routes.js';
import { ssoLinkRoutes } from '../modules/sso/link.routes.js';
import { ssoSignInRoutes } from '../modules/sso/sign-in.routes.js';
import { timeTrackingAdminRoutes } from '../modules/time-tracking/admin.routes.js';
import { timesheetAdminRoutes } from '../modules/timesheets/admin.routes.js';
import { webhookAdminRoutes } from '../modules/webhooks/admin.routes.js';
import { plannedShiftAdminRoutes } from '../modules/planned-shifts/admin.routes.js';
import { deviceAdminRoutes } from '../modules/devices/admin.routes.js';
import { correctionRequestAdminRoutes } from '../modules/self-service/admin.routes.js';
import { selfServiceRoutes } from '../modules/self-service/self.routes.js';
import { selfPinRoutes } from '../modules/self-service/pin.routes.js';

/**
 * v1 of the admin API (the console's), registered once with `prefix: '/api/admin/v1'`: its wiring only.
 * Each feature's admin routes live in its own folder (modules/<feature>/admin.routes.ts). Its routes are
 * hidden from the public description and described in a document of their own. Everything but the
 * session routes (sign-in, invitations) and single sign-on's sign-in runs behind the session guard: a console session, and on
 * writes the CSRF token and Origin.
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
  await app.register(async (guarded) => {
    guarded.addHook('onRequest', consoleGuard(app.services));
    await guarded.register(apiKeyAdminRoutes);
    await guarded.register(employeeAdminRoutes);
    await guarded.register(timeTrackingAdminRoutes);
    await guarded.register(correctionAdminRoutes);
    await guarded.register(companyAdminRoutes);
    await guarded.register(auditAdminRoutes);
    await guarded.register(timesheetAdminRoutes);
    await guarded.register(webhookAdminRoutes);
    await guarded.register(plannedShiftAdminRoutes);
    await guarded.register(ssoAdminRoutes);
    await guarded.register(ssoLinkRoutes);
    await guarded.register(absenceAdminRoutes);
    await guarded.register(deviceAdminRoutes);
    // Self-service (issue 35): a person's own data and web clock; managers' correction requests.
    await guarded.register(selfServiceRoutes);
    await guarded.register(selfPinRoutes);
    await guarded.register(correctionRequestAdminRoutes);
  });
  // Single sign-on's lookup, start and callback: open like sign-in (sso/sign-in.routes.ts); after the
  // rest, so the admin document only grows at its end.
  await app.register(ssoSignInRoutes);

  let document: Record<string, unknown> | undefined;
  app.get(ADMIN_OPENAPI_PATH.slice(ADMIN_PREFIX.length), { schema: { hide: true } }, async () => {
    document ??= adminOpenApiDocument(routes, ADMIN_PREFIX, app.services.urls.publicBaseUrl);
    return document;
  });
};
