// Webhook delivery throughput (issue 36: the soak's deliveries fell behind). A real `serve` process on a
// database that holds --events (20,000) events not yet delivered to one endpoint (or --endpoints of
// them), a receiver on loopback that answers 204 at once; measured: deliveries a second from the moment
// the server listens until every event has reached every endpoint (fan-out, claims, sends and outcomes
// all included), the duplicates, the connections opened to the receivers, the server's CPU time
// and the machine's load average.
//
// The database is prepared once per kind (employees inserted in bulk, an endpoint created over the API,
// the punches written as batches of 100 over the API with the dispatcher off) and copied for every run
// (PostgreSQL: CREATE DATABASE … TEMPLATE; SQLite: the file), so the runs start from the same state.
// Runs alternate between builds (--roots=before:/path/to/other/worktree,after:.) in interleaved pairs
// (--pairs, 3), and the median of each side is printed.
//
// node bench/webhooks.mjs [--db=sqlite,postgres] [--events=20000] [--endpoints=1] [--pairs=3]
//   [--roots=name:path,...] [--env=NAME=value,...]   (--env: extra server variables for every run)
// Run after `npm run build` (in every root); not part of npm test. Writes bench/results/<time>-webhooks.json.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { commandLine } from './lib/cli.mjs';
import { cpuTimeOf, startProcess } from './lib/processes.mjs';
import { bulkEmployees, createTenant, openStore } from './lib/provision.mjs';
import { BENCH_DIR, PG_ADMIN_URL, ROOT, serverEnv } from './lib/server.mjs';
import { fetchToken } from './lib/token.mjs';

const { option } = commandLine();
const kinds = String(option('db', 'sqlite,postgres')).split(',');
const EVENTS = Number(option('events', 20_000));
const ENDPOINTS = Number(option('endpoints', 1));
const PAIRS = Number(option('pairs', 3));
const roots = String(option('roots', `this:${ROOT}`))
  .split(',')
  .map((r) => {
    const at = r.indexOf(':');
    return { name: r.slice(0, at), root: resolve(r.slice(at + 1)) };
  });
const extraEnv = Object.fromEntries(
  String(option('env', ''))
    .split(',')
    .filter(Boolean)
    .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
);
const API = '/api/public/v1';
const SCOPES = 'attendance.record,attendance.read,employees.read,webhooks.manage';
const TIMEOUT_MS = Number(option('timeout-seconds', 900)) * 1000;

const hookEnv = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
};

/** Receivers on fixed ports (the endpoints' URLs name them): unique ids, requests, connections opened. */
function receiver(port) {
  const state = { ids: new Set(), requests: 0, connections: 0, last: 0 };
  const server = createServer((request, response) => {
    state.requests++;
    const id = request.headers['webhook-id'];
    request.resume();
    request.on('end', () => {
      if (typeof id === 'string' && !state.ids.has(id)) {
        state.ids.add(id);
        state.last = performance.now();
      }
      response.writeHead(204).end();
    });
  });
  server.on('connection', () => state.connections++);
  return new Promise((done) =>
    server.listen(port, '127.0.0.1', () =>
      done({ state, port: server.address().port, close: () => server.close() }),
    ),
  );
}

async function pgAdmin(statement) {
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}

function pgUrl(name) {
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

const stamp = `${process.pid}_${Date.now().toString(36)}`;
const dir = mkdtempSync(join(tmpdir(), 'punchclock-webhooks-'));

/** The template database of `kind`: EVENTS events waiting for ENDPOINTS endpoints on `ports`. */
async function prepare(kind) {
  const url =
    kind === 'sqlite' ? `sqlite:${join(dir, 'template.sqlite')}` : pgUrl(`punchclock_whtpl_${stamp}`);
  if (kind === 'postgres') await pgAdmin(`create database punchclock_whtpl_${stamp}`);
  const { store, ctx, close } = await openStore(url);
  const tenant = await createTenant(ctx, 'Hooks', { scopes: SCOPES });
  const employees = (await bulkEmployees(store, tenant, EVENTS, { prefix: 'WH' })).map((e) => e.id);
  await close();
  const receivers = [];
  for (let i = 0; i < ENDPOINTS; i++) receivers.push(await receiver(0));
  const ports = receivers.map((r) => r.port);
  for (const r of receivers) r.close();
  const server = await startProcess('api', [join(ROOT, 'dist/cli/main.js'), 'serve'], {
    ...serverEnv(url),
    ...hookEnv,
    WEBHOOK_DISPATCH: 'false',
  });
  try {
    const token = await fetchToken(server.url, tenant.key.clientId, tenant.key.secret);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    for (const port of ports) {
      const response = await fetch(`${server.url}${API}/webhooks`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ url: `http://127.0.0.1:${port}/hooks`, eventTypes: ['time_entry.opened'] }),
      });
      if (response.status !== 201) throw new Error(`webhook: ${response.status} ${await response.text()}`);
    }
    const at = new Date(Date.now() - 3_600_000).toISOString();
    for (let i = 0; i < employees.length; i += 100) {
      const events = employees.slice(i, i + 100).map((id) => ({
        employee: { id },
        type: 'clock_in',
        occurredAt: at,
        idempotencyKey: `wh-${id}`,
      }));
      const response = await fetch(`${server.url}${API}/time-clock/events/batch`, {
        method: 'POST',
        headers: { ...headers, 'idempotency-key': `wh-batch-${i}` },
        body: JSON.stringify({ events }),
      });
      const body = await response.json();
      const created = response.status === 200 ? body.results.filter((r) => r.status === 201).length : 0;
      if (created !== events.length)
        throw new Error(`batch ${i}: ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
    }
  } finally {
    await server.stop();
  }
  return { url, ports };
}

/** A copy of the template for one run. */
async function copyOf(kind, template, n) {
  if (kind === 'sqlite') {
    const file = join(dir, `run-${n}.sqlite`);
    copyFileSync(template.url.slice('sqlite:'.length), file);
    return { url: `sqlite:${file}`, drop: async () => rmSync(file, { force: true }) };
  }
  const name = `punchclock_whrun_${stamp}_${n}`;
  await pgAdmin(`create database ${name} template punchclock_whtpl_${stamp}`);
  return { url: pgUrl(name), drop: () => pgAdmin(`drop database if exists ${name} with (force)`) };
}

let runs = 0;
async function run(kind, template, side) {
  const copy = await copyOf(kind, template, runs++);
  const receivers = [];
  for (const port of template.ports) receivers.push(await receiver(port));
  const load = loadavg()[0];
  const server = await startProcess('api', [join(side.root, 'dist/cli/main.js'), 'serve'], {
    ...serverEnv(copy.url),
    ...hookEnv,
    ...extraEnv,
  });
  const started = performance.now();
  const cpuBefore = cpuTimeOf(server.pid);
  try {
    await new Promise((done, fail) => {
      const check = setInterval(() => {
        if (receivers.every((r) => r.state.ids.size >= EVENTS)) {
          clearInterval(check);
          done();
        } else if (performance.now() - started > TIMEOUT_MS) {
          clearInterval(check);
          fail(
            new Error(
              `${side.name}/${kind}: ${receivers.map((r) => r.state.ids.size)} of ${EVENTS} after the timeout`,
            ),
          );
        }
      }, 50);
    });
    const last = Math.max(...receivers.map((r) => r.state.last));
    const seconds = (last - started) / 1000;
    const cpu = (cpuTimeOf(server.pid) - cpuBefore) / 1000;
    // Duplicates may still arrive for a moment (at least once): counted at the end.
    const delivered = EVENTS * receivers.length;
    return {
      side: side.name,
      db: kind,
      seconds: Number(seconds.toFixed(2)),
      perSecond: Number((delivered / seconds).toFixed(1)),
      duplicates: receivers.reduce((n, r) => n + r.state.requests - r.state.ids.size, 0),
      connections: receivers.reduce((n, r) => n + r.state.connections, 0),
      serverCpuSeconds: Number(cpu.toFixed(1)),
      loadBefore: Number(load.toFixed(2)),
      loadAfter: Number(loadavg()[0].toFixed(2)),
    };
  } finally {
    await server.stop();
    for (const r of receivers) r.close();
    await copy.drop();
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const results = [];
for (const kind of kinds) {
  const t0 = performance.now();
  const template = await prepare(kind);
  console.log(
    `${kind}: ${EVENTS} events for ${ENDPOINTS} endpoint(s) prepared in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
  );
  try {
    for (let pair = 0; pair < PAIRS; pair++) {
      // Alternate which side goes first, so a drift in the machine's load favours neither.
      const order = pair % 2 === 0 ? roots : [...roots].reverse();
      for (const side of order) {
        const result = await run(kind, template, side);
        results.push(result);
        console.log(JSON.stringify(result));
      }
    }
  } finally {
    if (kind === 'postgres') await pgAdmin(`drop database if exists punchclock_whtpl_${stamp} with (force)`);
  }
}
rmSync(dir, { recursive: true, force: true });

const summary = [];
for (const kind of kinds)
  for (const side of roots) {
    const mine = results.filter((r) => r.db === kind && r.side === side.name);
    summary.push({
      db: kind,
      side: side.name,
      medianPerSecond: median(mine.map((r) => r.perSecond)),
      range: [Math.min(...mine.map((r) => r.perSecond)), Math.max(...mine.map((r) => r.perSecond))],
      medianCpuSeconds: median(mine.map((r) => r.serverCpuSeconds)),
      loads: mine.map((r) => r.loadBefore),
    });
  }
console.table(summary);
mkdirSync(join(BENCH_DIR, 'results'), { recursive: true });
const file = join(BENCH_DIR, 'results', `${new Date().toISOString().replace(/[:.]/g, '-')}-webhooks.json`);
writeFileSync(
  file,
  JSON.stringify(
    { events: EVENTS, endpoints: ENDPOINTS, pairs: PAIRS, roots, extraEnv, results, summary },
    null,
    2,
  ),
);
console.log(`written: ${file}`);
