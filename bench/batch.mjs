#!/usr/bin/env node
// Batch punches (issue 20): 100 punches for 100 employees as one POST /time-clock/events/batch
// against the same 100 punches as 100 single POST /time-clock/events, on SQLite and PostgreSQL.
//
//   node bench/batch.mjs [--db=sqlite|postgres|both] [--rounds=N] [--concurrency=N] [--profile]
//                        [--ways=sequential,concurrent,batch]
//
// Run after a build (`npm run bench` builds first). Starts the real server (`node dist/cli/main.js
// serve`) on a fresh database per dialect with 200 employees: 100 punch through single requests, the
// other 100 through batches, so both see the same sequence of clock-ins and clock-outs (every round is
// a `toggle` for each employee, two minutes after the previous round's). Every punch carries an
// Idempotency-Key (the header, or the event's `idempotencyKey`), as a terminal's upload would. Three
// ways are timed per round, one after the other: 100 single requests sent one at a time (a terminal
// uploading its backlog), 100 single requests `--concurrency` at a time (10 by default), and one batch
// of 100. Reports punches per second (100 / the wall time of the round), the median over the rounds,
// and writes bench/results/<time>-batch.{json,md}. Measured once; on a shared machine the figures
// move from run to run, the ratios less than the absolute numbers.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { commandLine } from './lib/cli.mjs';
import { bulkEmployees, createTenant, openStore } from './lib/provision.mjs';
import { median } from './lib/ratios.mjs';
import { BENCH_DIR, cpuProfileFlags, createDatabase, startApi } from './lib/server.mjs';
import { fetchToken } from './lib/token.mjs';

const API = '/api/public/v1';
const EMPLOYEES = 100;

const { flag, option } = commandLine();
// --profile: the server writes a V8 CPU profile to bench/profiles/ (see bench/profile-summary.mjs).
const profile = flag('profile');
const databases = option('db', 'both') === 'both' ? ['sqlite', 'postgres'] : [option('db', 'both')];
const rounds = Math.max(1, Math.floor(Number(option('rounds', 7))));
const concurrency = Math.max(1, Math.floor(Number(option('concurrency', 10))));
// --ways=batch (or sequential,concurrent,batch): time only these ways, e.g. to profile the batch alone.
const onlyWays = option('ways', 'sequential,concurrent,batch').split(',');
const unknownWays = onlyWays.filter((way) => !['sequential', 'concurrent', 'batch'].includes(way));
if (unknownWays.length > 0) {
  console.error(`--ways: unknown ${unknownWays.join(', ')} (sequential, concurrent, batch)`);
  process.exit(2);
}
const log = (...parts) => process.stdout.write(`${parts.join(' ')}\n`);

async function post(url, token, path, body, headers = {}) {
  const response = await fetch(`${url}${API}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, text };
}

/** Runs `tasks` (functions returning promises) `limit` at a time. */
async function pool(tasks, limit) {
  const results = new Array(tasks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, tasks.length) }, async () => {
      while (next < tasks.length) {
        const i = next++;
        results[i] = await tasks[i]();
      }
    }),
  );
  return results;
}

async function measure(kind) {
  const database = await createDatabase(kind, 'bench_batch');
  let server;
  try {
    const { store, ctx, close } = await openStore(database.url);
    const tenant = await createTenant(ctx, `Batch bench ${kind}`);
    const employees = await bulkEmployees(store, tenant, 3 * EMPLOYEES, { prefix: 'BB' });
    await close();
    server = await startApi(database.url, { nodeFlags: profile ? cpuProfileFlags(`batch-${kind}`) : [] });
    const token = await fetchToken(server.url, tenant.key.clientId, tenant.key.secret);
    const groups = {
      sequential: employees.slice(0, EMPLOYEES),
      concurrent: employees.slice(EMPLOYEES, 2 * EMPLOYEES),
      batch: employees.slice(2 * EMPLOYEES),
    };
    const start = Date.now() - 2 * 3_600_000;
    const event = (employee, round) => ({
      employee: { id: employee.id },
      type: 'toggle',
      occurredAt: new Date(start + round * 2 * 60_000).toISOString(),
    });
    const key = (way, employee, round) => `${way}/${employee.id}/${round}`;
    const singleTasks = (way, round) =>
      groups[way].map(
        (employee) => () =>
          post(server.url, token, '/time-clock/events', event(employee, round), {
            'idempotency-key': key(way, employee, round),
          }),
      );
    const ways = {
      sequential: (round) => pool(singleTasks('sequential', round), 1),
      concurrent: (round) => pool(singleTasks('concurrent', round), concurrency),
      batch: async (round) => {
        const reply = await post(server.url, token, '/time-clock/events/batch', {
          events: groups.batch.map((employee) => ({
            ...event(employee, round),
            idempotencyKey: key('batch', employee, round),
          })),
        });
        if (reply.status !== 200) return [reply];
        return JSON.parse(reply.text).results;
      },
    };
    const rates = { sequential: [], concurrent: [], batch: [] };
    // Round 0 warms up (connections, statement caches, JIT) and is not counted.
    for (let round = 0; round <= rounds; round++) {
      for (const [way, run] of Object.entries(ways)) {
        if (!onlyWays.includes(way)) continue;
        const began = performance.now();
        const results = await run(round);
        const elapsed = performance.now() - began;
        const failed = results.filter((r) => r.status !== 201);
        if (failed.length > 0)
          throw new Error(
            `${kind} ${way} round ${round}: ${failed.length} punches not 201, e.g. ${JSON.stringify(failed[0]).slice(0, 300)}`,
          );
        if (round > 0) rates[way].push((EMPLOYEES / elapsed) * 1000);
      }
    }
    const result = Object.fromEntries(
      Object.entries(rates)
        .filter(([way]) => onlyWays.includes(way))
        .map(([way, values]) => [
          way,
          {
            punchesPerSecond: Math.round(median(values)),
            min: Math.round(Math.min(...values)),
            max: Math.round(Math.max(...values)),
            msPer100: Math.round((EMPLOYEES / median(values)) * 1000),
          },
        ]),
    );
    return { database: kind, rounds, concurrency, ...result };
  } finally {
    await server?.stop();
    await database.drop();
  }
}

const results = [];
for (const kind of databases) {
  log(`batch bench on ${kind}: ${rounds} rounds of ${EMPLOYEES} punches per way …`);
  results.push(await measure(kind));
}

const rows = results.flatMap((r) =>
  ['sequential', 'concurrent', 'batch']
    .filter((way) => r[way])
    .map((way) => {
      const label =
        way === 'sequential'
          ? '100 single requests, one at a time'
          : way === 'concurrent'
            ? `100 single requests, ${r.concurrency} at a time`
            : '1 batch of 100';
      const x = r[way];
      const vsSequential = r.sequential
        ? (x.punchesPerSecond / r.sequential.punchesPerSecond).toFixed(1)
        : '–';
      return [
        r.database,
        label,
        String(x.punchesPerSecond),
        `${x.min}–${x.max}`,
        String(x.msPer100),
        `${vsSequential}×`,
      ];
    }),
);
const header = ['database', 'way', 'punches/s (median)', 'range', 'ms per 100', 'vs one at a time'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
const line = (cells) => cells.map((c, i) => c.padEnd(widths[i])).join('  ');
log('');
log(line(header));
for (const row of rows) log(line(row));

const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const dir = join(BENCH_DIR, 'results');
mkdirSync(dir, { recursive: true });
writeFileSync(
  join(dir, `${stamp}-batch.json`),
  `${JSON.stringify({ at: new Date().toISOString(), results }, null, 2)}\n`,
);
writeFileSync(
  join(dir, `${stamp}-batch.md`),
  [
    `# Batch punches, ${new Date().toISOString()}`,
    '',
    `${rounds} rounds after one warm-up round; punches per second = 100 / wall time of the round; median and range over the rounds.`,
    '',
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
    '',
  ].join('\n'),
);
log(`\nwritten: bench/results/${stamp}-batch.{json,md}`);
