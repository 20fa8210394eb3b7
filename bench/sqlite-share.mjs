#!/usr/bin/env node
// How much of a write is SQLite's own work: reads what bench/lib/sqlite-timer.mjs wrote during a run
// (see its header) and prints, for the API and the floor, per commit at max load: the statements'
// time, the process's CPU time and the share of it SQLite took; then the per-statement breakdown and
// the storage ceiling: the API/floor ratio the API would reach if everything but its statements cost
// what the floor's does (floor CPU ÷ (floor CPU − floor SQLite + API SQLite)).
//
//   node bench/sqlite-share.mjs [--dir=/tmp/sqlite-timer] [--top=15]
//
// "At max load" = the seconds in which the process committed at least half its busiest second's
// commits (the max-load rounds; warm-ups, fixed-rate rounds and start-up fall out). CPU time is the
// whole process's (main thread, garbage collector, SQLite checkpoint thread); statement time is
// wall time on the main thread, which for better-sqlite3 is SQLite's work.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { commandLine } from './lib/cli.mjs';

const { option } = commandLine();
const dir = option('dir', process.env.SQLITE_TIMER_DIR ?? '/tmp/sqlite-timer');
const top = Number(option('top', 15));

function roleOf(argv) {
  if (/floor-server\.mjs/.test(argv)) return 'floor';
  if (/cli\/main\.js serve/.test(argv)) return 'API';
  return null;
}

function summarize(lines) {
  const seconds = [];
  for (let i = 1; i < lines.length; i++) {
    const [a, b] = [lines[i - 1], lines[i]];
    seconds.push({ commits: b.commits - a.commits, ns: b.ns - a.ns, cpuUs: b.cpuUs - a.cpuUs });
  }
  const busiest = Math.max(0, ...seconds.map((s) => s.commits));
  const busy = seconds.filter((s) => s.commits > 0 && s.commits >= busiest / 2);
  const sum = (k) => busy.reduce((n, s) => n + s[k], 0);
  const commits = sum('commits');
  const last = lines.at(-1);
  return {
    seconds: busy.length,
    commits,
    sqliteUs: sum('ns') / 1000 / commits,
    cpuUs: sum('cpuUs') / commits,
    byText: Object.entries(last.byText)
      .map(([text, v]) => ({ text, us: v.ns / 1000 / last.commits, perCommit: v.n / last.commits }))
      .sort((x, y) => y.us - x.us),
  };
}

const runs = {};
for (const name of readdirSync(dir).filter((f) => f.endsWith('.jsonl'))) {
  const lines = readFileSync(join(dir, name), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const role = lines.length > 1 ? roleOf(lines[0].argv) : null;
  if (role && lines.at(-1).commits > 0) (runs[role] ??= []).push({ name, ...summarize(lines) });
}
if (!runs.API || !runs.floor) {
  console.error(
    `no API and floor timings in ${dir}: run bench/run.mjs with the preload first (see the header)`,
  );
  process.exit(2);
}
const out = (s) => process.stdout.write(`${s}\n`);
const pick = (role) => runs[role].reduce((a, b) => (b.commits > a.commits ? b : a));
const api = pick('API');
const floor = pick('floor');
for (const [role, r] of [
  ['API', api],
  ['floor', floor],
]) {
  out(
    `${role.padEnd(5)} ${r.commits} commits in ${r.seconds} s at max load: SQLite ${r.sqliteUs.toFixed(0)} µs, ` +
      `CPU ${r.cpuUs.toFixed(0)} µs per commit (SQLite ${((r.sqliteUs / r.cpuUs) * 100).toFixed(0)}% of it)`,
  );
  if (runs[role].length > 1)
    out(
      `      (${runs[role].length} ${role} processes timed in ${dir}: the one with the most commits; clear the folder between runs)`,
    );
  out('      per statement, averaged over the whole run (warm-ups and fixed-rate rounds included):');
  for (const s of r.byText.slice(0, top))
    out(`      ${s.us.toFixed(1).padStart(7)} µs  ×${s.perCommit.toFixed(2)}  ${s.text}`);
}
const ceiling = floor.cpuUs / (floor.cpuUs - floor.sqliteUs + api.sqliteUs);
out(
  `storage ceiling: with everything but its statements as cheap as the floor's, the API would run at ` +
    `${(ceiling * 100).toFixed(0)}% of the floor (${floor.cpuUs.toFixed(0)} ÷ (${floor.cpuUs.toFixed(0)} − ` +
    `${floor.sqliteUs.toFixed(0)} + ${api.sqliteUs.toFixed(0)}) µs); measured API ÷ floor CPU per commit: ` +
    `${((floor.cpuUs / api.cpuUs) * 100).toFixed(0)}%`,
);
