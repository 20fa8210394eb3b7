import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppContext, CLI_ACTOR, inTransaction } from '../../src/modules/context.js';
import { upsertShifts } from '../../src/modules/planned-shifts/batch.js';
import { runExceptionsJob } from '../../src/modules/planned-shifts/exceptions-job.js';
import { parseDatabaseUrl } from '../../src/platform/config.js';
import { createDatabase, type Database } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { type TestDatabase, testDialects } from '../support/databases.js';
import { newId } from '../../src/domain/ids.js';
import { createCompanyFixture, startInstance } from '../support/server.js';

/*
 * Each exception is detected once, whatever the number of instances running the job (issue 33): two
 * databases opened on one PostgreSQL stand for two instances and run the job at the same moment,
 * again and again; then two real servers run it on their timers. On SQLite (one process, one
 * writer) the two handles take turns: better-sqlite3 would wait for the other connection's write lock
 * synchronously, blocking this test's own event loop.
 */

const EMPLOYEES = 40;
/** Wednesday 11 November 2026, 09:31 in Berlin: every 09:00 shift without a clock-in is a no-show. */
const NOW = Date.parse('2026-11-11T09:31:00+01:00');

async function counts(database: Database, companyId: string) {
  const rows = await database.db
    .selectFrom('attendance_exceptions')
    .select(['kind', 'dedupe_key'])
    .where('company_id', '=', companyId)
    .execute();
  const events = await database.db
    .selectFrom('events')
    .select(['type', 'data'])
    .where('company_id', '=', companyId)
    .where('type', 'like', 'attendance.%')
    .execute();
  return { rows, events };
}

async function plannedCompany(ctx: AppContext, name: string): Promise<string> {
  const fixture = await createCompanyFixture(ctx, {
    name,
    timeZone: 'Europe/Berlin',
    employeeCount: EMPLOYEES,
  });
  await publish(ctx, fixture.companyId, fixture.employees, ['09:00', '17:00']);
  return fixture.companyId;
}

async function publish(
  ctx: AppContext,
  companyId: string,
  employees: readonly { id: string }[],
  [from, to]: [string, string],
): Promise<void> {
  const items = employees.map((e) => ({
    invalid: null,
    item: {
      employee: { id: e.id },
      start: `2026-11-11T${from}:00+01:00`,
      end: `2026-11-11T${to}:00+01:00`,
      status: 'published' as const,
    },
  }));
  const outcomes = await inTransaction(ctx, (tx, now) =>
    upsertShifts(tx, now, { companyId, companyZone: 'Europe/Berlin', actor: CLI_ACTOR }, items, {
      dryRun: false,
    }),
  );
  expect(outcomes.every((o) => o.status === 201)).toBe(true);
}

/** A finished entry of the employee on Wednesday 11 November 2026, 10:00-12:00 in Berlin. */
function workedEntry(companyId: string, employeeId: string) {
  const at = '2026-11-11T11:00:00.000Z';
  return {
    id: newId(),
    company_id: companyId,
    employee_id: employeeId,
    work_date: '2026-11-11',
    start_at: '2026-11-11T09:00:00.000Z',
    end_at: at,
    start_time: '10:00:00',
    end_time: '12:00:00',
    ends_next_day: 0,
    break_minutes: 0,
    net_seconds: 2 * 3600,
    status: 'approved',
    source: 'api',
    time_zone: 'Europe/Berlin',
    notes: null,
    note: null,
    clock_in_event: null,
    clock_out_event: null,
    created_by_type: 'api_key',
    created_by_id: null,
    closed_by_id: null,
    created_at: at,
    updated_at: at,
    approved_at: at,
  };
}

function expectOnce(result: Awaited<ReturnType<typeof counts>>) {
  expect(result.rows).toHaveLength(EMPLOYEES);
  expect(result.rows.every((r) => r.kind === 'no_show')).toBe(true);
  expect(new Set(result.rows.map((r) => r.dedupe_key)).size).toBe(EMPLOYEES);
  expect(result.events).toHaveLength(EMPLOYEES);
  const ids = result.events.map((e) => (JSON.parse(e.data) as { id: string }).id);
  expect(new Set(ids).size).toBe(EMPLOYEES);
}

describe.each(testDialects())('the exceptions job on two instances ($name)', (dialect) => {
  let testDatabase: TestDatabase;
  let first: Database;
  let second: Database;

  beforeAll(async () => {
    testDatabase = await dialect.create();
    first = createDatabase(parseDatabaseUrl(testDatabase.url), { poolSize: 4 });
    second = createDatabase(parseDatabaseUrl(testDatabase.url), { poolSize: 4 });
    await migrateToLatest(first.db);
  });
  afterAll(async () => {
    await first.close();
    await second.close();
    await testDatabase.drop();
  });

  it('two instances judging at the same moment record each no-show once, with one event each', async () => {
    const a: AppContext = { database: first, now: () => NOW };
    const b: AppContext = { database: second, now: () => NOW };
    const companyId = await plannedCompany(a, 'Twice');
    for (let round = 0; round < 5; round++) {
      if (dialect.name === 'postgres') await Promise.all([runExceptionsJob(a), runExceptionsJob(b)]);
      else {
        await runExceptionsJob(a);
        await runExceptionsJob(b);
      }
    }
    expectOnce(await counts(first, companyId));
  });

  it('two instances resolve each unplanned day once when its shifts are published afterwards', async () => {
    const at = (ms: number): [AppContext, AppContext] => [
      { database: first, now: () => ms },
      { database: second, now: () => ms },
    ];
    const both = async ([a, b]: [AppContext, AppContext]) => {
      for (let round = 0; round < 5; round++) {
        if (dialect.name === 'postgres') await Promise.all([runExceptionsJob(a), runExceptionsJob(b)]);
        else {
          await runExceptionsJob(a);
          await runExceptionsJob(b);
        }
      }
    };
    const [a] = at(NOW);
    const fixture = await createCompanyFixture(a, {
      name: 'Unplanned',
      timeZone: 'Europe/Berlin',
      employeeCount: EMPLOYEES,
    });
    const [planned, ...others] = fixture.employees;
    // One shift makes the workplace's day planned; the others work 10:00-12:00 without one.
    await publish(a, fixture.companyId, [planned!], ['09:00', '17:00']);
    await first.db
      .insertInto('time_entries')
      .values(others.map((e) => workedEntry(fixture.companyId, e.id)))
      .execute();
    await both(at(Date.parse('2026-11-11T12:31:00+01:00')));
    const unplannedRows = async () =>
      first.db
        .selectFrom('attendance_exceptions')
        .select(['id', 'resolved_at'])
        .where('company_id', '=', fixture.companyId)
        .where('kind', '=', 'unplanned')
        .execute();
    expect(await unplannedRows()).toHaveLength(others.length);
    expect((await unplannedRows()).every((r) => r.resolved_at === null)).toBe(true);

    await publish(a, fixture.companyId, others, ['10:00', '12:00']);
    await both(at(Date.parse('2026-11-11T12:32:00+01:00')));
    const rows = await unplannedRows();
    expect(rows.every((r) => r.resolved_at !== null)).toBe(true);
    const { events } = await counts(first, fixture.companyId);
    const resolved = events
      .filter((e) => e.type === 'attendance.exception_resolved')
      .map((e) => (JSON.parse(e.data) as { id: string }).id);
    expect(resolved.sort()).toEqual(rows.map((r) => r.id).sort());
  });

  it.runIf(dialect.name === 'postgres')('two servers on their timers record each no-show once', async () => {
    const ctx: AppContext = { database: first, now: () => NOW };
    const companyId = await plannedCompany(ctx, 'Timers');
    const env = { WEBHOOK_DISPATCH: 'false', EXCEPTIONS_JOB_INTERVAL_MS: '25' };
    const servers = await Promise.all([0, 1].map(() => startInstance(testDatabase, { env, now: () => NOW })));
    try {
      // Until both have found everything, and then some more runs of both.
      for (let i = 0; i < 400 && (await counts(first, companyId)).rows.length < EMPLOYEES; i++)
        await new Promise((resolve) => setTimeout(resolve, 25));
      await new Promise((resolve) => setTimeout(resolve, 500));
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
    }
    expectOnce(await counts(first, companyId));
  });
});
