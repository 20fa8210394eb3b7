import { CompiledQuery } from 'kysely';
import { isPostgres, type Tx } from './database.js';
import { asNamedStatement } from './postgres.js';
import { StorageHealth } from './storage.js';
import { type Column, type Table } from './update-rows.js';

/*
 * Issue 32, item 3: the writes of one decided change (a punch: its entry, revision, audit row, event
 * and the key's stored outcome) as ONE statement on PostgreSQL, each write a data-modifying CTE of
 * `WITH w0 AS (INSERT … RETURNING 1), w1 AS (UPDATE … RETURNING 1) SELECT (SELECT count(*) FROM w0) …`:
 * one round trip instead of one per row. The SQL is written here from the plan's tables, columns and
 * conditions (never from another statement's text), every value bound. On SQLite, which has no round
 * trips (in-process calls) and no data-modifying CTEs, the same writes run one statement each, in order.
 *
 * What PostgreSQL's form requires of a plan, and `run` checks: the sub-statements of one statement run
 * on one snapshot in no defined order and cannot see each other's rows, so no two writes of a plan may
 * touch the same table (a plan that would is run one statement each, as on SQLite). Foreign keys and
 * unique indexes are checked as for separate statements: a unique violation fails the statement.
 */
type Bind = (value: unknown) => string;

interface PlannedWrite {
  table: string;
  /** An insert (or upsert): one that adds rows, as the storage's health counts them (storage.ts). */
  inserts: boolean;
  text(bind: Bind): string;
}

/*
 * The tables written by plans have no triggers: a trigger reading a sibling CTE's table would not see
 * its rows (one snapshot). Needs PostgreSQL 12 or later (MATERIALIZED CTEs elsewhere; 15 is what runs).
 */

/** A bound value: `undefined` is a caller's slip (a misspelt field), never taken for NULL. */
function valueOf(values: Record<string, unknown>, column: string): unknown {
  const value = values[column];
  if (value === undefined) throw new Error(`a write plan has no value for column ${column}`);
  return value;
}

function nonEmpty(names: readonly string[], what: string): void {
  if (names.length === 0) throw new Error(`a write plan needs ${what}`);
}

/** Names are interpolated into the SQL: the code's own, and checked all the same. */
const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

function name(identifier: string): string {
  if (!IDENTIFIER.test(identifier))
    throw new Error(`not a table or column name: ${JSON.stringify(identifier)}`);
  return `"${identifier}"`;
}

export class WritePlan {
  private readonly writes: PlannedWrite[] = [];

  /** A row inserted into `table`: `columns` of `row`, each given (null for NULL). */
  insert<T extends Table>(table: T, columns: readonly Column<T>[], row: object): void {
    nonEmpty(columns, 'columns to insert');
    const values = row as Record<string, unknown>;
    this.writes.push({
      table,
      inserts: true,
      text: (bind) =>
        `insert into ${name(table)} (${columns.map(name).join(', ')}) values (${columns
          .map((column) => bind(valueOf(values, column)))
          .join(', ')})`,
    });
  }

  /**
   * A row inserted into `table`, or, when a row with the same `conflict` columns exists, that row's
   * other `columns` set to the new row's values (INSERT … ON CONFLICT DO UPDATE, on both databases).
   */
  upsert<T extends Table>(
    table: T,
    columns: readonly Column<T>[],
    row: object,
    conflict: readonly Column<T>[],
  ): void {
    const values = row as Record<string, unknown>;
    const updated = columns.filter((column) => !conflict.includes(column));
    nonEmpty(conflict, 'the columns of a unique key');
    nonEmpty(updated, 'columns to update on conflict');
    this.writes.push({
      table,
      inserts: true,
      text: (bind) =>
        `insert into ${name(table)} (${columns.map(name).join(', ')}) values (${columns
          .map((column) => bind(valueOf(values, column)))
          .join(', ')}) on conflict (${conflict.map(name).join(', ')}) do update set ${updated
          .map((column) => `${name(column)} = excluded.${name(column)}`)
          .join(', ')}`,
    });
  }

  /**
   * The rows of `table` matching `where` (each column equal to its value; null: IS NULL) given the
   * values of `set`. `run` answers how many rows it changed.
   */
  update<T extends Table>(
    table: T,
    set: Partial<Record<Column<T>, unknown>>,
    where: Partial<Record<Column<T>, unknown>>,
  ): void {
    const assignments = Object.entries(set);
    const conditions = Object.entries(where);
    if (assignments.length === 0 || conditions.length === 0)
      throw new Error('an update needs values to set and a condition');
    this.writes.push({
      table,
      inserts: false,
      text: (bind) =>
        `update ${name(table)} set ${assignments
          .map(([column]) => `${name(column)} = ${bind(valueOf(set, column))}`)
          .join(', ')} where ${conditions
          .map(([column, value]) =>
            value === null ? `${name(column)} is null` : `${name(column)} = ${bind(valueOf(where, column))}`,
          )
          .join(' and ')}`,
    });
  }

  get size(): number {
    return this.writes.length;
  }

  /** Runs the plan in `tx`: the rows each write changed, in the plan's order. */
  async run(tx: Tx): Promise<number[]> {
    const counts = await this.runStatements(tx);
    // The storage's health (storage.ts) counts inserts that added rows; it cannot see these itself.
    const health = tx.getExecutor().plugins.find((plugin) => plugin instanceof StorageHealth);
    health?.insertsAdded(this.writes.filter((write, i) => write.inserts && counts[i]! > 0).length);
    return counts;
  }

  private async runStatements(tx: Tx): Promise<number[]> {
    if (this.writes.length === 0) return [];
    const tables = new Set(this.writes.map((write) => write.table));
    if (isPostgres(tx) && this.writes.length > 1 && tables.size === this.writes.length)
      return this.runAsOneStatement(tx);
    const counts: number[] = [];
    for (const write of this.writes) {
      const parameters: unknown[] = [];
      const text = write.text((value) => {
        parameters.push(value);
        return isPostgres(tx) ? `$${parameters.length}` : '?';
      });
      const result = await tx.executeQuery(CompiledQuery.raw(text, parameters));
      counts.push(Number(result.numAffectedRows ?? 0n));
    }
    return counts;
  }

  private async runAsOneStatement(tx: Tx): Promise<number[]> {
    const parameters: unknown[] = [];
    const bind = (value: unknown) => {
      parameters.push(value);
      return `$${parameters.length}`;
    };
    const ctes = this.writes.map((write, i) => `w${i} as (${write.text(bind)} returning 1)`);
    const counts = this.writes.map((_write, i) => `(select count(*) from w${i}) as w${i}`);
    const text = `with ${ctes.join(', ')} select ${counts.join(', ')}`;
    // Speed trick, kept: named (prepared) like the builder's queries (postgres.ts), as a plan's text is
    // one of a few shapes. Measured (docs/performance.md, issue 32, "named write plan"): PostgreSQL's
    // CPU per keyed punch 2.37 -> 2.08 ms, punches/s +9%, medians of three interleaved pairs.
    const { rows } = await tx.executeQuery<Record<string, unknown>>(
      asNamedStatement(CompiledQuery.raw(text, parameters)),
    );
    const row = rows[0] ?? {};
    return this.writes.map((_write, i) => Number(row[`w${i}`] ?? 0));
  }
}
