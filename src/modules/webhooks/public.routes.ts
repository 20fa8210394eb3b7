import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { authenticate, requirePrincipal } from '../../http/plugins/authenticate.js';
import { bearerSecurity } from '../../http/plugins/openapi.js';
import { described } from '../../http/schemas/common.js';
import { BODY_ERRORS, errorResponses } from '../../http/schemas/responses.js';
import { type Principal } from '../auth/service.js';
import {
  WebhookCreateSchema,
  WebhookDeliveryPageSchema,
  WebhookEndpointSchema,
  WebhookEndpointWithSecretSchema,
  WebhookListQuerySchema,
  WebhookPageSchema,
  WebhookParamsSchema,
  WebhookQueuedSchema,
  WebhookReplaySchema,
  WebhookRotationSchema,
  WebhookUpdateSchema,
} from './schemas.js';
import {
  type WebhookManager,
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  rotateEndpointSecret,
  updateEndpoint,
} from './endpoints.js';
import { listDeliveries, queuePing, replay } from './deliveries.js';
import { type TypeBoxApp } from '../../http/route-context.js';

const TAG = 'Webhooks';
const READ_ERRORS = ['invalid_token', 'insufficient_scope', 'validation_failed', 'rate_limited'] as const;
const ONE_ERRORS = [
  'invalid_token',
  'insufficient_scope',
  'not_found',
  'validation_failed',
  'rate_limited',
] as const;

function managerOf(principal: Principal): WebhookManager {
  return principal.kind === 'api_key'
    ? { kind: 'api_key', keyId: principal.id }
    : { kind: 'operator', userId: principal.id };
}

/** What the routes below share, made once per registration. */
function webhookRouteContext(app: TypeBoxApp) {
  const { services } = app;
  const guard = authenticate({ ...services, limiter: services.resourceLimiter }, 'webhooks.manage');
  const security = bearerSecurity('webhooks.manage');
  const settings = () => ({
    key: services.webhookKey,
    policy: services.config.webhooks,
    onRefusal: (detail: string) => app.log.info({ detail }, 'webhook URL refused: the target is not public'),
  });
  return { services, guard, security, settings };
}

function createWebhookRoute(
  app: TypeBoxApp,
  { services, guard, security, settings }: ReturnType<typeof webhookRouteContext>,
) {
  app.post(
    '/webhooks',
    {
      onRequest: guard,
      schema: {
        summary: 'Register a webhook endpoint',
        operationId: 'createWebhook',
        description:
          'Registers a receiver for the company’s events, delivered per Standard Webhooks 1.0 (signed `webhook-id`, `webhook-timestamp`, `webhook-signature` headers; body `{type, timestamp, data}`). ' +
          'The endpoint receives the events committed after its creation, of the types it asks for that the calling key’s scopes can read ' +
          '(`time_entry.*`, `day.*` and `attendance.*` need `attendance.read`, `employee.*` `employees.read`); when that key is revoked or expires the endpoint is disabled. ' +
          'The URL must be absolute `https` and resolve to a public address. At most 20 endpoints per company. ' +
          'The `secret` is shown only in this answer and on rotation. Deliveries are retried with exponential back-off for about three days; `410 Gone` disables the endpoint.',
        tags: [TAG],
        security,
        body: WebhookCreateSchema,
        response: {
          201: described(WebhookEndpointWithSecretSchema, 'The endpoint, with its secret (shown only now)'),
          ...errorResponses([...READ_ERRORS, ...BODY_ERRORS]),
        },
      },
    },
    async (request, reply) => {
      const principal = requirePrincipal(request);
      const created = await createEndpoint(
        services.ctx,
        settings(),
        principal.companyId,
        managerOf(principal),
        request.body,
      );
      return reply.code(201).send(created);
    },
  );
}

function listWebhooksRoute(
  app: TypeBoxApp,
  { services, guard, security }: ReturnType<typeof webhookRouteContext>,
) {
  app.get(
    '/webhooks',
    {
      onRequest: guard,
      schema: {
        summary: "List the company's webhook endpoints",
        operationId: 'listWebhooks',
        description:
          'Ordered by id, 1 to 100 per page (default 25); follow `nextCursor` while `hasMore` is true. Secrets are never listed.',
        tags: [TAG],
        security,
        querystring: WebhookListQuerySchema,
        response: {
          200: described(WebhookPageSchema, 'A page of endpoints'),
          ...errorResponses([...READ_ERRORS]),
        },
      },
    },
    async (request) =>
      listEndpoints(
        services.ctx.database.db,
        services.cursors,
        requirePrincipal(request).companyId,
        request.query,
      ),
  );
}

function getWebhookRoute(
  app: TypeBoxApp,
  { services, guard, security }: ReturnType<typeof webhookRouteContext>,
) {
  app.get(
    '/webhooks/:id',
    {
      onRequest: guard,
      schema: {
        summary: 'Get a webhook endpoint',
        operationId: 'getWebhook',
        description: 'The endpoint, its status and, when disabled, why. The secret is not returned.',
        tags: [TAG],
        security,
        params: WebhookParamsSchema,
        response: {
          200: described(WebhookEndpointSchema, 'The endpoint'),
          ...errorResponses([...ONE_ERRORS]),
        },
      },
    },
    async (request) =>
      getEndpoint(services.ctx.database.db, requirePrincipal(request).companyId, request.params.id),
  );
}

function updateWebhookRoute(
  app: TypeBoxApp,
  { services, guard, security, settings }: ReturnType<typeof webhookRouteContext>,
) {
  app.patch(
    '/webhooks/:id',
    {
      onRequest: guard,
      schema: {
        summary: 'Change a webhook endpoint',
        operationId: 'updateWebhook',
        description:
          'Changes the URL, the event types or the description; `status: active` re-enables a disabled endpoint, which then receives events from now on (replay covers the gap). ' +
          'A key that changes the URL or the event types of an endpoint bound to another key takes it over: it then receives only the types the calling key’s scopes read. ' +
          'An endpoint disabled because its key was revoked or expired is re-enabled only together with a new URL (422 otherwise).',
        tags: [TAG],
        security,
        params: WebhookParamsSchema,
        body: WebhookUpdateSchema,
        response: {
          200: described(WebhookEndpointSchema, 'The endpoint as changed'),
          ...errorResponses([...ONE_ERRORS, ...BODY_ERRORS]),
        },
      },
    },
    async (request) =>
      updateEndpoint(
        services.ctx,
        settings(),
        requirePrincipal(request).companyId,
        managerOf(requirePrincipal(request)),
        request.params.id,
        request.body,
      ),
  );
}

function deleteWebhookRoute(
  app: TypeBoxApp,
  { services, guard, security }: ReturnType<typeof webhookRouteContext>,
) {
  app.delete(
    '/webhooks/:id',
    {
      onRequest: guard,
      schema: {
        summary: 'Delete a webhook endpoint',
        operationId: 'deleteWebhook',
        description: 'Deletes the endpoint and its pending deliveries.',
        tags: [TAG],
        security,
        params: WebhookParamsSchema,
        response: {
          204: { type: 'null', description: 'Deleted' },
          ...errorResponses([...ONE_ERRORS]),
        },
      },
    },
    async (request, reply) => {
      const principal = requirePrincipal(request);
      await deleteEndpoint(services.ctx, principal.companyId, managerOf(principal), request.params.id);
      return reply.code(204).send();
    },
  );
}

function rotateWebhookSecretRoute(
  app: TypeBoxApp,
  { services, guard, security, settings }: ReturnType<typeof webhookRouteContext>,
) {
  app.post(
    '/webhooks/:id/rotate-secret',
    {
      onRequest: guard,
      schema: {
        summary: "Rotate a webhook endpoint's secret",
        operationId: 'rotateWebhookSecret',
        description:
          'A new secret, shown only in this answer. For 24 hours the previous one keeps signing too: deliveries carry two space-separated signatures in `webhook-signature`. ' +
          'A key rotating the secret of an endpoint bound to another key takes it over (see updateWebhook).',
        tags: [TAG],
        security,
        params: WebhookParamsSchema,
        response: {
          200: described(WebhookRotationSchema, 'The endpoint with its new secret'),
          ...errorResponses([...ONE_ERRORS]),
        },
      },
    },
    async (request) =>
      rotateEndpointSecret(
        services.ctx,
        settings(),
        requirePrincipal(request).companyId,
        managerOf(requirePrincipal(request)),
        request.params.id,
      ),
  );
}

function testWebhookRoute(
  app: TypeBoxApp,
  { services, guard, security }: ReturnType<typeof webhookRouteContext>,
) {
  app.post(
    '/webhooks/:id/test',
    {
      onRequest: guard,
      schema: {
        summary: 'Send a test (ping) delivery',
        operationId: 'testWebhook',
        description:
          'Queues a `ping` delivery, `{type: "ping", timestamp, data: {endpointId}}`, signed and retried like any other.',
        tags: [TAG],
        security,
        params: WebhookParamsSchema,
        response: {
          202: described(WebhookQueuedSchema, 'The ping is queued'),
          ...errorResponses([...ONE_ERRORS]),
        },
      },
    },
    async (request, reply) => {
      const queued = await queuePing(services.ctx, requirePrincipal(request).companyId, request.params.id);
      return reply.code(202).send({ queued: queued.queued });
    },
  );
}

function listWebhookDeliveriesRoute(
  app: TypeBoxApp,
  { services, guard, security }: ReturnType<typeof webhookRouteContext>,
) {
  app.get(
    '/webhooks/:id/deliveries',
    {
      onRequest: guard,
      schema: {
        summary: "List a webhook endpoint's recent deliveries",
        operationId: 'listWebhookDeliveries',
        description:
          'Newest first: each delivery’s event id (its `webhook-id`) and type, attempts made, the last status code or error, its duration and the next retry.',
        tags: [TAG],
        security,
        params: WebhookParamsSchema,
        querystring: WebhookListQuerySchema,
        response: {
          200: described(WebhookDeliveryPageSchema, 'A page of deliveries, newest first'),
          ...errorResponses([...ONE_ERRORS]),
        },
      },
    },
    async (request) =>
      listDeliveries(
        services.ctx.database.db,
        services.cursors,
        requirePrincipal(request).companyId,
        request.params.id,
        request.query,
      ),
  );
}

function replayWebhookRoute(
  app: TypeBoxApp,
  { services, guard, security }: ReturnType<typeof webhookRouteContext>,
) {
  app.post(
    '/webhooks/:id/replay',
    {
      onRequest: guard,
      schema: {
        summary: 'Send events to a webhook endpoint again',
        operationId: 'replayWebhook',
        description:
          '`{from, to}`: the endpoint’s events that occurred in that range (retained ones, after its creation) are delivered again; `{deliveryId}`: that delivery is. ' +
          'A replayed event keeps its `webhook-id`, so receivers deduplicate it. Only the types both the endpoint’s key and the calling key read are sent again. ' +
          'Refused (422) while the endpoint has more than 10,000 pending deliveries.',
        tags: [TAG],
        security,
        params: WebhookParamsSchema,
        body: WebhookReplaySchema,
        response: {
          202: described(WebhookQueuedSchema, 'The deliveries are queued'),
          ...errorResponses([...ONE_ERRORS, ...BODY_ERRORS]),
        },
      },
    },
    async (request, reply) => {
      const principal = requirePrincipal(request);
      const result = await replay(
        services.ctx,
        principal.companyId,
        managerOf(principal),
        request.params.id,
        request.body,
      );
      return reply.code(202).send(result);
    },
  );
}

export const webhookRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const context = webhookRouteContext(app);
  createWebhookRoute(app, context);
  listWebhooksRoute(app, context);
  getWebhookRoute(app, context);
  updateWebhookRoute(app, context);
  deleteWebhookRoute(app, context);
  rotateWebhookSecretRoute(app, context);
  testWebhookRoute(app, context);
  listWebhookDeliveriesRoute(app, context);
  replayWebhookRoute(app, context);
};
