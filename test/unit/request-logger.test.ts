import { Writable } from 'node:stream';
import Fastify from 'fastify';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { requestLogger } from '../../src/http/request-logger.js';

type Line = Record<string, unknown>;

/**
 * The same requests through Fastify with its own child logger and with `requestLogger`: the log lines
 * (without time and duration) and what the handlers see of `request.log`, and how many request children
 * each created.
 */
async function logsOf(level: string, factory: typeof requestLogger | undefined) {
  const lines: Line[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of String(chunk).trim().split('\n')) {
        const {
          time: _time,
          pid: _pid,
          hostname: _hostname,
          responseTime: _rt,
          ...line
        } = JSON.parse(text) as Line;
        lines.push(line);
      }
      done();
    },
  });
  let children = 0;
  const logger = pino(
    {
      level,
      onChild: () => {
        children += 1;
      },
    },
    stream,
  );
  const app = Fastify({
    loggerInstance: logger,
    genReqId: (req) => String(req.headers['x-correlation-id']),
    ...(factory ? { childLoggerFactory: factory } : {}),
  });
  const seen: Record<string, unknown> = {};
  app.get('/ok', async () => ({ ok: true }));
  app.get('/boom', async () => {
    throw new Error('kaput');
  });
  app.get('/logs', async (request) => {
    seen.level = request.log.level;
    request.log.debug('dropped unless debug');
    request.log.warn({ detail: 1 }, 'a warning about %s', 'this');
    request.log.child({ step: 'inner' }).error('from a child');
    return { ok: true };
  });
  app.setErrorHandler((error, request, reply) => {
    request.log.error({ failure: (error as Error).message }, 'unexpected failure');
    return reply.code(500).send({ error: 'internal_error' });
  });
  await app.ready();
  children = 0; // Fastify's own logger is a child of the instance given
  for (const url of ['/ok', '/boom', '/logs', '/missing'])
    await app.inject({ url, headers: { 'x-correlation-id': `id${url.replace('/', '-')}` } });
  await app.close();
  return { lines, seen, children };
}

describe('requestLogger (the per-request child logger)', () => {
  it.each(['warn', 'error', 'info', 'debug', 'silent'])(
    'writes at %s exactly the lines of Fastify’s own child logger',
    async (level) => {
      const own = await logsOf(level, undefined);
      const deferred = await logsOf(level, requestLogger);
      expect(deferred.lines).toEqual(own.lines);
      expect(deferred.seen).toEqual(own.seen);
      if (level !== 'silent') expect(deferred.lines.length).toBeGreaterThan(0);
    },
  );

  it('carries the request id on every line, and on the lines of its own children', async () => {
    const { lines } = await logsOf('warn', requestLogger);
    expect(lines).toEqual([
      { level: 50, reqId: 'id-boom', failure: 'kaput', msg: 'unexpected failure' },
      { level: 40, reqId: 'id-logs', detail: 1, msg: 'a warning about this' },
      { level: 50, reqId: 'id-logs', step: 'inner', msg: 'from a child' },
    ]);
  });

  it('creates the request child only when a request logs at an enabled level or asks for it', async () => {
    // Four requests; /logs also makes a child of its own (`request.log.child`).
    expect((await logsOf('warn', undefined)).children).toBe(4 + 1);
    expect((await logsOf('warn', requestLogger)).children).toBe(2 + 1);
    expect((await logsOf('silent', requestLogger)).children).toBe(1 + 1);
    // At info Fastify logs every request, so every request gets its child at once.
    expect((await logsOf('info', requestLogger)).children).toBe(4 + 1);
  });
});
