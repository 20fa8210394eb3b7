import pino, { type Logger } from 'pino';
import { buildApp } from './app.js';
import { TokenService } from './auth/tokens.js';
import { type Config, resolveUrls, TOKEN_AUDIENCE } from './config.js';
import { createStore } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { databaseIsEmpty, seedDemo } from './use-cases/admin/demo.js';

export function createLogger(level: string): Logger {
  return pino({
    level,
    // Secrets never reach the logs: credentials travel only in headers and bodies, and neither is logged.
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'headers.authorization',
        'body.client_secret',
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
  });
}

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

/** Migrates, builds and listens; used by `punchclock serve` and by the HTTP tests. */
export async function startServer(
  config: Config,
  options: { logger?: Logger | false; now?: () => number } = {},
) {
  const store = createStore(config.database, { backgroundCheckpoints: true });
  try {
    await migrateToLatest(store.db);
    const issuer = resolveUrls(config, config.port).tokenIssuer;
    const tokens = new TokenService(store.db, issuer, TOKEN_AUDIENCE, options.now);
    await tokens.init();
    const logger = options.logger === undefined ? createLogger(config.logLevel) : options.logger;
    const { app, services } = await buildApp({
      config,
      store,
      tokens,
      logger,
      ...(options.now ? { now: options.now } : {}),
    });
    await app.listen({ port: config.port, host: config.host });
    return {
      app,
      services,
      store,
      tokens,
      url: services.urls.publicBaseUrl,
      listenUrl: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${(app.server.address() as { port: number }).port}`,
      async close() {
        await app.close();
        await store.close();
      },
    };
  } catch (error) {
    await store.close().catch(() => {});
    throw error;
  }
}

export async function runServer(config: Config, options: { demoIfEmpty: boolean }): Promise<void> {
  let demo: { clientId: string; secret: string } | null = null;
  if (options.demoIfEmpty) {
    const store = createStore(config.database);
    try {
      await migrateToLatest(store.db);
      const ctx = { store, now: Date.now };
      if (await databaseIsEmpty(ctx))
        demo = await seedDemo(ctx, resolveUrls(config, config.port).publicBaseUrl);
    } finally {
      await store.close();
    }
  }
  const server = await startServer(config);
  if (demo) {
    process.stdout.write(
      [
        'Created the demo company on an empty database.',
        `  client id: ${demo.clientId}`,
        `  secret:    ${demo.secret}   (shown once; only its hash is stored)`,
        'Get an access token:',
        `  curl -s -X POST ${server.url}/api/public/v1/oauth/token -u '${demo.clientId}:${demo.secret}' -d grant_type=client_credentials`,
        'Then call the API with it:',
        `  curl -s ${server.url}/api/public/v1/me -H "Authorization: Bearer <access_token>"`,
        '',
      ].join('\n'),
    );
  }
  process.stdout.write(`listening on ${server.listenUrl}\n`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    server.app.log.info({ signal }, 'shutting down');
    // In-flight requests finish; new connections are refused; then the database is closed.
    server
      .close()
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        server.app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}
