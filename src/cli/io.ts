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

/**
 * A secret (a password, a client secret) from standard input, never from the arguments (they show in
 * `ps` and in shell history): piped, everything up to the first line break; on a terminal, typed
 * without echo after `prompt` on standard error.
 */
export async function readHiddenLine(prompt: string): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    const chunks: Buffer[] = [];
    for await (const chunk of stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
  }
  process.stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let typed = '';
    const done = (error?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (data: string) => {
      for (const char of data) {
        if (char === '\r' || char === '\n') return done();
        if (char === '\u0003') return done(new Error('cancelled'));
        if (char === '\u007f' || char === '\b') typed = [...typed].slice(0, -1).join('');
        else typed += char;
      }
    };
    stdin.on('data', onData);
    stdin.resume();
  });
}
