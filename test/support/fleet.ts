import type { ChildProcess } from 'node:child_process';
import type { TestDialect } from './databases.js';
import { freePort, startRedis } from './processes.js';
import { startInstance, startTestServer, type TestServer } from './server.js';

/** Two server instances on one database, optionally sharing a Redis of the test's own. */
export interface Fleet {
  /** Started first: it migrates the database, and its `stop` drops it. */
  first: TestServer;
  /** Started second on the same database (finds it current). */
  second: TestServer;
  /** The fleet's own `redis-server` (REDIS_URL of both instances), when asked for. */
  redis: ChildProcess | undefined;
  /** Stops the second instance, then the first (dropping the database), then Redis. */
  stop(): Promise<void>;
}

/**
 * A fleet: two instances on one
 * fresh database of `dialect` (PostgreSQL for anything shared between processes) with the same
 * configuration, and with `redis: true` a `redis-server` on a free port that both use.
 */
export async function startFleet(
  dialect: TestDialect,
  options: { env?: Record<string, string>; now?: () => number; redis?: boolean } = {},
): Promise<Fleet> {
  let redis: ChildProcess | undefined;
  const env = { ...options.env };
  if (options.redis) {
    const port = await freePort();
    redis = await startRedis(port);
    env.REDIS_URL = `redis://127.0.0.1:${port}`;
  }
  const started = { env, ...(options.now ? { now: options.now } : {}) };
  let first: TestServer | undefined;
  try {
    // One after the other: the first migrates the database, the second finds it current.
    first = await startTestServer(dialect, started);
    const second = await startInstance(first.testDatabase, started);
    return {
      first,
      second,
      redis,
      async stop() {
        await second.stop();
        await first!.stop();
        redis?.kill('SIGKILL');
      },
    };
  } catch (error) {
    await first?.stop();
    redis?.kill('SIGKILL');
    throw error;
  }
}
