import underPressure from '@fastify/under-pressure';
import fp from 'fastify-plugin';
import { ApiError } from '../../domain/errors.js';

const ARM_AFTER_MS = 1_000;

/**
 * Overload is shed, not queued: beyond OVERLOAD_MAX_IN_FLIGHT requests being answered at once, and
 * while the event loop lags more than the configured delay
 * (OVERLOAD_MAX_EVENT_LOOP_DELAY_MS), or is busier than the configured share of the time
 * (OVERLOAD_MAX_EVENT_LOOP_UTILIZATION), both sampled every 100 ms by @fastify/under-pressure, requests are
 * answered at once with 503 and Retry-After instead of waiting behind the backlog, so latency and
 * memory stay bounded. `/healthz` is always answered: the process is alive, only busy.
 */
export const overloadPlugin = fp(
  async (app) => {
    const { config, metrics } = app.services;
    const shed = () => {
      metrics.shed.inc();
      return new ApiError('service_unavailable', 'the server is overloaded; retry shortly', null, {
        'retry-after': '1',
      });
    };

    /*
     * OVERLOAD_MAX_IN_FLIGHT: beyond this many requests being answered at once, a new one is answered
     * 503 at once instead of queueing behind them. (Load shedding only: correctness never depends on
     * this per-process count.)
     */
    const limit = config.overloadMaxInFlight;
    if (limit > 0) {
      let inFlight = 0;
      app.addHook('onRequest', async (request, reply) => {
        if (request.url === '/healthz') return;
        inFlight++;
        // 'close' ends every response: sent, failed, or cut off by the client mid-way (neither
        // onResponse nor onRequestAbort reports a response whose connection closed while it was written).
        reply.raw.once('close', () => inFlight--);
        if (inFlight > limit) throw shed();
      });
    }
    if (config.overloadMaxEventLoopDelayMs === 0 && config.overloadMaxEventLoopUtilization === 0) return;

    /*
     * Starting (migrations, compiling schemas, the first requests' JIT) lags the loop too: the first
     * samples would shed the first requests a fresh server gets. Shedding is armed a second after
     * the server listens.
     */
    let armed = false;
    app.addHook('onListen', async () => {
      setTimeout(() => (armed = true), ARM_AFTER_MS).unref();
    });
    await app.register(underPressure, {
      maxEventLoopDelay: config.overloadMaxEventLoopDelayMs,
      maxEventLoopUtilization: config.overloadMaxEventLoopUtilization,
      sampleInterval: 100,
      pressureHandler: async (request) => {
        if (!armed || request.url === '/healthz') return;
        throw shed();
      },
    });
  },
  { name: 'overload' },
);
