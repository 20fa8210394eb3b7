import pino, { type DestinationStream, type Logger } from 'pino';

/** The service's logger: JSON lines (to standard output, or `destination`); credentials never reach them. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    // Secrets never reach the logs: credentials travel only in headers and bodies, and neither is logged.
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'headers.authorization',
        'body.client_secret',
        // The console: session cookies, CSRF tokens and passwords (issue 19).
        'req.headers["x-csrf-token"]',
        'res.headers["set-cookie"]',
        'headers.cookie',
        'headers["set-cookie"]',
        'headers["x-csrf-token"]',
        'body.password',
        'body.token',
      ],
      censor: '[redacted]',
    },
    serializers: {
      req: (request: { method: string; url: string; ip?: string }) => ({
        method: request.method,
        path: request.url.split('?')[0],
        remoteAddress: request.ip,
      }),
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
