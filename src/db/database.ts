import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
  Kysely,
  PostgresDialect,
  SqliteAdapter,
  SqliteDialect,
  sql,
  type Transaction,
} from 'kysely';
import type { DatabaseUrl } from '../config.js';
import type { PoolClient } from 'pg';
import { createPostgresPool, type PostgresPool } from './postgres-pool.js';
import { buildRows, type Row, type RowReader, rowReader } from './rows.js';
import { type DirectConnection, registerDirectConnection, registerSendingConnection } from './prepared.js';
import { startBackgroundCheckpoints } from './sqlite-checkpoints.js';
import type { Database } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';
export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;
/** Either a plain connection or an open transaction: repositories accept both. */
export type Executor = Kysely<Database>;

/** Work added to a transaction (see `Store.withTransactionHook`). */
export interface TransactionHook {
  /** Runs first in the transaction; throwing rolls the transaction back before the work runs. */
  begin?(trx: Tx): Promise<void>;
  /** Runs after the work succeeded, before the commit. */
  beforeCommit?(trx: Tx, result: unknown): Promise<void>;
}

export interface Store {
  readonly db: Db;
  readonly dialect: Dialect;
  ping(): Promise<void>;
  /** Runs `fn` in one transaction; on SQLite it takes the write lock up front (BEGIN IMMEDIATE). */
  transaction<T>(fn: (trx: Tx) => Promise<T>): Promise<T>;
  /**
   * Calls `call` and hands `hook` to the first transaction that `call` opens before it returns
   * (synchronously: an async use case opens its transaction before its first `await`). That
   * transaction runs `hook.begin` first and `hook.beforeCommit(trx, result)` after its own work, and
   * commits them all at once; when it fails, none is kept. Returns what `call` returned and whether
   * the hook was taken up (a call that failed before opening a transaction did not take it; the
   * caller then does its part on its own).
   */
  withTransactionHook<T>(
    hook: TransactionHook,
    call: () => Promise<T>,
  ): { result: Promise<T>; taken: boolean };
  close(): Promise<void>;
}

/*
 * A deferred SQLite transaction that reads first and writes later can fail with SQLITE_BUSY at the
 * upgrade without waiting for busy_timeout, when another process (the CLI beside the server) writes.
 * Taking the write lock at BEGIN makes every writer wait its turn instead.
 */
class ImmediateTransactionSqliteDialect extends SqliteDialect {
  constructor(
    config: ConstructorParameters<typeof SqliteDialect>[0],
    private readonly lock: ConnectionLock,
  ) {
    super(config);
  }

  // SQLite has transactional DDL; declaring it makes Kysely run migrations inside one BEGIN IMMEDIATE
  // transaction, so two processes migrating one fresh file at once (server and CLI) take turns.
  override createAdapter(): DialectAdapter {
    return new (class extends SqliteAdapter {
      override get supportsTransactionalDdl(): boolean {
        return true;
      }
    })();
  }

  override createDriver(): Driver {
    const driver = super.createDriver();
    const { lock } = this;
    driver.beginTransaction = async (connection: DatabaseConnection) => {
      await connection.executeQuery(CompiledQuery.raw('begin immediate'));
    };
    // The store's own transactions (see `sqliteTransactions`) hold the same lock as Kysely's use of
    // the connection, so neither can run a statement inside the other's transaction.
    const acquire = driver.acquireConnection.bind(driver);
    const release = driver.releaseConnection.bind(driver);
    driver.acquireConnection = async () => {
      await lock.acquire();
      return acquire();
    };
    driver.releaseConnection = async (connection: DatabaseConnection) => {
      await release(connection);
      lock.release();
    };
    return driver;
  }
}

/** First come, first served; free in the common case without a wait. */
class ConnectionLock {
  #held = false;
  readonly #waiting: (() => void)[] = [];

  acquire(): Promise<void> {
    if (!this.#held) {
      this.#held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#held = false;
  }
}

const STATEMENT_CACHE_SIZE = 500;

/*
 * Kysely's SQLite driver calls `prepare` for every query, and preparing (parsing and planning the SQL)
 * cost about as much as running the query itself on the hot paths. Statements are reusable, so the
 * database handed to Kysely keeps the most recently used ones by SQL text. A statement still busy
 * (an unfinished `iterate`) is never handed out twice. Prepared queries (prepared.ts) read through
 * `all`, with statements of their own in raw mode (see rows.ts).
 */
function withStatementCache(database: SqliteDatabase.Database) {
  const cache = new Map<string, SqliteDatabase.Statement>();
  const readers = new Map<string, RowReader>();
  const remember = <T>(map: Map<string, T>, sql: string, value: T) => {
    if (map.size >= STATEMENT_CACHE_SIZE) map.delete(map.keys().next().value!);
    map.set(sql, value);
  };
  // Map order is the eviction order: a hit moves to the end.
  const refresh = <T>(map: Map<string, T>, sql: string, value: T) => {
    map.delete(sql);
    map.set(sql, value);
  };
  const statements = {
    close: () => database.close(),
    prepare(sql: string) {
      const cached = cache.get(sql);
      if (cached !== undefined && !cached.busy) {
        refresh(cache, sql, cached);
        return cached;
      }
      const statement = database.prepare(sql);
      if (cached === undefined) remember(cache, sql, statement);
      return statement;
    },
    /** The rows of a statement that returns data, as objects. */
    all: (sql: string, parameters: readonly unknown[]): Row[] => {
      let reader = readers.get(sql);
      if (reader !== undefined) refresh(readers, sql, reader);
      else {
        reader = rowReader(database.prepare(sql).raw(true));
        remember(readers, sql, reader);
      }
      const values = reader.statement.all(parameters) as unknown[][];
      /*
       * SQLite prepares a statement again by itself after the schema changed (a `migrate` run beside
       * the server), and a `t.*` may then name more or fewer columns than the builder was made for.
       */
      if (values.length > 0 && values[0]!.length !== reader.width) {
        reader = rowReader(reader.statement);
        readers.set(sql, reader);
      }
      return buildRows(reader.build, values);
    },
    run: (sql: string, parameters: readonly unknown[]): { changes: number } =>
      statements.prepare(sql).run(parameters),
  };
  return statements;
}

/** The connection settings of every SQLite connection this service opens (the benchmark's floor uses them too). */
export function openSqlite(path: string): SqliteDatabase.Database {
  if (path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
  const database = new SqliteDatabase(path);
  database.pragma('journal_mode = WAL');
  database.pragma('busy_timeout = 10000');
  database.pragma('foreign_keys = ON');
  database.pragma('synchronous = NORMAL');
  return database;
}

/**
 * `transaction` and `withTransactionHook` over a way to run a transaction. The hook slot is filled
 * and emptied within one synchronous stretch of `withTransactionHook`, so no other request can see it.
 */
function hookedTransactions(run: <T>(fn: (trx: Tx) => Promise<T>) => Promise<T>) {
  let pending: TransactionHook | null = null;
  return {
    transaction<T>(fn: (trx: Tx) => Promise<T>): Promise<T> {
      const hook = pending;
      pending = null;
      if (hook === null) return run(fn);
      return run(async (trx) => {
        if (hook.begin) await hook.begin(trx);
        const result = await fn(trx);
        if (hook.beforeCommit) await hook.beforeCommit(trx, result);
        return result;
      });
    },
    withTransactionHook<T>(hook: TransactionHook, call: () => Promise<T>) {
      pending = hook;
      let result: Promise<T>;
      try {
        result = call();
      } catch (error) {
        result = Promise.reject(error);
      }
      const taken = pending === null;
      pending = null;
      return { result, taken };
    },
  };
}

/*
 * SQLite: the store's transactions run BEGIN IMMEDIATE / COMMIT on the connection itself rather than
 * through Kysely's transaction machinery, whose async layers cost about as much as a small write
 * transaction itself (~30 µs per transaction, measured). They hold the connection's lock, which
 * Kysely's own use of the connection takes too, and hand the work a Kysely instance on the same
 * connection (`inner`) that does not take the lock again: the one SQLite connection is all theirs.
 */
function sqliteTransactions(
  inner: Db,
  connection: SqliteDatabase.Database,
  statements: ReturnType<typeof withStatementCache>,
  lock: ConnectionLock,
) {
  registerDirectConnection(inner, { all: statements.all, run: statements.run, ready: () => true });
  const trx = inner as unknown as Tx;
  const begin = connection.prepare('begin immediate');
  const commit = connection.prepare('commit');
  const rollback = connection.prepare('rollback');
  const run = async <T>(fn: (trx: Tx) => Promise<T>): Promise<T> => {
    await lock.acquire();
    try {
      begin.run();
      try {
        const result = await fn(trx);
        commit.run();
        return result;
      } catch (error) {
        if (connection.inTransaction) rollback.run();
        throw error;
      }
    } finally {
      lock.release();
    }
  };
  return hookedTransactions(run);
}

export function createStore(
  location: DatabaseUrl,
  options: { poolSize?: number; backgroundCheckpoints?: boolean } = {},
): Store {
  if (location.kind === 'sqlite') {
    const connection = openSqlite(location.path);
    // The server's store (not the CLI's one-shot ones): see sqlite-checkpoints.ts.
    const checkpoints =
      options.backgroundCheckpoints && location.path !== ':memory:'
        ? startBackgroundCheckpoints(connection, location.path)
        : null;
    const statements = withStatementCache(connection);
    const lock = new ConnectionLock();
    const db = new Kysely<Database>({
      dialect: new ImmediateTransactionSqliteDialect({ database: statements }, lock),
    });
    const inner = new Kysely<Database>({ dialect: new SqliteDialect({ database: statements }) });
    /*
     * Kysely's SQLite driver puts its one connection behind a mutex and several async layers, which
     * cost more than a small indexed statement itself. better-sqlite3 runs a statement synchronously,
     * so prepared queries (prepared.ts) run on the connection directly where that cannot change what
     * they see or do: outside a transaction only while none is open on the connection (nothing can
     * interleave with a synchronous statement, which sees, or commits on, the last committed state,
     * exactly as through Kysely; while another request's transaction is open, it goes through Kysely
     * and waits, as before), and inside a transaction of this store (see `sqliteTransactions`).
     */
    const direct: DirectConnection = {
      all: statements.all,
      run: statements.run,
      ready: () => !connection.inTransaction,
    };
    registerDirectConnection(db, direct);
    return {
      db,
      dialect: 'sqlite',
      ping: async () => {
        await sql`select 1`.execute(db);
      },
      ...sqliteTransactions(inner, connection, statements, lock),
      close: async () => {
        await checkpoints?.stop();
        await db.destroy();
      },
    };
  }
  const pool = createPostgresPool(location.url, options.poolSize ?? 10);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  registerSendingConnection(db, {
    send: async (text, parameters) => {
      const client = await pool.connect();
      try {
        return await client.query(text, parameters as unknown[]);
      } finally {
        client.release();
      }
    },
  });
  return {
    db,
    dialect: 'postgres',
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    ...hookedTransactions(postgresTransactions(pool)),
    close: () => db.destroy(),
  };
}

/*
 * PostgreSQL: a transaction holds one pooled connection; BEGIN and COMMIT are sent on it directly
 * (pipelined, see postgres-pool.ts), and the work gets a Kysely instance bound to that connection,
 * made once per connection, on which prepared queries are sent directly too. Kysely's executor and
 * transaction machinery cost more Node CPU per statement than pg itself did (measured with perf).
 */
function postgresTransactions(pool: PostgresPool) {
  const bound = new WeakMap<PoolClient, Tx>();
  const boundTo = (client: PoolClient): Tx => {
    let trx = bound.get(client);
    if (trx === undefined) {
      // The connection stays checked out for the whole transaction: Kysely's use of it releases nothing.
      const held = Object.create(client, { release: { value: () => {} } }) as PoolClient;
      const single: PostgresPool = { connect: async () => held, end: async () => {}, max: 1 };
      const instance = new Kysely<Database>({ dialect: new PostgresDialect({ pool: single }) });
      registerSendingConnection(instance, {
        send: (text, parameters) => client.query(text, parameters as unknown[]),
      });
      trx = instance as unknown as Tx;
      bound.set(client, trx);
    }
    return trx;
  };
  return async <T>(fn: (trx: Tx) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('begin');
      try {
        const result = await fn(boundTo(client));
        await client.query('commit');
        return result;
      } catch (error) {
        await client.query('rollback').catch((failure: unknown) => {
          // A connection that cannot even roll back is not given to anyone else.
          broken = failure instanceof Error ? failure : new Error(String(failure));
        });
        throw error;
      }
    } finally {
      client.release(broken);
    }
  };
}

export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** Name of the index/constraint a unique violation hit, when the driver says (PostgreSQL) or the columns (SQLite). */
export function uniqueViolationTarget(error: unknown): string {
  const e = error as { constraint?: string; message?: string };
  return e.constraint ?? e.message ?? '';
}
