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
import pg from 'pg';
import type { DatabaseUrl } from '../config.js';
import type { Database } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';
export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;
/** Either a plain connection or an open transaction: repositories accept both. */
export type Executor = Kysely<Database>;

export interface Store {
  readonly db: Db;
  readonly dialect: Dialect;
  ping(): Promise<void>;
  /** Runs `fn` in one transaction; on SQLite it takes the write lock up front (BEGIN IMMEDIATE). */
  transaction<T>(fn: (trx: Tx) => Promise<T>): Promise<T>;
  /** Takes a row lock on the employee for the rest of the transaction (PostgreSQL); SQLite's write lock already serialises writers. */
  lockEmployee(trx: Tx, employeeId: string): Promise<void>;
  close(): Promise<void>;
}

/*
 * A deferred SQLite transaction that reads first and writes later can fail with SQLITE_BUSY at the
 * upgrade without waiting for busy_timeout, when another process (the CLI beside the server) writes.
 * Taking the write lock at BEGIN makes every writer wait its turn instead.
 */
class ImmediateTransactionSqliteDialect extends SqliteDialect {
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
    driver.beginTransaction = async (connection: DatabaseConnection) => {
      await connection.executeQuery(CompiledQuery.raw('begin immediate'));
    };
    return driver;
  }
}

const STATEMENT_CACHE_SIZE = 500;

/*
 * Kysely's SQLite driver calls `prepare` for every query, and preparing (parsing and planning the SQL)
 * cost about as much as running the query itself on the hot paths. Statements are reusable, so the
 * database handed to Kysely keeps the most recently used ones by SQL text. A statement still busy
 * (an unfinished `iterate`) is never handed out twice.
 */
function withStatementCache(database: SqliteDatabase.Database) {
  const cache = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => database.close(),
    prepare(sql: string) {
      const cached = cache.get(sql);
      if (cached !== undefined && !cached.busy) {
        // Refresh its place: Map order is the eviction order.
        cache.delete(sql);
        cache.set(sql, cached);
        return cached;
      }
      const statement = database.prepare(sql);
      if (cached === undefined) {
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
        cache.set(sql, statement);
      }
      return statement;
    },
  };
}

function openSqlite(path: string): SqliteDatabase.Database {
  if (path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
  const database = new SqliteDatabase(path);
  database.pragma('journal_mode = WAL');
  database.pragma('busy_timeout = 10000');
  database.pragma('foreign_keys = ON');
  database.pragma('synchronous = NORMAL');
  return database;
}

export function createStore(location: DatabaseUrl, options: { poolSize?: number } = {}): Store {
  if (location.kind === 'sqlite') {
    const db = new Kysely<Database>({
      dialect: new ImmediateTransactionSqliteDialect({ database: withStatementCache(openSqlite(location.path)) }),
    });
    return {
      db,
      dialect: 'sqlite',
      ping: async () => {
        await sql`select 1`.execute(db);
      },
      transaction: (fn) => db.transaction().execute(fn),
      lockEmployee: async () => {},
      close: () => db.destroy(),
    };
  }
  const pool = new pg.Pool({
    connectionString: location.url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 5000,
  });
  // An idle client losing its server connection must not crash the process.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    dialect: 'postgres',
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    transaction: (fn) => db.transaction().execute(fn),
    lockEmployee: async (trx, employeeId) => {
      await trx.selectFrom('employees').select('id').where('id', '=', employeeId).forUpdate().execute();
    },
    close: () => db.destroy(),
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
