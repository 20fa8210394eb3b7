#!/usr/bin/env node
// One company at full tilt (issue 32, item 4): `--terminals` concurrent terminals (50) of ONE company
// punching on PostgreSQL through `--instances` server processes (2), against the same terminals spread
// over 50 companies (one each) for comparison.
//
//   node bench/one-company.mjs [--terminals=50] [--instances=2] [--duration=15] [--mode=one|many|both]
//
// Run after a build. Per mode, on a fresh PostgreSQL database: each terminal owns 4 employees and
// sends `toggle` punches for them in turn (two minutes apart per employee), each with an
// Idempotency-Key, one request at a time, terminal i to instance i % instances. Phase 1, full tilt for
// `--duration` seconds: punches per second (201s / duration) and latency p50/p99. Phase 2, the same
// terminals paced to half that rate (open loop: a punch is due every 1/rate s, sent by a free
// terminal): latency p50/p99. In the one-company mode a reader follows the change feed (`resumeCursor`,
// polling every 20 ms) during both phases: "feed lag" is the time from sending a punch to its event
// being read, an upper bound of commit-to-visible, at full tilt (issue 32 item 1: "at full write load")
// and at half rate. Writes bench/results/<time>-one-company.{json,md}.
// To measure another build (e.g. main's, "before"), copy this file into that checkout's bench/.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { commandLine } from './lib/cli.mjs';
import { bulkEmployees, createTenant, openStore } from './lib/provision.mjs';
import { BENCH_DIR, createDatabase, startApi } from './lib/server.mjs';
import { fetchToken } from './lib/token.mjs';

const API = '/api/public/v1';
const PER_TERMINAL = 4;
const { option } = commandLine();
const terminals = Math.max(1, Number(option('terminals', 50)));
const instances = Math.max(1, Number(option('instances', 2)));
const durationMs = Math.max(1, Number(option('duration', 15))) * 1000;
const modeOption = option('mode', 'both');
const modes = modeOption === 'both' ? ['one', 'many'] : [modeOption];
const log = (...parts) => process.stdout.write(`${parts.join(' ')}\n`);

function percentile(values, p) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] * 10) / 10;
}

async function measure(mode) {
  const database = await createDatabase('postgres', 'bench_one_company');
  const servers = [];
  try {
    const { store, ctx, close } = await openStore(database.url);
    const companies = mode === 'one' ? 1 : terminals;
    const tenants = [];
    for (let c = 0; c < companies; c++) tenants.push(await createTenant(ctx, `Tilt ${mode} ${c}`));
    const perCompany = Math.ceil((terminals * PER_TERMINAL) / companies);
    const staff = [];
    for (const [c, tenant] of tenants.entries())
      staff.push(await bulkEmployees(store, tenant, perCompany, { prefix: `T${c}` }));
    await close();
    for (let i = 0; i < instances; i++) servers.push(await startApi(database.url));
    const tokens = [];
    for (const tenant of tenants)
      tokens.push(await fetchToken(servers[0].url, tenant.key.clientId, tenant.key.secret));
    const start = Date.now() - 20 * 3_600_000;
    const terminalsOf = Array.from({ length: terminals }, (_, t) => {
      const c = mode === 'one' ? 0 : t;
      const first = mode === 'one' ? t * PER_TERMINAL : 0;
      return {
        url: servers[t % instances].url,
        token: tokens[c],
        employees: staff[c].slice(first, first + PER_TERMINAL).map((e) => ({ ...e, punches: 0 })),
        next: 0,
      };
    });
    let keyCounter = 0;
    const sentAt = new Map();
    async function punch(terminal) {
      const employee = terminal.employees[terminal.next++ % terminal.employees.length];
      const occurredAt = new Date(start + employee.punches++ * 2 * 60_000).toISOString();
      const began = performance.now();
      const response = await fetch(`${terminal.url}${API}/time-clock/events`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${terminal.token}`,
          'content-type': 'application/json',
          'idempotency-key': `tilt-${process.pid}-${keyCounter++}`,
        },
        body: JSON.stringify({ employee: { id: employee.id }, type: 'toggle', occurredAt }),
      });
      const text = await response.text();
      const latency = performance.now() - began;
      if (response.status === 201) {
        const body = JSON.parse(text);
        sentAt.set(`${body.timeEntryId}/${body.type}`, began);
      }
      return { status: response.status, latency };
    }

    /** A reader of the company's change feed until `stop()`: each punch's lag into `lags`. */
    function followFeed(lags) {
      let reading = mode === 'one';
      const done = (async () => {
        if (!reading) return;
        const url = servers[instances - 1].url;
        const first = await fetch(`${url}${API}/changes?start=now&limit=1`, {
          headers: { authorization: `Bearer ${tokens[0]}` },
        });
        let cursor = (await first.json()).resumeCursor;
        while (reading) {
          const response = await fetch(
            `${url}${API}/changes?limit=100&cursor=${encodeURIComponent(cursor)}`,
            {
              headers: { authorization: `Bearer ${tokens[0]}` },
            },
          );
          const page = await response.json();
          const seen = performance.now();
          for (const item of page.items) {
            const type = item.type === 'time_entry.opened' ? 'clock_in' : 'clock_out';
            const sent = sentAt.get(`${item.data.id}/${type}`);
            if (sent !== undefined) lags.push(seen - sent);
          }
          cursor = page.resumeCursor;
          if (!page.hasMore) await new Promise((r) => setTimeout(r, 20));
        }
      })();
      return async () => {
        await new Promise((r) => setTimeout(r, 1000));
        reading = false;
        await done;
      };
    }

    // Phase 1: full tilt, with the feed reader (one company).
    const fullLags = [];
    const stopFullReader = followFeed(fullLags);
    // The reader's first page is read before the first punch is sent.
    await new Promise((r) => setTimeout(r, 200));
    const full = { ok: 0, failed: 0, latencies: [] };
    const until = performance.now() + durationMs;
    await Promise.all(
      terminalsOf.map(async (terminal) => {
        while (performance.now() < until) {
          const r = await punch(terminal);
          if (r.status === 201) {
            full.ok++;
            full.latencies.push(r.latency);
          } else full.failed++;
        }
      }),
    );
    const fullRate = full.ok / (durationMs / 1000);
    await stopFullReader();

    // Phase 2: half that rate, with the feed reader (one company).
    const rate = fullRate / 2;
    const paced = { ok: 0, failed: 0, latencies: [], late: 0 };
    sentAt.clear();
    const lags = [];
    const stopReader = followFeed(lags);
    await new Promise((r) => setTimeout(r, 200));
    const free = [...terminalsOf];
    const inFlight = new Set();
    const pacedStart = performance.now();
    const pacedUntil = pacedStart + durationMs;
    for (let n = 0; ; n++) {
      const due = pacedStart + (n * 1000) / rate;
      if (due >= pacedUntil) break;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      while (free.length === 0) await Promise.race(inFlight);
      const terminal = free.pop();
      const running = punch(terminal).then((r) => {
        if (r.status === 201) {
          paced.ok++;
          paced.latencies.push(r.latency);
        } else paced.failed++;
        free.push(terminal);
        inFlight.delete(running);
      });
      inFlight.add(running);
    }
    await Promise.all(inFlight);
    await stopReader();
    return {
      mode: mode === 'one' ? `1 company, ${terminals} terminals` : `${terminals} companies, 1 terminal each`,
      instances,
      fullTilt: {
        punchesPerSecond: Math.round(fullRate),
        failed: full.failed,
        p50: percentile(full.latencies, 50),
        p99: percentile(full.latencies, 99),
      },
      halfRate: {
        rate: Math.round(rate),
        achieved: Math.round(paced.ok / (durationMs / 1000)),
        failed: paced.failed,
        p50: percentile(paced.latencies, 50),
        p99: percentile(paced.latencies, 99),
      },
      feedLag:
        mode === 'one' ? { events: lags.length, p50: percentile(lags, 50), p99: percentile(lags, 99) } : null,
      feedLagFullTilt:
        mode === 'one'
          ? { events: fullLags.length, p50: percentile(fullLags, 50), p99: percentile(fullLags, 99) }
          : null,
    };
  } finally {
    for (const server of servers) await server.stop();
    await database.drop();
  }
}

const results = [];
for (const mode of modes) {
  log(
    `one-company bench, ${mode}: ${terminals} terminals, ${instances} instances, ${durationMs / 1000} s per phase …`,
  );
  const result = await measure(mode);
  log(JSON.stringify(result));
  results.push(result);
}
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const dir = join(BENCH_DIR, 'results');
mkdirSync(dir, { recursive: true });
writeFileSync(
  join(dir, `${stamp}-one-company.json`),
  `${JSON.stringify({ at: new Date().toISOString(), results }, null, 2)}\n`,
);
const header =
  '| mode | full tilt punches/s | p50 / p99 ms | feed lag at full tilt p50 / p99 ms | half rate | p50 / p99 ms | feed lag p50 / p99 ms |';
writeFileSync(
  join(dir, `${stamp}-one-company.md`),
  [
    `# One company at full tilt, ${new Date().toISOString()}`,
    '',
    header,
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...results.map(
      (r) =>
        `| ${r.mode} | ${r.fullTilt.punchesPerSecond} | ${r.fullTilt.p50} / ${r.fullTilt.p99} | ${r.feedLagFullTilt ? `${r.feedLagFullTilt.p50} / ${r.feedLagFullTilt.p99}` : '–'} | ${r.halfRate.achieved} | ${r.halfRate.p50} / ${r.halfRate.p99} | ${r.feedLag ? `${r.feedLag.p50} / ${r.feedLag.p99}` : '–'} |`,
    ),
    '',
  ].join('\n'),
);
log(`written: bench/results/${stamp}-one-company.{json,md}`);
