export {
  type CallOptions,
  createPunchclockClient,
  idempotencyKeyMiddleware,
  type PunchclockClient,
  type PunchclockClientOptions,
  type TimeEntryIterationQuery,
  type WriteOptions,
  type Webhook,
  type WebhookDeliveryPage,
  type WebhookInput,
  type WebhookListQuery,
  type WebhookPage,
  type WebhookReplay,
  type WebhookRotation,
  type WebhookUpdate,
  type WebhookWithSecret,
} from './client.js';
export {
  verifyWebhook,
  type VerifyWebhookOptions,
  type WebhookEvent,
  type WebhookEventType,
  WebhookVerificationError,
} from './webhooks.js';
export { PunchclockError, type PunchclockErrorInit } from './errors.js';
export type { components, operations, paths } from './schema.js';
export type { FetchLike } from './transport.js';
export type * from './types.js';
export type * from './planned-shifts.js';
