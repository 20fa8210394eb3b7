import { randomUUID } from 'node:crypto';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { Logger } from 'pino';
import type { TokenService } from './auth/tokens.js';
import type { Config } from './config.js';
import { resolveUrls } from './config.js';
import type { Store } from './db/database.js';
import { ApiError, type ErrorName, validationError } from './errors.js';
import { createCursorCodec } from './http/cursor.js';
import { requestLogger } from './http/request-logger.js';
import { PROBLEM_CONTENT_TYPE, type ProblemBody, pathOf, problemBody } from './http/problem.js';
import { RATE_LIMIT_HEADER_DISPLAY_NAMES, unchargedRateLimitHeaders } from './http/rate-limit/headers.js';
import { SlidingWindowLimiter } from './http/rate-limit/sliding-window.js';
import { DOCS_PATH, registerOpenApi } from './http/openapi.js';
import { registerHealthRoutes } from './http/routes/health.js';
import { registerEmployeeRoutes } from './http/routes/v1/employees.js';
import { registerMeRoute } from './http/routes/v1/me.js';
import { registerTokenRoute, TOKEN_PATH } from './http/routes/v1/oauth-token.js';
import { registerTimeClockRoutes } from './http/routes/v1/time-tracking.js';
import { fieldErrorsFromAjv, validatorCompiler } from './http/validation.js';
import { loadCursorSecret } from './use-cases/api/cursor-secret.js';
import { purgeExpiredIdempotencyRecords } from './use-cases/api/idempotency.js';
import type { UseCaseContext } from './use-cases/context.js';

export const API_PREFIX = '/api/public/v1';
const BODY_LIMIT_BYTES = 64 * 1024;
const IDEMPOTENCY_PURGE_INTERVAL_MS = 10 * 60_000;
const CORRELATION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface AppDependencies {
  config: Config;
  store: Store;
  tokens: TokenService;
  logger: Logger | false;
  now?: () => number;
}

/** Everything a route needs, created once per app. */
export interface AppServices {
  config: Config;
  ctx: UseCaseContext;
  tokens: TokenService;
  resourceLimiter: SlidingWindowLimiter;
  tokenLimiter: SlidingWindowLimiter;
  unknownClientLimiter: SlidingWindowLimiter;
  cursors: ReturnType<typeof createCursorCodec>;
  urls: ReturnType<typeof resolveUrls>;
  problemFor(request: FastifyRequest, error: ApiError): ProblemBody;
  /**
   * Spec, Limits: rate-limit headers on every response. A response that has none by now charged no
   * key; it gets its route's policy with the quota untouched.
   */
  ensureRateLimitHeaders(request: FastifyRequest, reply: FastifyReply): void;
}

function frameworkErrorName(error: FastifyError): { name: ErrorName; detail: string } {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return {
        name: 'payload_too_large',
        detail: `the request body is larger than ${BODY_LIMIT_BYTES} bytes`,
      };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { name: 'unsupported_media_type', detail: 'the request body must be application/json' };
    default:
      break;
  }
  const status = error.statusCode ?? 500;
  if (status === 404) return { name: 'not_found', detail: error.message };
  if (status === 405) return { name: 'method_not_allowed', detail: error.message };
  if (status === 413) return { name: 'payload_too_large', detail: error.message };
  if (status === 415) return { name: 'unsupported_media_type', detail: error.message };
  return { name: 'bad_request', detail: error.message };
}

/** Malformed JSON is invalid input: 422 like every other body problem (spec, Errors: general rule). */
function isBodyParseError(error: FastifyError): boolean {
  return (
    error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
    error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
    (error.statusCode === 400 && error instanceof SyntaxError) ||
    error.message.includes('prototype property')
  );
}

export async function buildApp(
  deps: AppDependencies,
): Promise<{ app: FastifyInstance; services: AppServices }> {
  const { config, store, tokens } = deps;
  const now = deps.now ?? Date.now;
  const app = Fastify({
    loggerInstance: deps.logger === false ? undefined : deps.logger,
    logger: deps.logger === false ? false : undefined,
    ...(deps.logger === false ? {} : { childLoggerFactory: requestLogger }),
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: config.trustProxy,
    requestIdHeader: false,
    genReqId: (req) => {
      const sent = req.headers['x-correlation-id'];
      return typeof sent === 'string' && CORRELATION_ID.test(sent) ? sent : randomUUID();
    },
    return503OnClosing: true,
    // Undecodable URLs are refused before routing; they still get a problem document.
    frameworkErrors: (error, request, reply: FastifyReply) => {
      services.ensureRateLimitHeaders(request, reply);
      reply
        .code(400)
        .header('x-correlation-id', request.id)
        .type(PROBLEM_CONTENT_TYPE)
        .send({
          type: 'about:blank',
          title: 'Bad request',
          status: 400,
          detail: error.code === 'FST_ERR_BAD_URL' ? 'the request URL cannot be decoded' : 'bad request',
          instance: null,
          code: 1400,
          error: 'bad_request',
          correlationId: request.id,
          errors: null,
        });
    },
    forceCloseConnections: 'idle',
    // Malformed HTTP never reaches the router; answer it as a problem too.
    clientErrorHandler: (error, socket) => {
      if (!socket.writable) return;
      const body = JSON.stringify({
        type: 'about:blank',
        title: 'Bad request',
        status: 400,
        detail: 'malformed HTTP request',
        instance: null,
        code: 1400,
        error: 'bad_request',
        correlationId: null,
        errors: null,
      });
      const status =
        (error as { code?: string }).code === 'HPE_HEADER_OVERFLOW'
          ? '431 Request Header Fields Too Large'
          : '400 Bad Request';
      const rateLimit = Object.entries(unchargedRateLimitHeaders(services.resourceLimiter))
        .map(([name, value]) => `${RATE_LIMIT_HEADER_DISPLAY_NAMES[name] ?? name}: ${value}\r\n`)
        .join('');
      socket.end(
        `HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\n${rateLimit}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    },
  }) as unknown as FastifyInstance;

  app.setValidatorCompiler(validatorCompiler);
  // text/plain bodies are not part of this API: 415 rather than Fastify's default parser.
  app.removeContentTypeParser('text/plain');

  const ctx: UseCaseContext = { store, now };
  const windowMs = 60_000;
  const services: AppServices = {
    config,
    ctx,
    tokens,
    resourceLimiter: new SlidingWindowLimiter({ limit: config.rateLimitPerMinute, windowMs }),
    tokenLimiter: new SlidingWindowLimiter({ limit: config.tokenRateLimitPerMinute, windowMs }),
    unknownClientLimiter: new SlidingWindowLimiter({ limit: config.tokenRateLimitPerMinute, windowMs }),
    cursors: createCursorCodec(await loadCursorSecret(ctx)),
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
  const sweep = setInterval(() => {
    const at = now();
    services.resourceLimiter.sweep(at);
    services.tokenLimiter.sweep(at);
    services.unknownClientLimiter.sweep(at);
  }, windowMs);
  sweep.unref();
  // Spec, Limits: idempotency results are kept 24 hours; expired ones are removed here (and on reuse).
  const purge = setInterval(() => {
    purgeExpiredIdempotencyRecords(ctx).catch((error: unknown) =>
      app.log.warn({ err: error }, 'idempotency purge failed'),
    );
  }, IDEMPOTENCY_PURGE_INTERVAL_MS);
  purge.unref();
  app.addHook('onClose', async () => {
    clearInterval(sweep);
    clearInterval(purge);
  });
  app.addHook('onListen', async () => {
    const address = app.server.address();
    if (address && typeof address === 'object') services.urls = resolveUrls(config, address.port);
  });

  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-correlation-id', request.id);
    if (config.deprecation && request.url.startsWith(API_PREFIX)) {
      reply.header('deprecation', 'true');
      reply.header('sunset', config.deprecation.sunset);
      // Spec, Versioning: Link is always sent; without a configured page it points at the reference.
      const link = config.deprecation.link ?? `${services.urls.publicBaseUrl}${DOCS_PATH}`;
      reply.header('link', `<${link}>; rel="deprecation"`);
    }
  });

  const sendProblem = (request: FastifyRequest, reply: FastifyReply, error: ApiError) => {
    for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
    services.ensureRateLimitHeaders(request, reply);
    return reply.code(error.status).type(PROBLEM_CONTENT_TYPE).send(services.problemFor(request, error));
  };

  app.setErrorHandler((error: FastifyError, request, reply) => {
    let apiError: ApiError;
    if (error instanceof ApiError) apiError = error;
    else if (error.validation) {
      apiError = validationError(
        fieldErrorsFromAjv(error.validation as never, error.validationContext ?? 'body'),
      );
    } else if (isBodyParseError(error)) {
      apiError = validationError([
        { field: 'body', message: 'must be a valid JSON document', code: 'invalid_json' },
      ]);
    } else if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      const mapped = frameworkErrorName(error);
      apiError = new ApiError(mapped.name, mapped.detail);
    } else {
      request.log.error({ err: error }, 'unexpected failure');
      apiError = new ApiError(
        'internal_error',
        'an unexpected error occurred; quote the correlation id to support',
      );
    }
    if (request.routeOptions.url === TOKEN_PATH) {
      // The token endpoint keeps OAuth's own error form (RFC 6749 §5.2), which OAuth clients can read.
      const status = apiError.status >= 500 ? apiError.status : apiError.status === 429 ? 429 : 400;
      for (const [name, value] of Object.entries(apiError.headers)) reply.header(name, value);
      services.ensureRateLimitHeaders(request, reply);
      return reply
        .code(status)
        .header('cache-control', 'no-store')
        .send({
          error: status === 429 ? 'rate_limited' : status >= 500 ? 'server_error' : 'invalid_request',
          error_description:
            status >= 500 ? 'an unexpected error occurred' : (apiError.detail ?? apiError.message),
        });
    }
    return sendProblem(request, reply, apiError);
  });

  app.setNotFoundHandler((request, reply) =>
    sendProblem(
      request,
      reply,
      new ApiError('not_found', `no route for ${request.method} ${pathOf(request.url)}`),
    ),
  );

  await registerOpenApi(app, services);
  registerHealthRoutes(app, services);
  await app.register(async (scope) => registerTokenRoute(scope, services));
  registerMeRoute(app, services);
  registerEmployeeRoutes(app, services);
  registerTimeClockRoutes(app, services);
  return { app, services };
}
