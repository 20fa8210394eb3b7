import { createHash } from 'node:crypto';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  PostgresDialect,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import pg from 'pg';
import { isDatabaseUnavailable } from './errors.js';
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

const DATA_QUERIES = new Set(['SelectQueryNode', 'InsertQueryNode', 'UpdateQueryNode', 'DeleteQueryNode']);
const NAME_CACHE_SIZE = 1000;

/*
 * Speed trick, kept (measured: docs/performance.md, round 9). Kysely's PostgreSQL driver sends every
 * query as an unnamed statement, which the server parses and plans anew each time; on this service's
 * hot paths (a punch's context is one statement with four subqueries) planning cost the server more
 * CPU than running, and on a small machine that CPU is taken from the API. Here every data query
 * (select, insert, update, delete) runs as a named statement, its name a hash of its SQL text: each
 * connection parses it once (pg keeps track), and the server may switch to a generic plan. Raw SQL
 * (transaction control, migrations, locks) is sent as before. It is Kysely's own driver otherwise:
 * same pool, same results.
 */
const names = new Map<string, string>();

/*
 * Raw statements of a fixed, code-written shape that run on a hot path (a write plan, write-plan.ts:
 * every punch's writes in one statement) are named too; a raw statement is unnamed unless marked.
 * Marked by the identity of its query node, never by reading its text.
 */
const namedRaw = new WeakSet<object>();

/** Marks `compiled` (raw SQL of a shape the code writes, its values bound) to run as a named statement. */
export function asNamedStatement<R>(compiled: CompiledQuery<R>): CompiledQuery<R> {
  namedRaw.add(compiled.query);
  return compiled;
}

function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    if (names.size >= NAME_CACHE_SIZE) names.delete(names.keys().next().value!);
    name = `pc_${createHash('sha256').update(text).digest('base64url').slice(0, 32)}`;
    names.set(text, name);
  }
  return name;
}

/**
 * Whether a failed query leaves its connection unfit for the pool: the database is unavailable; or
 * the server does not know a statement the client believes prepared (26000); or the query failed in
 * the client before the server answered it (no SQLSTATE: pg could not convert a value), which leaves
 * pg believing prepared a named statement the server dropped, so that every later use of that text on
 * the connection would fail (review of the named write plan, F1).
 */
function spoilsConnection(error: unknown): boolean {
  if (isDatabaseUnavailable(error)) return true;
  return !(error instanceof pg.DatabaseError) || error.code === '26000';
}

/*
 * At most this many named statements per connection. pg and the server keep a connection's prepared
 * statements for its whole life, and a query whose text grows with its input (an `in (…)` list of a
 * batch's ids: one text per length) would otherwise add one per length, each holding its plan in the
 * server's memory (about 50–165 KB). The first texts a connection meets are the hot ones; a text met
 * after the connection has this many runs unnamed, parsed and planned each time, as Kysely's own
 * driver would run it.
 */
export const NAMED_PER_CONNECTION = 256;
const namedOn = new WeakMap<pg.PoolClient, Set<string>>();

/** The name to run `text` under on `client`, or null: unnamed (see NAMED_PER_CONNECTION). */
function nameOn(client: pg.PoolClient, text: string): string | null {
  const name = statementName(text);
  let known = namedOn.get(client);
  if (known === undefined) namedOn.set(client, (known = new Set()));
  if (known.has(name)) return name;
  if (known.size >= NAMED_PER_CONNECTION) return null;
  known.add(name);
  return name;
}

class NamedStatementConnection implements DatabaseConnection {
  /** Set once the connection failed under a query: it is then closed rather than pooled again. */
  broken: Error | undefined;

  constructor(readonly client: pg.PoolClient) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const values = [...compiled.parameters];
    let result: pg.QueryResult;
    try {
      const name =
        DATA_QUERIES.has(compiled.query.kind) || namedRaw.has(compiled.query)
          ? nameOn(this.client, compiled.sql)
          : null;
      result =
        name === null
          ? await this.client.query(compiled.sql, values)
          : await this.client.query({ name, text: compiled.sql, values });
    } catch (error) {
      if (spoilsConnection(error)) this.broken = error as Error;
      throw error;
    }
    // A simple query of several statements (lockedStatement, database.ts) answers one result each: the last is its answer.
    const last: pg.QueryResult = Array.isArray(result) ? (result.at(-1) as pg.QueryResult) : result;
    const { command, rowCount, rows } = last;
    return {
      numAffectedRows:
        command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE'
          ? BigInt(rowCount ?? 0)
          : undefined,
      rows: (rows ?? []) as R[],
    };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not supported by this driver');
  }
}

class NamedStatementDriver implements Driver {
  constructor(private readonly pool: pg.Pool) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new NamedStatementConnection(await this.pool.connect());
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    if (settings.isolationLevel || settings.accessMode)
      throw new Error('transaction settings are not supported by this driver');
    await connection.executeQuery(CompiledQuery.raw('begin'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const { client, broken } = connection as NamedStatementConnection;
    client.release(broken);
  }

  async destroy(): Promise<void> {
    await this.pool.end();
  }
}

class NamedStatementDialect extends PostgresDialect {
  constructor(private readonly pool: pg.Pool) {
    super({ pool });
  }

  override createDriver(): Driver {
    return new NamedStatementDriver(this.pool);
  }
}

export function createPostgresKysely(connectionString: string, max: number) {
  const pool = createPostgresPool(connectionString, max);
  const kysely = new Kysely<Schema>({ dialect: new NamedStatementDialect(pool) });
  return {
    kysely,
    close: () => kysely.destroy(),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
  };
}
