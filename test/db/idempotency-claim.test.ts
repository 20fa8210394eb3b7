import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config.js';
import { createStore, type Store } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import {
  claimInTransaction,
  type IdempotencyScope,
  isKeyInFlight,
  isKeyTaken,
} from '../../src/use-cases/api/idempotency.js';
import { type TestDatabase, testDialects } from '../support/databases.js';

/*
 * PostgreSQL claims a key inside the write's transaction without waiting for the answer (see
 * claimInTransaction): a key that is not free fails the transaction at its next statement. Two
 * stores on one database stand for two server instances.
 */
const postgres = testDialects().find((d) => d.name === 'postgres');

describe.runIf(postgres !== undefined)('idempotency claim inside the write transaction (postgres)', () => {
  let database: TestDatabase;
  let first: Store;
  let second: Store;
  const scope = (key: string): IdempotencyScope => ({
    companyId: 'company',
    apiKeyId: 'key',
    key,
    requestHash: 'hash',
  });
  const now = Date.parse('2026-11-10T08:00:00Z');
  // The claim, then a statement whose answer is awaited, as a write's employee lookup is.
  const claimThenRead = (store: Store, key: string) =>
    store.transaction(async (trx) => {
      await claimInTransaction(trx, 'postgres', scope(key), now);
      return trx.selectFrom('idempotency_records').select('idempotency_key').execute();
    });

  beforeAll(async () => {
    database = await postgres!.create();
    first = createStore(parseDatabaseUrl(database.url), { poolSize: 2 });
    second = createStore(parseDatabaseUrl(database.url), { poolSize: 2 });
    await migrateToLatest(first.db);
  });
  afterAll(async () => {
    await first.close();
    await second.close();
    await database.drop();
  });

  it('a free key is claimed with the transaction', async () => {
    await claimThenRead(first, 'free');
    const row = await first.db
      .selectFrom('idempotency_records')
      .select('state')
      .where('idempotency_key', '=', 'free')
      .executeTakeFirst();
    expect(row?.state).toBe('in_flight');
  });

  it('a key held by a running transaction elsewhere is in flight, and nothing is kept', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let claimed!: () => void;
    const claimedFirst = new Promise<void>((resolve) => (claimed = resolve));
    const holder = first.transaction(async (trx) => {
      await claimInTransaction(trx, 'postgres', scope('held'), now);
      await trx.selectFrom('idempotency_records').select('idempotency_key').execute();
      claimed();
      await held;
    });
    await claimedFirst;
    const error = await claimThenRead(second, 'held').then(
      () => null,
      (e: unknown) => e,
    );
    expect(isKeyInFlight(error)).toBe(true);
    expect(isKeyTaken(error)).toBe(false);
    release();
    await holder;
    // Once the holder committed, the key has a record: taken.
    const later = await claimThenRead(second, 'held').then(
      () => null,
      (e: unknown) => e,
    );
    expect(isKeyTaken(later)).toBe(true);
    expect(isKeyInFlight(later)).toBe(false);
    const rows = await first.db
      .selectFrom('idempotency_records')
      .select('idempotency_key')
      .where('idempotency_key', '=', 'held')
      .execute();
    expect(rows).toHaveLength(1);
  });
});
