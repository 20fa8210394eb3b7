import {
  type Database,
  type Executor,
  lockedStatement,
  transactionLock,
  type Tx,
} from '../../platform/db/database.js';
import { boundLimit, prepareQuery } from '../../platform/db/prepared.js';
import { columnsOf, insertRows } from '../../platform/db/update-rows.js';
import { type EventsTable } from '../../platform/db/schema.js';

/**
 * SQLite: takes the next `count` numbers of the company's event sequence and returns the first, in the
 * writer's transaction (write transactions are serial, so numbers follow commit order). PostgreSQL
 * numbers after the commit instead (numberPendingEvents).
 */
export async function takeSequence(tx: Tx, companyId: string, count: number): Promise<number> {
  const row = await tx
    .insertInto('event_sequences')
    .values({ company_id: companyId, last_seq: count, pruned_through: 0 })
    .onConflict((oc) =>
      oc.column('company_id').doUpdateSet((eb) => ({ last_seq: eb('event_sequences.last_seq', '+', count) })),
    )
    .returning('last_seq')
    .executeTakeFirstOrThrow();
  return Number(row.last_seq) - count + 1;
}

export async function insertEvents(tx: Tx, rows: EventsTable[]): Promise<void> {
  if (rows.length > 0) await insertRows(tx, 'events', columnsOf(rows), rows);
}

/** Events written unnumbered (PostgreSQL), numbered after the commit by numberPendingEvents. */
export async function insertPendingEvents(tx: Tx, rows: Omit<EventsTable, 'seq'>[]): Promise<void> {
  if (rows.length > 0) await insertRows(tx, 'pending_events', columnsOf(rows), rows);
}

/** Whether any event waits for its number (the sequencer's poll asks this before it takes its lock). */
export async function hasPendingEvents(db: Executor): Promise<boolean> {
  const row = await db.selectFrom('pending_events').select('pos').limit(1).executeTakeFirst();
  return row !== undefined;
}

/** The name of the lock one numbering transaction at a time holds, across every instance. */
const SEQUENCER_LOCK = 'punchclock:event-sequencer';
/** At most this many events per numbering transaction. */
export const NUMBERING_LIMIT = 2000;

/*
 * Numbers up to NUMBERING_LIMIT committed pending events (the oldest by `pos`) and moves them into
 * `events`, every company's after its last number, in `pos` order. The companies' `event_sequences`
 * rows are locked in `company_id` order (the order every other multi-company writer of them must use
 * too; retention takes one row at a time). One statement: the rows deleted from
 * `pending_events` are exactly the ones inserted into `events`, with the new `last_seq` of each company.
 */
const NUMBER_PENDING = `
    with picked as (
      select pos from pending_events order by pos limit ${NUMBERING_LIMIT}
    ), moved as (
      delete from pending_events p using picked where p.pos = picked.pos
      returning p.pos, p.company_id, p.id, p.type, p.occurred_at, p.data
    ), counts as (
      select company_id, count(*)::integer as n from moved group by company_id
    ), sequences as (
      insert into event_sequences (company_id, last_seq, pruned_through)
      select company_id, n, 0 from counts order by company_id
      on conflict (company_id) do update set last_seq = event_sequences.last_seq + excluded.last_seq
      returning company_id, last_seq
    ), inserted as (
      insert into events (company_id, seq, id, type, occurred_at, data)
      select m.company_id,
             s.last_seq - c.n + row_number() over (partition by m.company_id order by m.pos),
             m.id, m.type, m.occurred_at, m.data
      from moved m
      join counts c on c.company_id = m.company_id
      join sequences s on s.company_id = m.company_id
      returning 1
    )
    select count(*)::integer as moved from inserted`;

/**
 * PostgreSQL: one numbering transaction (see NUMBER_PENDING), under the sequencer's lock, taken first
 * and held to the commit, in one round trip (`lockedStatement`): the next numbering transaction, in any
 * process, reads the pending events and the sequences only after this one committed. Returns how many
 * events it numbered.
 */
export async function numberPendingEvents(db: Executor): Promise<number> {
  const rows = await lockedStatement<{ moved: number }>(db, SEQUENCER_LOCK, NUMBER_PENDING);
  return Number(rows[0]?.moved ?? 0);
}

/**
 * Numbers committed pending events in the caller's transaction, in `pos` order, each company's after
 * its last number (the same result as NUMBER_PENDING, statement by statement): all of them, or only
 * `companyId`'s. For an import (its own transaction, the pending events it just read from the file)
 * and for numbering company by company after a failed round (numberCompanyPendingEvents). Returns how
 * many it numbered.
 */
export async function numberPendingEventsIn(tx: Tx, companyId: string | null = null): Promise<number> {
  let moved = 0;
  for (;;) {
    const rows = await tx
      .selectFrom('pending_events')
      .selectAll()
      .$if(companyId !== null, (q) => q.where('company_id', '=', companyId!))
      .orderBy('pos')
      .limit(NUMBERING_LIMIT)
      .execute();
    if (rows.length === 0) return moved;
    const byCompany = new Map<string, typeof rows>();
    for (const row of rows) {
      const list = byCompany.get(row.company_id) ?? [];
      list.push(row);
      byCompany.set(row.company_id, list);
    }
    for (const company of [...byCompany.keys()].sort()) {
      const list = byCompany.get(company)!;
      const first = await takeSequence(tx, company, list.length);
      await insertEvents(
        tx,
        list.map((row, i) => ({
          company_id: company,
          seq: first + i,
          id: row.id,
          type: row.type,
          occurred_at: row.occurred_at,
          data: row.data,
        })),
      );
    }
    await tx
      .deleteFrom('pending_events')
      .where(
        'pos',
        'in',
        rows.map((row) => row.pos),
      )
      .execute();
    moved += rows.length;
  }
}

/** The companies with events waiting for their number, in `company_id` order. */
export async function companiesWithPendingEvents(db: Executor): Promise<string[]> {
  const rows = await db
    .selectFrom('pending_events')
    .select('company_id')
    .distinct()
    .orderBy('company_id')
    .execute();
  return rows.map((row) => row.company_id);
}

/**
 * PostgreSQL: one company's pending events numbered in a transaction of their own under the
 * sequencer's lock (taken first, as numberPendingEvents does): the way round a round that fails, so
 * that one company's failure does not stop the others'.
 */
export async function numberCompanyPendingEvents(database: Database, companyId: string): Promise<number> {
  return database.transaction(async (tx) => {
    await transactionLock(tx, SEQUENCER_LOCK);
    return numberPendingEventsIn(tx, companyId);
  });
}

/** The company's sequence: the last number handed out and the last one removed by retention. */
export async function sequenceOf(
  db: Executor,
  companyId: string,
): Promise<{ lastSeq: number; prunedThrough: number }> {
  const row = await db
    .selectFrom('event_sequences')
    .select(['last_seq', 'pruned_through'])
    .where('company_id', '=', companyId)
    .executeTakeFirst();
  return { lastSeq: Number(row?.last_seq ?? 0), prunedThrough: Number(row?.pruned_through ?? 0) };
}

const eventsAfter = prepareQuery((db, p: { companyId: string; after: number; limit: number }) =>
  db
    .selectFrom('events')
    .select(['seq', 'id', 'type', 'occurred_at', 'data'])
    .where('company_id', '=', p.companyId)
    .where('seq', '>', p.after)
    .orderBy('seq')
    .limit(boundLimit(p.limit)),
);

/** The company's events after `after`, in sequence order, of the given types only (all when null). */
export async function readEventsAfter(
  db: Executor,
  companyId: string,
  after: number,
  types: readonly string[] | null,
  limit: number,
) {
  if (types === null) return eventsAfter.execute(db, { companyId, after, limit });
  return db
    .selectFrom('events')
    .select(['seq', 'id', 'type', 'occurred_at', 'data'])
    .where('company_id', '=', companyId)
    .where('seq', '>', after)
    .where('type', 'in', types)
    .orderBy('seq')
    .limit(limit)
    .execute();
}

/** Retention deletes a company's events in chunks of at most this many numbers, each its own statement. */
export const PRUNE_CHUNK = 1000;

/**
 * Removes events that occurred before `cutoff`: for each company, every event up to the newest one
 * older than the cutoff (by number, so the retained ones stay contiguous), and records how far it
 * went, so that a cursor pointing into the removed part is known to be expired.
 *
 * No long transaction (issue 32's review): companies one at a time in `company_id` order, each first
 * recording `pruned_through` in one short statement of its own (the only write to `event_sequences`,
 * one row, so it can neither hold up a numbering round for long nor deadlock with one), then deleting
 * in chunks of PRUNE_CHUNK numbers, each chunk its own statement. Recording first: from then on the
 * feed treats the whole range as removed (an expired cursor, `start=oldest` after it), so a reader
 * never sees part of a range disappear under it; a run cut short leaves events the feed no longer
 * shows, and the next run deletes them (they are still older than the cutoff).
 */
export async function pruneEventsBefore(database: Database, cutoff: string): Promise<number> {
  const marks = await database.db
    .selectFrom('events')
    .select(['company_id', (eb) => eb.fn.max('seq').as('through')])
    .where('occurred_at', '<', cutoff)
    .groupBy('company_id')
    .orderBy('company_id')
    .execute();
  let removed = 0;
  for (const { company_id: companyId, through } of marks) {
    const last = Number(through);
    // From the company's oldest event, whatever its time: everything up to `last` goes.
    const oldest = await database.db
      .selectFrom('events')
      .select((eb) => eb.fn.min('seq').as('first'))
      .where('company_id', '=', companyId)
      .executeTakeFirst();
    const first = Number(oldest?.first ?? last);
    await database.db
      .updateTable('event_sequences')
      .set({ pruned_through: last })
      .where('company_id', '=', companyId)
      .where('pruned_through', '<', last)
      .execute();
    for (let from = first - 1; from < last; from += PRUNE_CHUNK) {
      const result = await database.db
        .deleteFrom('events')
        .where('company_id', '=', companyId)
        .where('seq', '>', from)
        .where('seq', '<=', Math.min(from + PRUNE_CHUNK, last))
        .executeTakeFirst();
      removed += Number(result.numDeletedRows);
    }
  }
  return removed;
}
