import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppContext, CLI_ACTOR, inTransaction } from '../../src/modules/context.js';
import { upsertShifts } from '../../src/modules/planned-shifts/batch.js';
import { runExceptionsJob } from '../../src/modules/planned-shifts/exceptions-job.js';
import { parseDatabaseUrl } from '../../src/platform/config.js';
import { createDatabase, type Database } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { type TestDatabase, testDialects } from '../support/databases.js';
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
  const items = fixture.employees.map((e) => ({
    invalid: null,
    item: {
      employee: { id: e.id },
      start: '2026-11-11T09:00:00+01:00',
      end: '2026-11-11T17:00:00+01:00',
      status: 'published' as const,
    },
  }));
  const outcomes = await inTransaction(ctx, (tx, now) =>
    upsertShifts(
      tx,
      now,
      { companyId: fixture.companyId, companyZone: 'Europe/Berlin', actor: CLI_ACTOR },
      items,
      {
        dryRun: false,
      },
    ),
  );
  expect(outcomes.every((o) => o.status === 201)).toBe(true);
  return fixture.companyId;
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
