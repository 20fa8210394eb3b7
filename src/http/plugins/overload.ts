import underPressure from '@fastify/under-pressure';
import fp from 'fastify-plugin';
import { ApiError } from '../../domain/errors.js';

/**
 * Overload is shed, not queued: while the event loop lags more than the configured delay
 * (OVERLOAD_MAX_EVENT_LOOP_DELAY_MS, sampled every 100 ms by @fastify/under-pressure), requests are
 * answered at once with 503 and Retry-After instead of waiting behind the backlog, so latency and
 * memory stay bounded. `/healthz` is always answered: the process is alive, only busy.
 */
export const overloadPlugin = fp(
  async (app) => {
    const { config, metrics } = app.services;
    if (config.overloadMaxEventLoopDelayMs === 0) return;
    await app.register(underPressure, {
      maxEventLoopDelay: config.overloadMaxEventLoopDelayMs,
      sampleInterval: 100,
      pressureHandler: async (request) => {
        if (request.url === '/healthz') return;
        metrics.shed.inc();
        throw new ApiError('service_unavailable', 'the server is overloaded; retry shortly', null, {
          'retry-after': '1',
        });
      },
    });
  },
  { name: 'overload' },
);
