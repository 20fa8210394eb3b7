import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyReply } from 'fastify';
import type { Logger } from 'pino';
import { adminApiV1 } from './admin-api-v1.js';
import { publicApiV1 } from './public-api-v1.js';
import { createCursorCodec } from '../domain/cursor.js';
import { Metrics } from '../http/metrics.js';
import { gatedServerFactory } from '../http/overload-gate.js';
import { ADMIN_PREFIX, API_PREFIX, TOKEN_PATH } from '../http/paths.js';
import { consoleAssetsPlugin } from '../http/plugins/console-assets.js';
import { kioskAssetsPlugin } from '../http/plugins/kiosk-assets.js';
import { correlationIdOf, correlationIdPlugin } from '../http/plugins/correlation-id.js';
import { deprecationPlugin } from '../http/plugins/deprecation.js';
import { BODY_LIMIT_BYTES, errorsPlugin } from '../http/plugins/errors.js';
import { eventRetentionPlugin } from '../http/plugins/event-retention.js';
import { eventSequencerPlugin } from '../http/plugins/event-sequencer.js';
import { idempotencyPurgePlugin } from '../http/plugins/idempotency.js';
import { malformedHttpAnswer } from '../http/plugins/malformed-http.js';
import { openApiPlugin } from '../http/plugins/openapi.js';
import { createOverloadGate, overloadPlugin } from '../http/plugins/overload.js';
import { unchargedRateLimitHeaders } from '../http/plugins/rate-limit/headers.js';
import { createLimiters } from '../http/plugins/rate-limit/limiter.js';
import { rateLimitSweepPlugin } from '../http/plugins/rate-limit/plugin.js';
import { requestMetricsPlugin } from '../http/plugins/request-metrics.js';
import { webhookDispatchPlugin } from '../http/plugins/webhook-dispatch.js';
import { exceptionsJobPlugin } from '../http/plugins/exceptions-job.js';
import { autoClockOutPlugin } from '../http/plugins/auto-clock-out.js';
import { ApiError, PROBLEM_CONTENT_TYPE, pathOf, problemBody } from '../http/problem.js';
import { type Services } from '../http/services.js';
import { validatorCompiler } from '../http/validation.js';
import { type TokenService } from '../modules/auth/tokens.js';
import { healthRoutes } from '../modules/health/routes.js';
import { loadAppSecret } from '../platform/app-secrets.js';
import { type Config, resolveUrls } from '../platform/config.js';
import { type Database } from '../platform/db/database.js';

export interface AppDependencies {
  config: Config;
  database: Database;
  tokens: TokenService;
  logger: Logger | false;
  now?: () => number;
}

/**
 * The whole HTTP application: Fastify with the options a strict API needs, the services every route
 * uses (decorated as `app.services`), the cross-cutting plugins, health, and v1 of the public API
 * under its prefix. Listening and shutting down are server.ts's.
 */
/** The services every route uses, and the rate limiters behind them (closed with the app). */
async function createServices(deps: AppDependencies) {
  const { config, database, tokens } = deps;
  const now = deps.now ?? Date.now;
  const ctx = { database, now };
  const metrics = new Metrics(database);
  // Rate limits: per instance, or across the fleet with REDIS_URL (falling back to per instance).
  const limiters = createLimiters(
    {
      resourcePerMinute: config.rateLimitPerMinute,
      tokenPerMinute: config.tokenRateLimitPerMinute,
      redisUrl: config.redisUrl,
      signInPerAccount: config.consoleSignInLimitPerAccount,
      signInPerAddress: config.consoleSignInLimitPerAddress,
    },
    (shared, error) => {
      metrics.rateLimitShared.set(shared ? 1 : 0);
      if (deps.logger === false) return;
      if (shared) deps.logger.info('rate limits are counted in Redis again, across the fleet');
      else deps.logger.warn({ err: error }, 'Redis does not answer: rate limits are counted per instance');
    },
  );
  const { resourceLimiter } = limiters;
  const services: Services = {
    config,
    ctx,
    tokens,
    resourceLimiter,
    tokenLimiter: limiters.tokenLimiter,
    unknownClientLimiter: limiters.unknownClientLimiter,
    signInAccountLimiter: limiters.signInAccountLimiter,
    signInAddressLimiter: limiters.signInAddressLimiter,
    ssoStartLimiter: limiters.ssoStartLimiter,
    kioskEnrolLimiter: limiters.kioskEnrolLimiter,
    kioskPinLimiter: limiters.kioskPinLimiter,
    selfPinPersonLimiter: limiters.selfPinPersonLimiter,
    selfPinAddressLimiter: limiters.selfPinAddressLimiter,
    cursors: createCursorCodec(await loadAppSecret(database.db, 'cursor_hmac_key', now())),
    webhookKey:
      config.webhooks.encryptionKey ?? (await loadAppSecret(database.db, 'webhook_encryption_key', now())),
    metrics,
    overloadGate: createOverloadGate({
      config,
      metrics,
      resourceLimiter,
      tokenLimiter: limiters.tokenLimiter,
      problemBase: () => services.urls.problemBase,
    }),
    urls: resolveUrls(config, config.port),
    problemFor: (request, error) =>
      problemBody(error, {
        problemBase: services.urls.problemBase,
        instance: pathOf(request.url),
        correlationId: request.id,
      }),
    ensureRateLimitHeaders: (request, reply) => {
      if (reply.hasHeader('ratelimit-policy')) return;
      // Before routing (an undecodable URL) there are no route options yet.
      const token = (request.routeOptions as { url?: string } | undefined)?.url === TOKEN_PATH;
      reply.headers(unchargedRateLimitHeaders(token ? services.tokenLimiter : services.resourceLimiter));
    },
  };
  return { services, limiters };
}

export async function buildApp(deps: AppDependencies) {
  const { config } = deps;
  const { services, limiters } = await createServices(deps);
  const { resourceLimiter } = limiters;
  const app = Fastify({
    ...(deps.logger === false ? { logger: false } : { loggerInstance: deps.logger }),
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: config.trustProxy,
    requestIdHeader: false,
    genReqId: correlationIdOf,
    // Shutdown drains (server.ts): a request that still arrives on a connection being closed is
    // answered, not refused; idle keep-alive connections are closed at once.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // Overload is shed on the raw request, before routing, where a 503 is cheap (http/overload-gate.ts).
    serverFactory: gatedServerFactory(services.overloadGate),
    // Undecodable URLs are refused before routing; they still get a problem document.
    frameworkErrors: (error, request, reply: FastifyReply) => {
      services.ensureRateLimitHeaders(request, reply);
      const detail = error.code === 'FST_ERR_BAD_URL' ? 'the request URL cannot be decoded' : 'bad request';
      reply
        .code(400)
        .header('x-correlation-id', request.id)
        .type(PROBLEM_CONTENT_TYPE)
        .send(
          problemBody(new ApiError('bad_request', detail), {
            problemBase: null,
            instance: null,
            correlationId: request.id,
          }),
        );
    },
    // Malformed HTTP never reaches the router; it is answered as a problem too.
    clientErrorHandler: (error, socket) => malformedHttpAnswer(error, socket, resourceLimiter),
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  // text/plain bodies are not part of this API: 415 rather than Fastify's default parser.
  app.removeContentTypeParser('text/plain');
  app.decorate('services', services);
  app.addHook('onClose', limiters.close);
  if (config.redisUrl !== null) services.metrics.rateLimitShared.set(1);
  app.addHook('onListen', async () => {
    const address = app.server.address();
    if (address && typeof address === 'object') services.urls = resolveUrls(config, address.port);
  });

  await registerPlugins(app);
  return app;
}

/** The cross-cutting plugins, health, v1 of the public API and the admin API, in their order. */
async function registerPlugins(app: Awaited<ReturnType<typeof buildApp>>) {
  await app.register(errorsPlugin);
  await app.register(requestMetricsPlugin);
  await app.register(overloadPlugin);
  await app.register(correlationIdPlugin);
  await app.register(deprecationPlugin);
  await app.register(rateLimitSweepPlugin);
  await app.register(idempotencyPurgePlugin);
  await app.register(eventRetentionPlugin);
  await app.register(eventSequencerPlugin);
  await app.register(webhookDispatchPlugin);
  await app.register(exceptionsJobPlugin);
  await app.register(autoClockOutPlugin);
  // Before any route: it describes the routes added after it.
  await app.register(openApiPlugin);
  await app.register(healthRoutes);
  await app.register(publicApiV1, { prefix: API_PREFIX });
  await app.register(adminApiV1, { prefix: ADMIN_PREFIX });
  await app.register(consoleAssetsPlugin);
  await app.register(kioskAssetsPlugin);
}
