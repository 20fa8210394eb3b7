// Overload shedding (docs/operations.md, "Overload"): does the gate shed only real overload? Three
// parts, each against a real `serve` process with the default overload settings:
//
// (lone)  a lone client sending requests one after another, cycling through every public operation
//         (the description and a timesheet CSV included), while a CPU hog of our own (a child process
//         spinning) takes one core: the target is 0 shed (no 503) in --lone-requests (2,000);
// (under) an open loop at 0.8 × the measured capacity: target 0 shed;
// (over)  an open loop at 2 × the capacity: the accepted (2xx) requests' p99, from each request's due
//         time, under 1 s, and a shed share near the excess (about half).
// The capacity is the maximum throughput of the request kind with shedding off (autocannon, 10
// connections, 5 s). The open loop sends request i at start + i/rate over --connections keep-alive
// connections, one request in flight each, and measures from the due time (wrk2's way).
//
// node bench/overload.mjs [--db=sqlite|postgres] [--parts=lone,under,over] [--lone-requests=2000]
//   [--duration=S] [--connections=N] [--request=employees|me] [--compare] [--no-hog]
// --compare adds the 2× run with shedding off. BENCH_PG_ADMIN_URL overrides
// postgres://postgres@127.0.0.1:5432/postgres. Run after `npm run build`.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import pg from 'pg';
import { Client } from 'undici';
import { commandLine } from './lib/cli.mjs';
import { everyEndpoint } from './lib/every-endpoint.mjs';
import { summary } from './lib/paced.mjs';
import { sampleRss, startProcess } from './lib/processes.mjs';
import { bulkEmployees, createTenant, openStore } from './lib/provision.mjs';
import { fetchToken } from './lib/token.mjs';

const { option, flag } = commandLine();
const db = String(option('db', 'sqlite'));
if (!['sqlite', 'postgres'].includes(db)) throw new Error('--db must be sqlite or postgres');
const parts = String(option('parts', 'lone,under,over')).split(',');
const loneRequests = Number(option('lone-requests', 2000));
const durationS = Number(option('duration', 10));
const connections = Number(option('connections', 512));
const kind = String(option('request', 'employees'));
if (!['employees', 'me'].includes(kind)) throw new Error('--request must be employees or me');
const CLI = 'dist/cli/main.js';
const PG_ADMIN_URL = process.env.BENCH_PG_ADMIN_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const ENV = {
  RATE_LIMIT_PER_MINUTE: '1000000000',
  TOKEN_RATE_LIMIT_PER_MINUTE: '1000000000',
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
};
const OFF = {
  OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
  OVERLOAD_MAX_EVENT_LOOP_UTILIZATION: '0',
  OVERLOAD_MAX_IN_FLIGHT: '0',
};
const SCOPES = 'attendance.record,attendance.read,attendance.reports,employees.read,webhooks.manage';
const REQUEST_LABEL = { employees: 'GET /employees?limit=100', me: 'GET /me' };

/** A fresh database (SQLite file or PostgreSQL database) with a company of 200; dropped by `drop`. */
async function freshDatabase() {
  let url;
  let drop;
  if (db === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'punchclock-overload-'));
    url = `sqlite:${join(dir, 'overload.sqlite')}`;
    drop = async () => rmSync(dir, { recursive: true, force: true });
  } else {
    const name = `punchclock_bench_overload_${process.pid}_${Date.now().toString(36)}`;
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const target = new URL(PG_ADMIN_URL);
    target.pathname = `/${name}`;
    url = target.toString();
    drop = async () => {
      const client = new pg.Client({ connectionString: PG_ADMIN_URL });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    };
  }
  const { store, ctx, close } = await openStore(url);
  try {
    const tenant = await createTenant(ctx, 'Overload', { scopes: SCOPES });
    const employees = await bulkEmployees(store, tenant, 200, { prefix: 'OV' });
    return { url, drop, tenant, employees: employees.map((e) => e.id) };
  } finally {
    await close();
  }
}

async function withServer(env, fn) {
  const database = await freshDatabase();
  const server = await startProcess('api', [CLI, 'serve'], {
    DATABASE_URL: database.url,
    PORT: '0',
    LOG_LEVEL: 'warn',
    ...ENV,
    ...env,
  });
  try {
    return await fn(server, database);
  } finally {
    await server.stop();
    await database.drop();
  }
}

/** A child process spinning on one core for as long as it lives. */
function cpuHog() {
  const child = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
  return { pid: child.pid, stop: () => child.kill('SIGKILL') };
}

/** A webhook receiver answering 200 to everything. */
async function receiver() {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.end('ok'));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => server.close() };
}

async function lone() {
  const hook = await receiver();
  const hog = flag('no-hog') ? null : cpuHog();
  try {
    return await withServer({}, async (server, database) => {
      // A running instance, not one still starting (the gate arms a second after listening).
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      let token = await fetchToken(server.url, database.tenant.key.clientId, database.tenant.key.secret);
      const requests = everyEndpoint({
        token: () => token,
        key: database.tenant.key,
        employees: database.employees,
        workplaceId: database.tenant.workplaceId,
        receiverUrl: hook.url,
      });
      const client = new Client(server.url, { pipelining: 1, keepAliveTimeout: 60_000 });
      const statusCounts = {};
      const shedBy = {};
      const latencies = [];
      const slowest = {};
      for (let i = 0; i < loneRequests; i++) {
        const request = requests.next();
        const started = performance.now();
        const response = await client.request({
          method: request.method,
          path: request.path,
          headers: request.headers,
          body: request.body,
        });
        const body = await response.body.text();
        const ms = performance.now() - started;
        latencies.push(ms);
        slowest[request.label] = Math.max(slowest[request.label] ?? 0, ms);
        statusCounts[response.statusCode] = (statusCounts[response.statusCode] ?? 0) + 1;
        if (process.env.BENCH_DEBUG && response.statusCode >= 400)
          console.log(request.label, response.statusCode, body.slice(0, 300));
        if (response.statusCode === 503) shedBy[request.label] = (shedBy[request.label] ?? 0) + 1;
        if (request.label === 'POST /oauth/token' && response.statusCode === 200)
          token = JSON.parse(body).access_token;
        request.onResponse?.(response.statusCode, body);
      }
      await client.close();
      const worst = Object.entries(slowest)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 3)
        .map(([label, ms]) => `${label} ${ms.toFixed(0)} ms`);
      return {
        requests: loneRequests,
        operations: requests.operations,
        shed: statusCounts[503] ?? 0,
        statusCounts,
        shedBy,
        latency: summary(latencies),
        slowest: worst,
        hog: hog !== null,
      };
    });
  } finally {
    hog?.stop();
    hook.close();
  }
}

/** The request this run repeats, with a token of the tenant's key. */
async function repeatedRequest(server, database) {
  const token = await fetchToken(server.url, database.tenant.key.clientId, database.tenant.key.secret);
  const path = kind === 'me' ? '/api/public/v1/me' : '/api/public/v1/employees?limit=100';
  return { path, method: 'GET', headers: { authorization: `Bearer ${token}` } };
}

/** Open loop at `rate`: latencies of 2xx answers from their due time, status counts, unanswered. */
async function openLoop(url, request, rate) {
  const clients = Array.from({ length: connections }, () => new Client(url, { pipelining: 1 }));
  const idle = [...clients];
  const due = [];
  const accepted = [];
  const statusCounts = {};
  const shedBySecond = {};
  let errors = 0;
  const total = Math.round(rate * durationS);
  let sent = 0;
  let answered = 0;
  const start = performance.now();
  await new Promise((resolve) => {
    const send = (client, dueAt) => {
      client
        .request(request)
        .then(async (response) => {
          await response.body.dump();
          statusCounts[response.statusCode] = (statusCounts[response.statusCode] ?? 0) + 1;
          if (response.statusCode < 300) accepted.push(performance.now() - dueAt);
          if (response.statusCode === 503) {
            const second = Math.floor((dueAt - start) / 1000);
            shedBySecond[second] = (shedBySecond[second] ?? 0) + 1;
          }
        })
        .catch(() => errors++)
        .finally(() => {
          answered++;
          idle.push(client);
          pump();
          if (answered === total) resolve();
        });
    };
    const pump = () => {
      while (due.length > 0 && idle.length > 0) send(idle.shift(), due.shift());
    };
    const tick = () => {
      const now = performance.now();
      while (sent < total && start + (sent * 1000) / rate <= now) due.push(start + (sent++ * 1000) / rate);
      pump();
      if (sent < total) setTimeout(tick, 1);
    };
    tick();
    setTimeout(resolve, (durationS + 20) * 1000);
  });
  await Promise.all(clients.map((c) => c.destroy().catch(() => {})));
  const sharing = Object.values(statusCounts).reduce((a, b) => a + b, 0);
  return {
    rate,
    answered: sharing,
    unanswered: total - sharing - errors,
    errors,
    statusCounts,
    share503: sharing === 0 ? 0 : (statusCounts[503] ?? 0) / sharing,
    shedBySecond,
    accepted: summary(accepted),
  };
}

async function measureCapacity() {
  return withServer(OFF, async (server, database) => {
    const request = await repeatedRequest(server, database);
    const run = await autocannon({
      url: `${server.url}${request.path}`,
      method: request.method,
      headers: request.headers,
      connections: 10,
      duration: 5,
    });
    return Math.round(run.requests.average);
  });
}

async function paced(label, env, rate) {
  return withServer(env, async (server, database) => {
    const request = await repeatedRequest(server, database);
    // Warm up as a server in service is (its code compiled, its pools open): 3 s of a closed loop at 10
    // connections, then 2 s for the gate to settle, so the open loop measures the steady state.
    await autocannon({
      url: `${server.url}${request.path}`,
      method: request.method,
      headers: request.headers,
      connections: 10,
      duration: 3,
    });
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const rss = sampleRss(server.pid);
    const result = await openLoop(server.url, request, rate);
    const { peakKb } = rss.stop();
    const a = result.accepted;
    console.log(
      `${label}: ${result.answered} answered at ${rate} req/s offered (${(result.share503 * 100).toFixed(1)}% 503), ${result.unanswered} never answered, ` +
        `accepted p50 ${a.p50?.toFixed(1)} ms, p99 ${a.p99?.toFixed(1)} ms (from the due time), peak RSS ${Math.round(peakKb / 1024)} MB, statuses ${JSON.stringify(result.statusCounts)}, 503 by second of the run ${JSON.stringify(result.shedBySecond)}`,
    );
    return { label, ...result, peakRssMb: Math.round(peakKb / 1024) };
  });
}

const load = (await import('node:os')).loadavg().map((n) => n.toFixed(2));
console.log(`overload benchmark on ${db}; load average at start ${load.join(' ')}`);
if (parts.includes('lone')) {
  const result = await lone();
  console.log(
    `lone client, ${result.requests} requests one after another over ${result.operations} operations` +
      `${result.hog ? ', a CPU hog spinning on one core' : ''}: ${result.shed} shed (503) ${JSON.stringify(result.shedBy)}, ` +
      `statuses ${JSON.stringify(result.statusCounts)}, p50 ${result.latency.p50.toFixed(1)} ms, p99 ${result.latency.p99.toFixed(1)} ms, ` +
      `slowest: ${result.slowest.join(', ')}`,
  );
}
if (parts.includes('under') || parts.includes('over')) {
  const capacity = await measureCapacity();
  console.log(
    `maximum throughput of ${REQUEST_LABEL[kind]} (10 connections, 5 s, shedding off): ${capacity} req/s; open loops over ${connections} connections, ${durationS} s`,
  );
  if (parts.includes('under')) await paced('0.8 × capacity, defaults', {}, Math.round(0.8 * capacity));
  if (parts.includes('over')) {
    await paced('2 × capacity, defaults', {}, 2 * capacity);
    if (flag('compare')) await paced('2 × capacity, shedding off', OFF, 2 * capacity);
  }
}
console.log(
  `load average at the end ${(await import('node:os'))
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')}`,
);
