#!/usr/bin/env node
// The benchmark's ratios measured from outside, with wrk instead of autocannon, against the servers of
// `node bench/run.mjs --serve` (its manifest names the servers and the request files).
//
//   node bench/outside/compare.mjs <manifest.json> [--duration=10] [--rounds=2] [--warmup=3]
//                                  [--connections=10] [--threads=1] [--only=me,clock,...]
//
// Per scenario: a warm-up on each server, then rounds of (floor, API) back to back; each side's best
// round counts, as in the harness. Write scenarios use one fresh set of requests per run, so the
// rounds are limited by the sets the server wrote (--outside-sets; the first set warms up).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { commandLine } from '../lib/cli.mjs';
import { cpuTimeOf, machineCpuTicks, stealShare } from '../lib/processes.mjs';

const { args, option } = commandLine();
const manifestFile = args.find((a) => !a.startsWith('--'));
if (!manifestFile) {
  console.error('usage: node bench/outside/compare.mjs <manifest.json> [--duration=S] [--rounds=N] ...');
  process.exit(2);
}
const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
const settings = {
  duration: Number(option('duration', 10)),
  warmup: Number(option('warmup', 3)),
  rounds: Number(option('rounds', 2)),
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
  const floorRuns = [];
  const apiRuns = [];
  if (send('floor', settings.warmup) && send('api', settings.warmup)) {
    for (let round = 1; round <= settings.rounds; round++) {
      if (!pick('floor') || !pick('api')) break;
      floorRuns.push(send('floor', settings.duration));
      console.log(`  floor ${describe(floorRuns.at(-1))}`);
      apiRuns.push(send('api', settings.duration));
      console.log(`  API   ${describe(apiRuns.at(-1))}`);
    }
  }
  if (floorRuns.length < settings.rounds)
    console.log(
      `  ${floorRuns.length} of ${settings.rounds} rounds: no unsent request set left (serve again, or with a larger --outside-sets)`,
    );
  if (floorRuns.length === 0) continue;
  const best = (runs) => runs.reduce((a, b) => (b.rps > a.rps ? b : a));
  const floor = best(floorRuns);
  const api = best(apiRuns);
  const ratio = api.rps / floor.rps;
  rows.push({
    scenario: scenario.label,
    floor,
    api,
    ratio,
    target: scenario.target,
    non2xx: [...floorRuns, ...apiRuns].reduce((n, r) => n + r.non2xx, 0),
  });
}

console.log(
  `\n| db | scenario | floor req/s | API req/s | API/floor | target | CPU µs/req floor / API | non-2xx |\n|---|---|---|---|---|---|---|---|`,
);
for (const r of rows)
  console.log(
    `| ${manifest.database} | ${r.scenario} | ${r.floor.rps.toFixed(0)} | ${r.api.rps.toFixed(0)} | ${(r.ratio * 100).toFixed(0)}% | ≥${r.target * 100}% ${r.ratio >= r.target ? 'PASS' : 'FAIL'} | ${r.floor.cpuUsPerRequest?.toFixed(0)} / ${r.api.cpuUsPerRequest?.toFixed(0)} | ${r.non2xx} |`,
  );
console.log(
  `\nwrk -t${settings.threads} -c${settings.connections}, ${settings.warmup} s warm-ups, ${settings.rounds} rounds of ${settings.duration} s; best round of each side.`,
);
if (rows.some((r) => r.non2xx > 0)) process.exitCode = 2;
