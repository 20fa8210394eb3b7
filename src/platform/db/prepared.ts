import { sql } from 'kysely';
import type { CompiledQuery, Compilable } from 'kysely';
import type { Executor } from './database.js';

type Value = string | number | null;

/*
 * Speed trick, kept (measured: docs/performance.md, round 9). Building a query with Kysely's builder
 * and compiling it to SQL costs more Node CPU than running a small indexed statement on SQLite, and it
 * is paid on every call. A prepared query is built and compiled once per dialect, with stand-in values
 * in place of its parameters; each call then runs the same SQL text with the call's values in their
 * places, through the executor it is given (a transaction's, or the database's). The unchanged text
 * also lets the statement caches below (SQLite's, PostgreSQL's named statements) find it cheaply.
 *
 * `build` is written with Kysely's builder as usual; it receives stand-ins for the named parameters
 * and must not branch on them (a query whose shape depends on its input is several prepared queries,
 * or left to Kysely).
 */
const MARK = '\u0000prepared:';

interface Template<R> {
  compiled: CompiledQuery<R>;
  /** For each parameter of the compiled query: the name of the value it takes, or null for a constant. */
  slots: (string | null)[];
}

export interface PreparedQuery<P extends { [K in keyof P]: Value }, R> {
  execute(db: Executor, params: P): Promise<R[]>;
  executeTakeFirst(db: Executor, params: P): Promise<R | undefined>;
  /** Rows inserted, updated or deleted. */
  executeWrite(db: Executor, params: P): Promise<number>;
}

export function prepareQuery<P extends { [K in keyof P]: Value }, R>(
  build: (db: Executor, params: P) => Compilable<R>,
): PreparedQuery<P, R> {
  // One template per dialect adapter, shared by a database and all its transactions.
  const templates = new WeakMap<object, Template<R>>();

  function templateFor(db: Executor): Template<R> {
    const adapter = db.getExecutor().adapter;
    let template = templates.get(adapter);
    if (template === undefined) {
      const standIns = new Proxy({} as P, {
        get: (_target, name) => (typeof name === 'string' ? `${MARK}${name}` : undefined),
      });
      const compiled = build(db, standIns).compile();
      const slots = compiled.parameters.map((value) =>
        typeof value === 'string' && value.startsWith(MARK) ? value.slice(MARK.length) : null,
      );
      // A stand-in written into the SQL text itself (sql.lit, an identifier) could not take a value.
      if (compiled.sql.includes(MARK)) throw new Error('prepared query: a parameter is not bound');
      template = { compiled, slots };
      templates.set(adapter, template);
    }
    return template;
  }

  function compiledFor(db: Executor, params: P): CompiledQuery<R> {
    const { compiled, slots } = templateFor(db);
    return {
      ...compiled,
      parameters: slots.map((slot, i) => (slot === null ? compiled.parameters[i] : params[slot as keyof P])),
    };
  }

  return {
    async execute(db, params) {
      return (await db.executeQuery(compiledFor(db, params))).rows;
    },
    async executeTakeFirst(db, params) {
      return (await db.executeQuery(compiledFor(db, params))).rows[0];
    },
    async executeWrite(db, params) {
      const result = await db.executeQuery(compiledFor(db, params));
      return Number(result.numAffectedRows ?? 0n);
    },
  };
}

/*
 * Part of the same trick: a limit written into the SQL (`limit 1`) rather than bound. SQLite plans a
 * statement whose LIMIT is a bound parameter again on every run (an overlap lookup took 27 µs with
 * `limit ?`, 8.5 µs with `limit 1`, measured in round 4).
 */
export const ONE_ROW = sql.lit<number>(1);

/** A limit that is a parameter (a page size), written so that SQLite does not plan the statement again on every run. */
export function boundLimit(limit: number) {
  return sql<number>`cast(${limit} as integer)`;
}

/**
 * Rows of a multi-row insert per statement: 100 rows of up to 30 columns stay far below SQLite's
 * 32,766 bound parameters and PostgreSQL's 65,535 (issue 32, a batch of punches).
 */
export const ROWS_PER_INSERT = 100;

/** `rows` in chunks of at most `size` (ROWS_PER_INSERT by default). */
export function chunked<T>(rows: readonly T[], size = ROWS_PER_INSERT): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < rows.length; i += size) chunks.push(rows.slice(i, i + size));
  return chunks;
}
