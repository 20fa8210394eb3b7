import type { Command } from 'commander';
import { print, withDatabase } from '../io.js';
import { loadConfig } from '../../platform/config.js';
import { migrateToLatest } from '../../platform/db/migrate.js';

/** `serve` and `migrate`. */
export function registerServerCommands(program: Command): void {
  program
    .command('serve')
    .description('apply pending migrations, then serve the API')
    .option('--demo-if-empty', 'seed the demo company when the database is empty')
    .action(async (options: { demoIfEmpty?: boolean }) => {
      const config = loadConfig();
      // Loaded only here: the admin commands do not pay for the HTTP stack.
      const { runServer } = await import('../../app/server.js');
      await runServer(config, { demoIfEmpty: Boolean(options.demoIfEmpty) });
    });

  program
    .command('migrate')
    .description('apply pending migrations and exit')
    .option('--json', 'print exactly one JSON object')
    .action(async (options: { json?: boolean }) => {
      const applied = await withDatabase((ctx) => migrateToLatest(ctx.database.db), { migrate: false });
      if (options.json) print(JSON.stringify({ applied }));
      else print(applied.length > 0 ? `applied: ${applied.join(', ')}` : 'database is up to date');
    });
}
