import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
  Kysely,
  SqliteAdapter,
  SqliteDialect,
  SqliteDriver,
} from 'kysely';
import { MULTI_ROW_MARK } from './multi-row.js';
import type { Schema } from './schema.js';
import { startBackgroundCheckpoints } from './sqlite-checkpoints.js';

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

/*
 * A deferred SQLite transaction that reads first and writes later can fail with SQLITE_BUSY at the
 * upgrade without waiting for busy_timeout, when another process (the CLI beside the server) writes.
 * Taking the write lock at BEGIN makes every writer wait its turn instead.
 */
class ImmediateTransactionDriver extends SqliteDriver {
  constructor(
    config: ConstructorParameters<typeof SqliteDriver>[0],
    private readonly inTransaction: () => boolean,
  ) {
    super(config);
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  /*
   * SQLite rolls a transaction back by itself on some errors (SQLITE_FULL when the disk is full,
   * SQLITE_IOERR, SQLITE_NOMEM): a ROLLBACK then fails with "cannot rollback - no transaction is
   * active", and that error, not the one that caused it, would reach the caller.
   */
  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (this.inTransaction()) await super.rollbackTransaction(connection);
  }
}

class ImmediateTransactionDialect extends SqliteDialect {
  readonly #config: ConstructorParameters<typeof SqliteDialect>[0];
  readonly #inTransaction: () => boolean;

  constructor(config: ConstructorParameters<typeof SqliteDialect>[0], inTransaction: () => boolean) {
    super(config);
    this.#config = config;
    this.#inTransaction = inTransaction;
  }

  override createDriver(): Driver {
    return new ImmediateTransactionDriver(this.#config, this.#inTransaction);
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
}

const STATEMENT_CACHE_SIZE = 500;
const MULTI_ROW_CACHE_SIZE = 100;

/*
 * Speed trick, kept (measured, see docs/performance.md "Kept speed tricks"): Kysely's SQLite driver
 * calls `prepare` for every query, and preparing (parsing and planning the SQL) costs about as much
 * as running a small indexed query. Statements are reusable, so the database handed to Kysely keeps
 * the most recently used ones by SQL text (Map order is the eviction order; a hit moves to the end).
 * A statement still busy (an unfinished `iterate`) is never handed out twice.
 */
function withStatementCache(database: SqliteDatabase.Database) {
  // Multi-row statements (update-rows.ts) are another text for each row count: kept apart, in a
  // cache of their own, they cannot evict the single statements (review of s32, F4).
  const caches = { single: new Map<string, SqliteDatabase.Statement>(), multi: new Map() };
  return {
    close: () => database.close(),
    prepare(text: string) {
      const multi = text.startsWith(MULTI_ROW_MARK);
      const cache: Map<string, SqliteDatabase.Statement> = multi ? caches.multi : caches.single;
      const limit = multi ? MULTI_ROW_CACHE_SIZE : STATEMENT_CACHE_SIZE;
      const cached = cache.get(text);
      if (cached !== undefined && !cached.busy) {
        cache.delete(text);
        cache.set(text, cached);
        return cached;
      }
      const statement = database.prepare(text);
      if (cached === undefined) {
        if (cache.size >= limit) cache.delete(cache.keys().next().value!);
        cache.set(text, statement);
      }
      return statement;
    },
  };
}

export function createSqliteKysely(path: string, options: { backgroundCheckpoints: boolean }) {
  const connection = openSqlite(path);
  // The server's database (not the CLI's one-shot ones): see sqlite-checkpoints.ts.
  const checkpoints =
    options.backgroundCheckpoints && path !== ':memory:'
      ? startBackgroundCheckpoints(connection, path)
      : null;
  const kysely = new Kysely<Schema>({
    dialect: new ImmediateTransactionDialect(
      { database: withStatementCache(connection) },
      () => connection.inTransaction,
    ),
  });
  return {
    kysely,
    close: async () => {
      await checkpoints?.stop();
      await kysely.destroy();
    },
  };
}
