import type { Compilable, CompiledQuery, QueryResult } from 'kysely';
import type { Executor } from './database.js';

type Value = string | number | null;

// A parameter value no caller can send: request input never holds NUL + this tag (NUL is refused or
// unstorable everywhere), and the template is only ever built with these markers.
const MARK = '\u0000prepared-parameter-';

interface Template<R> {
  compiled: CompiledQuery<R>;
  /** For each parameter of the compiled query: the argument index it takes, or -1 for a constant. */
  slots: number[];
}

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
  build: (db: Executor, ...args: A) => Compilable<R>,
) {
  // Keyed by the dialect adapter, shared by a Kysely instance and all its transactions.
  const templates = new WeakMap<object, Template<R>>();

  function compiledFor(db: Executor, args: A): CompiledQuery<R> {
    const adapter = db.getExecutor().adapter;
    let template = templates.get(adapter);
    if (template === undefined) {
      const marks = Array.from({ length: arity }, (_, i) => `${MARK}${i}`) as A;
      const compiled = build(db, ...marks).compile();
      const slots = compiled.parameters.map((value) =>
        typeof value === 'string' && value.startsWith(MARK) ? Number(value.slice(MARK.length)) : -1,
      );
      if (new Set(slots.filter((s) => s >= 0)).size !== arity)
        throw new Error(`prepared query uses ${slots.filter((s) => s >= 0).length} of its ${arity} arguments`);
      template = { compiled, slots };
      templates.set(adapter, template);
    }
    const { compiled, slots } = template;
    const parameters = slots.map((slot, i) => (slot === -1 ? compiled.parameters[i] : args[slot]));
    return { ...compiled, parameters };
  }

  return {
    async execute(db: Executor, ...args: A): Promise<R[]> {
      return (await db.executeQuery(compiledFor(db, args))).rows;
    },
    async executeTakeFirst(db: Executor, ...args: A): Promise<R | undefined> {
      return (await db.executeQuery(compiledFor(db, args))).rows[0];
    },
    /** Rows inserted, updated or deleted (for writes). */
    async executeWrite(db: Executor, ...args: A): Promise<number> {
      const result: QueryResult<R> = await db.executeQuery(compiledFor(db, args));
      return Number(result.numAffectedRows ?? 0n);
    },
  };
}
