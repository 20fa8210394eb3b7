#!/usr/bin/env node
// The benchmark's ratios measured from outside, with wrk instead of autocannon, against the servers of
// `node bench/run.mjs --serve` (its manifest names the servers and the request files).
//
//   node bench/outside/compare.mjs <manifest.json> [--duration=10] [--pairs=5] [--warmup=3]
//                                  [--connections=10] [--threads=1] [--only=me,clock,...]
//
// Per scenario, as in the harness: a warm-up on each server, then pairs of rounds (floor and API back
// to back, the floor first in odd pairs, the API first in even ones); each pair gives a ratio, API over
// floor, and the scenario's ratio is the median of the pairs' ratios, with their min and max. Write
// scenarios use one fresh set of requests per run, so the pairs are limited by the sets the server
// wrote (--outside-sets, 6 by default; the first set warms up).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { commandLine } from '../lib/cli.mjs';
import { cpuTimeOf, machineCpuTicks, stealShare } from '../lib/processes.mjs';
import { apiRunsFirst, formatRatioRange, MIN_PAIRS, pairRatio, summarizePairs } from '../lib/ratios.mjs';

const { args, option } = commandLine();
const manifestFile = args.find((a) => !a.startsWith('--'));
if (!manifestFile) {
  console.error('usage: node bench/outside/compare.mjs <manifest.json> [--duration=S] [--pairs=N] ...');
  process.exit(2);
}
const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
const settings = {
  duration: Number(option('duration', 10)),
  warmup: Number(option('warmup', 3)),
  // --rounds=N: the older name of --pairs=N.
  pairs: Math.max(MIN_PAIRS, Math.floor(Number(option('pairs', option('rounds', MIN_PAIRS)))) || MIN_PAIRS),
  connections: Number(option('connections', 10)),
  threads: Number(option('threads', 1)),
};
const only = option('only', null)?.split(',') ?? null;
const replay = join(dirname(fileURLToPath(import.meta.url)), 'replay.lua');

/** wrk's `--latency` percentiles are printed with a unit (us, ms, s). */
function milliseconds(text) {
  const match = /^([\d.]+)(us|ms|s)$/.exec(text ?? '');
  if (!match) return null;
  return Number(match[1]) * { us: 0.001, ms: 1, s: 1000 }[match[2]];
}

function wrk(server, file, tokenFile, duration) {
  const cpuBefore = cpuTimeOf(server.pid);
  const machineBefore = machineCpuTicks();
  const output = execFileSync(
    'wrk',
    [
      `-t${settings.threads}`,
      `-c${settings.connections}`,
      `-d${duration}s`,
      '--latency',
      '-s',
      replay,
      server.url,
      '--',
      file,
      ...(tokenFile ? [tokenFile] : []),
    ],
    { encoding: 'utf8' },
  );
  const cpuMs = cpuTimeOf(server.pid) - cpuBefore;
  const steal = stealShare(machineBefore, machineCpuTicks());
  const requests = Number(/(\d+) requests in/.exec(output)?.[1] ?? 0);
  const seconds = Number(/requests in ([\d.]+)s/.exec(output)?.[1] ?? duration);
  return {
    rps: requests / seconds,
    requests,
    p50: milliseconds(/\n\s+50%\s+(\S+)/.exec(output)?.[1]),
    p99: milliseconds(/\n\s+99%\s+(\S+)/.exec(output)?.[1]),
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0),
    socketErrors: /Socket errors: (.*)/.exec(output)?.[1] ?? null,
    cpuUsPerRequest: requests > 0 ? (cpuMs * 1000) / requests : null,
    steal,
  };
}

const rows = [];
for (const scenario of manifest.scenarios) {
  if (only && !only.includes(scenario.key)) continue;
  // Reads (and the token request) repeat one file. Writes take a set nobody has sent yet: a sent set is
  // renamed *.sent, because sending it again would replay its Idempotency-Keys instead of writing.
  const pick = (side) => {
    const files = scenario[side];
    if (files.length === 1 && files[0].set === null) return { file: files[0].file, once: false };
    const fresh = files.find((f) => existsSync(f.file));
    return fresh ? { file: fresh.file, once: true } : null;
  };
  const send = (side, duration) => {
    const picked = pick(side);
    if (!picked) return null;
    const result = wrk(manifest[side], picked.file, side === 'api' ? scenario.tokenFile : null, duration);
    if (picked.once) renameSync(picked.file, `${picked.file}.sent`);
    return result;
  };
  const describe = (r) =>
    `${r.rps.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, server CPU ${r.cpuUsPerRequest?.toFixed(0)} µs/req, steal ${r.steal === null ? 'n/a' : `${(r.steal * 100).toFixed(0)}%`}${r.non2xx ? `, ${r.non2xx} non-2xx` : ''}${r.socketErrors ? `, socket errors ${r.socketErrors}` : ''}`;
  console.log(`${manifest.database} ${scenario.label}`);
  const pairs = [];
  if (send('floor', settings.warmup) && send('api', settings.warmup)) {
    while (pairs.length < settings.pairs) {
      if (!pick('floor') || !pick('api')) break;
      const apiFirst = apiRunsFirst(pairs.length);
      const runs = {};
      for (const side of apiFirst ? ['api', 'floor'] : ['floor', 'api']) {
        runs[side] = send(side, settings.duration);
        console.log(`  ${side === 'floor' ? 'floor' : 'API  '} ${describe(runs[side])}`);
      }
      const ratio = pairRatio({ floorRps: runs.floor.rps, apiRps: runs.api.rps });
      pairs.push({ ...runs, apiFirst, ratio });
      console.log(
        `  pair ${pairs.length} (${apiFirst ? 'API' : 'floor'} first): API/floor ${ratio === null ? '—' : `${(ratio * 100).toFixed(0)}%`}`,
      );
    }
  }
  if (pairs.length < settings.pairs)
    console.log(
      `  ${pairs.length} of ${settings.pairs} pairs: no unsent request set left (serve again, or with a larger --outside-sets)${pairs.length < MIN_PAIRS ? `; fewer than ${MIN_PAIRS} pairs: not judged` : ''}`,
    );
  if (pairs.length === 0) continue;
  const summary = summarizePairs(pairs.map((p) => ({ floorRps: p.floor.rps, apiRps: p.api.rps })));
  const middle = pairs[summary.medianPair ?? 0];
  rows.push({
    scenario: scenario.label,
    floor: middle.floor,
    api: middle.api,
    summary,
    judged: pairs.length >= MIN_PAIRS && summary.median !== null,
    target: scenario.target,
    non2xx: pairs.reduce((n, p) => n + p.floor.non2xx + p.api.non2xx, 0),
  });
}

console.log(
  `\n| db | scenario | floor req/s | API req/s | API/floor: median of pairs (min–max) | target | CPU µs/req floor / API | non-2xx |\n|---|---|---|---|---|---|---|---|`,
);
for (const r of rows) {
  const verdict = r.judged
    ? r.summary.median >= r.target
      ? 'PASS'
      : 'FAIL'
    : `not judged (${r.summary.count} pairs)`;
  console.log(
    `| ${manifest.database} | ${r.scenario} | ${r.floor.rps.toFixed(0)} | ${r.api.rps.toFixed(0)} | ${formatRatioRange(r.summary)} | ≥${r.target * 100}% ${verdict} | ${r.floor.cpuUsPerRequest?.toFixed(0)} / ${r.api.cpuUsPerRequest?.toFixed(0)} | ${r.non2xx} |`,
  );
}
console.log(
  `\nwrk -t${settings.threads} -c${settings.connections}, ${settings.warmup} s warm-ups, ${settings.pairs} pairs of floor/API rounds of ${settings.duration} s; the ratio is the median of the pairs' ratios (req/s and CPU: the median pair's rounds).`,
);
if (rows.some((r) => r.non2xx > 0)) process.exitCode = 2;
