import type { Logger } from 'pino';
import { createLogger } from './logger.js';
import { buildApp } from './build-app.js';
import { TokenService } from '../modules/auth/tokens.js';
import { type Config, resolveUrls, TOKEN_AUDIENCE } from '../platform/config.js';
import { createDatabase } from '../platform/db/database.js';
import { migrateToLatest } from '../platform/db/migrate.js';
import { databaseIsEmpty, seedDemo } from '../modules/admin/demo.js';

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

/** Migrates, builds and listens; used by `punchclock serve` and by the HTTP tests. */
export async function startServer(
  config: Config,
  options: { logger?: Logger | false; now?: () => number } = {},
) {
  const database = createDatabase(config.database, { backgroundCheckpoints: true });
  try {
    await migrateToLatest(database.db);
    const issuer = resolveUrls(config, config.port).tokenIssuer;
    const tokens = new TokenService(database.db, issuer, TOKEN_AUDIENCE, options.now);
    await tokens.init();
    const logger = options.logger === undefined ? createLogger(config.logLevel) : options.logger;
    const app = await buildApp({
      config,
      database,
      tokens,
      logger,
      ...(options.now ? { now: options.now } : {}),
    });
    await app.listen({ port: config.port, host: config.host });
    return {
      app,
      services: app.services,
      database,
      tokens,
      url: app.services.urls.publicBaseUrl,
      listenUrl: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${(app.server.address() as { port: number }).port}`,
      async close() {
        await app.close();
        await database.close();
      },
    };
  } catch (error) {
    await database.close().catch(() => {});
    throw error;
  }
}

export async function runServer(config: Config, options: { demoIfEmpty: boolean }): Promise<void> {
  let demo: { clientId: string; secret: string } | null = null;
  if (options.demoIfEmpty) {
    const database = createDatabase(config.database);
    try {
      await migrateToLatest(database.db);
      if (await databaseIsEmpty(database.db))
        demo = await seedDemo({ database, now: Date.now }, resolveUrls(config, config.port).publicBaseUrl);
    } finally {
      await database.close();
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
