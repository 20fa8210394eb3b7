import type { FastifyPluginAsync } from 'fastify';
import { scopeInfo } from './scopes.js';
import { authenticate, requirePrincipal } from '../../http/plugins/authenticate.js';
import { bearerSecurity } from '../../http/plugins/openapi.js';
import { errorResponses } from '../../http/schemas/responses.js';
import { described, MeSchema } from '../../http/schemas/common.js';

export const DRY_RUN_HEADER = 'X-Service-Dry-Run';

export const meRoutes: FastifyPluginAsync = async (app) => {
  const { services } = app;
  app.get(
    '/me',
    {
      onRequest: authenticate({ ...services, limiter: services.resourceLimiter }, null),
      schema: {
        summary: 'Describe the calling token',
        operationId: 'describeToken',
        description:
          'Any valid token (API key or person). Returns who the token acts for, its company, its scopes and its expiry.',
        tags: ['Token'],
        security: bearerSecurity(null),
        response: {
          200: described(MeSchema, 'The calling token'),
          ...errorResponses(['invalid_token', 'forbidden', 'rate_limited']),
        },
      },
    },
    async (request) => {
      const principal = requirePrincipal(request);
      return {
        principal: principal.kind,
        id: principal.id,
        publicId: principal.clientId,
        companyId: principal.companyId,
        scopes: principal.scopes.map((id) => {
          const info = scopeInfo(id);
          return { id, permission: info.permission, label: info.label };
        }),
        tokenExpiresAt: principal.tokenExpiresAt.toISOString(),
        rateLimit: {
          requestsPerMinute: services.config.rateLimitPerMinute,
          tokenRequestsPerMinute: services.config.tokenRateLimitPerMinute,
        },
        dryRunHeader: DRY_RUN_HEADER,
      };
    },
  );
};
