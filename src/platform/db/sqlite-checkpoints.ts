import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SqliteDatabase from 'better-sqlite3';

/** WAL size (pages) at which the server's own connection checkpoints anyway: the safety net. */
const FALLBACK_AUTOCHECKPOINT_PAGES = 10_000;
const DEFAULT_INTERVAL_MS = 200;

export interface BackgroundCheckpoints {
  stop(): Promise<void>;
}

/*
 * The worker: its own connection, a PASSIVE checkpoint every interval (copies committed pages from the
 * WAL into the database file and fsyncs both, without blocking writers or readers), one last one on
 * 'stop'. Plain CommonJS evaluated in the worker; better-sqlite3 is passed as a resolved path so the
 * worker finds the same module whatever the working directory.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const database = new Database(workerData.path);
database.pragma('busy_timeout = 5000');
database.pragma('wal_autocheckpoint = 0');
const checkpoint = () => {
  try { database.pragma('wal_checkpoint(PASSIVE)'); } catch {}
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  checkpoint();
  database.close();
  parentPort.close();
});
`;

/*
 * With journal_mode=WAL and synchronous=NORMAL a commit only appends to the WAL; the fsyncs happen
 * when the WAL is checkpointed into the database file. By default SQLite checkpoints every 1,000
 * pages inside the commit that crosses the threshold, on the committing connection: with
 * better-sqlite3 that is the server's only thread, stalled for two fsyncs (several milliseconds on
 * this machine's disk) every few dozen writes. Here a worker thread with its own connection
 * checkpoints every `intervalMs` instead; the server's connection keeps a far higher threshold as a
 * safety net in case the worker falls behind. Durability is that of synchronous=NORMAL either way: a
 * power loss may lose the commits since the last checkpoint (now at most ~`intervalMs` old), never
 * corrupts the database.
 */
export function startBackgroundCheckpoints(
  connection: SqliteDatabase.Database,
  path: string,
  options: { intervalMs?: number } = {},
): BackgroundCheckpoints {
  connection.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      path,
      intervalMs: options.intervalMs ?? DEFAULT_INTERVAL_MS,
      module: createRequire(import.meta.url).resolve('better-sqlite3'),
    },
  });
  // It must never keep the process alive, nor take it down; without it, SQLite's default applies again.
  worker.unref();
  worker.on('error', () => {
    if (connection.open) connection.pragma('wal_autocheckpoint = 1000');
  });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    async stop() {
      worker.postMessage('stop');
      const timeout = setTimeout(() => void worker.terminate(), 5_000);
      await exited;
      clearTimeout(timeout);
    },
  };
}
