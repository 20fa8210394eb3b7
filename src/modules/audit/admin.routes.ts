import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requirePermission } from '../../http/plugins/console-session.js';
import { sessionErrors } from '../../http/schemas/responses.js';
import { AuditPageSchema, AuditQuerySchema } from './schemas.js';
import { listAuditLog } from './service.js';
import { PERMISSION_MANAGE_COMPANY } from '../auth/scopes.js';

/**
 * The company's audit log in the admin API.
 * Registered inside the admin API's guarded scope (app/admin-api-v1.ts): a console session, the CSRF
 * token and Origin on writes; the permission is checked here, and only the person's own company is reached.
 */
export const auditAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { services } = app;
  const { ctx } = services;

  app.get(
    '/audit-log',
    {
      schema: {
        summary: "The company's audit log",
        operationId: 'listAuditLog',
        description:
          'Who did what (a person, an API key or the command line) and when, newest first. Filters: ' +
          '`actorType`, `actorId`, `action` (exact, or a prefix ending in "."), `from` / `to` (days in the ' +
          "company's zone). Cursor-paginated. Permission 93 (the company's managers) or super admin.",
        tags: ['Audit log'],
        querystring: AuditQuerySchema,
        response: { 200: AuditPageSchema, ...sessionErrors(['forbidden', 'validation_failed']) },
      },
    },
    async (request) =>
      listAuditLog(
        ctx,
        services.cursors,
        requirePermission(request, PERMISSION_MANAGE_COMPANY),
        request.query,
      ),
  );
};
