import { inTransaction } from '../../dist/modules/context.js';
// Fixtures for the benchmark: companies, keys and employees through the admin use cases (as the CLI
// makes them), and the large volumes (thousands of employees, a million time entries) as bulk inserts
// in transactions through Kysely, with the columns and conventions of src/db/schema.ts.
import { DateTime } from 'luxon';
import { v7 as uuidv7 } from 'uuid';
import { parseDatabaseUrl } from '../../dist/platform/config.js';
import { createDatabase } from '../../dist/platform/db/database.js';
import { migrateToLatest } from '../../dist/platform/db/migrate.js';
import { createApiKey } from '../../dist/modules/api-keys/service.js';
import {
  createCompany,
  createSchedule,
  createWorkplace,
  updateCompany,
} from '../../dist/modules/companies/service.js';
import { createUser } from '../../dist/modules/people/users.js';

export { ZONE } from './zone.mjs';
import { ZONE } from './zone.mjs';
const DAY_MS = 86_400_000;
const ALL_SCOPES = 'attendance.record,attendance.read,employees.read';

export async function openStore(databaseUrl) {
  const store = createDatabase(parseDatabaseUrl(databaseUrl), { poolSize: 4 });
  await migrateToLatest(store.db);
  const ctx = { database: store, now: Date.now };
  return { store, ctx, close: () => store.close() };
}

/** A company in Berlin with a workplace, a schedule, an admin and one API key with the API's scopes. */
export async function createTenant(ctx, name, { scopes = ALL_SCOPES } = {}) {
  const company = await inTransaction(ctx, (tx, now) => createCompany(tx, now, { name, timeZone: ZONE }));
  const workplace = await inTransaction(ctx, (tx, now) =>
    createWorkplace(tx, now, {
      companyId: company.id,
      name: `${name} site`,
      timeZone: ZONE,
    }),
  );
  const schedule = await inTransaction(ctx, (tx, now) =>
    createSchedule(tx, now, { companyId: company.id, name: 'Full time', weeklyHours: '40' }),
  );
  const admin = await inTransaction(ctx, (tx, now) =>
    createUser(tx, now, {
      companyId: company.id,
      email: `admin@${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.example`,
      permissions: '86,47,49,52,72,90,94',
      superAdmin: true,
    }),
  );
  const tenant = {
    name,
    companyId: company.id,
    workplaceId: workplace.id,
    scheduleId: schedule.id,
    adminId: admin.id,
  };
  return { ...tenant, key: await createKey(ctx, tenant, `${name} key`, scopes) };
}

/** One more API key of the tenant, made by its admin, with `scopes` (comma-separated). */
export async function createKey(ctx, tenant, name, scopes) {
  const key = await inTransaction(ctx, (tx, now) =>
    createApiKey(tx, now, { companyId: tenant.companyId, createdBy: tenant.adminId, name, scopes }),
  );
  return { id: key.id, clientId: key.clientId, secret: key.secret };
}

/** Changes the tenant's company settings as `punchclock company update` does. */
export async function updateTenant(ctx, tenant, changes) {
  await inTransaction(ctx, (tx, now) => updateCompany(tx, now, tenant.companyId, changes));
}

function chunks(rows, size) {
  const out = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}

/** Inserts rows in multi-row statements (under both databases' parameter limits), committing every `perTransaction`. */
export async function bulkInsert(store, table, rows, { perStatement = 1000, perTransaction = 50_000 } = {}) {
  for (const transactionRows of chunks(rows, perTransaction)) {
    await store.transaction(async (trx) => {
      for (const statementRows of chunks(transactionRows, perStatement))
        await trx.insertInto(table).values(statementRows).execute();
    });
  }
}

const STATUSES = [
  'active',
  'active',
  'active',
  'active',
  'active',
  'active',
  'on_leave',
  'inactive',
  'suspended',
  'terminated',
];

/**
 * `count` employees of the tenant, each with the tenant's workplace and a schedule effective for
 * the last 400 days (so every work date the API accepts has one). Returns [{id, externalId}].
 */
export async function bulkEmployees(store, tenant, count, { prefix, offset = 0, statuses = false } = {}) {
  const at = new Date().toISOString();
  const from = new Date(Date.now() - 400 * DAY_MS).toISOString().slice(0, 10);
  const employees = [];
  const schedules = [];
  for (let i = 0; i < count; i++) {
    const n = offset + i;
    const id = uuidv7();
    employees.push({
      id,
      company_id: tenant.companyId,
      email: `${prefix.toLowerCase()}-${n}@bench.example`,
      first_name: `First${n}`,
      last_name: `Last${n}`,
      status: statuses ? STATUSES[n % STATUSES.length] : 'active',
      external_id: `${prefix}-${n}`,
      department_id: null,
      position_id: null,
      workplace_id: tenant.workplaceId,
      created_at: at,
      updated_at: at,
      deleted_at: null,
    });
    schedules.push({
      id: uuidv7(),
      employee_id: id,
      schedule_id: tenant.scheduleId,
      effective_from: from,
      created_at: at,
    });
  }
  await bulkInsert(store, 'employees', employees, { perStatement: 1000 });
  await bulkInsert(store, 'employee_schedules', schedules, { perStatement: 2000 });
  return employees.map((e) => ({ id: e.id, externalId: e.external_id }));
}

const pad = (n) => String(n).padStart(2, '0');

/** Weekdays of the year before today (UTC dates), with Berlin's UTC offset (minutes) on each. */
export function historyDays(now = Date.now()) {
  const today = Date.UTC(
    new Date(now).getUTCFullYear(),
    new Date(now).getUTCMonth(),
    new Date(now).getUTCDate(),
  );
  const days = [];
  for (let back = 366; back >= 2; back--) {
    const ms = today - back * DAY_MS;
    const d = new Date(ms);
    const weekday = d.getUTCDay();
    if (weekday === 0 || weekday === 6) continue;
    const date = d.toISOString().slice(0, 10);
    const offset = DateTime.fromObject(
      { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: 8 },
      { zone: ZONE },
    ).offset;
    days.push({ date, ms, offset, ageDays: back });
  }
  return days;
}

/**
 * A year of realistic history for each employee: one shift per weekday, starting between 07:00 and
 * 09:29 Berlin time, 7.5 to 9 hours long with a 30-minute break; older entries approved (a few
 * rejected), the last two weeks pending approval; 70% from clock punches, the rest sent as shifts.
 * Never overlapping, never open. Returns the number of rows inserted.
 */
export async function bulkHistory(store, tenant, employees, days = historyDays()) {
  let inserted = 0;
  let rows = [];
  const flush = async () => {
    if (rows.length === 0) return;
    await bulkInsert(store, 'time_entries', rows, { perStatement: 1000, perTransaction: 50_000 });
    inserted += rows.length;
    rows = [];
  };
  for (let e = 0; e < employees.length; e++) {
    const employee = employees[e];
    for (let d = 0; d < days.length; d++) {
      const day = days[d];
      const h = ((e + 1) * 2_654_435_761 + (d + 1) * 40_503) >>> 0;
      const startMinutes = 7 * 60 + (h % 150);
      const duration = 450 + ((h >>> 8) % 91);
      const startMs = day.ms + (startMinutes - day.offset) * 60_000;
      const endMs = startMs + duration * 60_000;
      const endMinutes = startMinutes + duration;
      const approved = day.ageDays > 14;
      const rejected = approved && h % 50 === 0;
      const fromClock = h % 10 < 7;
      const createdAt = new Date(fromClock ? endMs : endMs + 3_600_000).toISOString();
      const approvedAt =
        approved && !rejected ? new Date(day.ms + DAY_MS + 9 * 3_600_000).toISOString() : null;
      rows.push({
        id: uuidv7(),
        company_id: tenant.companyId,
        employee_id: employee.id,
        work_date: day.date,
        start_at: new Date(startMs).toISOString(),
        end_at: new Date(endMs).toISOString(),
        start_time: `${pad(Math.floor(startMinutes / 60))}:${pad(startMinutes % 60)}:00`,
        end_time: `${pad(Math.floor(endMinutes / 60))}:${pad(endMinutes % 60)}:00`,
        ends_next_day: 0,
        break_minutes: 30,
        net_seconds: (duration - 30) * 60,
        status: rejected ? 'rejected' : approved ? 'approved' : 'pending_approval',
        source: fromClock ? 'time_clock' : 'api_shift',
        time_zone: ZONE,
        notes: fromClock ? `[device: T-${h % 7}]` : null,
        note: null,
        clock_in_event: fromClock ? 'clock_in' : null,
        clock_out_event: fromClock ? 'clock_out' : null,
        created_by_type: 'api_key',
        created_by_id: tenant.key.id,
        closed_by_id: tenant.key.id,
        created_at: createdAt,
        updated_at: approvedAt ?? createdAt,
        approved_at: approvedAt,
      });
    }
    if (rows.length >= 50_000) await flush();
  }
  await flush();
  return inserted;
}

/** Refreshes planner statistics after bulk loads, as an operator would (PostgreSQL: ANALYZE; SQLite: ANALYZE). */
export async function analyze(store) {
  const { sql } = await import('kysely');
  await sql`analyze`.execute(store.db);
}

export async function countRows(store, table, companyId) {
  let query = store.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n'));
  if (companyId) query = query.where('company_id', '=', companyId);
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Leave for the month's report (issue 31): the tenant's workplace keeps Bavaria's public holidays
 * (`DE-BY`), and every employee has absences among `days` (weekdays, oldest first), approved, as
 * `punchclock absence create` would store them: a three-day vacation, a sick day, and for every
 * third employee an unpaid half day and a requested (not yet decided) vacation day. Returns the count.
 */
export async function bulkAbsences(store, tenant, employees, days) {
  const { setHolidayRegion } = await import('../../dist/modules/absences/working-days.js');
  const ctx = { database: store, now: Date.now };
  await inTransaction(ctx, (tx, now) =>
    setHolidayRegion(tx, now, tenant.workplaceId, 'DE-BY', { type: 'cli', id: null }),
  );
  const types = await store.db
    .selectFrom('absence_types')
    .select(['id', 'code'])
    .where('company_id', '=', tenant.companyId)
    .execute();
  const typeId = Object.fromEntries(types.map((t) => [t.code, t.id]));
  const at = new Date().toISOString();
  const rows = [];
  const absence = (employee, code, first, last, extra = {}) =>
    rows.push({
      id: uuidv7(),
      company_id: tenant.companyId,
      employee_id: employee.id,
      absence_type_id: typeId[code],
      start_date: first,
      end_date: last,
      portion: 'full',
      hours: null,
      days: 1,
      status: 'approved',
      note: null,
      reason: null,
      decided_at: at,
      decided_by_kind: 'cli',
      decided_by_id: null,
      decided_by_name: 'command line',
      created_by_kind: 'cli',
      created_by_id: null,
      created_at: at,
      updated_at: at,
      version: 2,
      ...extra,
    });
  employees.forEach((employee, e) => {
    const start = (e * 7) % Math.max(1, days.length - 3);
    absence(employee, 'vacation', days[start].date, days[start + 2].date, { days: 3 });
    const sick = (start + 5) % days.length;
    absence(employee, 'sick', days[sick].date, days[sick].date);
    if (e % 3 !== 0) return;
    const half = (start + 9) % days.length;
    absence(employee, 'unpaid', days[half].date, days[half].date, { portion: 'first_half', days: 0.5 });
    const asked = (start + 12) % days.length;
    absence(employee, 'vacation', days[asked].date, days[asked].date, {
      status: 'requested',
      decided_at: null,
      decided_by_kind: null,
      decided_by_name: null,
      version: 1,
    });
  });
  await bulkInsert(store, 'absences', rows, { perStatement: 500 });
  return rows.length;
}
