import fp from 'fastify-plugin';
import { pruneEvents } from '../../modules/events/service.js';
import { pruneDeliveries } from '../../modules/webhooks/deliveries.js';
import { pruneKioskAttempts } from '../../modules/devices/pins.js';

const PRUNE_INTERVAL_MS = 10 * 60_000;

/**
 * The change feed keeps events EVENT_RETENTION_DAYS (default 30); older ones are removed every ten
 * minutes, and so are finished webhook deliveries (each holds a copy of its event's payload) and the
 * kiosk's wrong PINs, unknown badges and locks older than an hour (issue 35).
 */
export const eventRetentionPlugin = fp(
  async (app) => {
    const { ctx, config } = app.services;
    let running: Promise<unknown> | null = null;
    const prune = setInterval(() => {
      if (running) return;
      running = Promise.all([
        pruneEvents(ctx, config.eventRetentionDays).catch((error: unknown) =>
          app.log.warn({ err: error }, 'event pruning failed'),
        ),
        pruneDeliveries(ctx, config.eventRetentionDays).catch((error: unknown) =>
          app.log.warn({ err: error }, 'webhook delivery pruning failed'),
        ),
        pruneKioskAttempts(ctx).catch((error: unknown) =>
          app.log.warn({ err: error }, 'kiosk attempt pruning failed'),
        ),
      ]).finally(() => (running = null));
    }, PRUNE_INTERVAL_MS);
    prune.unref();
    // Shutdown: no new round, and the one under way finishes before the database closes.
    app.addHook('onClose', async () => {
      clearInterval(prune);
      await running;
    });
  },
  { name: 'event-retention' },
);
