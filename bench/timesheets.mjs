// Payday: a month's timesheet report as CSV (GET /reports/timesheets, Accept: text/csv) for a company
// of 1,000 employees with 22 shifts each (22,000 entries), on SQLite and on PostgreSQL, measured once:
// the time to the file's last byte and the server's peak RSS while it streams (docs/performance.md).
// The company has a daily overtime threshold and the de-arbzg rule pack, so every rule runs.
// Run after a build: `node bench/timesheets.mjs [--db=sqlite|postgres|both] [--employees=N] [--shifts=N]`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { URLSearchParams } from 'node:url';
import pg from 'pg';
import { inTransaction } from '../dist/modules/context.js';
import { createApiKey } from '../dist/modules/api-keys/service.js';
import { updateCompany } from '../dist/modules/companies/service.js';
import { commandLine } from './lib/cli.mjs';
import { memoryOf, sampleRss, startProcess } from './lib/processes.mjs';
import {
  analyze,
  bulkEmployees,
  bulkHistory,
  createTenant,
  historyDays,
  openStore,
} from './lib/provision.mjs';

const { option } = commandLine();
const databases = option('db', 'both') === 'both' ? ['sqlite', 'postgres'] : [option('db', 'both')];
const employeeCount = Number(option('employees', 1000));
// --shifts=65 with --employees=5000 is the largest file the API serves (92 days): memory stays flat.
const SHIFTS = Number(option('shifts', 22));
const PG_ADMIN_URL = process.env.BENCH_PG_ADMIN_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const CLI = 'dist/cli/main.js';

async function freshDatabase(kind) {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'punchclock-timesheets-'));
    return {
      url: `sqlite:${join(dir, 'bench.sqlite')}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const name = `punchclock_timesheets_${process.pid}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: PG_ADMIN_URL });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

async function run(kind) {
  const database = await freshDatabase(kind);
  try {
    // The month: the last 22 weekdays before yesterday (or --shifts), one shift each (7.5-9 h, 30 min break).
    const days = historyDays().slice(-SHIFTS);
    const from = days[0].date;
    const to = days.at(-1).date;
    const { store, ctx, close } = await openStore(database.url);
    let key;
    try {
      const tenant = await createTenant(ctx, 'Payday');
      await inTransaction(ctx, (tx, now) =>
        updateCompany(tx, now, tenant.companyId, { dailyOvertimeAfter: '8', workingTimeRules: 'de-arbzg' }),
      );
      key = await inTransaction(ctx, (tx, now) =>
        createApiKey(tx, now, {
          companyId: tenant.companyId,
          createdBy: tenant.adminId,
          name: 'payroll',
          scopes: 'attendance.reports',
        }),
      );
      const employees = await bulkEmployees(store, tenant, employeeCount, { prefix: 'PAY' });
      const entries = await bulkHistory(store, tenant, employees, days);
      if (kind === 'postgres') await analyze(store);
      console.log(`${kind}: ${employeeCount} employees, ${entries} entries, ${from}..${to}`);
    } finally {
      await close();
    }

    const server = await startProcess('api', [CLI, 'serve'], {
      NODE_ENV: 'production',
      DATABASE_URL: database.url,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
    });
    try {
      const tokenResponse = await fetch(`${server.url}/api/public/v1/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: key.clientId,
          client_secret: key.secret,
        }),
      });
      if (tokenResponse.status !== 200) throw new Error(`token: ${tokenResponse.status}`);
      const token = (await tokenResponse.json()).access_token;
      const idleKb = memoryOf(server.pid)?.rssKb ?? null;
      const rss = sampleRss(server.pid, 20);
      const started = performance.now();
      const response = await fetch(`${server.url}/api/public/v1/reports/timesheets?from=${from}&to=${to}`, {
        headers: { authorization: `Bearer ${token}`, accept: 'text/csv' },
      });
      if (response.status !== 200) throw new Error(`report: ${response.status} ${await response.text()}`);
      let bytes = 0;
      let rows = 0;
      for await (const chunk of response.body) {
        bytes += chunk.length;
        for (const byte of chunk) if (byte === 10) rows++;
      }
      const seconds = (performance.now() - started) / 1000;
      const { peakKb, samples } = rss.stop();
      // RSS at each quarter of the transfer: flat memory shows as a plateau, not a ramp.
      const quarters = [0.25, 0.5, 0.75, 1].map((q) =>
        Math.round(samples[Math.min(samples.length - 1, Math.floor(q * (samples.length - 1)))].rssKb / 1024),
      );
      const result = {
        database: kind,
        employees: employeeCount,
        rows: rows - 1,
        megabytes: Number((bytes / 1e6).toFixed(2)),
        seconds: Number(seconds.toFixed(2)),
        idleRssMb: idleKb === null ? null : Math.round(idleKb / 1024),
        peakRssMb: Math.round(peakKb / 1024),
        rssByQuarterMb: quarters,
      };
      console.log(JSON.stringify(result));
      return result;
    } finally {
      await server.stop();
    }
  } finally {
    await database.drop();
  }
}

const results = [];
for (const kind of databases) results.push(await run(kind));
console.log('\nTimesheet CSV, one month, measured once:');
console.log('| database | employees | rows | MB | seconds | server RSS idle → peak |');
console.log('|---|---|---|---|---|---|');
for (const r of results)
  console.log(
    `| ${r.database} | ${r.employees} | ${r.rows} | ${r.megabytes} | ${r.seconds} | ${r.idleRssMb} → ${r.peakRssMb} MB |`,
  );
