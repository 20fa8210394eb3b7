import { type Executor, type Tx } from '../../platform/db/database.js';
import { boundLimit, prepareQuery } from '../../platform/db/prepared.js';
import { type EventsTable } from '../../platform/db/schema.js';

/**
 * Takes the next `count` numbers of the company's event sequence and returns the first. The sequence
 * row stays locked until the transaction ends (the upsert updates it): another transaction appending
 * for the same company waits here until this one has committed or rolled back, so a company's
 * numbers are handed out in commit order, on every instance. (SQLite: write transactions are serial.)
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
  if (rows.length > 0) await tx.insertInto('events').values(rows).execute();
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

/**
 * Removes events that occurred before `cutoff`: for each company, every event up to the newest one
 * older than the cutoff (by number, so the retained ones stay contiguous), and records how far it
 * went, so that a cursor pointing into the removed part is known to be expired.
 */
export async function pruneEventsBefore(tx: Tx, cutoff: string): Promise<number> {
  const marks = await tx
    .selectFrom('events')
    .select(['company_id', (eb) => eb.fn.max('seq').as('through')])
    .where('occurred_at', '<', cutoff)
    .groupBy('company_id')
    .execute();
  let removed = 0;
  for (const { company_id: companyId, through } of marks) {
    const last = Number(through);
    const result = await tx
      .deleteFrom('events')
      .where('company_id', '=', companyId)
      .where('seq', '<=', last)
      .executeTakeFirst();
    removed += Number(result.numDeletedRows);
    await tx
      .updateTable('event_sequences')
      .set({ pruned_through: last })
      .where('company_id', '=', companyId)
      .where('pruned_through', '<', last)
      .execute();
  }
  return removed;
}
