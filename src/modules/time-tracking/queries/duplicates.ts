import { type BreakRow } from './breaks.js';
import { type Executor } from '../../../platform/db/database.js';
import { ONE_ROW, prepareQuery } from '../../../platform/db/prepared.js';
import { type TimeEntryRow } from '../../../platform/db/schema.js';

/* The punch a retry repeats: the one duplicate lookup of a punch and of a break punch. */

/*
 * The overlap and duplicate checks below look back from an instant. Every entry this service stores
 * lasts less than 24 hours (a longer session or shift is refused), so a completed entry that reaches
 * an instant started less than a day before it: callers pass that bound (`startedAfter`), and the
 * lookup reads the few entries of that day from the (employee_id, start_at) index instead of the
 * employee's whole history, which grew with every day worked.
 */

function duplicateStart(
  db: Executor,
  employeeId: string,
  sentType: string,
  callerId: string,
  from: string,
  to: string,
) {
  return db
    .selectFrom('time_entries')
    .selectAll()
    .where('employee_id', '=', employeeId)
    .where('clock_in_event', '=', sentType)
    .where('created_by_id', '=', callerId)
    .where('start_at', '>=', from)
    .where('start_at', '<=', to)
    .orderBy('start_at', 'desc')
    .limit(ONE_ROW);
}

function duplicateEnd(
  db: Executor,
  employeeId: string,
  sentType: string,
  callerId: string,
  from: string,
  to: string,
  startedAfter: string,
) {
  return db
    .selectFrom('time_entries')
    .selectAll()
    .where('employee_id', '=', employeeId)
    .where('start_at', '>', startedAfter)
    .where('clock_out_event', '=', sentType)
    .where('closed_by_id', '=', callerId)
    .where('end_at', '>=', from)
    .where('end_at', '<=', to)
    .orderBy('end_at', 'desc')
    .limit(ONE_ROW);
}

interface DuplicateInput {
  employeeId: string;
  sentType: string;
  callerId: string;
  from: string;
  to: string;
  startedAfter: string;
}

const duplicateStartQuery = prepareQuery((db, p: DuplicateInput) =>
  duplicateStart(db, p.employeeId, p.sentType, p.callerId, p.from, p.to),
);

const duplicateEndQuery = prepareQuery((db, p: DuplicateInput) =>
  duplicateEnd(db, p.employeeId, p.sentType, p.callerId, p.from, p.to, p.startedAfter),
);

/** Spec, Idempotency rule 6: a punch of the same type, by the same caller, within the window of an existing one. */
export async function findDuplicatePunch(
  db: Executor,
  input: DuplicateInput,
): Promise<{ entry: TimeEntryRow; matched: 'start' | 'end' } | undefined> {
  const started = await duplicateStartQuery.executeTakeFirst(db, input);
  if (started) return { entry: started, matched: 'start' };
  const ended = await duplicateEndQuery.executeTakeFirst(db, input);
  return ended ? { entry: ended, matched: 'end' } : undefined;
}

const duplicateBreakStartQuery = prepareQuery((db, p: DuplicateInput) =>
  db
    .selectFrom('time_entry_breaks')
    .selectAll()
    .where('employee_id', '=', p.employeeId)
    .where('start_event', '=', p.sentType)
    .where('created_by_id', '=', p.callerId)
    .where('start_at', '>=', p.from)
    .where('start_at', '<=', p.to)
    .orderBy('start_at', 'desc')
    .limit(ONE_ROW),
);

const duplicateBreakEndQuery = prepareQuery((db, p: DuplicateInput) =>
  db
    .selectFrom('time_entry_breaks')
    .selectAll()
    .where('employee_id', '=', p.employeeId)
    .where('start_at', '>', p.startedAfter)
    .where('end_event', '=', p.sentType)
    .where('closed_by_id', '=', p.callerId)
    .where('end_at', '>=', p.from)
    .where('end_at', '<=', p.to)
    .orderBy('end_at', 'desc')
    .limit(ONE_ROW),
);

const entryByIdQuery = prepareQuery((db, p: { id: string }) =>
  db.selectFrom('time_entries').selectAll().where('id', '=', p.id),
);

/**
 * Spec, Idempotency rule 6, for break punches: a `break_start` (`break_end`) by the same caller within
 * the window of an existing break's start (end), with the entry it belongs to.
 */
export async function findDuplicateBreakPunch(
  db: Executor,
  input: DuplicateInput,
): Promise<{ entry: TimeEntryRow; brk: BreakRow; matched: 'start' | 'end' } | undefined> {
  const matched =
    input.sentType === 'break_start'
      ? { brk: await duplicateBreakStartQuery.executeTakeFirst(db, input), matched: 'start' as const }
      : { brk: await duplicateBreakEndQuery.executeTakeFirst(db, input), matched: 'end' as const };
  if (!matched.brk) return undefined;
  const entry = await entryByIdQuery.executeTakeFirst(db, { id: matched.brk.time_entry_id });
  return entry ? { entry, brk: matched.brk, matched: matched.matched } : undefined;
}
