import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError, type ErrorName, validationError } from '../../domain/errors.js';
import { isStorageFull } from '../../platform/db/database.js';
import { TOKEN_PATH } from '../paths.js';
import { PROBLEM_CONTENT_TYPE, pathOf } from '../problem.js';
import { fieldErrorsFromAjv } from '../validation.js';
import { isDatabaseUnavailable } from '../../platform/db/errors.js';

export const BODY_LIMIT_BYTES = 64 * 1024;
/** What a client is told to wait before retrying when the database is away (a restart takes seconds). */
const DATABASE_RETRY_AFTER_SECONDS = 2;
/** A full disk is freed by an operator, not in a moment. */
const STORAGE_FULL_RETRY_AFTER_SECONDS = 30;

function frameworkErrorName(
  error: FastifyError,
  bodyLimit: number = BODY_LIMIT_BYTES,
): { name: ErrorName; detail: string } {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return {
        name: 'payload_too_large',
        detail: `the request body is larger than ${bodyLimit} bytes`,
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

/** Whatever was thrown, as an error of the catalogue (an unexpected one is logged and becomes a 500). */
function toApiError(error: FastifyError, request: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  if (error.validation)
    return validationError(fieldErrorsFromAjv(error.validation as never, error.validationContext ?? 'body'));
  if (isBodyParseError(error))
    return validationError([
      { field: 'body', message: 'must be a valid JSON document', code: 'invalid_json' },
    ]);
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    // A route may allow a larger body than the app's (the batch of punches).
    const mapped = frameworkErrorName(
      error,
      (request.routeOptions as { bodyLimit?: number } | undefined)?.bodyLimit ?? BODY_LIMIT_BYTES,
    );
    return new ApiError(mapped.name, mapped.detail);
  }
  if (isStorageFull(error)) {
    request.log.error({ err: error }, 'the database has no space left: write refused');
    request.server.services.metrics.storageFull.inc();
    return new ApiError(
      'storage_full',
      'the database has no space left to write; nothing was changed; reads still work; retry later',
      null,
      { 'retry-after': String(STORAGE_FULL_RETRY_AFTER_SECONDS) },
    );
  }
  if (isDatabaseUnavailable(error)) {
    request.log.warn({ err: error }, 'database unavailable');
    request.server.services.metrics.databaseErrors.inc();
    return new ApiError('service_unavailable', 'the database is unavailable; retry shortly', null, {
      'retry-after': String(DATABASE_RETRY_AFTER_SECONDS),
    });
  }
  request.log.error({ err: error }, 'unexpected failure');
  return new ApiError('internal_error', 'an unexpected error occurred; quote the correlation id to support');
}

/** Sends `error` as `application/problem+json` with its own headers and the rate-limit headers. */
export function sendProblem(request: FastifyRequest, reply: FastifyReply, error: ApiError): FastifyReply {
  const { services } = request.server;
  reply.headers(error.headers);
  services.ensureRateLimitHeaders(request, reply);
  return reply.code(error.status).type(PROBLEM_CONTENT_TYPE).send(services.problemFor(request, error));
}

/**
 * One error handler for the whole app: every 4xx/5xx is a problem document of the catalogue, except
 * at the token endpoint, which keeps OAuth's own error form (RFC 6749 §5.2) that OAuth clients read.
 */
export const errorsPlugin = fp(
  async (app) => {
    app.setErrorHandler((error: FastifyError, request, reply) => {
      const apiError = toApiError(error, request);
      if (request.routeOptions.url === TOKEN_PATH) {
        const status = apiError.status >= 500 ? apiError.status : apiError.status === 429 ? 429 : 400;
        reply.headers(apiError.headers);
        app.services.ensureRateLimitHeaders(request, reply);
        return reply
          .code(status)
          .header('cache-control', 'no-store')
          .send({
            error:
              status === 429
                ? 'rate_limited'
                : status === 503
                  ? 'temporarily_unavailable'
                  : status >= 500
                    ? 'server_error'
                    : 'invalid_request',
            error_description:
              status === 503
                ? (apiError.detail ?? 'temporarily unavailable')
                : status >= 500
                  ? 'an unexpected error occurred'
                  : (apiError.detail ?? apiError.message),
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
  },
  { name: 'errors' },
);
