import fp from 'fastify-plugin';
import { ExceptionsJob } from '../../modules/planned-shifts/exceptions-job.js';

/**
 * Every server instance runs the attendance-exceptions job (issue 33) every EXCEPTIONS_JOB_INTERVAL_MS
 * (a minute) from when it listens until it closes, unless EXCEPTIONS_JOB=false. Several instances
 * are safe: each exception is recorded once (modules/planned-shifts/exceptions-job.ts).
 */
export const exceptionsJobPlugin = fp(
  async (app) => {
    const { ctx, config } = app.services;
    if (!config.exceptionsJob.enabled) return;
    const job = new ExceptionsJob(ctx, {
      intervalMs: config.exceptionsJob.intervalMs,
      onError: (error) => app.log.warn({ err: error }, 'attendance exceptions job failed; trying again'),
    });
    app.addHook('onListen', async () => job.start());
    app.addHook('onClose', async () => job.stop());
  },
  { name: 'exceptions-job' },
);
