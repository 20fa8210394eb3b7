import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/platform/config.js';
import { createDatabase, type Database } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { type TestDatabase, testDialects } from '../support/databases.js';

/*
 * The PostgreSQL driver's named statements (platform/db/postgres.ts): a query that fails in the
 * client before the server answers it (a value pg cannot convert) leaves pg believing prepared a
 * statement the server dropped. The connection is then discarded, not pooled again, so the same query
 * afterwards runs on a fresh connection instead of failing with 26000 for as long as the connection
 * lives (review of the named write plan, F1).
 */
const postgres = testDialects().filter((dialect) => dialect.name === 'postgres');

describe.runIf(postgres.length > 0)('the PostgreSQL driver', () => {
  let testDatabase: TestDatabase;
  let database: Database;

  beforeAll(async () => {
    testDatabase = await postgres[0]!.create();
    // One connection: whatever the failed query leaves behind, the next query would meet it.
    database = createDatabase(parseDatabaseUrl(testDatabase.url), { poolSize: 1 });
    await migrateToLatest(database.db);
  });
  afterAll(async () => {
    await database?.close();
    await testDatabase?.drop();
  });

  it('discards a connection whose named statement failed in the client; the same query then runs', async () => {
    const lookup = (id: unknown) =>
      database.db
        .selectFrom('companies')
        .select('id')
        .where('id', '=', id as string)
        .execute();
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    await expect(lookup(circular)).rejects.toThrow();
    expect(await lookup('no such company')).toEqual([]);
    expect(await lookup('nor this one')).toEqual([]);
  });
});
