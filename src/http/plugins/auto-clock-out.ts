import fp from 'fastify-plugin';
import { closeDueSessions } from '../../modules/corrections/auto-clock-out.js';

/**
 * The automatic clock-out (issue 30): every AUTO_CLOCK_OUT_INTERVAL_MS (30 s; 0: not on this
 * instance) the instance closes the sessions due. Every instance may run it: each session is closed
 * once whichever gets there first (modules/corrections/auto-clock-out.ts). A run still going when the
 * next is due is not doubled; closing the server waits for it.
 */
export const autoClockOutPlugin = fp(
  async (app) => {
    const { ctx, config } = app.services;
    if (config.autoClockOutIntervalMs === 0) return;
    let running: Promise<void> | null = null;
    const run = () => {
      running ??= closeDueSessions(ctx, ({ entryId, error }) =>
        app.log.warn({ err: error, entryId }, 'automatic clock-out: a session was not closed'),
      )
        .then((closed) => {
          if (closed > 0) app.log.info({ closed }, 'automatic clock-out closed open sessions');
        })
        .catch((error: unknown) => app.log.warn({ err: error }, 'automatic clock-out failed'))
        .finally(() => {
          running = null;
        });
    };
    const timer = setInterval(run, config.autoClockOutIntervalMs);
    timer.unref();
    app.addHook('onClose', async () => {
      clearInterval(timer);
      await running;
    });
  },
  { name: 'auto-clock-out' },
);
