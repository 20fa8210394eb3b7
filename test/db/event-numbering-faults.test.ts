import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createCursorCodec } from '../../src/domain/cursor.js';
import type { Principal } from '../../src/modules/auth/service.js';
import type { AppContext } from '../../src/modules/context.js';
import { appendEvents, pruneEvents, readChanges } from '../../src/modules/events/service.js';
import { sequencerOf } from '../../src/modules/events/sequencer.js';
import { parseDatabaseUrl } from '../../src/platform/config.js';
import { createDatabase, type Database } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { type TestDatabase, testDialects } from '../support/databases.js';

/*
 * Issue 32's review: what must not stop the numbering of events (PostgreSQL, where events are numbered
 * after the commit by rounds across every company): retention working on one company, and one company
 * whose events cannot be numbered. And retention in chunks on both databases.
 */
const cursors = createCursorCodec(Buffer.from('event-faults-test-secret'));
const principal = (companyId: string): Principal => ({
  kind: 'api_key',
  id: 'key',
  companyId,
  clientId: null,
  scopes: ['attendance.read', 'employees.read'],
  tokenExpiresAt: new Date(Date.now() + 60_000),
  company: { timeZone: null, timeTracking: true },
});
const OLD = '2020-01-01T08:00:00.000Z';
const event = (n: number) => [{ type: 'day.confirmed' as const, data: { n } }];

describe.each(testDialects())('event numbering faults ($name)', (dialect) => {
  let testDatabase: TestDatabase;
  let database: Database;
  let other: Database;
  let ctx: AppContext;

  beforeAll(async () => {
    testDatabase = await dialect.create();
    database = createDatabase(parseDatabaseUrl(testDatabase.url), { poolSize: 6 });
    other = createDatabase(parseDatabaseUrl(testDatabase.url), { poolSize: 2 });
    await migrateToLatest(database.db);
    ctx = { database, now: () => Date.now() } as unknown as AppContext;
  });
  afterAll(async () => {
    await database.close();
    await other.close();
    await testDatabase.drop();
  });

  const append = (company: string, n: number, at = new Date().toISOString()) =>
    database.transaction((tx) => appendEvents(tx, company, event(n), at));

  it('retention removes in chunks: the feed starts after what it removed and keeps the rest', async () => {
    const company = 'company-chunks';
    const many = Array.from({ length: 2_345 }, (_, i) => ({
      type: 'day.confirmed' as const,
      data: { n: i },
    }));
    // A recent event numbered before old ones goes too (the retained ones stay contiguous).
    await append(company, -2);
    await database.transaction((tx) => appendEvents(tx, company, many, OLD));
    await append(company, -1);
    const before = await readChanges(database.db, cursors, principal(company), { limit: 1 });
    expect(await pruneEvents(ctx, 30)).toBe(2_346);
    const { count } = (await database.db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll().as('count'))
      .where('company_id', '=', company)
      .executeTakeFirstOrThrow()) as { count: number | string };
    expect(Number(count)).toBe(1);
    const after = await readChanges(database.db, cursors, principal(company), {});
    expect(after.items.map((e) => e.data)).toEqual([{ n: -1 }]);
    await expect(
      readChanges(database.db, cursors, principal(company), { cursor: before.nextCursor! }),
    ).rejects.toMatchObject({ errorName: 'cursor_expired' });
    expect(await pruneEvents(ctx, 30)).toBe(0);
  });

  it('PostgreSQL: retention held up on one company does not hold up the numbering of the others', async () => {
    if (dialect.name === 'sqlite') return;
    const companies = ['company-r1', 'company-r2', 'company-r3'];
    for (const company of companies) await append(company, 0, OLD);
    // Retention is held up on the company it reaches last (in the order the old events group by),
    // by a transaction that holds that company's old events: the others are done by then.
    const { rows: order } = await sql<{ company_id: string }>`
      select company_id, max(seq) from events where occurred_at < ${new Date(Date.now() - 30 * 86_400_000).toISOString()}
      and company_id like 'company-r%' group by company_id`.execute(database.db);
    const blocked = order.at(-1)!.company_id;
    const others = companies.filter((c) => c !== blocked);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const lockedNow = new Promise<void>((resolve) => (locked = resolve));
    const holder = other.db.transaction().execute(async (tx) => {
      await sql`select seq from events where company_id = ${blocked} for update`.execute(tx);
      locked();
      await held;
    });
    await lockedNow;
    const pruning = pruneEvents(ctx, 30);
    try {
      // Retention is now waiting on the held company's events.
      for (let i = 0; i < 100; i++) {
        const { rows } = await sql<{ waiting: number }>`
          select count(*)::integer as waiting from pg_stat_activity
          where wait_event_type = 'Lock' and query like 'delete from "events"%'`.execute(database.db);
        if (rows[0]!.waiting > 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      for (const company of others) {
        const started = Date.now();
        await append(company, 1);
        // Numbered before the writer's transaction returned (not after WAIT_AFTER_COMMIT_MS without it).
        expect(Date.now() - started).toBeLessThan(1_000);
        const page = await readChanges(database.db, cursors, principal(company), {});
        expect(page.items.map((e) => e.data)).toEqual([{ n: 1 }]);
      }
    } finally {
      release();
      await holder;
    }
    expect(await pruning).toBeGreaterThanOrEqual(companies.length);
  }, 20_000);

  it('PostgreSQL: a company whose events cannot be numbered does not stop the numbering of the others', async () => {
    if (dialect.name === 'sqlite') return;
    const poisoned = 'company-poisoned';
    const healthy = 'company-healthy';
    await append(poisoned, 1);
    // The number its next event would get is taken already (as by a bad import): its round fails.
    await database.db
      .insertInto('events')
      .values({
        company_id: poisoned,
        seq: 2,
        id: 'taken',
        type: 'day.confirmed',
        occurred_at: OLD,
        data: '{}',
      })
      .execute();
    await append(poisoned, 2);
    const started = Date.now();
    await append(healthy, 3);
    expect(Date.now() - started).toBeLessThan(1_000);
    const page = await readChanges(database.db, cursors, principal(healthy), {});
    expect(page.items.map((e) => e.data)).toEqual([{ n: 3 }]);
    // The poll names the company it cannot number; its event waits, unnumbered, nothing lost.
    await expect(sequencerOf(database)!.drainIfPending()).rejects.toThrow(/company company-poisoned/);
    const pending = await database.db.selectFrom('pending_events').select('company_id').execute();
    expect(pending).toEqual([{ company_id: poisoned }]);
  });
});
