import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './processes.js';

/*
 * A PostgreSQL server of a test's own (initdb + pg_ctl in a temporary folder, on a free port), for
 * tests that stop or restart PostgreSQL: the machine's shared server is never touched. As root, the
 * server's commands run as the `postgres` user (initdb refuses root).
 */
function binDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  for (const version of readdirSync(root).sort().reverse()) {
    const dir = join(root, version, 'bin');
    if (existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir;
  }
  return null;
}

const BIN = binDir();
const AS_ROOT = process.getuid?.() === 0;

export const ownPostgresAvailable = BIN !== null;

const execFileAsync = promisify(execFile);

/** Runs a PostgreSQL command without blocking the event loop (the server under test shares it). */
async function run(command: string, args: string[]): Promise<void> {
  const [file, argv] = AS_ROOT
    ? ['runuser', ['-u', 'postgres', '--', join(BIN!, command), ...args]]
    : [join(BIN!, command), args];
  await execFileAsync(file, argv, { encoding: 'utf8', timeout: 60_000 });
}

export interface OwnPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/<database>` */
  url(database?: string): string;
  start(): Promise<void>;
  stop(): Promise<void>;
  restart(): Promise<void>;
  destroy(): Promise<void>;
}

/**
 * `options.dataDir`: where the data directory goes (an empty folder, e.g. a small file system of the
 * test's own), its WAL then in the temporary folder (`initdb --waldir`), so that a full data disk
 * refuses writes instead of stopping the server.
 */
export async function startOwnPostgres(where: { dataDir?: string } = {}): Promise<OwnPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'punchclock-pg-'));
  const owner = AS_ROOT
    ? {
        uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()),
        gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim()),
      }
    : null;
  if (owner) chownSync(dir, owner.uid, owner.gid);
  if (owner && where.dataDir) chownSync(where.dataDir, owner.uid, owner.gid);
  const data = where.dataDir ?? join(dir, 'data');
  const port = await freePort();
  const walDir = where.dataDir ? ['--waldir', join(dir, 'wal')] : [];
  await run('initdb', ['-D', data, ...walDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const ctl = (action: string, ...extra: string[]) =>
    run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', ...extra, action]);
  await ctl('start');
  return {
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    start: () => ctl('start'),
    stop: () => ctl('stop', '-m', 'fast'),
    restart: () => ctl('restart', '-m', 'fast'),
    destroy: async () => {
      await ctl('stop', '-m', 'immediate').catch(() => {
        // already stopped
      });
      rmSync(dir, { recursive: true, force: true });
      // A data directory given by the caller (a mount point) is the caller's to remove.
    },
  };
}
