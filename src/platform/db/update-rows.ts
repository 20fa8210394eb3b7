import { sql } from 'kysely';
import type { Tx } from './database.js';
import { chunked } from './prepared.js';

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
  const assignments = sql.join(
    columns.map(([name, integer], i) => {
      const value = sql.raw(`v.column${i + 2}`);
      return sql`${sql.ref(name)} = ${integer ? sql`cast(${value} as integer)` : value}`;
    }),
  );
  for (const chunk of chunked(rows)) {
    const values = sql.join(
      chunk.map((row) => sql`(${sql.join([row.id, ...columns.map(([name]) => row[name] ?? null)])})`),
    );
    await sql`update ${sql.table(table)} set ${assignments} from (values ${values}) as v where ${sql.table(table)}.id = v.column1`.execute(
      tx,
    );
  }
}
