import type { Command } from 'commander';
import { print } from '../io.js';
import { sequencerOf } from '../../modules/events/sequencer.js';
import { loadConfig } from '../../platform/config.js';
import { createDatabase } from '../../platform/db/database.js';
import { exportInstallation, importInstallation } from '../../platform/db/transfer.js';

function describe(verb: string, result: { file: string; rows: Record<string, number> }): string {
  const rows = Object.entries(result.rows)
    .map(([table, count]) => `${table} ${count}`)
    .join(', ');
  return `${verb} ${result.file}: ${rows}`;
}

/** `export --out FILE` and `import --in FILE`: a whole installation between any two DATABASE_URLs. */
export function registerTransferCommands(program: Command): void {
  program
    .command('export')
    .description('the whole installation to a file (JSON lines, format punchclock-export v1)')
    .requiredOption('--out <file>', 'the new file to write (must not exist)')
    .option('--json', 'print exactly one JSON object')
    .action(async (options: { out: string; json?: boolean }) => {
      const database = createDatabase(loadConfig().database, { poolSize: 2 });
      try {
        // PostgreSQL: events committed and not numbered yet are numbered first (they are not exported).
        await sequencerOf(database)?.drainIfPending();
        const result = await exportInstallation(database, options.out);
        print(options.json ? JSON.stringify(result) : describe('exported to', result));
      } finally {
        await database.close();
      }
    });

  program
    .command('import')
    .description('an export into an empty database (refused for one holding data)')
    .requiredOption('--in <file>', 'the export to read')
    .option('--json', 'print exactly one JSON object')
    .action(async (options: { in: string; json?: boolean }) => {
      const database = createDatabase(loadConfig().database, { poolSize: 2 });
      try {
        const result = await importInstallation(database, options.in);
        print(options.json ? JSON.stringify(result) : describe('imported from', result));
      } finally {
        await database.close();
      }
    });
}
