import { describe, expect, it } from 'vitest';
import { testDialects } from '../support/databases.js';
import {
  call,
  DAY,
  HOUR,
  iso,
  MINUTE,
  type Reply,
  T0,
  type Tenant,
  timeTrackingSuite,
} from '../support/time-tracking.js';

/*
 * Issue 32, item 2: a batch of punches is one transaction with one commit; each punch runs in a
 * savepoint with the single endpoint's rules, so mixed refusals (rules, keys, values) answer exactly
 * what the single endpoint answers and leave nothing behind: the same rows, audit rows, revisions,
 * stored outcomes and events as the same punches sent one by one.
 */
const BATCH = '/api/public/v1/time-clock/events/batch';
type Json = Record<string, unknown>;
interface Result {
  index: number;
  status: number;
  body: Json;
}
const results = (reply: Reply) => (reply.body as unknown as { results: Result[] }).results;

function normalised(text: string): unknown {
  return JSON.parse(
    text
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>')
      .replace(/"correlationId":"[^"]*"/g, '"correlationId":"<c>"'),
  ) as unknown;
}

describe.each(testDialects().map((d) => [d.name, d] as const))(
  'a batch as one transaction on %s',
  (_name, dialect) => {
    const suite = timeTrackingSuite(dialect, { start: T0 + 3 * DAY });
    const { berlin } = suite;
    const ev = (externalId: string, type: string, at: number | string, extra: Json = {}) => ({
      employee: { externalId },
      type,
      occurredAt: typeof at === 'number' ? iso(at) : at,
      ...extra,
    });
    /** What a company holds after its punches: counts of every table a punch writes, and its events' types in order. */
    async function footprint(tenant: Tenant) {
      const db = suite.server.database.db;
      const companyId = tenant.fixture.companyId;
      const count = async (
        table: 'time_entries' | 'time_entry_breaks' | 'time_entry_revisions' | 'idempotency_records',
      ) =>
        table === 'time_entry_breaks'
          ? (
              await db
                .selectFrom('time_entry_breaks as b')
                .innerJoin('time_entries as e', 'e.id', 'b.time_entry_id')
                .select((eb) => eb.fn.countAll().as('n'))
                .where('e.company_id', '=', companyId)
                .executeTakeFirstOrThrow()
            ).n
          : (
              await db
                .selectFrom(table)
                .select((eb) => eb.fn.countAll().as('n'))
                .where('company_id', '=', companyId)
                .executeTakeFirstOrThrow()
            ).n;
      const audit = await db
        .selectFrom('audit_log')
        .select('action')
        .where('company_id', '=', companyId)
        .orderBy('action')
        .execute();
      const events = await db
        .selectFrom('events')
        .select(['type', 'seq'])
        .where('company_id', '=', companyId)
        .orderBy('seq')
        .execute();
      return {
        entries: Number(await count('time_entries')),
        breaks: Number(await count('time_entry_breaks')),
        revisions: Number(await count('time_entry_revisions')),
        stored: Number(await count('idempotency_records')),
        audit: audit.map((row) => row.action),
        events: events.map((row) => row.type),
        numbers: events.map((row) => Number(row.seq)),
      };
    }

    it('mixed refusals, with and without keys: every result and every row as the same punches one by one', async () => {
      const single = await berlin({ employeeCount: 4 });
      const batched = await berlin({ employeeCount: 4 });
      const events: Json[] = [
        ev('EXT-0', 'clock_in', T0 - 8 * HOUR, { idempotencyKey: 'a-1' }),
        ev('EXT-0', 'clock_in', T0 - 7 * HOUR, { idempotencyKey: 'a-2' }), // already clocked in: stored
        ev('EXT-1', 'clock_out', T0 - 7 * HOUR, { idempotencyKey: 'a-3' }), // no open session: stored
        ev('EXT-1', 'clock_in', T0 - 7 * HOUR),
        ev('EXT-1', 'clock_in', T0 - 7 * HOUR), // a header-less duplicate: 200, what the first recorded
        ev('EXT-2', 'break_start', T0 - 6 * HOUR), // no session
        ev('EXT-0', 'break_start', T0 - 6 * HOUR, { idempotencyKey: 'a-4' }),
        ev('EXT-0', 'clock_in', T0 - 6 * HOUR, { idempotencyKey: 'a-1' }), // key reused with another punch
        ev('EXT-9', 'clock_in', T0 - 6 * HOUR), // unknown employee
        ev('EXT-3', 'clock_in', T0 + 4 * DAY), // too far ahead
        ev('EXT-0', 'clock_out', T0 - 5 * HOUR, { idempotencyKey: 'a-5' }), // ends the break
        ev('EXT-1', 'clock_out', T0 - 8 * HOUR), // before its clock-in
        ev('EXT-0', 'clock_in', T0 - 5 * HOUR - 30 * MINUTE), // inside the entry just closed
        ev('EXT-1', 'toggle', T0 - HOUR, { idempotencyKey: 'a-6' }),
        ev('EXT-0', 'clock_in', T0 - 8 * HOUR, { idempotencyKey: 'a-1' }), // replays the first
        ev('EXT-3', 'toggle', T0 - HOUR),
      ];
      const one: Reply[] = [];
      for (const event of events) {
        const { idempotencyKey, ...fields } = event as { idempotencyKey?: string };
        one.push(await single.clock(fields, idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}));
      }
      const reply = await call(suite.server, batched.token, 'POST', BATCH, { events });
      expect(reply.status).toBe(200);
      const got = results(reply);
      expect(got.map((r) => r.status)).toEqual(one.map((r) => r.status));
      expect(got.map((r) => r.status)).toEqual([
        201, 409, 409, 201, 200, 409, 201, 422, 404, 422, 201, 409, 409, 201, 201, 201,
      ]);
      for (const [i, r] of got.entries())
        expect(normalised(JSON.stringify(r.body)), `event ${i}`).toEqual(normalised(one[i]!.text));
      // Nothing of the refused punches stayed; the accepted ones left exactly what they leave one by one.
      const [alone, together] = [await footprint(single), await footprint(batched)];
      expect(together).toEqual(alone);
      expect(together.entries).toBe(3);
      expect(together.stored).toBe(6); // a-1..a-6: outcomes and refusals alike
      // Stored refusals replay through the single endpoint, byte for byte.
      const replay = await batched.clock(ev('EXT-1', 'clock_out', T0 - 7 * HOUR), {
        'idempotency-key': 'a-3',
      });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.text).toBe(JSON.stringify(got[2]!.body));
    });

    it('one commit: a reader sees none of the batch or all of it (PostgreSQL, another connection)', async () => {
      const tenant = await berlin({ employeeCount: 30 });
      const events = tenant.fixture.employees.flatMap((_, i) => [
        ev(`EXT-${i}`, 'clock_in', T0 - 8 * HOUR + i * MINUTE),
        ev(`EXT-${i}`, 'clock_out', T0 - 2 * HOUR + i * MINUTE),
      ]);
      const db = suite.server.database.db;
      const seen = new Set<number>();
      let done = false;
      const sent = call(suite.server, tenant.token, 'POST', BATCH, { events }).finally(() => (done = true));
      // SQLite: the test reads through the server's own connection, which sees its open transaction.
      while (!done && dialect.name === 'postgres') {
        const row = await db
          .selectFrom('audit_log')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('company_id', '=', tenant.fixture.companyId)
          .where('action', 'like', 'time_entry.clock_%')
          .executeTakeFirstOrThrow();
        seen.add(Number(row.n));
      }
      const reply = await sent;
      expect(results(reply).every((r) => r.status === 201)).toBe(true);
      for (const n of seen) expect([0, 60]).toContain(n);
      const footprintNow = await footprint(tenant);
      expect(footprintNow.events.filter((t) => t.startsWith('time_entry.'))).toEqual(
        events.map((e) => (e.type === 'clock_in' ? 'time_entry.opened' : 'time_entry.completed')),
      );
    });
  },
);
