import type { IncomingMessage, ServerResponse } from 'node:http';
import underPressure from '@fastify/under-pressure';
import fp from 'fastify-plugin';
import { ApiError } from '../../domain/errors.js';
import { OverloadGate } from '../overload-gate.js';
import { TOKEN_PATH } from '../paths.js';
import { PROBLEM_CONTENT_TYPE, pathOf, problemBody } from '../problem.js';
import { unchargedRateLimitHeaders } from './rate-limit/headers.js';
import { correlationIdOf } from './correlation-id.js';
import type { Services } from '../services.js';

const ARM_AFTER_MS = 1_000;
const DETAIL = 'the server is overloaded; retry shortly';

/**
 * The overload gate of this app (http/overload-gate.ts): OVERLOAD_MAX_IN_FLIGHT and
 * OVERLOAD_MAX_EVENT_LOOP_DELAY_MS, applied to the raw request before Fastify routes it. Its 503 is
 * the one every other 503 is: a problem document (OAuth's error form at the token endpoint) with
 * `Retry-After: 1`, the correlation id and the rate-limit headers every response carries.
 */
export function createOverloadGate(
  services: Pick<Services, 'config' | 'metrics' | 'resourceLimiter' | 'tokenLimiter'> & {
    problemBase: () => string;
  },
) {
  const { config, metrics } = services;
  const answerShed = (request: IncomingMessage, response: ServerResponse) => {
    const path = pathOf(request.url ?? '/');
    const correlationId = correlationIdOf(request);
    const token = path === TOKEN_PATH;
    const headers: Record<string, string> = {
      ...unchargedRateLimitHeaders(token ? services.tokenLimiter : services.resourceLimiter),
      'retry-after': '1',
      'x-correlation-id': correlationId,
    };
    const body = token
      ? { error: 'temporarily_unavailable', error_description: DETAIL }
      : problemBody(new ApiError('service_unavailable', DETAIL), {
          problemBase: services.problemBase(),
          instance: path,
          correlationId,
        });
    headers['content-type'] = token ? 'application/json; charset=utf-8' : PROBLEM_CONTENT_TYPE;
    if (token) headers['cache-control'] = 'no-store';
    response.writeHead(503, headers).end(JSON.stringify(body));
  };
  return new OverloadGate({
    maxInFlight: config.overloadMaxInFlight,
    targetEventLoopDelayMs: config.overloadMaxEventLoopDelayMs,
    exempt: (url) => pathOf(url) === '/healthz',
    answerShed,
    onShed: () => metrics.shed.inc(),
  });
}

/**
 * Overload is shed, not queued. The gate (above) starts sampling the loop once the server listens and
 * stops with it. OVERLOAD_MAX_EVENT_LOOP_UTILIZATION (off by default: it overshoots, see
 * docs/operations.md) sheds every request while the loop is busier than that share of the time,
 * sampled every 100 ms by @fastify/under-pressure. `/healthz` is always answered.
 */
export const overloadPlugin = fp(
  async (app) => {
    const { config, metrics, overloadGate } = app.services;
    app.addHook('onListen', async () => overloadGate.arm());
    app.addHook('onClose', async () => overloadGate.stop());
    if (config.overloadMaxEventLoopUtilization === 0) return;

    let armed = false;
    app.addHook('onListen', async () => {
      setTimeout(() => (armed = true), ARM_AFTER_MS).unref();
    });
    await app.register(underPressure, {
      maxEventLoopUtilization: config.overloadMaxEventLoopUtilization,
      sampleInterval: 100,
      pressureHandler: async (request) => {
        if (!armed || request.url === '/healthz') return;
        metrics.shed.inc();
        throw new ApiError('service_unavailable', DETAIL, null, { 'retry-after': '1' });
      },
    });
  },
  { name: 'overload' },
);
