#!/usr/bin/env node
// CPU time per keyed punch, split by process: the API's, and on PostgreSQL the database server's
// (every postgres process: backends, WAL writer, checkpointer). Counts CPU time consumed, not
// requests per second, so it reads the same on a busy machine as on a quiet one far better than a
// throughput does; for comparing two builds (--api-root) in interleaved runs.
//
//   node bench/cpu-per-punch.mjs [--db=postgres|sqlite] [--punches=4000] [--warmup=1500]
//                                [--concurrency=8] [--api-root=<dir>] [--pg-postmaster-pid=N] [--profile]
//
// Run after a build. Starts the real server on a fresh database with 400 employees of one company,
// sends `--warmup` keyed punches (toggles, two minutes apart per employee, each with its own
// Idempotency-Key), then `--punches` more, `--concurrency` at a time, and reads the CPU time
// (/proc/<pid>/stat: utime + stime) of the API and of PostgreSQL's process tree before and after the
// measured ones. PostgreSQL's postmaster is the parent of one of the bench database's backends
// (`--pg-postmaster-pid` to give it); the cluster's other databases are counted too, so run it on a
// quiet cluster. Ticks are 10 ms.
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { performance } from 'node:perf_hooks';
import { commandLine } from './lib/cli.mjs';
import { cpuTimeOf, treeCpuTimeOf } from './lib/processes.mjs';
import { bulkEmployees, createTenant, openStore } from './lib/provision.mjs';
import { cpuProfileFlags, createDatabase, ROOT, startApi } from './lib/server.mjs';
import { fetchToken } from './lib/token.mjs';
import { resolve } from 'node:path';

const { flag, option } = commandLine();
const kind = option('db', 'postgres');
const punches = Number(option('punches', 4000));
const warmup = Number(option('warmup', 1500));
const concurrency = Number(option('concurrency', 8));
const apiRoot = resolve(option('api-root', ROOT));
// --profile: the API writes a V8 CPU profile to bench/profiles/ (bench/profile-summary.mjs reads it).
const profile = flag('profile');
const EMPLOYEES = 400;
const API = '/api/public/v1';

/**
 * The postmaster of the cluster the bench's database is on: the parent of one of its backends (found
 * through a connection of the bench's own), so that the CPU read is that cluster's whatever else runs.
 */
async function postmasterPidOf(databaseUrl) {
  const given = option('pg-postmaster-pid', null);
  if (given) return Number(given);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query('select pg_backend_pid() as pid');
    const stat = readFileSync(`/proc/${rows[0].pid}/stat`, 'utf8');
    // Field 4 of /proc/<pid>/stat, after the command in parentheses: the parent's pid.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } finally {
    await client.end();
  }
}

const database = await createDatabase(kind, 'cpu_punch');
let server;
try {
  const { store, ctx, close } = await openStore(database.url);
  const tenant = await createTenant(ctx, 'CPU per punch');
  const employees = await bulkEmployees(store, tenant, EMPLOYEES, { prefix: 'CP' });
  await close();
  server = await startApi(database.url, {
    root: apiRoot,
    nodeFlags: profile ? cpuProfileFlags(`cpu-punch-${kind}`) : [],
  });
  const token = await fetchToken(server.url, tenant.key.clientId, tenant.key.secret);
  const total = warmup + punches;
  const start = Date.now() - (Math.ceil(total / EMPLOYEES) + 2) * 2 * 60_000;
  const punch = async (i) => {
    const employee = employees[i % EMPLOYEES];
    const round = Math.floor(i / EMPLOYEES);
    const response = await fetch(`${server.url}${API}/time-clock/events`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'idempotency-key': `cpu-${i}`,
      },
      body: JSON.stringify({
        employee: { id: employee.id },
        type: 'toggle',
        occurredAt: new Date(start + round * 2 * 60_000).toISOString(),
      }),
    });
    const text = await response.text();
    if (response.status !== 201) throw new Error(`punch ${i}: ${response.status} ${text.slice(0, 300)}`);
  };
  // Worker w sends the punches i ≡ w (mod concurrency), in order; as the concurrency divides the
  // number of employees, each employee's punches are one worker's, so none overtakes another.
  if (EMPLOYEES % concurrency !== 0) throw new Error(`--concurrency must divide ${EMPLOYEES}`);
  let done = 0;
  const runUntil = async (end) => {
    const from = done;
    await Promise.all(
      Array.from({ length: concurrency }, async (_, w) => {
        for (
          let i = from + ((((w - from) % concurrency) + concurrency) % concurrency);
          i < end;
          i += concurrency
        )
          await punch(i);
      }),
    );
    done = end;
  };
  await runUntil(warmup);
  const postmaster = kind === 'postgres' ? await postmasterPidOf(database.url) : null;
  const before = {
    api: cpuTimeOf(server.pid),
    db: postmaster ? treeCpuTimeOf(postmaster) : 0,
    at: performance.now(),
  };
  await runUntil(total);
  const after = {
    api: cpuTimeOf(server.pid),
    db: postmaster ? treeCpuTimeOf(postmaster) : 0,
    at: performance.now(),
  };
  const per = (ms) => ((ms * 1000) / punches).toFixed(0);
  const apiMs = after.api - before.api;
  const dbMs = after.db - before.db;
  const result = {
    db: kind,
    apiRoot,
    punches,
    concurrency,
    punchesPerSecond: Math.round((punches / (after.at - before.at)) * 1000),
    apiCpuUsPerPunch: Number(per(apiMs)),
    databaseCpuUsPerPunch: postmaster ? Number(per(dbMs)) : null,
  };
  process.stdout.write(
    `${kind} ${apiRoot}: ${result.punchesPerSecond} punches/s; CPU per punch: API ${result.apiCpuUsPerPunch} µs` +
      (postmaster ? `, PostgreSQL ${result.databaseCpuUsPerPunch} µs, both ${per(apiMs + dbMs)} µs` : '') +
      `\n${JSON.stringify(result)}\n`,
  );
} finally {
  await server?.stop();
  await database.drop();
}
