import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Schema } from './schema.js';

/**
 * A pool of `max` connections. A connection that the server closes (a restart, a failover,
 * `pg_terminate_backend`) emits `error` on its client, idle or checked out; without a listener Node
 * would throw it and end the process. The pool drops such a client and opens a new one on demand;
 * the query that was running fails and is answered by the caller.
 */
export function createPostgresPool(connectionString: string, max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString, max, connectionTimeoutMillis: 5000 });
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  return pool;
}

export function createPostgresKysely(connectionString: string, max: number) {
  const pool = createPostgresPool(connectionString, max);
  const kysely = new Kysely<Schema>({ dialect: new PostgresDialect({ pool }) });
  return { kysely, close: () => kysely.destroy() };
}
