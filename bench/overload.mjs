// Overload: one request kind on SQLite at twice the API's maximum throughput, open loop (request i is
// due at start + i/rate, measured from that moment, as bench/lib/paced.mjs does), with shedding off,
// with the defaults and with each loop-delay target. Reports the p99 of accepted (2xx) requests, the
// share of 503s, requests never answered, and the server's peak RSS. Run after a build:
// `node bench/overload.mjs [--request=token|me] [--duration=S] [--connections=N] [--delays=10,20,50]`.
//
// The default request is a page of 100 employees (`GET /employees?limit=100`, what an HRIS sync
// does), a company of 200: a tenth of GET /me's throughput, so the load generator, on the same two
// cores, can offer twice the capacity. GET /me (`--request=me`) and the token endpoint
// (`--request=token`) are so cheap that it cannot: their backlog then waits in the generator, where no
// server can see or shed it (docs/operations.md).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { URLSearchParams } from 'node:url';
import autocannon from 'autocannon';
import { Client } from 'undici';
import { commandLine } from './lib/cli.mjs';
import { summary } from './lib/paced.mjs';
import { sampleRss, startProcess } from './lib/processes.mjs';
import { bulkEmployees, createTenant, openStore } from './lib/provision.mjs';

const { option } = commandLine();
const durationS = Number(option('duration', 10));
const connections = Number(option('connections', 256));
const kind = String(option('request', 'employees'));
if (!['employees', 'token', 'me'].includes(kind)) throw new Error('--request must be employees, token or me');
const CLI = 'dist/cli/main.js';
const LIMITS = { RATE_LIMIT_PER_MINUTE: '1000000000', TOKEN_RATE_LIMIT_PER_MINUTE: '1000000000' };

const REQUEST_LABEL = {
  employees: 'GET /employees?limit=100',
  token: 'POST /oauth/token',
  me: 'GET /me',
};

/** A company of 200 employees in a fresh SQLite file (for `employees`); its key's credentials. */
async function provision(dir) {
  const { store, ctx, close } = await openStore(`sqlite:${join(dir, 'overload.sqlite')}`);
  try {
    const tenant = await createTenant(ctx, 'Overload');
    await bulkEmployees(store, tenant, 200, { prefix: 'OV' });
    return tenant.key;
  } finally {
    await close();
  }
}

async function serve(dir, env) {
  return startProcess('api', [CLI, 'serve', '--demo-if-empty'], {
    DATABASE_URL: `sqlite:${join(dir, 'overload.sqlite')}`,
    PORT: '0',
    LOG_LEVEL: 'warn',
    ...LIMITS,
    ...env,
  });
}

/** The request this run repeats, for undici and autocannon alike, with the demo key's credentials. */
async function requestFor(server, key) {
  const clientId = key?.clientId ?? /client id: (\S+)/.exec(server.stdout())?.[1];
  const secret = key?.secret ?? /secret: +(\S+)/.exec(server.stdout())?.[1];
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: clientId,
    client_secret: secret,
  }).toString();
  const tokenRequest = {
    path: '/api/public/v1/oauth/token',
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
  };
  if (kind === 'token') return tokenRequest;
  const response = await fetch(`${server.url}${tokenRequest.path}`, tokenRequest);
  if (response.status !== 200) throw new Error(`token: ${response.status}`);
  const token = (await response.json()).access_token;
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
    accepted: summary(accepted),
  };
}

const results = [];
const capacity = await (async () => {
  const dir = mkdtempSync(join(tmpdir(), 'punchclock-overload-'));
  const key = kind === 'employees' ? await provision(dir) : null;
  const server = await serve(dir, { OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0', OVERLOAD_MAX_IN_FLIGHT: '0' });
  try {
    const request = await requestFor(server, key);
    const run = await autocannon({
      url: `${server.url}${request.path}`,
      method: request.method,
      headers: request.headers,
      body: request.body,
      connections: 10,
      duration: 5,
    });
    return Math.round(run.requests.average);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
})();
console.log(
  `maximum throughput of ${REQUEST_LABEL[kind]} (10 connections, 5 s): ${capacity} req/s; overload runs at ${2 * capacity} req/s, ${connections} connections, ${durationS} s`,
);

const OFF = {
  OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
  OVERLOAD_MAX_EVENT_LOOP_UTILIZATION: '0',
  OVERLOAD_MAX_IN_FLIGHT: '0',
};
const configurations = [
  ['no shedding', OFF],
  ['defaults', {}],
  ...String(option('delays', '5,10,20,50'))
    .split(',')
    .map((ms) => [`loop delay target ${ms} ms`, { ...OFF, OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: ms }]),
  ['in flight > 32', { ...OFF, OVERLOAD_MAX_IN_FLIGHT: '32' }],
];
for (const [label, env] of configurations) {
  const dir = mkdtempSync(join(tmpdir(), 'punchclock-overload-'));
  const key = kind === 'employees' ? await provision(dir) : null;
  const server = await serve(dir, env);
  try {
    const request = await requestFor(server, key);
    // A running instance meets the overload, not one still starting: shedding by delay is armed a
    // second after listening.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const rss = sampleRss(server.pid);
    const result = await openLoop(server.url, request, 2 * capacity);
    const { peakKb } = rss.stop();
    results.push({ label, ...result, peakRssMb: Math.round(peakKb / 1024) });
    const a = result.accepted;
    console.log(
      `${label}: ${result.answered} answered (${(result.share503 * 100).toFixed(1)}% 503), ${result.unanswered} never answered, ` +
        `accepted p50 ${a.p50?.toFixed(1)} ms, p99 ${a.p99?.toFixed(1)} ms (from the due time), peak RSS ${Math.round(peakKb / 1024)} MB, statuses ${JSON.stringify(result.statusCounts)}`,
    );
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
