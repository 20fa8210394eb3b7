import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config.js';
import { createStore, type Executor, type Store } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { prepareQuery } from '../../src/db/prepared.js';
import { type TestDatabase, testDialects } from '../support/databases.js';

/*
 * Rows of prepared queries: on SQLite they are built from better-sqlite3's raw arrays (database.ts,
 * rowBuilder), so they must come out exactly as the driver's own objects would: plain objects, one
 * property per column name in order, nulls kept, a repeated name taking the later column's value.
 */
const twoSecrets = prepareQuery(2, (db: Executor, first: string, second: string) =>
  db
    .selectFrom('app_secrets as a')
    .innerJoin('app_secrets as b', (join) => join.onTrue())
    .select(['a.name', 'a.value', 'b.name', sql<null>`null`.as('nothing')])
    .where('a.name', '=', first)
    .where('b.name', '=', second),
);
const oddlyNamed = prepareQuery(1, (db: Executor, name: string) =>
  db
    .selectFrom('app_secrets')
    .select([sql<string>`value`.as('__proto__'), 'name'])
    .where('name', '=', name),
);
const everyColumn = prepareQuery(1, (db: Executor, name: string) =>
  db.selectFrom('app_secrets').selectAll().where('name', '=', name),
);
const allSecrets = prepareQuery(0, (db: Executor) =>
  db.selectFrom('app_secrets').select(['name', 'value']).where('name', 'like', 'row-%').orderBy('name'),
);

describe.each(testDialects())('prepared query rows ($name)', (dialect) => {
  let database: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    database = await dialect.create();
    store = createStore(parseDatabaseUrl(database.url), { poolSize: 2 });
    await migrateToLatest(store.db);
    await store.db
      .insertInto('app_secrets')
      .values(
        ['row-a', 'row-b', 'row-c'].map((name) => ({
          name,
          value: `value of ${name}`,
          created_at: '2026-01-01T00:00:00.000Z',
        })),
      )
      .execute();
  });
  afterAll(async () => {
    await store.close();
    await database.drop();
  });

  it('gives plain objects with every column, nulls kept and a repeated name taking the later value', async () => {
    const row = await twoSecrets.executeTakeFirst(store.db, 'row-a', 'row-b');
    expect(row).toStrictEqual({ name: 'row-b', value: 'value of row-a', nothing: null });
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
  });

  it('the same inside a transaction, and several rows each their own object', async () => {
    const rows = await store.transaction((trx) => allSecrets.execute(trx));
    expect(rows).toStrictEqual([
      { name: 'row-a', value: 'value of row-a' },
      { name: 'row-b', value: 'value of row-b' },
      { name: 'row-c', value: 'value of row-c' },
    ]);
    expect(new Set(rows).size).toBe(3);
  });

  it('a column named __proto__ is a property, not the prototype', async () => {
    const row = (await oddlyNamed.executeTakeFirst(store.db, 'row-c'))!;
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(row, '__proto__')?.value).toBe('value of row-c');
    expect(Object.keys(row)).toEqual(['__proto__', 'name']);
  });

  // SQLite prepares such a statement again by itself; PostgreSQL refuses to (a named statement whose
  // result changed fails), which is not what this is about.
  if (dialect.name === 'sqlite')
    it('a table that gains a column while a statement is prepared: the rows follow the new columns', async () => {
      const before = await everyColumn.executeTakeFirst(store.db, 'row-a');
      expect(Object.keys(before!)).toEqual(['name', 'value', 'created_at']);
      await sql`alter table app_secrets add column remark text default 'added'`.execute(store.db);
      const after = await everyColumn.executeTakeFirst(store.db, 'row-a');
      expect(after).toStrictEqual({
        name: 'row-a',
        value: 'value of row-a',
        created_at: '2026-01-01T00:00:00.000Z',
        remark: 'added',
      });
    });

  it('no rows: an empty list', async () => {
    expect(await twoSecrets.execute(store.db, 'row-a', 'missing')).toEqual([]);
  });
});
