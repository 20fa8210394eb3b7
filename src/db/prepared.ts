import { type Compilable, type CompiledQuery, type QueryResult, sql } from 'kysely';
import type { Executor } from './database.js';

type Value = string | number | null;

// Stand-in values: a template is compiled with these alone, so each parameter of the compiled query
// is either one of them (an argument's place) or a constant written in the builder.
const MARK = '\u0000prepared-parameter-';

/** A synchronous connection that can run a statement directly when `ready()` (SQLite, see database.ts). */
export interface DirectConnection {
  all(sql: string, parameters: readonly unknown[]): unknown[];
  run(sql: string, parameters: readonly unknown[]): { changes: number };
  ready(): boolean;
}

/**
 * A PostgreSQL connection (or pool) a prepared query is sent to directly, without Kysely's executor
 * in between (see database.ts); `rowCount` is what the server reports for a write.
 */
export interface SendingConnection {
  send(sql: string, parameters: readonly unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

const directConnections = new WeakMap<object, DirectConnection>();
const sendingConnections = new WeakMap<object, SendingConnection>();

/*
 * SQL texts of prepared queries, with a statement name each: PostgreSQL connections prepare them once
 * by name (see database.ts) instead of parsing and planning the text on every run. Bounded by the
 * number of prepared queries in the code.
 */
const statementNames = new Map<string, string>();

/*
 * `limit(ONE_ROW)`, not `limit(1)`: Kysely binds a limit as a parameter, and SQLite prepares a
 * statement whose LIMIT is a bound parameter again on every run (measured: an overlap lookup took
 * 27 µs with `limit ?`, 8.5 µs with `limit 1`).
 */
export const ONE_ROW = sql.lit<number>(1);

/**
 * A limit that is an argument (a page size), written so that SQLite does not prepare the statement
 * again on every run as it does for a bare `limit ?` (a page of 26 time entries: 145 → 105 µs).
 */
export function boundLimit(limit: number) {
  return sql<number>`cast(${limit} as integer)`;
}

/*
 * Appended to the SQL text of a pipelined write (see `executePipelined`): the PostgreSQL connection
 * (postgres-pool.ts) sends such a statement inside a transaction without waiting for its answer.
 */
export const PIPELINED_MARK = ' /* pipelined */';

/** The server-side statement name for `sql`, when it is the text of a prepared query. */
export function statementNameOf(sql: string): string | undefined {
  return statementNames.get(sql);
}

/**
 * Prepared queries made on `db` (a Kysely instance or one of its transactions) run on `connection`
 * directly whenever it is ready, instead of through Kysely's executor.
 */
export function registerDirectConnection(db: object, connection: DirectConnection): void {
  directConnections.set(db, connection);
}

/** Prepared queries made on `db` are sent on `connection` instead of through Kysely's executor. */
export function registerSendingConnection(db: object, connection: SendingConnection): void {
  sendingConnections.set(db, connection);
}

interface Template<R> {
  compiled: CompiledQuery<R>;
  /** The same statement marked as pipelined (PostgreSQL). */
  pipelinedSql: string;
  /** For each parameter of the compiled query: the argument index it takes, or -1 for a constant. */
  slots: number[];
}

/** A query builder, or raw `sql` (which compiles for an executor). */
type Buildable<R> = Compilable<R> | { compile(db: Executor): CompiledQuery<R> };

/**
 * A query whose shape never changes, built and compiled by Kysely once per database dialect instead
 * of on every call: on the per-request paths Kysely's building and compiling cost several times what
 * running the statement did. `build` is written with Kysely's builder as usual and receives stand-in
 * values for its arguments; every call then runs the compiled SQL with the real values in their places.
 * `build` must not branch on its arguments (a query whose shape depends on the input is written as
 * several prepared queries, or left to Kysely).
 */
export function prepareQuery<A extends Value[], R>(
  arity: A['length'],
  build: (db: Executor, ...args: A) => Buildable<R>,
) {
  // Keyed by the dialect adapter, shared by a Kysely instance and all its transactions.
  const templates = new WeakMap<object, Template<R>>();

  function compiledFor(db: Executor, args: A, pipelined = false): CompiledQuery<R> {
    const adapter = db.getExecutor().adapter;
    let template = templates.get(adapter);
    if (template === undefined) {
      const marks = Array.from({ length: arity }, (_, i) => `${MARK}${i}`) as A;
      // Query builders ignore the argument; raw `sql` needs the executor it compiles for.
      const compiled = (build(db, ...marks) as { compile(db: Executor): CompiledQuery<R> }).compile(db);
      const slots = compiled.parameters.map((value) =>
        typeof value === 'string' && value.startsWith(MARK) ? Number(value.slice(MARK.length)) : -1,
      );
      if (new Set(slots.filter((s) => s >= 0)).size !== arity)
        throw new Error(
          `prepared query uses ${slots.filter((s) => s >= 0).length} of its ${arity} arguments`,
        );
      template = { compiled, slots, pipelinedSql: compiled.sql + PIPELINED_MARK };
      templates.set(adapter, template);
      for (const text of [compiled.sql, template.pipelinedSql])
        if (!statementNames.has(text)) statementNames.set(text, `punchclock_${statementNames.size + 1}`);
    }
    const { compiled, slots, pipelinedSql } = template;
    const parameters = slots.map((slot, i) => (slot === -1 ? compiled.parameters[i] : args[slot]));
    // Spelled out: a spread followed by more properties goes through V8's runtime on every call.
    return {
      query: compiled.query,
      queryId: compiled.queryId,
      sql: pipelined ? pipelinedSql : compiled.sql,
      parameters,
    };
  }

  async function read(db: Executor, args: A): Promise<R[]> {
    const compiled = compiledFor(db, args);
    const direct = directConnections.get(db);
    if (direct !== undefined && direct.ready()) return direct.all(compiled.sql, compiled.parameters) as R[];
    const sending = sendingConnections.get(db);
    if (sending !== undefined) return (await sending.send(compiled.sql, compiled.parameters)).rows as R[];
    return (await db.executeQuery(compiled)).rows;
  }

  /** Rows inserted, updated or deleted. */
  async function write(db: Executor, compiled: CompiledQuery<R>): Promise<number> {
    const direct = directConnections.get(db);
    if (direct !== undefined && direct.ready()) return direct.run(compiled.sql, compiled.parameters).changes;
    const sending = sendingConnections.get(db);
    if (sending !== undefined) return (await sending.send(compiled.sql, compiled.parameters)).rowCount ?? 0;
    const result: QueryResult<R> = await db.executeQuery(compiled);
    return Number(result.numAffectedRows ?? 0n);
  }

  return {
    async execute(db: Executor, ...args: A): Promise<R[]> {
      return read(db, args);
    },
    async executeTakeFirst(db: Executor, ...args: A): Promise<R | undefined> {
      return (await read(db, args))[0];
    },
    /** Rows inserted, updated or deleted (for writes). */
    async executeWrite(db: Executor, ...args: A): Promise<number> {
      return write(db, compiledFor(db, args));
    },
    /**
     * A write whose result the caller does not need. On PostgreSQL, inside a transaction, it is sent
     * behind the statements before it without waiting for its answer, so that the last writes of a
     * transaction and its COMMIT travel together (one round trip instead of one each). Its failure
     * then surfaces at the next statement that is awaited, or at the commit, which fails and keeps
     * nothing: callers must not depend on its effect before the transaction ends. Elsewhere it is
     * `executeWrite` (the mark in its text is only a comment there).
     */
    async executePipelined(db: Executor, ...args: A): Promise<void> {
      await write(db, compiledFor(db, args, true));
    },
  };
}
