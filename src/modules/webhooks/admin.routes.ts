import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { requirePermission } from '../../http/plugins/console-session.js';
import { IdParamsSchema } from '../../http/schemas/common.js';
import { sessionErrors } from '../../http/schemas/responses.js';
import { PERMISSION_MANAGE_COMPANY } from '../auth/scopes.js';
import {
  WebhookCreateSchema,
  WebhookDeliveryPageSchema,
  WebhookEndpointSchema,
  WebhookEndpointWithSecretSchema,
  WebhookPageSchema,
  WebhookQueuedSchema,
  WebhookReplaySchema,
  WebhookRotationSchema,
} from './schemas.js';
import {
  createEndpoint,
  deleteEndpoint,
  listEndpoints,
  rotateEndpointSecret,
  updateEndpoint,
} from './endpoints.js';
import { listDeliveries, queuePing, replay } from './deliveries.js';
import { type TypeBoxApp } from '../../http/route-context.js';

const AdminWebhookUpdateSchema = Type.Object(
  {
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
    eventTypes: Type.Optional(
      Type.Array(Type.String({ maxLength: 64, pattern: '^[a-z_]+\\.[a-z_]+$' }), {
        minItems: 1,
        maxItems: 50,
      }),
    ),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
    status: Type.Optional(
      Type.Unsafe<'active' | 'disabled'>({
        type: 'string',
        enum: ['active', 'disabled'],
        description: '`disabled`: nothing more is sent; `active` re-enables (replay covers the gap)',
      }),
    ),
  },
  { additionalProperties: false },
);

const DeliveriesQuerySchema = Type.Object(
  {
    cursor: Type.Optional(Type.String({ maxLength: 1024 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
  },
  { additionalProperties: false },
);

/**
 * The console's Webhooks screen (issue 23): the company's webhook endpoints through the very services
 * the CLI's `webhook` commands and the public /webhooks operations use, as an operator (every event
 * type). Permission 93; another company's endpoint is 404 (the services look it up in the company).
 */

/** What the routes below share, made once per registration. */
function webhookAdminRouteContext(app: TypeBoxApp) {
  const { services } = app;
  const { ctx } = services;
  const settings = () => ({ key: services.webhookKey, policy: services.config.webhooks });
  const TAG = 'Webhooks';
  return { services, ctx, settings, TAG };
}

function listWebhooksRoute(
  app: TypeBoxApp,
  { services, ctx, TAG }: ReturnType<typeof webhookAdminRouteContext>,
) {
  app.get(
    '/webhooks',
    {
      schema: {
        summary: "The company's webhook endpoints",
        operationId: 'listWebhooks',
        description: 'Every endpoint (at most 20 a company), never a secret. Permission 93.',
        tags: [TAG],
        response: { 200: WebhookPageSchema, ...sessionErrors(['forbidden']) },
      },
    },
    async (request) => {
      const person = requirePermission(request, PERMISSION_MANAGE_COMPANY);
      return listEndpoints(ctx.database.db, services.cursors, person.companyId, { limit: 100 });
    },
  );
}

function createWebhookRoute(
  app: TypeBoxApp,
  { ctx, settings, TAG }: ReturnType<typeof webhookAdminRouteContext>,
) {
  app.post(
    '/webhooks',
    {
      schema: {
        summary: 'Create a webhook endpoint',
        operationId: 'createWebhook',
        description:
          '`webhook create`: an https URL resolving to a public address, the event types; the signing secret is in this answer only. Permission 93.',
        tags: [TAG],
        body: WebhookCreateSchema,
        response: {
          201: WebhookEndpointWithSecretSchema,
          ...sessionErrors(['forbidden', 'validation_failed'], true),
        },
      },
    },
    async (request, reply) => {
      const person = requirePermission(request, PERMISSION_MANAGE_COMPANY);
      const created = await createEndpoint(
        ctx,
        settings(),
        person.companyId,
        { kind: 'operator', userId: person.id },
        request.body,
      );
      return reply.code(201).send(created);
    },
  );
}

function updateWebhookRoute(
  app: TypeBoxApp,
  { ctx, settings, TAG }: ReturnType<typeof webhookAdminRouteContext>,
) {
  app.patch(
    '/webhooks/:id',
    {
      schema: {
        summary: 'Change, disable or re-enable a webhook endpoint',
        operationId: 'updateWebhook',
        description: 'URL, event types, description; `status` disabled or active. Permission 93.',
        tags: [TAG],
        params: IdParamsSchema,
        body: AdminWebhookUpdateSchema,
        response: {
          200: WebhookEndpointSchema,
          ...sessionErrors(['forbidden', 'not_found', 'validation_failed'], true),
        },
      },
    },
    async (request) => {
      const person = requirePermission(request, PERMISSION_MANAGE_COMPANY);
      return updateEndpoint(
        ctx,
        settings(),
        person.companyId,
        { kind: 'operator', userId: person.id },
        request.params.id,
        request.body,
      );
    },
  );
}

function deleteWebhookRoute(app: TypeBoxApp, { ctx, TAG }: ReturnType<typeof webhookAdminRouteContext>) {
  app.delete(
    '/webhooks/:id',
    {
      schema: {
        summary: 'Delete a webhook endpoint',
        operationId: 'deleteWebhook',
        description: '`webhook delete`: the endpoint and its deliveries. Permission 93.',
        tags: [TAG],
        params: IdParamsSchema,
        response: {
          204: { type: 'null', description: 'Deleted' },
          ...sessionErrors(['forbidden', 'not_found'], true),
        },
      },
    },
    async (request, reply) => {
      const person = requirePermission(request, PERMISSION_MANAGE_COMPANY);
      await deleteEndpoint(ctx, person.companyId, { kind: 'operator', userId: person.id }, request.params.id);
      return reply.code(204).send();
    },
  );
}

function rotateWebhookSecretRoute(
  app: TypeBoxApp,
  { ctx, settings, TAG }: ReturnType<typeof webhookAdminRouteContext>,
) {
  app.post(
    '/webhooks/:id/rotate-secret',
    {
      schema: {
        summary: "Rotate a webhook endpoint's secret",
        operationId: 'rotateWebhookSecret',
        description:
          'A new secret, in this answer only; the previous one signs beside it for 24 hours. Permission 93.',
        tags: [TAG],
        params: IdParamsSchema,
        response: { 200: WebhookRotationSchema, ...sessionErrors(['forbidden', 'not_found'], true) },
      },
    },
    async (request) => {
      const person = requirePermission(request, PERMISSION_MANAGE_COMPANY);
      return rotateEndpointSecret(
        ctx,
        settings(),
        person.companyId,
        { kind: 'operator', userId: person.id },
        request.params.id,
      );
    },
  );
}

function testWebhookRoute(app: TypeBoxApp, { ctx, TAG }: ReturnType<typeof webhookAdminRouteContext>) {
  app.post(
    '/webhooks/:id/test',
    {
      schema: {
        summary: 'Send a test delivery',
        operationId: 'testWebhook',
        description: 'A `ping` delivery, sent like any other. Permission 93.',
        tags: [TAG],
        params: IdParamsSchema,
        response: {
          202: Type.Object({
            deliveryId: Type.String({ format: 'uuid' }),
            eventId: Type.String(),
            queued: Type.Integer(),
          }),
          ...sessionErrors(['forbidden', 'not_found'], true),
        },
      },
    },
    async (request, reply) => {
      const person = requirePermission(request, PERMISSION_MANAGE_COMPANY);
      return reply.code(202).send(await queuePing(ctx, person.companyId, request.params.id));
    },
  );
}

function listWebhookDeliveriesRoute(
  app: TypeBoxApp,
  { services, ctx, TAG }: ReturnType<typeof webhookAdminRouteContext>,
) {
  app.get(
    '/webhooks/:id/deliveries',
    {
      schema: {
        summary: "A webhook endpoint's recent deliveries",
        operationId: 'listWebhookDeliveries',
        description: '`webhook deliveries`: newest first, cursor-paginated. Permission 93.',
        tags: [TAG],
        params: IdParamsSchema,
        querystring: DeliveriesQuerySchema,
        response: {
          200: WebhookDeliveryPageSchema,
          ...sessionErrors(['forbidden', 'not_found', 'validation_failed']),
        },
      },
    },
    async (request) => {
      const person = requirePermission(request, PERMISSION_MANAGE_COMPANY);
      return listDeliveries(
        ctx.database.db,
        services.cursors,
        person.companyId,
        request.params.id,
        request.query,
      );
    },
  );
}

function replayWebhookRoute(app: TypeBoxApp, { ctx, TAG }: ReturnType<typeof webhookAdminRouteContext>) {
  app.post(
    '/webhooks/:id/replay',
    {
      schema: {
        summary: 'Send events to a webhook endpoint again',
        operationId: 'replayWebhook',
        description:
          '`webhook replay`: `{from, to}` the events of that range, or `{deliveryId}` one delivery; same webhook-id. Permission 93.',
        tags: [TAG],
        params: IdParamsSchema,
        body: WebhookReplaySchema,
        response: {
          202: WebhookQueuedSchema,
          ...sessionErrors(['forbidden', 'not_found', 'validation_failed'], true),
        },
      },
    },
    async (request, reply) => {
      const person = requirePermission(request, PERMISSION_MANAGE_COMPANY);
      return reply
        .code(202)
        .send(
          await replay(
            ctx,
            person.companyId,
            { kind: 'operator', userId: person.id },
            request.params.id,
            request.body,
          ),
        );
    },
  );
}

export const webhookAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const context = webhookAdminRouteContext(app);
  listWebhooksRoute(app, context);
  createWebhookRoute(app, context);
  updateWebhookRoute(app, context);
  deleteWebhookRoute(app, context);
  rotateWebhookSecretRoute(app, context);
  testWebhookRoute(app, context);
  listWebhookDeliveriesRoute(app, context);
  replayWebhookRoute(app, context);
};
