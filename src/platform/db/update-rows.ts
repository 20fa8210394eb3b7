import { CompiledQuery } from 'kysely';
import { isPostgres, type Tx } from './database.js';
import { MULTI_ROW_MARK } from './multi-row.js';
import { chunked, ROWS_PER_INSERT } from './prepared.js';
import type { Schema } from './schema.js';

/*
 * Multi-row writes of a batch (issue 32). The SQL is written here rather than built by Kysely: building
 * a statement of 100 rows value by value cost more than running it. Bound parameters per statement stay
 * under 30,000 (SQLite allows 32,766, PostgreSQL 65,535), and at most ROWS_PER_INSERT rows. Each row
 * count is its own statement text: on SQLite they are kept in a statement cache of their own
 * (MULTI_ROW_MARK, sqlite.ts), so batches of many sizes do not evict the single endpoint's statements.
 */
const MAX_PARAMETERS = 30_000;

/** A table of the schema, and one of its columns. */
export type Table = keyof Schema & string;
export type Column<T extends Table> = keyof Schema[T] & string;

/** Names are interpolated into the SQL: the code's own, and checked against this all the same. */
const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

function checked(names: readonly string[]): void {
  for (const name of names)
    if (!IDENTIFIER.test(name)) throw new Error(`not a table or column name: ${JSON.stringify(name)}`);
}

/** Every column any of `rows` carries, in first-seen order (a column only a later row has is kept). */
export function columnsOf<R extends object>(rows: readonly R[]): (keyof R & string)[] {
  const seen = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row)) seen.add(key);
  return [...seen] as (keyof R & string)[];
}

/** `rows` inserted into `table`, `columns` of each (a missing value is NULL). */
export async function insertRows<T extends Table>(
  tx: Tx,
  table: T,
  columns: readonly Column<T>[],
  rows: readonly object[],
): Promise<void> {
  checked([table, ...columns]);
  const numbered = isPostgres(tx);
  const head = `${MULTI_ROW_MARK}insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values `;
  const size = Math.max(1, Math.min(ROWS_PER_INSERT, Math.floor(MAX_PARAMETERS / columns.length)));
  for (const chunk of chunked(rows, size)) {
    const parameters: unknown[] = [];
    const tuples = chunk.map(
      (row) =>
        `(${columns
          .map((column) => {
            parameters.push((row as Record<string, unknown>)[column] ?? null);
            return numbered ? `$${parameters.length}` : '?';
          })
          .join(', ')})`,
    );
    await tx.executeQuery(CompiledQuery.raw(head + tuples.join(', '), parameters));
  }
}

/**
 * Rows of `table` changed by id, in multi-row statements: `UPDATE … FROM (VALUES …)`, whose columns
 * are column1 (the id), column2, … on both databases; a bound value in VALUES is text on PostgreSQL,
 * so the integer columns are cast.
 */
export async function updateById<T extends 'time_entries' | 'time_entry_breaks'>(
  tx: Tx,
  table: T,
  columns: readonly (readonly [Column<T>, boolean])[],
  rows: readonly object[],
): Promise<void> {
  checked([table, ...columns.map(([name]) => name)]);
  const numbered = isPostgres(tx);
  const assignments = columns
    .map(([name, integer], i) => {
      const value = `v.column${i + 2}`;
      return `"${name}" = ${integer ? `cast(${value} as integer)` : value}`;
    })
    .join(', ');
  for (const chunk of chunked(rows)) {
    const parameters: unknown[] = [];
    const tuples = chunk.map(
      (row) =>
        `(${['id', ...columns.map(([name]) => name)]
          .map((name) => {
            parameters.push((row as Record<string, unknown>)[name] ?? null);
            return numbered ? `$${parameters.length}` : '?';
          })
          .join(', ')})`,
    );
    const text = `${MULTI_ROW_MARK}update "${table}" set ${assignments} from (values ${tuples.join(', ')}) as v where "${table}".id = v.column1`;
    await tx.executeQuery(CompiledQuery.raw(text, parameters));
  }
}
