// The benchmarks' start-up: a fresh database of either kind, and the real server (`punchclock serve`
// from a build) on it with the rate limits and the overload gate out of the way.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startProcess } from './processes.mjs';

export const BENCH_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const ROOT = resolve(BENCH_DIR, '..');
export const PG_ADMIN_URL = process.env.BENCH_PG_ADMIN_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
/** Requests a minute per key and per address: high enough never to be reached by a benchmark. */
export const RATE_LIMIT = 1_000_000_000;

/**
 * A fresh, empty database: SQLite in a temporary folder, or a PostgreSQL database created beside
 * PG_ADMIN_URL's. `label` names both (punchclock_<label>_<pid>_<time>). `drop()` removes it.
 */
export async function createDatabase(kind, label = 'bench') {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), `punchclock-${label}-`));
    return {
      url: `sqlite:${join(dir, 'bench.sqlite')}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const name = `punchclock_${label}_${process.pid}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: PG_ADMIN_URL });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

/** The environment of a server under test (the API or the floor) on `databaseUrl`. */
export function serverEnv(databaseUrl, { logLevel = 'warn' } = {}) {
  return {
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: logLevel,
    RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
    TOKEN_RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
    // These runs measure the most an instance serves; shedding at that load is bench/overload.mjs's.
    OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
  };
}

/** Node flags that make a server write a V8 CPU profile `<name>-<time>.cpuprofile` to bench/profiles/. */
export function cpuProfileFlags(name) {
  return [
    '--cpu-prof',
    `--cpu-prof-dir=${join(BENCH_DIR, 'profiles')}`,
    `--cpu-prof-name=${name}-${Date.now()}.cpuprofile`,
  ];
}

/**
 * `node <root>/dist/cli/main.js serve` on `databaseUrl`, once it listens (see startProcess). `root`
 * runs another build of the project (e.g. an older commit's, to measure "before").
 */
export function startApi(databaseUrl, { root = ROOT, nodeFlags = [], logLevel } = {}) {
  return startProcess(
    'api',
    [join(root, 'dist/cli/main.js'), 'serve'],
    serverEnv(databaseUrl, { logLevel }),
    {
      nodeFlags,
    },
  );
}
