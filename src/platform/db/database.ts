import { type Kysely, sql, type Transaction, PostgresAdapter } from 'kysely';
import type { DatabaseUrl } from '../config.js';
import { createPostgresKysely } from './postgres.js';
import type { Schema } from './schema.js';

export { isDatabaseUnavailable } from './errors.js';
import { createSqliteKysely } from './sqlite.js';
import { isStorageFull, StorageHealth, type StorageState } from './storage.js';
export { isStorageFull, type StorageState } from './storage.js';

export type Dialect = 'sqlite' | 'postgres';
/** An open transaction: every function that must run inside one takes it as its first argument. */
export type Tx = Transaction<Schema>;
/** The database outside a transaction, or an open transaction: reads accept either. */
export type Executor = Kysely<Schema>;

/**
 * The unit of work. The rest of the code knows only this: `transaction(fn)` runs `fn` in one
 * transaction on one connection and commits what it did when it returns, or rolls it all back when
 * it throws. Which database sits underneath is known in this folder only.
 */
export interface Database {
  /** For reads (and single-statement writes) outside a transaction. */
  readonly db: Executor;
  readonly dialect: Dialect;
  /** One transaction; on SQLite it takes the write lock up front (BEGIN IMMEDIATE), so writers queue. */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** Resolves once the database answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /** PostgreSQL: the pool's connections (open, idle) and the requests waiting for one; SQLite: null. */
  poolStats(): { total: number; idle: number; waiting: number } | null;
  /** Whether writes find room on the disk (false after a write refused for space, until 20 inserts in a row succeed). */
  storage(): StorageState;
}

export interface DatabaseOptions {
  /** PostgreSQL: connections per process. */
  poolSize?: number;
  /** SQLite: checkpoint the WAL from a worker thread (the server's database, not the CLI's). */
  backgroundCheckpoints?: boolean;
}

export function createDatabase(location: DatabaseUrl, options: DatabaseOptions = {}): Database {
  const { kysely, close, poolStats } =
    location.kind === 'sqlite'
      ? {
          ...createSqliteKysely(location.path, {
            backgroundCheckpoints: options.backgroundCheckpoints ?? false,
          }),
          poolStats: () => null,
        }
      : createPostgresKysely(location.url, options.poolSize ?? 10);
  const health = new StorageHealth();
  const db = kysely.withPlugin(health);
  const database: Database = {
    db,
    dialect: location.kind,
    transaction: async (fn) => {
      const hooks = new Set<AfterCommit>();
      let result;
      try {
        result = await db.transaction().execute((tx) => {
          afterCommitHooks.set(tx, hooks);
          return fn(tx);
        });
      } catch (error) {
        if (isStorageFull(error)) health.refused(error, Date.now());
        throw error;
      }
      // The commit stands whatever a hook does: a hook that fails leaves its work to its own fallback.
      for (const hook of hooks) await hook(database).catch(() => undefined);
      return result;
    },
    storage: () => health.current,
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close,
    poolStats,
  };
  return database;
}

/** Work that follows a transaction's commit (see afterCommit). */
export type AfterCommit = (database: Database) => Promise<void>;
const afterCommitHooks = new WeakMap<Tx, Set<AfterCommit>>();

/**
 * Runs `hook` once after `tx` commits, before `Database.transaction` returns (never after a rollback;
 * the same hook registered twice runs once). For work that must see the commit, such as numbering the
 * transaction's events. Returns false when `tx` was not opened by `Database.transaction` (the hook is
 * then not run: the work must have another way to happen, e.g. a poll).
 */
export function afterCommit(tx: Tx, hook: AfterCommit): boolean {
  const hooks = afterCommitHooks.get(tx);
  hooks?.add(hook);
  return hooks !== undefined;
}

/** A savepoint in a transaction: `release` keeps what was done since, `rollback` undoes it (and releases). */
export interface Savepoint {
  release(): Promise<void>;
  rollback(): Promise<void>;
}

/**
 * Sets a savepoint in `tx` (one name: savepoints here are not nested). After a failed statement
 * PostgreSQL refuses every statement of the transaction until `rollback`.
 */
export async function savepoint(tx: Tx): Promise<Savepoint> {
  await sql`savepoint punchclock_item`.execute(tx);
  return {
    release: async () => {
      await sql`release savepoint punchclock_item`.execute(tx);
    },
    rollback: async () => {
      await sql`rollback to savepoint punchclock_item`.execute(tx);
      await sql`release savepoint punchclock_item`.execute(tx);
    },
  };
}

/**
 * Whether write transactions run one at a time (SQLite: BEGIN IMMEDIATE takes the database's one
 * write lock), so that what a writer reads stays true until its commit without any lock of its own.
 */
export function serialWriters(db: Executor): boolean {
  return !isPostgres(db);
}

export function isPostgres(db: Executor): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * Whether `SELECT … FOR UPDATE` row locks exist (PostgreSQL). SQLite has none and needs none: its
 * write transactions (BEGIN IMMEDIATE) run one at a time. Use as `.$if(rowLocks(tx), (q) => q.forUpdate())`.
 */
export function rowLocks(db: Executor): boolean {
  return isPostgres(db);
}

/**
 * Tries to take a lock named `name` for the rest of the transaction, without waiting: false when
 * another transaction, in any process on the database, holds it. PostgreSQL: an advisory transaction
 * lock. SQLite: always true, since a write transaction already excludes every other writer.
 */
export async function tryTransactionLock(tx: Tx, name: string): Promise<boolean> {
  if (!isPostgres(tx)) return true;
  const { rows } = await sql<{
    locked: boolean;
  }>`select pg_try_advisory_xact_lock(hashtextextended(${name}, 0)) as locked`.execute(tx);
  return rows[0]?.locked === true;
}

/**
 * tryTransactionLock for several names in one statement (a batch's keys, issue 32): whether every one
 * was taken. Those taken stay taken until the transaction ends, whatever the answer.
 */
export async function tryTransactionLocks(tx: Tx, names: string[]): Promise<boolean> {
  if (!isPostgres(tx) || names.length === 0) return true;
  const { rows } = await sql<{
    locked: boolean;
  }>`select bool_and(pg_try_advisory_xact_lock(hashtextextended(n, 0))) as locked from unnest(${names}::text[]) as n`.execute(
    tx,
  );
  return rows[0]?.locked === true;
}

/**
 * Takes a lock named `name` for the rest of the transaction, waiting for the transaction (in any process
 * on the database) that holds it: for short critical sections such as a claim. PostgreSQL: an advisory
 * transaction lock. SQLite: nothing to do, as above.
 */
export async function transactionLock(tx: Tx, name: string): Promise<void> {
  if (isPostgres(tx)) await sql`select pg_advisory_xact_lock(hashtextextended(${name}, 0))`.execute(tx);
}

/**
 * PostgreSQL: runs `statement` (SQL text without parameters) after taking the transaction lock `name`,
 * in one round trip: both go as one simple query, which PostgreSQL runs as one implicit transaction,
 * so the lock is held until that transaction has committed, and the statement (READ COMMITTED: its
 * own snapshot, taken after the lock) sees everything committed by the lock's previous holder.
 * Returns the statement's rows. Not for SQLite (nothing calls it there).
 */
export async function lockedStatement<R>(db: Executor, name: string, statement: string): Promise<R[]> {
  if (!isPostgres(db)) throw new Error('lockedStatement is for PostgreSQL');
  if (!/^[a-z0-9:._-]+$/.test(name)) throw new Error(`lock name ${name} is not a plain word`);
  const { rows } =
    await sql<R>`${sql.raw(`select pg_advisory_xact_lock(hashtextextended('${name}', 0)); ${statement}`)}`.execute(
      db,
    );
  return rows;
}

/**
 * Makes `tx` read one snapshot of the whole database for all its statements, and write nothing: the
 * first statement of the transaction. PostgreSQL: REPEATABLE READ, READ ONLY (READ COMMITTED, the
 * default, takes a new snapshot per statement). SQLite: nothing to do (a transaction is one snapshot,
 * and `Database.transaction` holds the write lock besides).
 */
export async function readOnlySnapshot(tx: Tx): Promise<void> {
  if (isPostgres(tx)) await sql`set transaction isolation level repeatable read, read only`.execute(tx);
}

/**
 * Locks a whole table against concurrent writers until the transaction ends (PostgreSQL's SHARE ROW
 * EXCLUSIVE mode: readers go on, a second such lock waits). SQLite: nothing to do, as above.
 */
export async function lockTableForWrites(tx: Tx, table: keyof Schema & string): Promise<void> {
  if (isPostgres(tx)) await sql`lock table ${sql.table(table)} in share row exclusive mode`.execute(tx);
}

/** Whether `error` is a unique-constraint violation (PostgreSQL 23505, SQLite's constraint codes). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** Name of the index/constraint a unique violation hit, when the driver says (PostgreSQL) or the columns (SQLite). */
export function uniqueViolationTarget(error: unknown): string {
  const e = error as { constraint?: string; message?: string };
  return e.constraint ?? e.message ?? '';
}
