import type { Socket } from 'node:net';
import { RATE_LIMIT_HEADER_DISPLAY_NAMES, unchargedRateLimitHeaders } from './rate-limit/headers.js';
import { type RateLimiter } from './rate-limit/limiter.js';
import { ApiError, PROBLEM_CONTENT_TYPE, problemBody } from '../problem.js';

/**
 * Fastify's `clientErrorHandler`: malformed HTTP never reaches the router, so the answer is written to
 * the socket here, still a problem document with the rate-limit headers, and the connection closed.
 */
export function malformedHttpAnswer(error: Error, socket: Socket, limiter: RateLimiter): void {
  if (!socket.writable) return;
  const body = JSON.stringify(
    problemBody(new ApiError('bad_request', 'malformed HTTP request'), {
      problemBase: null,
      instance: null,
      correlationId: null,
    }),
  );
  const status =
    (error as { code?: string }).code === 'HPE_HEADER_OVERFLOW'
      ? '431 Request Header Fields Too Large'
      : '400 Bad Request';
  const rateLimit = Object.entries(unchargedRateLimitHeaders(limiter))
    .map(([name, value]) => `${RATE_LIMIT_HEADER_DISPLAY_NAMES[name] ?? name}: ${value}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\n${rateLimit}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
