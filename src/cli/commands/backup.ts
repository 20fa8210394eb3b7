import type { Command } from 'commander';
import { print } from '../io.js';
import { loadConfig } from '../../platform/config.js';
import { BackupRefused, backupSqlite, restoreSqlite } from '../../platform/db/sqlite-backup.js';

function embeddedPath(): string {
  const { database } = loadConfig();
  if (database.kind !== 'sqlite')
    throw new BackupRefused(
      'backup and restore are for the embedded database; for PostgreSQL use pg_dump and pg_restore (see the README)',
    );
  return database.path;
}

function describeTables(tables: Record<string, number>): string {
  return Object.entries(tables)
    .filter(([name]) => !name.startsWith('kysely_'))
    .map(([name, rows]) => `${name} ${rows}`)
    .join(', ');
}

/** `backup --out FILE` and `restore --in FILE` (the embedded database). */
export function registerBackupCommands(program: Command): void {
  program
    .command('backup')
    .description('a consistent copy of the embedded database, while the server runs')
    .requiredOption('--out <file>', 'the new file to write (must not exist)')
    .option('--json', 'print exactly one JSON object')
    .action(async (options: { out: string; json?: boolean }) => {
      const result = await backupSqlite(embeddedPath(), options.out);
      print(
        options.json
          ? JSON.stringify(result)
          : `backup written to ${result.file} (${result.bytes} bytes): ${describeTables(result.tables)}`,
      );
    });

  program
    .command('restore')
    .description(
      'a backup into an empty or absent embedded database (refused for one in use or holding data)',
    )
    .requiredOption('--in <file>', 'the backup to restore')
    .option('--json', 'print exactly one JSON object')
    .action(async (options: { in: string; json?: boolean }) => {
      const result = await restoreSqlite(options.in, embeddedPath());
      print(
        options.json
          ? JSON.stringify(result)
          : `restored into ${result.file}: ${describeTables(result.tables)}`,
      );
    });
}
