import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/platform/config.js';
import { createDatabase, type Database } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { type TestDatabase, testDialects } from '../support/databases.js';

/*
 * A PostgreSQL connection that the server closes (a restart, a failover, pg_terminate_backend) while
 * a transaction holds it between two statements: the server's admin-shutdown message (57P01) reaches a
 * client with no query running, which emits `error`. Without a listener, Node would throw it and end
 * the process. Only this test's own connections are terminated; the shared server keeps running.
 */
const postgres = testDialects().find((d) => d.name === 'postgres');

describe.runIf(postgres !== undefined)('a lost PostgreSQL connection (postgres)', () => {
  let testDatabase: TestDatabase;
  let database: Database;
  let admin: pg.Client;

  beforeAll(async () => {
    testDatabase = await postgres!.create();
    database = createDatabase(parseDatabaseUrl(testDatabase.url), { poolSize: 2 });
    await migrateToLatest(database.db);
    admin = new pg.Client({ connectionString: testDatabase.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin.end();
    await database.close();
    await testDatabase.drop();
  });

  it('fails the transaction that held it, not the process; the next transaction gets a new connection', async () => {
    let terminated!: () => void;
    const afterTermination = new Promise<void>((resolve) => (terminated = resolve));
    let pidKnown!: (pid: number) => void;
    const backend = new Promise<number>((resolve) => (pidKnown = resolve));
    const interrupted = database.transaction(async (tx) => {
      const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(tx);
      pidKnown(rows[0]!.pid);
      await afterTermination;
      await tx.selectFrom('companies').select('id').execute();
    });
    const pid = await backend;
    await admin.query('select pg_terminate_backend($1)', [pid]);
    // Give the admin-shutdown message time to reach the idle client.
    await new Promise((resolve) => setTimeout(resolve, 200));
    terminated();
    await expect(interrupted).rejects.toThrow();
    const answer = await database.transaction((tx) =>
      sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(tx),
    );
    expect(answer.rows[0]!.pid).not.toBe(pid);
    await expect(database.ping()).resolves.toBeUndefined();
  });
});
