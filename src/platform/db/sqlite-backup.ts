import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { openSqlite } from './sqlite.js';

/** Row counts of the user tables of an open SQLite database (migration bookkeeping included). */
function tableCounts(database: SqliteDatabase.Database): Record<string, number> {
  const names = database
    .prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name")
    .pluck()
    .all() as string[];
  const counts: Record<string, number> = {};
  for (const name of names)
    counts[name] = database
      .prepare(`select count(*) from "${name.replaceAll('"', '""')}"`)
      .pluck()
      .get() as number;
  return counts;
}

export class BackupRefused extends Error {}

/**
 * A consistent copy of the embedded database while the server keeps running: SQLite's online backup
 * API copies the pages of one snapshot (pages changed meanwhile make it restart the step), and the WAL
 * lets the server write throughout. `out` must not exist yet.
 */
export async function backupSqlite(
  path: string,
  out: string,
): Promise<{ file: string; bytes: number; tables: Record<string, number> }> {
  if (!existsSync(path)) throw new BackupRefused(`there is no database at ${path}`);
  if (existsSync(out)) throw new BackupRefused(`${out} already exists; choose a new file`);
  const source = openSqlite(path);
  try {
    await source.backup(out);
  } finally {
    source.close();
  }
  const copy = new SqliteDatabase(out, { readonly: true });
  try {
    const integrity = copy.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') throw new Error(`the copy failed its integrity check: ${String(integrity)}`);
    return { file: resolve(out), bytes: statSync(out).size, tables: tableCounts(copy) };
  } finally {
    copy.close();
  }
}

/**
 * Restores a backup into `path`, which must be absent or an empty database nobody uses: a database
 * holding any company, or one another process has open (its write-ahead log is not empty), is refused.
 */
export async function restoreSqlite(
  backup: string,
  path: string,
): Promise<{ file: string; tables: Record<string, number> }> {
  if (!existsSync(backup)) throw new BackupRefused(`there is no backup at ${backup}`);
  const source = new SqliteDatabase(backup, { readonly: true, fileMustExist: true });
  try {
    const tables = tableCounts(source);
    if (!('companies' in tables) || !('kysely_migration' in tables))
      throw new BackupRefused(`${backup} is not a Punchclock database`);
    if (existsSync(path)) {
      const wal = `${path}-wal`;
      if (existsSync(wal) && statSync(wal).size > 0)
        throw new BackupRefused(
          `${path} is in use (its write-ahead log is not empty); stop the server first`,
        );
      const target = new SqliteDatabase(path, { fileMustExist: true });
      try {
        const held = Object.entries(tableCounts(target)).filter(
          ([name, rows]) => rows > 0 && name !== 'kysely_migration_lock',
        );
        const data = held.filter(([name]) => !name.startsWith('kysely_'));
        if (data.length > 0)
          throw new BackupRefused(
            `${path} holds data (${data.map(([name]) => name).join(', ')}); restore only into an empty or absent database`,
          );
      } finally {
        target.close();
      }
    }
    await source.backup(path);
    return { file: resolve(path), tables };
  } finally {
    source.close();
  }
}
