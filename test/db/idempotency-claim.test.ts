import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimKey, type IdempotencyScope, storeOutcome } from '../../src/modules/idempotency/service.js';
import { parseDatabaseUrl } from '../../src/platform/config.js';
import { createDatabase, type Database } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { type TestDatabase, testDialects } from '../support/databases.js';

/*
 * The claim of an Idempotency-Key is the first step of the write's own transaction (claimKey), and
 * its outcome the last (storeOutcome). Two databases opened on one file or database stand for two
 * server instances.
 */
describe.each(testDialects())('idempotency claim inside the write transaction ($name)', (dialect) => {
  let testDatabase: TestDatabase;
  let first: Database;
  let second: Database;
  const scope = (key: string, requestHash = 'hash'): IdempotencyScope => ({
    companyId: 'company',
    apiKeyId: 'key',
    key,
    requestHash,
  });
  const now = Date.parse('2026-11-10T08:00:00Z');
  const outcome = { status: 201, body: '{"ok":true}' };

  beforeAll(async () => {
    testDatabase = await dialect.create();
    first = createDatabase(parseDatabaseUrl(testDatabase.url), { poolSize: 2 });
    second = createDatabase(parseDatabaseUrl(testDatabase.url), { poolSize: 2 });
    await migrateToLatest(first.db);
  });
  afterAll(async () => {
    await first.close();
    await second.close();
    await testDatabase.drop();
  });

  it('a free key is claimed; its outcome is stored with the transaction and replayed after', async () => {
    const claim = await first.transaction(async (tx) => {
      const result = await claimKey(tx, scope('free'), now);
      await storeOutcome(tx, scope('free'), outcome, now);
      return result;
    });
    expect(claim.kind).toBe('claimed');
    const again = await second.transaction((tx) => claimKey(tx, scope('free'), now));
    expect(again).toEqual({ kind: 'replay', ...outcome });
    const reused = await second.transaction((tx) => claimKey(tx, scope('free', 'other'), now));
    expect(reused.kind === 'refused' && reused.error.errorName).toBe('idempotency_key_reused');
  });

  it('a rolled-back write keeps nothing: the key stays free', async () => {
    await expect(
      first.transaction(async (tx) => {
        await claimKey(tx, scope('rolled-back'), now);
        await storeOutcome(tx, scope('rolled-back'), outcome, now);
        throw new Error('the write failed');
      }),
    ).rejects.toThrow('the write failed');
    const claim = await second.transaction((tx) => claimKey(tx, scope('rolled-back'), now));
    expect(claim.kind).toBe('claimed');
  });

  it.runIf(dialect.name === 'postgres')(
    'a key held by a running transaction elsewhere is in flight, and nothing is kept',
    async () => {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let claimed!: () => void;
      const claimedFirst = new Promise<void>((resolve) => (claimed = resolve));
      const holder = first.transaction(async (tx) => {
        await claimKey(tx, scope('held'), now);
        claimed();
        await held;
        await storeOutcome(tx, scope('held'), outcome, now);
      });
      await claimedFirst;
      const busy = await second.transaction((tx) => claimKey(tx, scope('held'), now));
      expect(busy.kind === 'refused' && busy.error.errorName).toBe('idempotency_in_flight');
      release();
      await holder;
      // Once the holder committed, the key replays its outcome.
      const later = await second.transaction((tx) => claimKey(tx, scope('held'), now));
      expect(later).toEqual({ kind: 'replay', ...outcome });
      const rows = await first.db
        .selectFrom('idempotency_records')
        .select('idempotency_key')
        .where('idempotency_key', '=', 'held')
        .execute();
      expect(rows).toHaveLength(1);
    },
  );

  it('an expired record frees the key', async () => {
    await first.transaction((tx) => storeOutcome(tx, scope('old'), outcome, now - 25 * 3_600_000));
    const claim = await second.transaction((tx) => claimKey(tx, scope('old', 'new request'), now));
    expect(claim.kind).toBe('claimed');
  });
});
