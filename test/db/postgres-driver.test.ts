import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/platform/config.js';
import { createDatabase, type Database } from '../../src/platform/db/database.js';
import { NAMED_PER_CONNECTION } from '../../src/platform/db/postgres.js';
import { sql } from 'kysely';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { type TestDatabase, testDialects } from '../support/databases.js';

/*
 * The PostgreSQL driver's named statements (platform/db/postgres.ts). At most NAMED_PER_CONNECTION of
 * them per connection: pg and the server keep them for the connection's life. And a query that fails in the
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

  it('names at most NAMED_PER_CONNECTION statements per connection; texts past that run unnamed, with the same results', async () => {
    // One text per length of the id list, as a batch's lookups make them: 40 more than the bound.
    for (let n = 1; n <= NAMED_PER_CONNECTION + 40; n++) {
      const ids = Array.from({ length: n }, (_, i) => `no-company-${i}`);
      expect(await database.db.selectFrom('companies').select('id').where('id', 'in', ids).execute()).toEqual(
        [],
      );
    }
    // The pool's one connection: its prepared statements are all it ever named.
    const { rows } = await sql<{ n: string }>`select count(*) as n from pg_prepared_statements`.execute(
      database.db,
    );
    expect(Number(rows[0]!.n)).toBe(NAMED_PER_CONNECTION);
    // A statement named early stays named and answers as before.
    expect(await database.db.selectFrom('companies').select('id').where('id', 'in', ['x']).execute()).toEqual(
      [],
    );
  });
});
