import { CompiledQuery } from 'kysely';
import { isPostgres, type Tx } from './database.js';
import { chunked, ROWS_PER_INSERT } from './prepared.js';

/*
 * Multi-row writes of a batch (issue 32). The SQL is written here rather than built by Kysely: building
 * a statement of 100 rows value by value cost more than running it. Bound parameters per statement stay
 * under 30,000 (SQLite allows 32,766, PostgreSQL 65,535), and at most ROWS_PER_INSERT rows, so a batch
 * of 100 reuses one statement text (SQLite's statement cache, sqlite.ts).
 */
const MAX_PARAMETERS = 30_000;

/** `rows` inserted into `table`, `columns` of each (a missing value is NULL). Names are the code's own. */
export async function insertRows<R extends object>(
  tx: Tx,
  table: string,
  columns: readonly string[],
  rows: readonly R[],
): Promise<void> {
  const numbered = isPostgres(tx);
  const head = `insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values `;
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
export async function updateById(
  tx: Tx,
  table: 'time_entries' | 'time_entry_breaks',
  columns: [string, boolean][],
  rows: Record<string, unknown>[],
): Promise<void> {
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
            parameters.push(row[name] ?? null);
            return numbered ? `$${parameters.length}` : '?';
          })
          .join(', ')})`,
    );
    const text = `update "${table}" set ${assignments} from (values ${tuples.join(', ')}) as v where "${table}".id = v.column1`;
    await tx.executeQuery(CompiledQuery.raw(text, parameters));
  }
}
