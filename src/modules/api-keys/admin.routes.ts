import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requirePermission } from '../../http/plugins/console-session.js';
import { IdParamsSchema } from '../../http/schemas/common.js';
import { sessionErrors } from '../../http/schemas/responses.js';
import {
  ApiKeyListSchema,
  ApiKeySchema,
  ApiKeyWithSecretSchema,
  CreateApiKeyBodySchema,
  RotateApiKeyBodySchema,
} from './schemas.js';
import { createKey, listKeys, revokeKey, rotateKey } from './service.js';
import { PERMISSION_MANAGE_KEYS } from '../auth/scopes.js';

/**
 * The company's API keys in the admin API (docs/admin-api-contract.md): list, create, rotate, revoke.
 * Registered inside the admin API's guarded scope (app/admin-api-v1.ts): a console session, the CSRF
 * token and Origin on writes; the permission is checked here, and only the person's own company is reached.
 */
export const apiKeyAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { services } = app;
  const { ctx } = services;

  app.get(
    '/api-keys',
    {
      schema: {
        summary: "List the company's API keys",
        operationId: 'listApiKeys',
        description: 'Every key of the company, newest first; never a secret. Permission 90.',
        tags: ['API keys'],
        response: { 200: ApiKeyListSchema, ...sessionErrors(['forbidden']) },
      },
    },
    async (request) => listKeys(ctx, requirePermission(request, PERMISSION_MANAGE_KEYS)),
  );

  app.post(
    '/api-keys',
    {
      schema: {
        summary: 'Create an API key',
        operationId: 'createApiKey',
        description:
          'Creates a key; its secret is in this response only. Machine scopes may always be granted, a ' +
          "human scope only with the person's matching permission (or as super admin). Permission 90.",
        tags: ['API keys'],
        body: CreateApiKeyBodySchema,
        response: {
          201: ApiKeyWithSecretSchema,
          ...sessionErrors(['forbidden', 'validation_failed'], true),
        },
      },
    },
    async (request, reply) => {
      const person = requirePermission(request, PERMISSION_MANAGE_KEYS);
      return reply.code(201).send(await createKey(ctx, person, request.body));
    },
  );

  app.post(
    '/api-keys/:id/rotate',
    {
      schema: {
        summary: "Rotate an API key's secret",
        operationId: 'rotateApiKey',
        description:
          'A new secret, shown once. With `graceSeconds` the old secret keeps working that long. Permission 90.',
        tags: ['API keys'],
        params: IdParamsSchema,
        body: RotateApiKeyBodySchema,
        response: {
          200: ApiKeyWithSecretSchema,
          ...sessionErrors(['forbidden', 'not_found', 'validation_failed'], true),
        },
      },
    },
    async (request) =>
      rotateKey(
        ctx,
        requirePermission(request, PERMISSION_MANAGE_KEYS),
        request.params.id,
        request.body.graceSeconds,
      ),
  );

  app.post(
    '/api-keys/:id/revoke',
    {
      schema: {
        summary: 'Revoke an API key',
        operationId: 'revokeApiKey',
        description:
          'The key stops working at once, on every instance. Revoking twice is harmless. Permission 90.',
        tags: ['API keys'],
        params: IdParamsSchema,
        response: { 200: ApiKeySchema, ...sessionErrors(['forbidden', 'not_found'], true) },
      },
    },
    async (request) => revokeKey(ctx, requirePermission(request, PERMISSION_MANAGE_KEYS), request.params.id),
  );
};
