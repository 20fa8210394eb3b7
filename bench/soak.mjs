// Hours of traffic (issue 36, item 4): a realistic mix at half the measured capacity of that mix, for
// --minutes (30) against a real `serve` process, on one database. Reports at every mark (--mark-minutes,
// 5): the server's RSS and the p99 of the requests of that stretch; at the end: the 5xx count, every
// acknowledged punch present in the database, every event delivered at least once to each of two
// webhook endpoints, and the change feed consumer's set of events equal to the database's.
//
// The mix, per request slot: punches with an Idempotency-Key (clock in / clock out, 40%), a batch of
// 10 punches (5%), lists of time entries and employees (25%), the clock status (10%), a timesheet page
// (10%) or its CSV (2%), /me (8%); beside it, a consumer follows the change feed (one page every
// 200 ms, resuming with resumeCursor) and two receivers take the webhooks.
//
// node bench/soak.mjs [--db=sqlite|postgres] [--minutes=30] [--mark-minutes=5] [--rate=N] [--employees=14000] [--history-days=31]
// (--rate: requests/s instead of half the measured capacity; --pg-postmaster-pid: a local cluster of the
// bench's own, whose CPU time per request is then reported beside the server's). Writes bench/results/<time>-soak.json.
// Run after `npm run build`; not part of npm test or npm run bench.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { Client } from 'undici';
import { commandLine } from './lib/cli.mjs';
import { summary } from './lib/paced.mjs';
import { cpuTimeOf, memoryOf, startProcess, treeCpuTimeOf } from './lib/processes.mjs';
import {
  analyze,
  bulkEmployees,
  bulkHistory,
  createTenant,
  historyDays,
  openStore,
} from './lib/provision.mjs';
import { fetchToken } from './lib/token.mjs';

const { option } = commandLine();
const db = String(option('db', 'sqlite'));
const minutes = Number(option('minutes', 30));
const markMinutes = Number(option('mark-minutes', 5));
const fixedRate = option('rate', null);
// The PostgreSQL cluster's postmaster pid (a cluster of the bench's own, on this machine): its CPU time
// per request at every mark, beside the server's, tells work that grows from waiting that grows.
const pgPostmasterPid = option('pg-postmaster-pid', null);
const CLI = 'dist/cli/main.js';
const API = '/api/public/v1';
const PG_ADMIN_URL = process.env.BENCH_PG_ADMIN_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const SCOPES = 'attendance.record,attendance.read,attendance.reports,employees.read,webhooks.manage';
// Enough people that one shift a day each (below) keeps within a few weeks of days over the run.
const EMPLOYEES = Number(option('employees', 14_000));
// Two in seven punch only in batches (groups of 10), the others one by one.
const BATCH_EMPLOYEES = Math.round((EMPLOYEES * 2) / 7 / 10) * 10;
const MINUTE = 60_000;
// The run punches shifts from PUNCH_FROM_DAYS days ago on (one a day per employee, a few days over the
// run); the history before it goes back to HISTORY_FROM_DAYS (--history-days, 0: none).
const PUNCH_FROM_DAYS = 9;
const HISTORY_FROM_DAYS = PUNCH_FROM_DAYS + Number(option('history-days', 31));

async function freshDatabase() {
  if (db === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'punchclock-soak-'));
    return {
      url: `sqlite:${join(dir, 'soak.sqlite')}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const name = `punchclock_bench_soak_${process.pid}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: PG_ADMIN_URL });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

/** A webhook receiver: the event ids it was given (any number of times). */
async function receiver() {
  const ids = new Set();
  let requests = 0;
  const server = createServer((request, response) => {
    requests++;
    const id = request.headers['webhook-id'];
    request.resume();
    request.on('end', () => {
      if (typeof id === 'string') ids.add(id);
      response.writeHead(204).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/hooks`,
    ids,
    requests: () => requests,
    close: () => server.close(),
  };
}

/**
 * Punch state per employee: one shift a day, as people work: in at 08:00 UTC (plus up to an hour, by
 * employee) of a day from PUNCH_FROM_DAYS ago (after the history), out 8 hours later, in again the
 * next day. With 14,000 employees, 30 minutes at this machine's half capacity add a few days per
 * employee, so every read (a month's timesheet of 20 people, an employee's last 50 entries) keeps the
 * size it has in
 * a company in service. (A first version punched every 16 minutes of a virtual clock for 600 people:
 * the first timesheet page then held thousands of entries a month, its cost grew all through the run,
 * and half of the capacity measured at the start was soon more than the whole.) A punch not done
 * (shed, refused) is given back with `undo`, so the next one is of the right type and day again.
 */
function punches() {
  const state = new Map();
  const firstDay = Math.floor((Date.now() - PUNCH_FROM_DAYS * 86_400_000) / 86_400_000) * 86_400_000;
  const next = (employeeId) => {
    let s = state.get(employeeId);
    if (!s) state.set(employeeId, (s = { open: false, day: 0, offset: state.size % 60 }));
    const start = firstDay + s.day * 86_400_000 + (8 * 60 + s.offset) * MINUTE;
    const type = s.open ? 'clock_out' : 'clock_in';
    const at = s.open ? start + 8 * 60 * MINUTE : start;
    if (s.open) s.day++;
    s.open = !s.open;
    return { employee: { id: employeeId }, type, occurredAt: new Date(at).toISOString() };
  };
  next.undo = (punch) => {
    const s = state.get(punch.employee.id);
    if (!s) return;
    if (punch.type === 'clock_out') s.day--;
    s.open = punch.type === 'clock_out';
  };
  return next;
}

function mix(employees, workplaceId, token) {
  const nextPunch = punches();
  const bearer = () => ({ authorization: `Bearer ${token()}` });
  const json = (body, key) => ({
    headers: { ...bearer(), 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
    body: JSON.stringify(body),
  });
  let single = 0;
  let batchGroup = 0;
  const today = new Date().toISOString().slice(0, 10);
  const monthAgo = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
  const kinds = [
    [
      40,
      () => {
        const punch = nextPunch(
          employees[BATCH_EMPLOYEES + (single++ % (employees.length - BATCH_EMPLOYEES))],
        );
        return {
          kind: 'punch',
          method: 'POST',
          path: `${API}/time-clock/events`,
          punch,
          ...json(punch, randomUUID()),
        };
      },
    ],
    [
      5,
      () => {
        const group = batchGroup++ % (BATCH_EMPLOYEES / 10);
        const events = employees
          .slice(group * 10, group * 10 + 10)
          .map((id) => ({ ...nextPunch(id), idempotencyKey: randomUUID() }));
        return {
          kind: 'batch',
          method: 'POST',
          path: `${API}/time-clock/events/batch`,
          events,
          ...json({ events }, randomUUID()),
        };
      },
    ],
    [
      15,
      () => ({
        kind: 'entries',
        method: 'GET',
        path: `${API}/time-entries?employeeId=${employees[single % employees.length]}&limit=50`,
        headers: bearer(),
      }),
    ],
    [10, () => ({ kind: 'employees', method: 'GET', path: `${API}/employees?limit=100`, headers: bearer() })],
    [
      10,
      () => ({
        kind: 'status',
        method: 'GET',
        path: `${API}/time-clock/status?workplaceId=${workplaceId}&limit=100`,
        headers: bearer(),
      }),
    ],
    [
      10,
      () => ({
        kind: 'timesheet',
        method: 'GET',
        path: `${API}/reports/timesheets?from=${monthAgo}&to=${today}&status=all&limit=20`,
        headers: bearer(),
      }),
    ],
    [
      2,
      () => ({
        kind: 'csv',
        method: 'GET',
        path: `${API}/reports/timesheets?from=${monthAgo}&to=${today}&status=all&employeeId=${employees[single % employees.length]}`,
        headers: { ...bearer(), accept: 'text/csv' },
      }),
    ],
    [8, () => ({ kind: 'me', method: 'GET', path: `${API}/me`, headers: bearer() })],
  ];
  const total = kinds.reduce((a, [w]) => a + w, 0);
  const pick = () => {
    let r = Math.random() * total;
    for (const [weight, make] of kinds) {
      if ((r -= weight) < 0) return make();
    }
    return kinds[0][1]();
  };
  pick.undo = nextPunch.undo;
  return pick;
}

/** Follows the change feed from the start: the ids it has seen. */
function feedConsumer(url, token) {
  const client = new Client(url);
  const ids = new Set();
  let cursor = null;
  let running = true;
  let errors = 0;
  const pageOnce = async () => {
    const query = cursor ? `cursor=${encodeURIComponent(cursor)}&limit=100` : 'limit=100';
    const response = await client.request({
      method: 'GET',
      path: `${API}/changes?${query}`,
      headers: { authorization: `Bearer ${token()}` },
    });
    const text = await response.body.text();
    if (response.statusCode !== 200) {
      errors++;
      return false;
    }
    const page = JSON.parse(text);
    for (const item of page.items) ids.add(item.id);
    cursor = page.hasMore ? page.nextCursor : page.resumeCursor;
    return page.hasMore;
  };
  const loop = (async () => {
    while (running) {
      const more = await pageOnce().catch(() => (errors++, false));
      if (!more) await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  return {
    ids,
    errors: () => errors,
    async finish() {
      running = false;
      await loop;
      while (await pageOnce());
      await client.close();
    },
  };
}

/** Open loop at `rate` for `ms`: calls `onAnswer` per answer; returns when every request is answered. */
async function openLoop(url, next, rate, ms, onAnswer, connections = 64) {
  const clients = Array.from({ length: connections }, () => new Client(url, { pipelining: 1 }));
  const idle = [...clients];
  const due = [];
  const total = Math.floor((rate * ms) / 1000);
  let sent = 0;
  let answered = 0;
  const start = performance.now();
  await new Promise((resolve) => {
    const send = (client, dueAt) => {
      const request = next();
      client
        .request({ method: request.method, path: request.path, headers: request.headers, body: request.body })
        .then(async (response) => {
          const body = await response.body.text();
          onAnswer(request, response.statusCode, body, performance.now() - dueAt);
        })
        .catch((error) => onAnswer(request, -1, String(error), performance.now() - dueAt))
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
      if (sent < total) setTimeout(tick, 2);
    };
    tick();
  });
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
}

const database = await freshDatabase();
const { store, ctx, close } = await openStore(database.url);
const tenant = await createTenant(ctx, 'Soak', { scopes: SCOPES });
const employees = (await bulkEmployees(store, tenant, EMPLOYEES, { prefix: 'SK' })).map((e) => e.id);
// The history a company in service has: a shift every weekday from HISTORY_FROM_DAYS ago up to the
// first day the run punches (PUNCH_FROM_DAYS ago), so a month's timesheet and an employee's last 50
// entries are as large at the first mark as at the last (without it they grew from empty all through
// the run, and with them the reads' cost).
const historyRows = await bulkHistory(
  store,
  tenant,
  employees.map((id) => ({ id })),
  historyDays().filter((d) => d.ageDays > PUNCH_FROM_DAYS && d.ageDays <= HISTORY_FROM_DAYS),
);
await analyze(store);
console.log(`history: ${historyRows} entries for ${EMPLOYEES} employees`);
await close();
const hooks = [await receiver(), await receiver()];
const server = await startProcess('api', [CLI, 'serve'], {
  DATABASE_URL: database.url,
  PORT: '0',
  LOG_LEVEL: 'warn',
  RATE_LIMIT_PER_MINUTE: '1000000000',
  TOKEN_RATE_LIMIT_PER_MINUTE: '1000000000',
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
});
let token = await fetchToken(server.url, tenant.key.clientId, tenant.key.secret);
const refresh = setInterval(async () => {
  token = await fetchToken(server.url, tenant.key.clientId, tenant.key.secret).catch(() => token);
}, 10 * MINUTE);
for (const hook of hooks) {
  const response = await fetch(`${server.url}${API}/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: hook.url, eventTypes: ['time_entry.opened', 'time_entry.completed'] }),
  });
  if (response.status !== 201) throw new Error(`webhook: ${response.status} ${await response.text()}`);
}

const next = mix(employees, tenant.workplaceId, () => token);
let statuses = {};
const byKind = {};
const acknowledged = [];
let window = [];
// Latencies of the current mark per request kind: a trend in one kind (a read growing with its data) and
// one in all of them (a background job taking the CPU) look alike in the overall p99.
let windowByKind = {};
const marks = [];
const onAnswer = (request, status, body, ms) => {
  statuses[status] = (statuses[status] ?? 0) + 1;
  const kind = (byKind[request.kind] ??= {});
  kind[status] = (kind[status] ?? 0) + 1;
  window.push(ms);
  (windowByKind[request.kind] ??= []).push(ms);
  if (request.kind === 'punch') {
    if (status === 201) acknowledged.push({ ...request.punch, entryId: JSON.parse(body).timeEntryId });
    else next.undo(request.punch);
  }
  if (request.kind === 'batch') {
    const results = status === 200 ? JSON.parse(body).results : [];
    request.events.forEach((event, i) => {
      const result = results.find((r) => r.index === i);
      if (result?.status === 201) acknowledged.push({ ...event, entryId: result.body.timeEntryId });
      else next.undo(event);
    });
  }
};

// Capacity of the mix: 20 s closed loop over 10 connections.
let counted = 0;
const probeStart = performance.now();
await Promise.all(
  Array.from({ length: 10 }, async () => {
    const client = new Client(server.url);
    while (performance.now() - probeStart < 20_000) {
      const request = next();
      const t = performance.now();
      try {
        const response = await client.request({
          method: request.method,
          path: request.path,
          headers: request.headers,
          body: request.body,
        });
        onAnswer(request, response.statusCode, await response.body.text(), performance.now() - t);
      } catch (error) {
        onAnswer(request, -1, String(error), performance.now() - t);
      }
      counted++;
    }
    await client.close();
  }),
);
const capacity = counted / ((performance.now() - probeStart) / 1000);
const rate = fixedRate ? Number(fixedRate) : Math.max(1, Math.round(capacity / 2));
const probeStatuses = statuses;
statuses = {};
for (const kind of Object.keys(byKind)) delete byKind[kind];
window = [];
windowByKind = {};
console.log(
  `soak on ${db}: mix capacity ~${capacity.toFixed(0)} req/s (10 connections), running ${minutes} min at ${rate} req/s; load average ${loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')}`,
);

const feed = feedConsumer(server.url, () => token);
const started = Date.now();
const cpuNow = () => ({
  server: cpuTimeOf(server.pid),
  database: pgPostmasterPid ? treeCpuTimeOf(Number(pgPostmasterPid)) : null,
});
let cpuBefore = cpuNow();
for (let mark = 1; mark * markMinutes <= minutes; mark++) {
  await openLoop(server.url, next, rate, markMinutes * MINUTE, onAnswer);
  const rssMb = Math.round((memoryOf(server.pid)?.rssKb ?? 0) / 1024);
  const cpuAfter = cpuNow();
  const answered = window.length;
  // CPU ms per answered request in this stretch (the server's background work included).
  const cpuPerRequest = {
    server: cpuAfter.server != null ? (cpuAfter.server - cpuBefore.server) / answered : null,
    database: cpuAfter.database != null ? (cpuAfter.database - cpuBefore.database) / answered : null,
  };
  cpuBefore = cpuAfter;
  const latency = summary(window);
  const byKindLatency = Object.fromEntries(
    Object.entries(windowByKind).map(([kind, values]) => {
      const s = summary(values);
      return [kind, { p50: s.p50, p99: s.p99 }];
    }),
  );
  window = [];
  windowByKind = {};
  marks.push({
    minute: mark * markMinutes,
    rssMb,
    p50: latency.p50,
    p99: latency.p99,
    byKind: byKindLatency,
    cpuMsPerRequest: cpuPerRequest,
    loadAverage: loadavg()[0],
  });
  console.log(
    `${mark * markMinutes} min: RSS ${rssMb} MB, p50 ${latency.p50?.toFixed(1)} ms, p99 ${latency.p99?.toFixed(1)} ms, CPU ms/request server ${cpuPerRequest.server?.toFixed(2)} database ${cpuPerRequest.database?.toFixed(2) ?? '-'}, statuses so far ${JSON.stringify(statuses)}, load ${loadavg()[0].toFixed(2)}`,
  );
}
clearInterval(refresh);

// Checks: every acknowledged punch in the database; every event delivered at least once to both
// endpoints (waiting for the dispatcher to catch up); the feed consumer's set equal to the database's.
const { store: check, close: closeCheck } = await openStore(database.url);
const entries = new Map();
for (const ids of chunk([...new Set(acknowledged.map((p) => p.entryId))], 500))
  for (const row of await check.db
    .selectFrom('time_entries')
    .select(['id', 'start_at', 'end_at'])
    .where('id', 'in', ids)
    .execute())
    entries.set(row.id, row);
const missing = acknowledged.filter((p) => {
  const entry = entries.get(p.entryId);
  return !entry || (p.type === 'clock_out' && entry.end_at === null);
});
const events = await check.db
  .selectFrom('events')
  .select(['id', 'type'])
  .where('company_id', '=', tenant.companyId)
  .execute();
const hooked = events
  .filter((e) => e.type === 'time_entry.opened' || e.type === 'time_entry.completed')
  .map((e) => e.id);
const deadline = Date.now() + 5 * MINUTE;
while (hooks.some((h) => hooked.some((id) => !h.ids.has(id))) && Date.now() < deadline)
  await new Promise((resolve) => setTimeout(resolve, 1_000));
await feed.finish();
const undelivered = hooks.map((h) => hooked.filter((id) => !h.ids.has(id)).length);
const feedOnly = [...feed.ids].filter((id) => !events.some((e) => e.id === id)).length;
const dbOnly = events.filter((e) => !feed.ids.has(e.id)).length;
await closeCheck();
const fiveHundreds = Object.entries(statuses)
  .filter(([s]) => Number(s) >= 500)
  .reduce((a, [, n]) => a + n, 0);
const result = {
  db,
  minutes,
  rate,
  capacity: Math.round(capacity),
  probeStatuses,
  statuses,
  byKind,
  fiveHundreds,
  marks,
  acknowledgedPunches: acknowledged.length,
  missingPunches: missing.length,
  events: events.length,
  webhookEvents: hooked.length,
  undeliveredPerEndpoint: undelivered,
  webhookRequests: hooks.map((h) => h.requests()),
  feed: { seen: feed.ids.size, onlyInFeed: feedOnly, onlyInDatabase: dbOnly, errors: feed.errors() },
  elapsedMinutes: (Date.now() - started) / MINUTE,
  loadAverageAtEnd: loadavg(),
};
console.log(JSON.stringify(result, null, 2));
mkdirSync('bench/results', { recursive: true });
writeFileSync(
  `bench/results/${new Date().toISOString().replace(/[:.]/g, '-')}-soak-${db}.json`,
  JSON.stringify(result, null, 2),
);
await server.stop();
for (const hook of hooks) hook.close();
await database.drop();

function chunk(list, size) {
  const out = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}
