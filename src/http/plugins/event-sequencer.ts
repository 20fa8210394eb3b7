import fp from 'fastify-plugin';
import { POLL_MS, sequencerOf } from '../../modules/events/sequencer.js';

/**
 * PostgreSQL: every instance polls for events committed and never numbered (their process died between
 * the commit and its numbering round, or it was a process without a poll, such as the CLI when its
 * round failed) and numbers them; see modules/events/sequencer.ts. SQLite: nothing to do.
 */
export const eventSequencerPlugin = fp(
  async (app) => {
    const sequencer = sequencerOf(app.services.ctx.database);
    if (!sequencer) return;
    let running: Promise<void> | null = null;
    const poll = setInterval(() => {
      if (running) return;
      running = sequencer
        .drainIfPending()
        .catch((error: unknown) => app.log.warn({ err: error }, 'event numbering failed'))
        .finally(() => (running = null));
    }, POLL_MS);
    poll.unref();
    app.addHook('onClose', async () => {
      clearInterval(poll);
      await running;
      // What this instance committed is numbered before the database closes (or left to the others' poll).
      await sequencer.drainIfPending().catch(() => undefined);
    });
  },
  { name: 'event-sequencer' },
);
