// A preload (`node --import`) that times every better-sqlite3 statement a process runs, for telling a
// write's storage cost from everything else (bench/sqlite-share.mjs reads what it writes). Not product
// code and not part of any measured run unless asked for:
//
//   NODE_OPTIONS="--import ./bench/lib/sqlite-timer.mjs" node bench/run.mjs --quick --db=sqlite --only=clock
//   node bench/sqlite-share.mjs
//
// In each process that loads better-sqlite3 (the API, the floor, the harness), every statement's
// run/get/all is timed with process.hrtime around the synchronous call, which is the whole of
// SQLite's work for it (better-sqlite3 runs a statement on the calling thread). Every second the
// main thread appends a line to $SQLITE_TIMER_DIR/<pid>.jsonl (default /tmp/sqlite-timer): its
// totals so far (statement time, statements, commits, the process's CPU time, the time per statement
// text). Worker threads (SQLite checkpoints) are left alone.
import { appendFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';

// The process's own better-sqlite3, the module the API and the floor import (one module cache).
const require = createRequire(`${process.cwd()}/`);

function install() {
  let Database;
  try {
    Database = require('better-sqlite3');
  } catch {
    return; // nothing to time in a process that cannot load it
  }
  const dir = process.env.SQLITE_TIMER_DIR ?? '/tmp/sqlite-timer';
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${process.pid}.jsonl`);
  const totals = { ns: 0, statements: 0, commits: 0 };
  const byText = new Map();
  const prepare = Database.prototype.prepare;
  Database.prototype.prepare = function timedPrepare(text, ...rest) {
    const statement = prepare.call(this, text, ...rest);
    const key = String(text).replace(/\s+/g, ' ').trim().slice(0, 70);
    const commit = /^commit\b/i.test(key);
    let mine = byText.get(key);
    if (!mine) byText.set(key, (mine = { ns: 0, n: 0 }));
    for (const method of ['run', 'get', 'all']) {
      const original = statement[method];
      statement[method] = function timed(...args) {
        const started = process.hrtime.bigint();
        try {
          return original.apply(this, args);
        } finally {
          const ns = Number(process.hrtime.bigint() - started);
          totals.ns += ns;
          totals.statements += 1;
          if (commit) totals.commits += 1;
          mine.ns += ns;
          mine.n += 1;
        }
      };
    }
    return statement;
  };
  const line = () => {
    if (totals.statements === 0) return;
    const cpu = process.cpuUsage();
    const record = {
      t: Date.now(),
      argv: process.argv.slice(1).join(' '),
      ...totals,
      cpuUs: cpu.user + cpu.system,
      byText: Object.fromEntries(byText),
    };
    appendFileSync(file, `${JSON.stringify(record)}\n`);
  };
  setInterval(line, 1000).unref();
  process.on('exit', line);
}

if (isMainThread) install();
