import { type Command, CommanderError } from 'commander';
import { ApiError } from '../domain/errors.js';
import { type AppContext } from '../modules/context.js';
import { type Config, loadConfig } from '../platform/config.js';
import { createDatabase } from '../platform/db/database.js';
import { migrateToLatest } from '../platform/db/migrate.js';

/** Parsed option values: every value flag is a string; boolean flags (`--super-admin`, `--json`) are `true`. */
export type Flags = Record<string, string | undefined>;
type Run<R> = (ctx: AppContext, config: Config, args: string[], flags: Flags) => Promise<R>;

/** One line, no stack: ApiError's detail, otherwise the error's message. */
export function reason(error: unknown): string {
  let text: string;
  if (error instanceof ApiError) text = error.detail ?? error.message;
  else if (error instanceof CommanderError) text = error.message.replace(/^error:\s*/, '');
  else if (error instanceof AggregateError && !error.message)
    text = error.errors.map((e: unknown) => (e instanceof Error ? e.message : String(e))).join('; ');
  else if (error instanceof Error) text = error.message || error.name;
  else text = String(error);
  return text.replace(/\s*\n\s*/g, ' ').trim() || 'unknown error';
}

/** Opens the database named by DATABASE_URL, applies pending migrations (unless told not to), runs `fn`, closes. */
export async function withDatabase<R>(
  fn: (ctx: AppContext, config: Config) => Promise<R>,
  options: { migrate: boolean } = { migrate: true },
): Promise<R> {
  const config = loadConfig();
  const database = createDatabase(config.database, { poolSize: 2 });
  try {
    if (options.migrate) await migrateToLatest(database.db);
    return await fn({ database, now: Date.now }, config);
  } finally {
    await database.close().catch(() => {});
  }
}

export function print(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'none';
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.map(describeValue).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** The default human-readable form: one `key: value` line per field. */
export function describe(result: object): string {
  return Object.entries(result)
    .map(([key, value]) => `${key}: ${describeValue(value)}`)
    .join('\n');
}

/**
 * Declares an admin command: adds `--json` and an action that opens the store, runs the use case,
 * prints the result and closes the store. Errors propagate to `main`, which prints them.
 */
export function admin<R extends object>(
  cmd: Command,
  run: Run<R>,
  human: (result: R) => string = describe,
): Command {
  return cmd.option('--json', 'print exactly one JSON object').action(async (...params: unknown[]) => {
    const command = params.at(-1) as Command;
    const flags = command.opts<Flags>();
    const args = command.processedArgs as string[];
    const result = await withDatabase((ctx, config) => run(ctx, config, args, flags));
    print(flags.json ? JSON.stringify(result) : human(result));
  });
}
