import fp from 'fastify-plugin';
import { WebhookDispatcher } from '../../modules/webhooks/dispatcher.js';

/**
 * Every server instance dispatches webhook deliveries (unless WEBHOOK_DISPATCH=false): it polls every
 * WEBHOOK_POLL_INTERVAL_MS for new events and due deliveries, from when it listens until it closes.
 */
export const webhookDispatchPlugin = fp(
  async (app) => {
    const { ctx, config, metrics } = app.services;
    if (!config.webhooks.dispatch) return;
    const dispatcher = new WebhookDispatcher(ctx, {
      key: app.services.webhookKey,
      policy: config.webhooks,
      retryDelaysSeconds: config.webhooks.retryDelaysSeconds,
      pollIntervalMs: config.webhooks.pollIntervalMs,
      leaseMs: config.webhooks.leaseSeconds * 1000,
      maxInFlightPerEndpoint: config.webhooks.maxInFlightPerEndpoint,
      onAttempt: (outcome, seconds) => {
        metrics.webhookDeliveries.inc({ outcome });
        metrics.webhookDeliveryDuration.observe({ outcome }, seconds);
      },
      onError: (error) => app.log.warn({ err: error }, 'webhook dispatching failed; trying again'),
      onRefusal: (endpointId, detail) =>
        app.log.info({ endpointId, detail }, 'webhook delivery refused: the target is not public'),
    });
    app.addHook('onListen', async () => dispatcher.start());
    // Shutdown: sends under way finish (each within its deadline) and any lease left is given back.
    app.addHook('onClose', async () => {
      const released = await dispatcher.stop();
      if (released > 0) app.log.info({ released }, 'webhook delivery leases given back');
    });
  },
  { name: 'webhook-dispatch' },
);
