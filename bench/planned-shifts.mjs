#!/usr/bin/env node
// Planned shifts (issue 33): a month's plan for 1,000 employees (22 weekdays: 22,000 shifts) imported
// through POST /planned-shifts/batch in 44 requests of 500, then imported again (every item unchanged);
// and the attendance exceptions of one 1,000-employee day found by one run of the exceptions job.
//
//   node bench/planned-shifts.mjs [--db=sqlite|postgres|both] [--employees=N]
//
// Run after a build (`npm run build`). Per dialect: a fresh database with the employees (bulk
// inserts), the real server (`node dist/cli/main.js serve`, its own exceptions job switched off), the
// import timed from the first request to the last answer, one request at a time, each with an
// Idempotency-Key, as a scheduler's export would be sent. Then, for the month's first weekday, time
// entries for most employees (on time, late, leaving early, still open) are inserted in bulk and the
// job is run once in this process against the database at 17:10 that day (the time the job is told;
// its clock is a parameter; no planned day lies before it within the job's two days), and once more
// (nothing new: the steady cost of every minute). Writes
// bench/results/<time>-planned-shifts.{json,md}. The goals: the import under 20 s per database, the
// day's exceptions in one run.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DateTime } from 'luxon';
import { v7 as uuidv7 } from 'uuid';
import { inTransaction } from '../dist/modules/context.js';
import { createApiKey } from '../dist/modules/api-keys/service.js';
import { runExceptionsJob } from '../dist/modules/planned-shifts/exceptions-job.js';
import { commandLine } from './lib/cli.mjs';
import { startProcess } from './lib/processes.mjs';
import {
  analyze,
  bulkEmployees,
  bulkInsert,
  countRows,
  createTenant,
  openStore,
  ZONE,
} from './lib/provision.mjs';
import { BENCH_DIR, createDatabase, ROOT, serverEnv } from './lib/server.mjs';
import { fetchToken } from './lib/token.mjs';

const API = '/api/public/v1';
const BATCH = 500;

const { option } = commandLine();
const databases = option('db', 'both') === 'both' ? ['sqlite', 'postgres'] : [option('db', 'both')];
const EMPLOYEES = Math.max(1, Math.floor(Number(option('employees', 1000))));
const log = (...parts) => process.stdout.write(`${parts.join(' ')}\n`);

/** The weekdays of next month (Berlin): 20 to 23 of them; the plan uses the first 22 it finds, wrapping into the month after. */
function planDays() {
  const days = [];
  let day = DateTime.now().setZone(ZONE).plus({ months: 1 }).startOf('month');
  while (days.length < 22) {
    if (day.weekday <= 5) days.push(day);
    day = day.plus({ days: 1 });
  }
  return days;
}

/** The month's plan, employee by employee (as a scheduler's export lists it): 09:00-17:00, 30 min break. */
function monthPlan(employees, days) {
  const shifts = [];
  for (const employee of employees)
    for (const day of days)
      shifts.push({
        externalId: `m-${employee.externalId}-${day.toISODate()}`,
        employee: { externalId: employee.externalId },
        start: day.set({ hour: 9 }).toISO({ suppressMilliseconds: true }),
        end: day.set({ hour: 17 }).toISO({ suppressMilliseconds: true }),
        breakMinutes: 30,
        status: 'published',
      });
  return shifts;
}

/**
 * Sends the plan 500 shifts at a time, one request after the other. A request the overload gate sheds
 * (503, on this shared machine when the event loop lags) is sent again after its Retry-After, as the
 * typed client does; the sheds are counted and the time includes the waits.
 */
async function importPlan(url, token, shifts, label) {
  const counts = {};
  let shed = 0;
  let answering = 0;
  const times = [];
  const began = performance.now();
  for (let i = 0; i < shifts.length; i += BATCH) {
    let response;
    for (;;) {
      const sent = performance.now();
      response = await fetch(`${url}${API}/planned-shifts/batch`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'idempotency-key': `${label}-${i}`,
        },
        body: JSON.stringify({ shifts: shifts.slice(i, i + BATCH) }),
      });
      if (response.status !== 503) {
        times.push(performance.now() - sent);
        answering += times.at(-1);
        break;
      }
      shed += 1;
      await response.text();
      await new Promise((resolve) =>
        setTimeout(resolve, Number(response.headers.get('retry-after') ?? 1) * 1000),
      );
    }
    if (response.status !== 200) throw new Error(`batch ${i}: ${response.status} ${await response.text()}`);
    for (const result of (await response.json()).results)
      counts[result.status] = (counts[result.status] ?? 0) + 1;
  }
  // `answeringSeconds`: the answered requests' own time, without the shed ones and the waits after them.
  times.sort((a, b) => a - b);
  // Each answered request's own time: its median and the slowest, in seconds (does one kind of request stall?).
  const perRequest = {
    median: Number((times[Math.floor(times.length / 2)] / 1000).toFixed(3)),
    max: Number((times.at(-1) / 1000).toFixed(3)),
  };
  return {
    seconds: (performance.now() - began) / 1000,
    answeringSeconds: answering / 1000,
    perRequest,
    counts,
    shed,
  };
}

const pad = (n) => String(n).padStart(2, '0');

/** The CPU seconds (user + system) a process has used so far, from /proc (Linux; 100 ticks a second). */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * The day's punches for the first 90% of the employees: most on time (08:55-17:02), every 10th late
 * (09:12), every 15th leaving early (16:20), every 25th still clocked in; the last 10% never come.
 */
function dayEntries(tenant, employees, day) {
  const came = employees.slice(0, Math.floor(employees.length * 0.9));
  return came.map((employee, i) => {
    const startMinutes = i % 10 === 0 ? 9 * 60 + 12 : 8 * 60 + 55;
    const endMinutes = i % 15 === 0 ? 16 * 60 + 20 : 17 * 60 + 2;
    const open = i % 25 === 0;
    const startAt = day.set({ hour: 0 }).plus({ minutes: startMinutes });
    const endAt = day.set({ hour: 0 }).plus({ minutes: endMinutes });
    return {
      id: uuidv7(),
      company_id: tenant.companyId,
      employee_id: employee.id,
      work_date: day.toISODate(),
      start_at: startAt.toUTC().toISO(),
      end_at: open ? null : endAt.toUTC().toISO(),
      start_time: `${pad(Math.floor(startMinutes / 60))}:${pad(startMinutes % 60)}:00`,
      end_time: open ? null : `${pad(Math.floor(endMinutes / 60))}:${pad(endMinutes % 60)}:00`,
      ends_next_day: 0,
      break_minutes: open ? null : 30,
      net_seconds: open ? null : (endMinutes - startMinutes - 30) * 60,
      status: open ? 'open' : 'pending_approval',
      source: 'time_clock',
      time_zone: ZONE,
      notes: null,
      note: null,
      clock_in_event: 'clock_in',
      clock_out_event: open ? null : 'clock_out',
      created_by_type: 'api_key',
      created_by_id: tenant.key.id,
      closed_by_id: open ? null : tenant.key.id,
      created_at: startAt.toUTC().toISO(),
      updated_at: endAt.toUTC().toISO(),
      approved_at: null,
    };
  });
}

async function measure(kind) {
  const database = await createDatabase(kind, 'bench_shifts');
  let server;
  try {
    const { store, ctx, close } = await openStore(database.url);
    const tenant = await createTenant(ctx, `Shifts bench ${kind}`);
    const key = await inTransaction(ctx, (tx, now) =>
      createApiKey(tx, now, {
        companyId: tenant.companyId,
        createdBy: tenant.adminId,
        name: 'scheduler',
        scopes: 'shifts.manage,attendance.read',
      }),
    );
    const employees = await bulkEmployees(store, tenant, EMPLOYEES, { prefix: 'PS' });
    // The overload gate stays on (as a scheduler's import meets it): what it sheds is sent again.
    const env = serverEnv(database.url);
    delete env.OVERLOAD_MAX_EVENT_LOOP_DELAY_MS;
    server = await startProcess('api', [join(ROOT, 'dist/cli/main.js'), 'serve'], {
      ...env,
      EXCEPTIONS_JOB: 'false',
    });
    const token = await fetchToken(server.url, key.clientId, key.secret);
    const days = planDays();
    const shifts = monthPlan(employees, days);
    log(`  ${kind}: importing ${shifts.length} shifts in ${Math.ceil(shifts.length / BATCH)} requests …`);
    const cpu0 = cpuSeconds(server.pid);
    const first = await importPlan(server.url, token, shifts, 'first');
    const cpu1 = cpuSeconds(server.pid);
    log(
      `  ${kind}: first import ${first.seconds.toFixed(1)} s ${JSON.stringify(first.counts)}; importing again …`,
    );
    const again = await importPlan(server.url, token, shifts, 'again');
    const cpu2 = cpuSeconds(server.pid);
    log(
      `  ${kind}: second import ${again.seconds.toFixed(1)} s ${JSON.stringify(again.counts)}, ${again.shed} shed`,
    );
    await server.stop();
    server = undefined;
    const stored = await countRows(store, 'planned_shifts', tenant.companyId);
    // The second import must change nothing: no shift past its first version.
    const { n: changedAgain } = await store.db
      .selectFrom('planned_shifts')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('version', '>', 1)
      .executeTakeFirstOrThrow();

    // The month's first day: no earlier planned day is within the job's two days.
    const day = days[0];
    await bulkInsert(store, 'time_entries', dayEntries(tenant, employees, day), { perStatement: 500 });
    await analyze(store);
    const jobAt = day.set({ hour: 17, minute: 10 }).toMillis();
    const jobCtx = { database: store, now: () => jobAt };
    let began = performance.now();
    const run = await runExceptionsJob(jobCtx);
    const runSeconds = (performance.now() - began) / 1000;
    began = performance.now();
    const rerun = await runExceptionsJob(jobCtx);
    const rerunSeconds = (performance.now() - began) / 1000;
    const kinds = await store.db
      .selectFrom('attendance_exceptions')
      .select(['kind', (eb) => eb.fn.countAll().as('n')])
      .groupBy('kind')
      .execute();
    await close();
    return {
      database: kind,
      employees: EMPLOYEES,
      shifts: shifts.length,
      stored,
      changedAgain: Number(changedAgain),
      importSeconds: Number(first.seconds.toFixed(2)),
      importCounts: first.counts,
      importShed: first.shed,
      importAnsweringSeconds: Number(first.answeringSeconds.toFixed(2)),
      importPerRequestSeconds: first.perRequest,
      importServerCpuSeconds: Number((cpu1 - cpu0).toFixed(2)),
      againSeconds: Number(again.seconds.toFixed(2)),
      againCounts: again.counts,
      againShed: again.shed,
      againAnsweringSeconds: Number(again.answeringSeconds.toFixed(2)),
      againPerRequestSeconds: again.perRequest,
      againServerCpuSeconds: Number((cpu2 - cpu1).toFixed(2)),
      jobDay: day.toISODate(),
      jobRun: { ...run, seconds: Number(runSeconds.toFixed(2)) },
      jobRerun: { ...rerun, seconds: Number(rerunSeconds.toFixed(2)) },
      exceptions: Object.fromEntries(kinds.map((k) => [k.kind, Number(k.n)])),
    };
  } finally {
    await server?.stop();
    await database.drop();
  }
}

const loadAtStart = (await import('node:os'))
  .loadavg()
  .map((n) => n.toFixed(1))
  .join(', ');
const results = [];
for (const kind of databases) {
  log(`planned-shifts bench on ${kind}: ${EMPLOYEES} employees …`);
  results.push(await measure(kind));
}

const header = [
  'database',
  'shifts',
  'import (s)',
  'again (s)',
  'answering (s)',
  '503 retried',
  'server CPU (s)',
  'job run (s)',
  'found',
  'rerun (s)',
  'exceptions',
];
const rows = results.map((r) => [
  r.database,
  String(r.shifts),
  r.importSeconds.toFixed(1),
  r.againSeconds.toFixed(1),
  `${r.importAnsweringSeconds.toFixed(1)} + ${r.againAnsweringSeconds.toFixed(1)}`,
  `${r.importShed} + ${r.againShed}`,
  `${r.importServerCpuSeconds.toFixed(1)} + ${r.againServerCpuSeconds.toFixed(1)}`,
  r.jobRun.seconds.toFixed(2),
  String(r.jobRun.detected),
  r.jobRerun.seconds.toFixed(2),
  Object.entries(r.exceptions)
    .map(([k, n]) => `${k} ${n}`)
    .join(', '),
]);
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
const line = (cells) => cells.map((c, i) => c.padEnd(widths[i])).join('  ');
log('');
log(line(header));
for (const row of rows) log(line(row));

const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const dir = join(BENCH_DIR, 'results');
mkdirSync(dir, { recursive: true });
writeFileSync(
  join(dir, `${stamp}-planned-shifts.json`),
  `${JSON.stringify({ at: new Date().toISOString(), results }, null, 2)}\n`,
);
writeFileSync(
  join(dir, `${stamp}-planned-shifts.md`),
  [
    `# Planned shifts, ${new Date().toISOString()}`,
    '',
    `A month's plan (22 weekdays) for ${EMPLOYEES} employees through POST /planned-shifts/batch (500 per request, one request at a time), then the same again; one run of the exceptions job over a day of that month at 17:10, then a second run. "answering": the answered requests' own time (import + again), without requests the overload gate shed and the Retry-After waits after them; "server CPU": the API process's CPU seconds (import + again; PostgreSQL's own not included). Load average when it began: ${loadAtStart}.`,
    '',
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
    '',
  ].join('\n'),
);
log(`\nwritten: bench/results/${stamp}-planned-shifts.{json,md}`);
