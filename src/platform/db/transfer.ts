import { once } from 'node:events';
import { createReadStream, createWriteStream, existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { sql } from 'kysely';
import { type Database, type Executor, readOnlySnapshot, type Tx } from './database.js';
import { migrateToLatest } from './migrate.js';
import type { Schema } from './schema.js';

/*
 * Moving an installation between any two databases (SQLite ↔ PostgreSQL): every table, rows
 * unchanged (ids, secrets' hashes, signing keys, the cursor secret: tokens and cursors issued before
 * the move stay valid after it).
 *
 * The file is JSON lines, format "punchclock-export" version 1:
 *   {"format":"punchclock-export","version":1,"exportedAt":…,"source":"sqlite"|"postgres","migrations":[…]}
 *   {"table":"companies","columns":[…]}          before each table's rows
 *   {"row":[…]}                                   one line per row, values in the columns' order
 *   {"end":true,"rows":{"companies":n,…}}         last: a file cut short has no such line
 * Tables come in the order their foreign keys need; each is read in pages by its primary key, so
 * memory stays flat whatever the size.
 */
export const EXPORT_FORMAT = 'punchclock-export';
export const EXPORT_VERSION = 1;
const PAGE = 1000;
const INSERT_BATCH = 200;

type TableName = keyof Schema & string;

/** Every table in foreign-key order, with its primary key (the order pages are read in). */
const TABLES: { name: TableName; key: string[] }[] = [
  { name: 'companies', key: ['id'] },
  { name: 'workplaces', key: ['id'] },
  { name: 'schedules', key: ['id'] },
  { name: 'employees', key: ['id'] },
  { name: 'employee_schedules', key: ['id'] },
  { name: 'users', key: ['id'] },
  { name: 'api_keys', key: ['id'] },
  { name: 'signing_keys', key: ['kid'] },
  { name: 'time_entries', key: ['id'] },
  { name: 'confirmed_days', key: ['employee_id', 'work_date'] },
  { name: 'idempotency_records', key: ['company_id', 'api_key_id', 'idempotency_key'] },
  { name: 'audit_log', key: ['id'] },
  { name: 'app_secrets', key: ['name'] },
  { name: 'event_sequences', key: ['company_id'] },
  { name: 'events', key: ['company_id', 'seq'] },
  // Events committed and not numbered yet (PostgreSQL, issue 32): numbered by the import (afterRows).
  { name: 'pending_events', key: ['pos'] },
  { name: 'time_entry_breaks', key: ['id'] },
  { name: 'console_sessions', key: ['id_hash'] },
  { name: 'console_invitations', key: ['token_hash'] },
  { name: 'webhook_endpoints', key: ['id'] },
  { name: 'webhook_deliveries', key: ['id'] },
  // Planned shifts (issue 33).
  { name: 'planned_shifts', key: ['id'] },
  { name: 'attendance_exceptions', key: ['id'] },
  { name: 'time_entry_revisions', key: ['time_entry_id', 'revision'] },
  { name: 'locked_periods', key: ['id'] },
  // Single sign-on (issue 34).
  { name: 'sso_configs', key: ['company_id'] },
  { name: 'sso_domains', key: ['domain'] },
  { name: 'sso_identities', key: ['company_id', 'issuer', 'subject'] },
  { name: 'sso_logins', key: ['state_hash'] },
  // Issue 31 (migration 0010).
  { name: 'absence_types', key: ['id'] },
  { name: 'holiday_overrides', key: ['id'] },
  { name: 'leave_entitlements', key: ['id'] },
  { name: 'absences', key: ['id'] },
  // Kiosk devices (issue 35, migration 0012).
  { name: 'devices', key: ['id'] },
  { name: 'employee_pins', key: ['employee_id'] },
  { name: 'kiosk_pin_failures', key: ['id'] },
  { name: 'kiosk_pin_locks', key: ['id'] },
  { name: 'kiosk_badge_failures', key: ['id'] },
  { name: 'device_refusals', key: ['id'] },
  // Issue 35 (migration 0014).
  { name: 'correction_requests', key: ['id'] },
];

export class TransferRefused extends Error {}

async function appliedMigrations(db: Executor): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
  return rows.map((row) => row.name);
}

/** One page of `table` after `after` (a primary key's values), ordered by the primary key. */
async function page(db: Executor, table: { name: TableName; key: string[] }, after: unknown[] | null) {
  const keys = table.key.map((column) => sql.ref(column));
  const where =
    after === null
      ? sql``
      : sql`where (${sql.join(keys)}) > (${sql.join(after.map((value) => sql`${value}`))})`;
  const { rows } = await sql<
    Record<string, unknown>
  >`select * from ${sql.table(table.name)} ${where} order by ${sql.join(keys)} limit ${sql.lit(PAGE)}`.execute(
    db,
  );
  return rows;
}

export async function exportInstallation(
  database: Database,
  out: string,
): Promise<{ file: string; tables: number; rows: Record<string, number> }> {
  if (existsSync(out)) throw new TransferRefused(`${out} already exists; choose a new file`);
  await migrateToLatest(database.db);
  const stream = createWriteStream(out, { flags: 'wx' });
  const write = async (value: unknown) => {
    if (!stream.write(`${JSON.stringify(value)}\n`)) await once(stream, 'drain');
  };
  const counts: Record<string, number> = {};
  try {
    // One snapshot for the whole file, header included (a read-only REPEATABLE READ transaction on
    // PostgreSQL): every table as of one instant, so an entry never comes without its event (pending
    // or numbered) and `event_sequences` never behind `events`, however busy the installation is.
    await database.transaction(async (tx) => {
      await readOnlySnapshot(tx);
      await write({
        format: EXPORT_FORMAT,
        version: EXPORT_VERSION,
        exportedAt: new Date().toISOString(),
        source: database.dialect,
        migrations: await appliedMigrations(tx),
      });
      for (const table of TABLES) {
        let columns: string[] | null = null;
        counts[table.name] = 0;
        for (let after: unknown[] | null = null; ;) {
          const rows = await page(tx, table, after);
          if (rows.length === 0) break;
          if (columns === null) {
            columns = Object.keys(rows[0]!);
            await write({ table: table.name, columns });
          }
          for (const row of rows) await write({ row: columns.map((column) => row[column] ?? null) });
          counts[table.name] = (counts[table.name] ?? 0) + rows.length;
          const last = rows.at(-1)!;
          after = table.key.map((column) => last[column]);
          if (rows.length < PAGE) break;
        }
      }
    });
    await write({ end: true, rows: counts });
  } finally {
    stream.end();
    await once(stream, 'close');
  }
  return { file: resolve(out), tables: TABLES.length, rows: counts };
}

/** An import needs the file, and a migrated target that holds no data. */
async function assertImportable(database: Database, file: string): Promise<void> {
  if (!existsSync(file) || !statSync(file).isFile())
    throw new TransferRefused(`there is no export at ${file}`);
  await migrateToLatest(database.db);
  for (const table of TABLES) {
    const held = await sql<{ one: number }>`select 1 as one from ${sql.table(table.name)} limit 1`.execute(
      database.db,
    );
    if (held.rows.length > 0)
      throw new TransferRefused(`the target holds data (${table.name}); import only into an empty database`);
  }
}

export interface ImportOptions {
  /**
   * Runs in the import's transaction after the last row (the CLI numbers the imported pending events
   * here, with the events module's numbering; this folder knows no module).
   */
  afterRows?: (tx: Tx) => Promise<void>;
}

export async function importInstallation(
  database: Database,
  file: string,
  options: ImportOptions = {},
): Promise<{ file: string; tables: number; rows: Record<string, number> }> {
  await assertImportable(database, file);
  const ours = await appliedMigrations(database.db);
  const counts: Record<string, number> = {};
  let header: { format?: string; version?: number; migrations?: string[] } | null = null;
  let ended = false;
  // All or nothing: one transaction for the whole import.
  await database.transaction(async (tx) => {
    let table: TableName | null = null;
    let columns: string[] = [];
    let batch: Record<string, unknown>[] = [];
    const flush = async () => {
      if (table === null || batch.length === 0) return;
      await tx
        .insertInto(table)
        .values(batch as never)
        .execute();
      counts[table] = (counts[table] ?? 0) + batch.length;
      batch = [];
    };
    // Opened here, where it is read at once: lines read before iteration began would be lost.
    const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
    for await (const line of lines) {
      if (line.trim() === '') continue;
      const record = JSON.parse(line) as {
        format?: string;
        version?: number;
        migrations?: string[];
        table?: string;
        columns?: string[];
        row?: unknown[];
        end?: boolean;
        rows?: Record<string, number>;
      };
      if (header === null) {
        if (record.format !== EXPORT_FORMAT || record.version !== EXPORT_VERSION)
          throw new TransferRefused(`${file} is not a ${EXPORT_FORMAT} file of version ${EXPORT_VERSION}`);
        const theirs = record.migrations ?? [];
        if (theirs.join() !== ours.join())
          throw new TransferRefused(
            `the export's schema (${theirs.join(', ')}) is not this version's (${ours.join(', ')}): migrate the source first`,
          );
        header = record;
        continue;
      }
      if (record.table !== undefined) {
        await flush();
        const known = TABLES.find((t) => t.name === record.table);
        if (!known) throw new TransferRefused(`unknown table ${record.table} in ${file}`);
        table = known.name;
        columns = record.columns ?? [];
        continue;
      }
      if (record.row !== undefined) {
        if (table === null) throw new TransferRefused(`a row before any table in ${file}`);
        batch.push(Object.fromEntries(columns.map((column, i) => [column, record.row![i]])));
        if (batch.length >= INSERT_BATCH) await flush();
        continue;
      }
      if (record.end === true) {
        await flush();
        for (const [name, rows] of Object.entries(record.rows ?? {}))
          if ((counts[name] ?? 0) !== rows)
            throw new TransferRefused(
              `${file} says ${name} has ${rows} rows, but ${counts[name] ?? 0} were read`,
            );
        ended = true;
      }
    }
    if (!ended) throw new TransferRefused(`${file} is cut short (no end line); nothing was imported`);
    await options.afterRows?.(tx);
  });
  for (const table of TABLES) counts[table.name] ??= 0;
  return { file: resolve(file), tables: TABLES.length, rows: counts };
}
