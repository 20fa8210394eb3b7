import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { testDialects } from '../support/databases.js';
import { enrolledDevice } from '../support/kiosk.js';
import { fetchToken } from '../support/server.js';
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
 * Issue 32, item 2: a batch of punches is one transaction with one commit, decided as a set (the
 * context of all its employees read once, each punch decided in order in memory with the single
 * endpoint's pure rules, every accepted punch written with multi-row statements), so mixed refusals
 * (rules, keys, values) answer exactly what the single endpoint answers and leave nothing behind: the
 * same rows, audit rows, revisions, stored outcomes and events as the same punches sent one by one.
 * What the set form cannot answer (a key held by a request still running) runs punch by punch.
 */
const BATCH = '/api/public/v1/time-clock/events/batch';
const EVENTS = '/api/public/v1/time-clock/events';
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

    /** The contents of what the punches wrote, ids and correlation ids masked, in a stable order. */
    async function contents(tenant: Tenant) {
      const db = suite.server.database.db;
      const companyId = tenant.fixture.companyId;
      const entries = await db
        .selectFrom('time_entries as e')
        .innerJoin('employees as p', 'p.id', 'e.employee_id')
        .select([
          'p.external_id',
          'e.work_date',
          'e.start_at',
          'e.end_at',
          'e.start_time',
          'e.end_time',
          'e.ends_next_day',
          'e.break_minutes',
          'e.net_seconds',
          'e.status',
          'e.source',
          'e.time_zone',
          'e.notes',
          'e.note',
          'e.clock_in_event',
          'e.clock_out_event',
          'e.version',
          'e.review_flags',
          'e.created_at',
          'e.updated_at',
          'e.created_by_id',
          'e.closed_by_id',
          'e.device_id',
          'e.edited',
          'e.auto_closed',
        ])
        .where('e.company_id', '=', companyId)
        .orderBy('p.external_id')
        .orderBy('e.start_at')
        .execute();
      const breaks = await db
        .selectFrom('time_entry_breaks as b')
        .innerJoin('employees as p', 'p.id', 'b.employee_id')
        .select([
          'p.external_id',
          'b.start_at',
          'b.end_at',
          'b.start_time',
          'b.end_time',
          'b.start_event',
          'b.end_event',
          'b.updated_at',
          'b.created_by_id',
          'b.closed_by_id',
        ])
        .where('b.company_id', '=', companyId)
        .orderBy('p.external_id')
        .orderBy('b.start_at')
        .execute();
      const revisions = await db
        .selectFrom('time_entry_revisions as r')
        .innerJoin('time_entries as e', 'e.id', 'r.time_entry_id')
        .select(['e.start_at', 'r.revision', 'r.action', 'r.at', 'r.changes', 'r.actor_kind', 'r.actor_id'])
        .where('r.company_id', '=', companyId)
        .orderBy('e.start_at')
        .orderBy('r.revision')
        .execute();
      const audit = await db
        .selectFrom('audit_log')
        .select(['action', 'details', 'created_at', 'actor_type', 'actor_id', 'target_id'])
        .where('company_id', '=', companyId)
        .where('action', 'like', 'time_entry.%')
        .orderBy('created_at')
        .orderBy('action')
        .execute();
      const events = await db
        .selectFrom('events')
        .select(['type', 'occurred_at', 'data'])
        .where('company_id', '=', companyId)
        .orderBy('seq')
        .execute();
      const stored = await db
        .selectFrom('idempotency_records')
        .select(['idempotency_key', 'state', 'response_status', 'response_body'])
        .where('company_id', '=', companyId)
        .orderBy('idempotency_key')
        .execute();
      return normalised(
        JSON.stringify({
          entries: entries.map((e) => ({ ...e, ends_next_day: Number(e.ends_next_day) })),
          breaks,
          revisions,
          // Rows of one instant (the test's clock stands still) in no particular order: sorted here.
          audit: audit
            .map((a) =>
              JSON.stringify(
                normalised(
                  JSON.stringify({ ...a, details: a.details === null ? null : JSON.parse(a.details) }),
                ),
              ),
            )
            .sort(),
          events: events.map((e) => ({ ...e, data: JSON.parse(e.data) })),
          stored: stored.map((r) => ({
            ...r,
            response_body: r.response_body && JSON.parse(r.response_body),
          })),
        }),
      );
    }

    /** How many batches ran in each form (punchclock_batch_forms_total). */
    async function forms(): Promise<Record<string, number>> {
      const metric = await suite.server.services.metrics.batchForms.get();
      const counts: Record<string, number> = {};
      for (const v of metric.values)
        counts[String(v.labels.form)] = (counts[String(v.labels.form)] ?? 0) + v.value;
      return counts;
    }
    /** How many batches ran in each form for each reason ("together|key_in_flight"). */
    async function reasons(): Promise<Record<string, number>> {
      const metric = await suite.server.services.metrics.batchForms.get();
      return Object.fromEntries(
        metric.values.map((v) => [`${String(v.labels.form)}|${String(v.labels.reason)}`, v.value]),
      );
    }

    /** The same events sent one by one to one tenant and as a batch to another: the same answers and rows. */
    async function sameAsSingles(events: Json[], options: { employeeCount: number; before?: Json[] }) {
      const single = await berlin({ employeeCount: options.employeeCount });
      const batched = await berlin({ employeeCount: options.employeeCount });
      for (const event of options.before ?? []) {
        expect((await single.clock(event)).status).toBeLessThan(300);
        expect((await batched.clock(event)).status).toBeLessThan(300);
      }
      const one: Reply[] = [];
      for (const event of events) {
        const { idempotencyKey, ...fields } = event as { idempotencyKey?: string };
        one.push(await single.clock(fields, idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}));
      }
      const before = await forms();
      const reply = await call(suite.server, batched.token, 'POST', BATCH, { events });
      expect(reply.status).toBe(200);
      expect((await forms()).set ?? 0).toBe((before.set ?? 0) + 1);
      const got = results(reply);
      expect(got.map((r) => r.status)).toEqual(one.map((r) => r.status));
      for (const [i, r] of got.entries())
        expect(normalised(JSON.stringify(r.body)), `event ${i}`).toEqual(normalised(one[i]!.text));
      expect(await footprint(batched)).toEqual(await footprint(single));
      expect(await contents(batched)).toEqual(await contents(single));
      return { single, batched, got, one };
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
      const before = await forms();
      const reply = await call(suite.server, batched.token, 'POST', BATCH, { events });
      expect(reply.status).toBe(200);
      // Decided as a set: not punch by punch.
      expect((await forms()).set ?? 0).toBe((before.set ?? 0) + 1);
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
      expect(await contents(batched)).toEqual(await contents(single));
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

    it('one employee many times, on a session and a break open before the batch: each punch on the state the ones before it left', async () => {
      const before = [
        ev('EXT-0', 'clock_in', T0 - 9 * HOUR),
        ev('EXT-0', 'break_start', T0 - 8 * HOUR),
        ev('EXT-1', 'clock_in', T0 - 10 * HOUR),
        ev('EXT-1', 'clock_out', T0 - 8 * HOUR),
      ];
      const events: Json[] = [
        ev('EXT-0', 'break_end', T0 - 7 * HOUR - 30 * MINUTE, { idempotencyKey: 'm-1' }), // ends the break of before
        ev('EXT-0', 'break_end', T0 - 7 * HOUR), // not on a break any more
        ev('EXT-0', 'break_start', T0 - 6 * HOUR, { note: 'lunch', deviceId: 'T-1' }),
        ev('EXT-0', 'break_start', T0 - 6 * HOUR, { note: 'lunch', deviceId: 'T-1' }), // header-less duplicate
        ev('EXT-0', 'toggle', T0 - 5 * HOUR, { idempotencyKey: 'm-2' }), // clock-out during the break
        ev('EXT-0', 'clock_in', T0 - 5 * HOUR - 10 * MINUTE), // inside the entry it closed
        ev('EXT-0', 'toggle', T0 - 4 * HOUR), // a new session
        ev('EXT-0', 'break_start', T0 - 3 * HOUR),
        ev('EXT-0', 'break_end', T0 - 3 * HOUR - MINUTE), // before its start: out of order
        ev('EXT-0', 'break_end', T0 - 2 * HOUR),
        ev('EXT-0', 'clock_out', T0 - HOUR, { note: 'done' }),
        ev('EXT-0', 'clock_out', T0 - HOUR, { note: 'done' }), // header-less duplicate of a clock-out
        ev('EXT-1', 'clock_in', T0 - 9 * HOUR), // inside the entry of before
        ev('EXT-1', 'clock_in', T0 - 7 * HOUR, { idempotencyKey: 'm-3' }),
        ev('EXT-1', 'clock_in', T0 - 6 * HOUR), // already clocked in
        ev('EXT-1', 'clock_out', T0 + 4 * HOUR), // closes the session opened at T0 - 7 h
        ev('EXT-1', 'clock_out', T0 - 7 * HOUR - MINUTE), // before its clock-in
        ev('EXT-1', 'toggle', T0 - 30 * MINUTE),
        ev('EXT-2', 'toggle', T0 - 2 * DAY), // a clock-in two days back
        ev('EXT-2', 'toggle', T0 - HOUR), // 24 hours or more: a new clock-in (toggle), not a clock-out
        ev('EXT-2', 'clock_out', T0 - 30 * MINUTE), // the session of two days back is too long
        ev('EXT-3', 'break_start', T0 - HOUR), // no session
      ];
      const { got } = await sameAsSingles(events, { employeeCount: 4, before });
      expect(got.filter((r) => r.status === 201).length).toBeGreaterThan(8);
    });

    it('confirmed days and closed periods refuse the punches on them, in a batch as one by one', async () => {
      const events: Json[] = [
        ev('EXT-0', 'clock_in', T0 - 2 * DAY - 8 * HOUR),
        ev('EXT-1', 'clock_in', T0 - 2 * DAY - 8 * HOUR, { idempotencyKey: 'c-1' }),
        ev('EXT-1', 'clock_in', T0 - 8 * HOUR),
        ev('EXT-2', 'clock_in', T0 - 8 * HOUR),
        ev('EXT-2', 'clock_out', T0 - 2 * HOUR),
      ];
      const db = suite.server.database.db;
      const single = await berlin({ employeeCount: 3 });
      const batched = await berlin({ employeeCount: 3 });
      for (const tenant of [single, batched]) {
        // EXT-0 confirmed the day two days back; the company closed that day for everyone.
        await db
          .insertInto('confirmed_days')
          .values({
            employee_id: tenant.fixture.employees[0]!.id,
            work_date: '2026-11-11',
            confirmed_at: iso(T0),
          })
          .execute();
        await db
          .insertInto('locked_periods')
          .values({
            id: `00000000-0000-4000-8000-${tenant.fixture.companyId.slice(-12)}`,
            company_id: tenant.fixture.companyId,
            workplace_id: null,
            from_date: '2026-11-10',
            to_date: '2026-11-11',
            closed_at: iso(T0),
            closed_by_kind: 'system',
            closed_by_id: null,
            reopened_at: null,
            reopened_by_kind: null,
            reopened_by_id: null,
            reopen_reason: null,
          })
          .execute();
      }
      const one: Reply[] = [];
      for (const event of events) {
        const { idempotencyKey, ...fields } = event as { idempotencyKey?: string };
        one.push(await single.clock(fields, idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}));
      }
      const reply = await call(suite.server, batched.token, 'POST', BATCH, { events });
      const got = results(reply);
      expect(got.map((r) => r.status)).toEqual(one.map((r) => r.status));
      expect(got.filter((r) => r.body.error === 'day_locked').length).toBeGreaterThan(0);
      for (const [i, r] of got.entries())
        expect(normalised(JSON.stringify(r.body)), `event ${i}`).toEqual(normalised(one[i]!.text));
      expect(await contents(batched)).toEqual(await contents(single));
    });

    it('a key twice in one batch replays its first outcome; another punch under it is 422; the batch sent again replays', async () => {
      const events: Json[] = [
        ev('EXT-0', 'clock_in', T0 - 8 * HOUR, { idempotencyKey: 'd-1' }),
        ev('EXT-0', 'clock_in', T0 - 8 * HOUR, { idempotencyKey: 'd-1' }), // the same punch: replays
        ev('EXT-1', 'clock_out', T0 - 8 * HOUR, { idempotencyKey: 'd-2' }), // a refusal, stored
        ev('EXT-1', 'clock_out', T0 - 8 * HOUR, { idempotencyKey: 'd-2' }), // replays the refusal
        ev('EXT-1', 'clock_in', T0 - 8 * HOUR, { idempotencyKey: 'd-1' }), // another punch: 422
        ev('EXT-1', 'clock_in', T0 - 7 * HOUR),
        ev('EXT-0', 'clock_out', T0 - 2 * HOUR, { idempotencyKey: 'd-3' }),
      ];
      // Sent twice: the second batch replays every keyed punch and meets the header-less one's entry.
      const { batched, got } = await sameAsSingles([...events, ...events], { employeeCount: 2 });
      expect(got.map((r) => r.status)).toEqual([
        201, 201, 409, 409, 422, 201, 201, 201, 201, 409, 409, 422, 200, 201,
      ]);
      expect(JSON.stringify(got[1]!.body)).toBe(JSON.stringify(got[0]!.body));
      // And a third time, alone: byte for byte the first answers of the keyed punches.
      const again = results(await call(suite.server, batched.token, 'POST', BATCH, { events }));
      for (const i of [0, 1, 2, 3, 6])
        expect(JSON.stringify(again[i]!.body)).toBe(JSON.stringify(got[i]!.body));
      expect(again[4]!.status).toBe(422);
    });

    it('a key held by a request still running: the batch runs punch by punch, with the same answers', async () => {
      if (dialect.name !== 'postgres') return;
      const tenant = await berlin({ employeeCount: 2 });
      const db = suite.server.database;
      const name = `idempotency|${tenant.fixture.companyId}|${tenant.fixture.key.id}|held-1`;
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let held!: () => void;
      const taken = new Promise<void>((resolve) => (held = resolve));
      const holding = db.transaction(async (tx) => {
        await sql`select pg_advisory_xact_lock(hashtextextended(${name}, 0))`.execute(tx);
        held();
        await released;
      });
      await taken;
      const before = await forms();
      const beforeReasons = await reasons();
      const sent = call(suite.server, tenant.token, 'POST', BATCH, {
        events: [
          ev('EXT-0', 'clock_in', T0 - 8 * HOUR, { idempotencyKey: 'held-1' }),
          ev('EXT-1', 'clock_in', T0 - 8 * HOUR, { idempotencyKey: 'free-1' }),
        ],
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      release();
      await holding;
      const got = results(await sent);
      expect(got.map((r) => r.status)).toEqual([201, 201]);
      const after = await forms();
      expect(after.set ?? 0).toBe(before.set ?? 0);
      expect((after.together ?? 0) + (after.one_by_one ?? 0)).toBe(
        (before.together ?? 0) + (before.one_by_one ?? 0) + 1,
      );
      const why = await reasons();
      const inFlight = (r: Record<string, number>) =>
        (r['together|key_in_flight'] ?? 0) + (r['one_by_one|key_in_flight'] ?? 0);
      expect(inFlight(why)).toBe(inFlight(beforeReasons) + 1);
      expect((await footprint(tenant)).entries).toBe(2);
    });

    it('a database refusal of the set form: the batch runs punch by punch, with the same answers and rows', async () => {
      if (dialect.name !== 'postgres') return;
      const db = suite.server.database.db;
      // A refusal only a multi-row insert meets: the savepoint path inserts one entry a statement.
      await sql`create function refuse_many_entries() returns trigger language plpgsql as $$
        begin
          if (select count(*) from inserted) > 1 then raise exception 'one entry at a time'; end if;
          return null;
        end $$`.execute(db);
      await sql`create trigger refuse_many_entries after insert on time_entries
        referencing new table as inserted for each statement execute function refuse_many_entries()`.execute(
        db,
      );
      try {
        const events: Json[] = [
          ev('EXT-0', 'clock_in', T0 - 8 * HOUR, { idempotencyKey: 'r-1' }),
          ev('EXT-1', 'clock_in', T0 - 8 * HOUR),
          ev('EXT-1', 'clock_out', T0 - 9 * HOUR), // before its clock-in
          ev('EXT-0', 'clock_out', T0 - 2 * HOUR, { idempotencyKey: 'r-2' }),
        ];
        const single = await berlin({ employeeCount: 2 });
        const batched = await berlin({ employeeCount: 2 });
        const one: Reply[] = [];
        for (const event of events) {
          const { idempotencyKey, ...fields } = event as { idempotencyKey?: string };
          one.push(await single.clock(fields, idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}));
        }
        const before = await forms();
        const beforeReasons = await reasons();
        const got = results(await call(suite.server, batched.token, 'POST', BATCH, { events }));
        const after = await forms();
        expect(after.set ?? 0).toBe(before.set ?? 0);
        expect(after.together ?? 0).toBe((before.together ?? 0) + 1);
        // Counted as the database's refusal, not as an error of the set form.
        expect((await reasons())['together|db_refused'] ?? 0).toBe(
          (beforeReasons['together|db_refused'] ?? 0) + 1,
        );
        expect(got.map((r) => r.status)).toEqual([201, 201, 409, 201]);
        for (const [i, r] of got.entries())
          expect(normalised(JSON.stringify(r.body)), `event ${i}`).toEqual(normalised(one[i]!.text));
        expect(await contents(batched)).toEqual(await contents(single));
      } finally {
        await sql`drop trigger refuse_many_entries on time_entries`.execute(db);
        await sql`drop function refuse_many_entries()`.execute(db);
      }
    });

    it('a history around the read window (a shift two days back with a lunch break): decided as a set, answers as one by one', async () => {
      // The shift started before the batch's read window (its earliest punch − 48 h), its break after.
      const before = [
        ev('EXT-0', 'clock_in', T0 - 2 * DAY - HOUR),
        ev('EXT-0', 'break_start', T0 - 2 * DAY + 2 * HOUR),
        ev('EXT-0', 'break_end', T0 - 2 * DAY + 2 * HOUR + 30 * MINUTE),
        ev('EXT-0', 'clock_out', T0 - 2 * DAY + 7 * HOUR),
        ev('EXT-1', 'clock_in', T0 - DAY - 8 * HOUR),
        ev('EXT-1', 'break_start', T0 - DAY - 4 * HOUR),
        ev('EXT-1', 'break_end', T0 - DAY - 3 * HOUR),
        ev('EXT-1', 'clock_out', T0 - DAY),
      ];
      const events: Json[] = [
        ev('EXT-0', 'clock_in', T0),
        ev('EXT-0', 'break_start', T0 + HOUR),
        ev('EXT-0', 'break_start', T0 + HOUR), // header-less duplicate of a break
        ev('EXT-0', 'break_end', T0 + 2 * HOUR),
        ev('EXT-1', 'clock_in', T0 + HOUR),
        ev('EXT-0', 'clock_out', T0 + 3 * HOUR),
      ];
      await sameAsSingles(events, { employeeCount: 2, before });
    });

    it('an offline device syncing yesterday after a later shift with a break is recorded: decided as a set', async () => {
      // Today's shift, with a break, is recorded first; yesterday's punches arrive afterwards.
      const before = [
        ev('EXT-0', 'clock_in', T0 - 2 * HOUR),
        ev('EXT-0', 'break_start', T0),
        ev('EXT-0', 'break_end', T0 + 30 * MINUTE),
        ev('EXT-0', 'clock_out', T0 + 3 * HOUR),
        ev('EXT-1', 'clock_in', T0 - 30 * HOUR),
        ev('EXT-1', 'clock_out', T0 - 22 * HOUR),
      ];
      const events: Json[] = [
        ev('EXT-0', 'clock_in', T0 - 20 * HOUR),
        ev('EXT-0', 'break_start', T0 - 16 * HOUR),
        ev('EXT-0', 'break_end', T0 - 15 * HOUR),
        ev('EXT-0', 'clock_out', T0 - 12 * HOUR),
        ev('EXT-1', 'clock_in', T0 - 20 * HOUR),
      ];
      const { got } = await sameAsSingles(events, { employeeCount: 2, before });
      expect(got.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    });

    it('overlapping closed periods: the 409 names the same period in a batch as one by one', async () => {
      const db = suite.server.database.db;
      const single = await berlin({ employeeCount: 1 });
      const batched = await berlin({ employeeCount: 1 });
      for (const tenant of [single, batched]) {
        // Two periods ending the same day: the one of the larger id stored first, so a read in stored
        // (or index) order finds it first; both paths name the one of the smaller id (to_date, then id).
        for (const [prefix, from_date, to_date] of [
          ['ffffffff-0000-4000-8000-', '2026-11-01', '2026-11-10'],
          ['00000000-0000-4000-8000-', '2026-11-09', '2026-11-10'],
        ] as const)
          await db
            .insertInto('locked_periods')
            .values({
              id: `${prefix}${tenant.fixture.companyId.slice(-12)}`,
              company_id: tenant.fixture.companyId,
              workplace_id: null,
              from_date,
              to_date,
              closed_at: iso(T0),
              closed_by_kind: 'system',
              closed_by_id: null,
              reopened_at: null,
              reopened_by_kind: null,
              reopened_by_id: null,
              reopen_reason: null,
            })
            .execute();
      }
      const events: Json[] = [ev('EXT-0', 'clock_in', T0 - 2 * HOUR)];
      const one = await single.clock(events[0]!);
      const got = results(await call(suite.server, batched.token, 'POST', BATCH, { events }));
      expect(got[0]!.status).toBe(409);
      expect(String(got[0]!.body.detail)).toContain('2026-11-09 to 2026-11-10');
      expect(one.text).toContain('2026-11-09 to 2026-11-10');
      expect(normalised(JSON.stringify(got[0]!.body))).toEqual(normalised(one.text));
    });

    it('a batch reaching back 29 days over a long history binds few parameters: decided as a set', async () => {
      const tenant = await berlin({ employeeCount: 1 });
      expect((await tenant.clock(ev('EXT-0', 'clock_in', T0 - 26 * DAY))).status).toBe(201);
      expect((await tenant.clock(ev('EXT-0', 'clock_out', T0 - 26 * DAY + MINUTE))).status).toBe(201);
      const db = suite.server.database.db;
      const model = await db
        .selectFrom('time_entries')
        .selectAll()
        .where('company_id', '=', tenant.fixture.companyId)
        .executeTakeFirstOrThrow();
      // 33,000 short entries of the month (more than SQLite's 32,766 bound parameters), in one statement each thousand.
      const start = T0 - 25 * DAY;
      const rows = Array.from({ length: 33_000 }, (_, i) => {
        const at = start + i * 60_000;
        return {
          ...model,
          id: randomUUID(),
          start_at: iso(at),
          end_at: iso(at + 30_000),
          work_date: iso(at).slice(0, 10),
        };
      });
      for (let i = 0; i < rows.length; i += 1_000) {
        const chunk = rows.slice(i, i + 1_000);
        await db.insertInto('time_entries').values(chunk).execute();
      }
      const before = await reasons();
      const reply = await call(suite.server, tenant.token, 'POST', BATCH, {
        events: [
          ev('EXT-0', 'clock_in', T0 - 26 * DAY + 2 * HOUR),
          ev('EXT-0', 'clock_out', T0 - 26 * DAY + 3 * HOUR),
          ev('EXT-0', 'clock_in', T0 - HOUR),
        ],
      });
      expect(results(reply).map((r) => r.status)).toEqual([201, 201, 201]);
      const after = await reasons();
      expect(after['set|none'] ?? 0).toBe((before['set|none'] ?? 0) + 1);
    }, 120_000);

    it('a kiosk device batch: decided as a set, the same answers, rows, device ids and unknown badges as one by one', async () => {
      const single = await berlin({ employeeCount: 2 });
      const batched = await berlin({ employeeCount: 2 });
      const deviceToken = async (tenant: Tenant) => {
        const device = await enrolledDevice(suite.server, tenant.fixture.workplaceId);
        return { device, token: await fetchToken(suite.server, device.clientId, device.clientSecret) };
      };
      const [alone, together] = [await deviceToken(single), await deviceToken(batched)];
      const events: Json[] = [
        ev('EXT-0', 'clock_in', T0 - 8 * HOUR),
        ev('EXT-0', 'break_start', T0 - 6 * HOUR),
        ev('EXT-0', 'break_start', T0 - 6 * HOUR), // a header-less duplicate
        ev('UNKNOWN-1', 'clock_in', T0 - 6 * HOUR), // an unknown badge: 404, counted
        ev('EXT-1', 'toggle', T0 - 5 * HOUR),
        ev('EXT-0', 'clock_out', T0 - 2 * HOUR),
        ev('EXT-1', 'clock_out', T0 - 9 * HOUR), // before its clock-in
      ];
      const one: Reply[] = [];
      for (const event of events) one.push(await call(suite.server, alone.token, 'POST', EVENTS, event));
      const before = await forms();
      const reply = await call(suite.server, together.token, 'POST', BATCH, { events });
      expect(reply.status).toBe(200);
      expect((await forms()).set ?? 0).toBe((before.set ?? 0) + 1);
      const got = results(reply);
      expect(got.map((r) => r.status)).toEqual(one.map((r) => r.status));
      expect(got.map((r) => r.status)).toEqual([201, 201, 200, 404, 201, 201, 409]);
      for (const [i, r] of got.entries())
        expect(normalised(JSON.stringify(r.body)), `event ${i}`).toEqual(normalised(one[i]!.text));
      expect(await contents(batched)).toEqual(await contents(single));
      const db = suite.server.database.db;
      const entries = await db
        .selectFrom('time_entries')
        .select(['device_id', 'source'])
        .where('company_id', '=', batched.fixture.companyId)
        .execute();
      expect(entries.length).toBe(2);
      for (const e of entries) expect(e).toEqual({ device_id: together.device.id, source: 'kiosk' });
      const failures = async (deviceId: string) =>
        (await db.selectFrom('kiosk_badge_failures').select('id').where('device_id', '=', deviceId).execute())
          .length;
      expect(await failures(together.device.id)).toBe(1);
      expect(await failures(alone.device.id)).toBe(1);
    });
  },
);
