import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config.js';
import { createStore, type Executor, isUniqueViolation, type Store } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { prepareQuery } from '../../src/db/prepared.js';
import { type TestDatabase, testDialects } from '../support/databases.js';

/*
 * Pipelined writes (prepared.ts `executePipelined`, postgres-pool.ts): on PostgreSQL they are sent
 * without waiting for their answer, BEGIN travels with the first statement and the COMMIT with the
 * last writes. Whatever the dialect, a transaction must keep all of its writes or none of them.
 */
const insertSecret = prepareQuery(2, (db: Executor, name: string, value: string) =>
  db.insertInto('app_secrets').values({ name, value, created_at: '2026-01-01T00:00:00.000Z' }),
);
const readSecret = prepareQuery(1, (db: Executor, name: string) =>
  db.selectFrom('app_secrets').select('value').where('name', '=', name),
);

async function valueOf(store: Store, name: string): Promise<string | undefined> {
  return (await readSecret.executeTakeFirst(store.db, name))?.value;
}

describe.each(testDialects())('pipelined writes ($name)', (dialect) => {
  let database: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    database = await dialect.create();
    store = createStore(parseDatabaseUrl(database.url), { poolSize: 2 });
    await migrateToLatest(store.db);
  });
  afterAll(async () => {
    await store.close();
    await database.drop();
  });

  it('commits every pipelined write with the transaction, and they are visible inside it', async () => {
    const seen = await store.transaction(async (trx) => {
      await insertSecret.executePipelined(trx, 'p1', 'one');
      await insertSecret.executePipelined(trx, 'p2', 'two');
      return (await readSecret.executeTakeFirst(trx, 'p2'))?.value;
    });
    expect(seen).toBe('two');
    expect(await valueOf(store, 'p1')).toBe('one');
    expect(await valueOf(store, 'p2')).toBe('two');
  });

  it('a failing pipelined write as the last statement fails the commit and keeps nothing', async () => {
    await insertSecret.executeWrite(store.db, 'taken', 'before');
    const attempt = store.transaction(async (trx) => {
      await insertSecret.executeWrite(trx, 'first-of-failed', 'x');
      await insertSecret.executePipelined(trx, 'pipelined-before', 'x');
      await insertSecret.executePipelined(trx, 'taken', 'again');
      await insertSecret.executePipelined(trx, 'pipelined-after', 'x');
      return 'committed';
    });
    const error = await attempt.then(
      () => null,
      (e: unknown) => e,
    );
    expect(isUniqueViolation(error)).toBe(true);
    for (const name of ['first-of-failed', 'pipelined-before', 'pipelined-after'])
      expect(await valueOf(store, name)).toBeUndefined();
    expect(await valueOf(store, 'taken')).toBe('before');
  });

  it('a failing pipelined write fails the next awaited statement with its own error', async () => {
    await insertSecret.executeWrite(store.db, 'taken-2', 'before');
    let readFailure: unknown = null;
    await store
      .transaction(async (trx) => {
        await insertSecret.executePipelined(trx, 'taken-2', 'again');
        try {
          await readSecret.executeTakeFirst(trx, 'taken-2');
        } catch (error) {
          readFailure = error;
          throw error;
        }
      })
      .catch(() => {});
    // SQLite runs the write at once and fails there; PostgreSQL reports it at the read.
    if (dialect.name === 'postgres') expect(isUniqueViolation(readFailure)).toBe(true);
    expect(await valueOf(store, 'taken-2')).toBe('before');
  });

  it('a failure inside the transaction rolls back a pipelined write, and the connection is reusable', async () => {
    await expect(
      store.transaction(async (trx) => {
        await insertSecret.executePipelined(trx, 'rolled-back', 'x');
        throw new Error('the work failed');
      }),
    ).rejects.toThrow('the work failed');
    expect(await valueOf(store, 'rolled-back')).toBeUndefined();
    // Both pooled connections (PostgreSQL) serve further transactions normally.
    await Promise.all(
      ['after-1', 'after-2'].map((name) =>
        store.transaction(async (trx) => {
          await insertSecret.executePipelined(trx, name, 'ok');
        }),
      ),
    );
    expect(await valueOf(store, 'after-1')).toBe('ok');
    expect(await valueOf(store, 'after-2')).toBe('ok');
  });

  it('outside a transaction a pipelined write is an ordinary write', async () => {
    await insertSecret.executePipelined(store.db, 'standalone', 'ok');
    expect(await valueOf(store, 'standalone')).toBe('ok');
    await expect(insertSecret.executePipelined(store.db, 'standalone', 'again')).rejects.toSatisfy(
      isUniqueViolation,
    );
  });
});
