import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCursorCodec } from '../../src/domain/cursor.js';
import type { Principal } from '../../src/modules/auth/service.js';
import { appendEvents, readChanges } from '../../src/modules/events/service.js';
import { sequencerOf } from '../../src/modules/events/sequencer.js';
import { parseDatabaseUrl } from '../../src/platform/config.js';
import { createDatabase, type Database } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { type TestDatabase, testDialects } from '../support/databases.js';

/*
 * The change feed's guarantee: a reader following resumeCursor never misses and never repeats a
 * committed event, also when transactions commit in another order than the one they began in. Two
 * databases opened on one file or database stand for two server instances.
 */
const cursors = createCursorCodec(Buffer.from('event-order-test-secret'));
const principal = (companyId: string): Principal => ({
  kind: 'api_key',
  id: 'key',
  companyId,
  clientId: null,
  scopes: ['attendance.read', 'employees.read'],
  tokenExpiresAt: new Date(Date.now() + 60_000),
  company: { timeZone: null, timeTracking: true },
});
const at = '2026-11-10T08:00:00.000Z';
const event = (n: number) => [{ type: 'day.confirmed' as const, data: { n } }];

describe.each(testDialects())('event order across instances ($name)', (dialect) => {
  let testDatabase: TestDatabase;
  let first: Database;
  let second: Database;
  /** The second instance's writer: on SQLite the first connection (see below). */
  let secondWriter: Database;

  beforeAll(async () => {
    testDatabase = await dialect.create();
    first = createDatabase(parseDatabaseUrl(testDatabase.url), { poolSize: 4 });
    second = createDatabase(parseDatabaseUrl(testDatabase.url), { poolSize: 4 });
    /*
     * SQLite: writers share one connection per process (better-sqlite3 waits for another
     * connection's write lock synchronously, which would block this test's own event loop); the
     * second connection reads, which WAL lets it do while a write transaction is open.
     */
    secondWriter = dialect.name === 'sqlite' ? first : second;
    await migrateToLatest(first.db);
  });
  afterAll(async () => {
    await first.close();
    await second.close();
    await testDatabase.drop();
  });

  it('a writer holding its transaction open: the reader neither skips nor repeats its event, whichever commits first', async () => {
    const company = 'company-hold';
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let appended!: () => void;
    const appendedFirst = new Promise<void>((resolve) => (appended = resolve));
    const slow = first.transaction(async (tx) => {
      await appendEvents(tx, company, event(1), at);
      appended();
      await held;
    });
    await appendedFirst;
    // A second writer of the company, on the other instance, begins after and wants to commit first.
    const fast = secondWriter.transaction((tx) => appendEvents(tx, company, event(2), at));
    const raced = await Promise.race([
      fast.then(() => 'committed'),
      new Promise((r) => setTimeout(() => r('waiting'), 300)),
    ]);
    const during = await readChanges(second.db, cursors, principal(company), {});
    if (dialect.name === 'sqlite') {
      // One writer at a time: the second waits for the first's commit, the reader sees neither yet.
      expect(raced).toBe('waiting');
      expect(during.items).toEqual([]);
    } else {
      // PostgreSQL (issue 32): the second commits without waiting and is numbered first, in commit order.
      expect(raced).toBe('committed');
      expect(during.items.map((e) => e.data)).toEqual([{ n: 2 }]);
    }
    release();
    await Promise.all([slow, fast]);
    const after = await readChanges(second.db, cursors, principal(company), { cursor: during.resumeCursor });
    const all = [...during.items, ...after.items].map((e) => e.data);
    expect(all).toEqual(dialect.name === 'sqlite' ? [{ n: 1 }, { n: 2 }] : [{ n: 2 }, { n: 1 }]);
  });

  it('PostgreSQL: events committed and never numbered (their process died) are numbered by any instance, once', async () => {
    if (dialect.name === 'sqlite') return;
    const company = 'company-orphan';
    // Written as a change writes them, but outside Database.transaction: no after-commit numbering.
    await second.db.transaction().execute((tx) => appendEvents(tx, company, event(7), at));
    const before = await readChanges(second.db, cursors, principal(company), {});
    expect(before.items).toEqual([]);
    await Promise.all([sequencerOf(first)!.drainIfPending(), sequencerOf(second)!.drainIfPending()]);
    const after = await readChanges(second.db, cursors, principal(company), { cursor: before.resumeCursor });
    expect(after.items.map((e) => e.data)).toEqual([{ n: 7 }]);
    const again = await readChanges(second.db, cursors, principal(company), { cursor: after.resumeCursor });
    expect(again.items).toEqual([]);
  });

  it('concurrent writers on two instances, a reader following resumeCursor: every event once, in order', async () => {
    const company = 'company-race';
    const writers = 6;
    const perWriter = 15;
    const seen: number[] = [];
    let cursor: string | undefined;
    let writing = true;
    const reader = (async () => {
      for (;;) {
        const done = !writing;
        const page = await readChanges(
          second.db,
          cursors,
          principal(company),
          cursor === undefined ? {} : { cursor },
        );
        for (const item of page.items) seen.push((item.data as { n: number }).n);
        cursor = page.resumeCursor;
        if (done && !page.hasMore) return;
        if (!page.hasMore) await new Promise((r) => setTimeout(r, 5));
      }
    })();
    await Promise.all(
      Array.from({ length: writers }, async (_, w) => {
        const database = w % 2 === 0 ? first : secondWriter;
        for (let i = 0; i < perWriter; i++)
          await database.transaction(async (tx) => {
            await appendEvents(tx, company, event(w * 1000 + i), at);
            // Some transactions stay open a little after appending: commits interleave.
            if ((w + i) % 3 === 0) await new Promise((r) => setTimeout(r, 3));
          });
      }),
    );
    writing = false;
    await reader;
    expect(seen).toHaveLength(writers * perWriter);
    expect(new Set(seen).size).toBe(writers * perWriter);
    // Each writer's own events arrive in the order it committed them.
    for (let w = 0; w < writers; w++) {
      const own = seen.filter((n) => Math.floor(n / 1000) === w);
      expect(own).toEqual([...own].sort((a, b) => a - b));
    }
  });
});
