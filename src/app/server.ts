import type { Logger } from 'pino';
import { buildApp } from './build-app.js';
import { createLogger } from './logger.js';
import { serveMetrics } from '../http/metrics.js';
import { TokenService } from '../modules/auth/tokens.js';
import { inTransaction } from '../modules/context.js';
import { databaseIsEmpty, seedDemo } from '../modules/demo/service.js';
import { inviteUser } from '../modules/people/service.js';
import { type Config, TOKEN_AUDIENCE, resolveUrls } from '../platform/config.js';
import { createDatabase } from '../platform/db/database.js';
import { isDatabaseUnavailable } from '../platform/db/errors.js';
import { migrateToLatest } from '../platform/db/migrate.js';

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

const FIRST_RETRY_MS = 250;
const LONGEST_RETRY_MS = 5_000;

/**
 * Runs `step` until it succeeds, waiting with back-off (250 ms doubling up to 5 s) while the database
 * cannot be reached, and logging each failed attempt; any other failure ends the wait at once.
 */
export async function whenDatabaseAnswers<T>(step: () => Promise<T>, logger: Logger | false): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      const waitMs = Math.min(FIRST_RETRY_MS * 2 ** (attempt - 1), LONGEST_RETRY_MS);
      if (logger)
        logger.warn(
          { attempt, retryInMs: waitMs, err: error },
          'the database does not answer yet; trying again',
        );
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }
}

/**
 * Migrates, builds and listens; used by `punchclock serve` and by the HTTP tests. With
 * `waitForDatabase`, a database that cannot be reached yet is waited for (see whenDatabaseAnswers).
 */
export async function startServer(
  config: Config,
  options: { logger?: Logger | false; now?: () => number; waitForDatabase?: boolean } = {},
) {
  const logger = options.logger === undefined ? createLogger(config.logLevel) : options.logger;
  const database = createDatabase(config.database, { backgroundCheckpoints: true });
  try {
    const issuer = resolveUrls(config, config.port).tokenIssuer;
    const tokens = new TokenService(database.db, issuer, TOKEN_AUDIENCE, options.now);
    const prepare = async () => {
      await migrateToLatest(database.db);
      await tokens.init();
    };
    await (options.waitForDatabase ? whenDatabaseAnswers(prepare, logger) : prepare());
    const app = await buildApp({
      config,
      database,
      tokens,
      logger,
      ...(options.now ? { now: options.now } : {}),
    });
    await app.listen({ port: config.port, host: config.host });
    const metricsServer =
      config.metricsPort === null
        ? null
        : await serveMetrics(app.services.metrics, config.host, config.metricsPort);
    return {
      app,
      services: app.services,
      database,
      tokens,
      url: app.services.urls.publicBaseUrl,
      listenUrl: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${(app.server.address() as { port: number }).port}`,
      metricsUrl:
        metricsServer === null
          ? null
          : `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${(metricsServer.address() as { port: number }).port}/metrics`,
      /**
       * Drains: stops accepting connections, answers the requests in flight (every answer now says
       * `Connection: close`, idle keep-alive connections are closed at once), stops the background
       * jobs (webhook sends under way finish and leases left are given back; pruning rounds finish),
       * then closes the metrics listener and the database.
       */
      async close() {
        app.services.overloadGate.drain(app.server);
        await app.close();
        if (metricsServer)
          await new Promise((resolve) => {
            metricsServer.close(resolve);
            metricsServer.closeAllConnections();
          });
        await database.close();
      },
    };
  } catch (error) {
    await database.close().catch(() => {});
    throw error;
  }
}

export async function runServer(config: Config, options: { demoIfEmpty: boolean }): Promise<void> {
  let demo: { clientId: string; secret: string; adminUserId: string } | null = null;
  if (options.demoIfEmpty) {
    const database = createDatabase(config.database);
    try {
      demo = await whenDatabaseAnswers(async () => {
        await migrateToLatest(database.db);
        if (!(await databaseIsEmpty(database.db))) return null;
        return seedDemo({ database, now: Date.now }, resolveUrls(config, config.port).publicBaseUrl);
      }, createLogger(config.logLevel));
    } finally {
      await database.close();
    }
  }
  const server = await startServer(config, { waitForDatabase: true });
  if (demo) {
    const adminUserId = demo.adminUserId;
    // The link carries the server's real address (known only now that it listens).
    const invitation = await inTransaction({ database: server.database, now: Date.now }, (tx, now) =>
      inviteUser(tx, now, adminUserId, server.url),
    );
    process.stdout.write(
      [
        'Created the demo company on an empty database.',
        `  client id: ${demo.clientId}`,
        `  secret:    ${demo.secret}   (shown once; only its hash is stored)`,
        'Get an access token:',
        `  curl -s -X POST ${server.url}/api/public/v1/oauth/token -u '${demo.clientId}:${demo.secret}' -d grant_type=client_credentials`,
        'Then call the API with it:',
        `  curl -s ${server.url}/api/public/v1/me -H "Authorization: Bearer <access_token>"`,
        'Open the console as the demo administrator (admin@demo.example): choose a password at',
        `  ${invitation.url}`,
        `  (one use; expires ${invitation.expiresAt})`,
        '',
      ].join('\n'),
    );
  }
  process.stdout.write(`listening on ${server.listenUrl}\n`);
  if (server.metricsUrl) process.stdout.write(`metrics on ${server.metricsUrl}\n`);
  drainOnSignals(server, config.shutdownGraceSeconds);
}

/**
 * SIGTERM (or SIGINT) drains the server (see startServer's close) and exits 0 once it is done; a
 * second signal, or the end of SHUTDOWN_GRACE_SECONDS, ends the process at once with exit status 1.
 */
function drainOnSignals(server: { app: { log: Logger }; close(): Promise<void> }, graceSeconds: number) {
  const log = server.app.log;
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      log.warn({ signal }, 'second signal while draining: exiting now');
      process.exit(1);
    }
    stopping = true;
    const started = Date.now();
    log.info({ signal, graceSeconds }, 'shutting down: draining requests and background jobs');
    setTimeout(() => {
      log.error({ graceSeconds }, 'shutdown grace period over: exiting with work unfinished');
      process.exit(1);
    }, graceSeconds * 1000);
    server
      .close()
      .then(() => {
        log.info({ ms: Date.now() - started }, 'shut down cleanly');
        process.exit(0);
      })
      .catch((error: unknown) => {
        log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
