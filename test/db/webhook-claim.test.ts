import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimDue, MAX_IN_FLIGHT_PER_ENDPOINT } from '../../src/modules/webhooks/dispatch-queries.js';
import { type DeliveryRow, type EndpointRow, insertDeliveries } from '../../src/modules/webhooks/queries.js';
import { parseDatabaseUrl } from '../../src/platform/config.js';
import { createDatabase, type Database } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { type TestDatabase, testDialects } from '../support/databases.js';

/*
 * The dispatcher's claim (issue 36, hours of traffic): it is made after every finished send, so it must
 * read a few rows per endpoint however long an endpoint's backlog is. bench/soak.mjs found the claim
 * reading every pending delivery (a window over the whole backlog): on SQLite it took 91% of the
 * server's CPU after five minutes and the overload gate shed nine requests in ten.
 */
const BACKLOG = 3000;
const NOW = '2026-11-27T10:00:00.000Z';
const LATER = '2026-11-27T10:05:00.000Z';
const LEASE = '2026-11-27T10:00:30.000Z';
const LATER_LEASE = '2026-11-27T10:05:30.000Z';
const AFTER_LEASES = '2026-11-27T10:06:00.000Z';

function endpoint(id: string): EndpointRow {
  return {
    id,
    company_id: 'company',
    url: `https://example.com/${id}`,
    event_types: '["time_entry.opened"]',
    description: null,
    status: 'active',
    disabled_reason: null,
    secret: 'sealed',
    previous_secret: null,
    previous_secret_until: null,
    created_by_key_id: null,
    start_seq: 0,
    after_seq: 0,
    failing_since: null,
    created_at: NOW,
    updated_at: NOW,
  };
}

function delivery(endpointId: string, n: number): DeliveryRow {
  const id = `${endpointId}-${String(n).padStart(6, '0')}`;
  return {
    id,
    endpoint_id: endpointId,
    company_id: 'company',
    event_id: id,
    event_type: 'time_entry.opened',
    origin: 'event',
    payload: '{}',
    state: 'pending',
    attempts: 0,
    // Due one millisecond apart, oldest first.
    next_attempt_at: new Date(Date.parse('2026-11-27T09:00:00Z') + n).toISOString(),
    lease_owner: null,
    lease_until: null,
    last_status: null,
    last_error: null,
    last_duration_ms: null,
    last_attempt_at: null,
    created_at: NOW,
  };
}

describe.each(testDialects())('the webhook claim ($name)', (dialect) => {
  let testDatabase: TestDatabase;
  let database: Database;

  beforeAll(async () => {
    testDatabase = await dialect.create();
    // One connection: every statement of the test on one PostgreSQL backend, whose statistics it reads.
    database = createDatabase(parseDatabaseUrl(testDatabase.url), { poolSize: 1 });
    await migrateToLatest(database.db);
    await database.transaction(async (tx) => {
      // Only the columns without a default: later migrations add settings with defaults.
      await sql`insert into companies (id, name, time_zone, time_tracking, api_access, created_at, updated_at)
        values ('company', 'Claims', 'Europe/Berlin', 1, 1, ${NOW}, ${NOW})`.execute(tx);
      for (const id of ['backlogged', 'quiet'])
        await tx.insertInto('webhook_endpoints').values(endpoint(id)).execute();
      const rows = Array.from({ length: BACKLOG }, (_, n) => delivery('backlogged', n));
      for (let i = 0; i < rows.length; i += 200) await insertDeliveries(tx, rows.slice(i, i + 200));
      await insertDeliveries(tx, [delivery('quiet', BACKLOG)]);
    });
  }, 60_000);
  afterAll(async () => {
    await database?.close();
    await testDatabase?.drop();
  });

  it.runIf(dialect.name === 'postgres')(
    'reads a few rows per endpoint, not the backlog (PostgreSQL statistics)',
    async () => {
      const read = async () => {
        await sql`select pg_stat_force_next_flush()`.execute(database.db);
        await sql`select pg_stat_clear_snapshot()`.execute(database.db);
        const { rows } = await sql<{
          n: string;
        }>`select coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) as n
          from pg_stat_user_tables where relname = 'webhook_deliveries'`.execute(database.db);
        return Number(rows[0]!.n);
      };
      await sql`analyze webhook_deliveries`.execute(database.db);
      const before = await read();
      const claimed = await database.transaction((tx) => claimDue(tx, 'stats', NOW, LEASE, 20));
      expect(claimed).toHaveLength(3);
      const after = await read();
      // The window over every pending delivery read all 3,001 of them (and more for the leases).
      expect(after - before).toBeLessThan(100);
    },
  );

  it('keeps each endpoint within its attempts in flight, oldest due first, and frees them when leases run out', async () => {
    // The statistics test (PostgreSQL) claimed the first three until LEASE: start after it.
    const first = await database.transaction((tx) =>
      claimDue(tx, 'one', LATER, LATER_LEASE, 20, MAX_IN_FLIGHT_PER_ENDPOINT),
    );
    expect(first.map((d) => d.id)).toEqual([
      'backlogged-000000',
      'backlogged-000001',
      `quiet-${String(BACKLOG).padStart(6, '0')}`,
    ]);
    expect(MAX_IN_FLIGHT_PER_ENDPOINT).toBe(2);
    // Leases held count: nothing more while they last.
    expect(await database.transaction((tx) => claimDue(tx, 'two', LATER, LATER_LEASE, 20))).toEqual([]);
    // Once they ran out, the same oldest deliveries are due again (their senders died).
    const again = await database.transaction((tx) => claimDue(tx, 'three', AFTER_LEASES, AFTER_LEASES, 1));
    expect(again.map((d) => d.id)).toEqual(['backlogged-000000']);
  });
});
