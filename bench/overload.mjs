// Overload: GET /me on SQLite at twice the API's maximum throughput, open loop (request i is due at
// start + i/rate, measured from that moment, as bench/lib/paced.mjs does), with shedding on and off.
// Reports the p99 of accepted (2xx) requests, the share of 503s, requests never answered, and the
// server's peak RSS. Run after a build: `node bench/overload.mjs [--duration=S] [--connections=N]`.
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

const { option } = commandLine();
const durationS = Number(option('duration', 10));
const connections = Number(option('connections', 256));
const CLI = 'dist/cli/main.js';
const LIMITS = { RATE_LIMIT_PER_MINUTE: '1000000000', TOKEN_RATE_LIMIT_PER_MINUTE: '1000000000' };

async function serve(dir, env) {
  return startProcess('api', [CLI, 'serve', '--demo-if-empty'], {
    DATABASE_URL: `sqlite:${join(dir, 'overload.sqlite')}`,
    PORT: '0',
    LOG_LEVEL: 'warn',
    ...LIMITS,
    ...env,
  });
}

async function tokenOf(server) {
  const clientId = /client id: (\S+)/.exec(server.stdout())?.[1];
  const secret = /secret: +(\S+)/.exec(server.stdout())?.[1];
  const response = await fetch(`${server.url}/api/public/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: secret,
    }),
  });
  if (response.status !== 200) throw new Error(`token: ${response.status}`);
  return (await response.json()).access_token;
}

/** Open loop at `rate`: latencies of 2xx answers from their due time, status counts, unanswered. */
async function openLoop(url, token, rate) {
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
        .request({ path: '/api/public/v1/me', method: 'GET', headers: { authorization: `Bearer ${token}` } })
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
  const server = await serve(dir, { OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0', OVERLOAD_MAX_IN_FLIGHT: '0' });
  try {
    const token = await tokenOf(server);
    const run = await autocannon({
      url: `${server.url}/api/public/v1/me`,
      connections: 10,
      duration: 5,
      headers: { authorization: `Bearer ${token}` },
    });
    return Math.round(run.requests.average);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
})();
console.log(
  `maximum throughput of GET /me (10 connections, 5 s): ${capacity} req/s; overload runs at ${2 * capacity} req/s, ${connections} connections, ${durationS} s`,
);

const OFF = {
  OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
  OVERLOAD_MAX_EVENT_LOOP_UTILIZATION: '0',
  OVERLOAD_MAX_IN_FLIGHT: '0',
};
for (const [label, env] of [
  ['no shedding', OFF],
  ['defaults (in flight > 128, loop delay > 1000 ms)', {}],
  ['in flight > 32', { ...OFF, OVERLOAD_MAX_IN_FLIGHT: '32' }],
  ['loop utilization > 0.95', { ...OFF, OVERLOAD_MAX_EVENT_LOOP_UTILIZATION: '0.95' }],
]) {
  const dir = mkdtempSync(join(tmpdir(), 'punchclock-overload-'));
  const server = await serve(dir, env);
  try {
    const token = await tokenOf(server);
    const rss = sampleRss(server.pid);
    const result = await openLoop(server.url, token, 2 * capacity);
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
