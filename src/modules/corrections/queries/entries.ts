import { type Executor, rowLocks, type Tx } from '../../../platform/db/database.js';
import { ONE_ROW } from '../../../platform/db/prepared.js';
import { type TimeEntryBreakRow, type TimeEntryRow } from '../../../platform/db/schema.js';

/* The entry as a change of it (a correction, a decision, a deletion, the automatic clock-out) reads and writes it. */

/** An entry of the company (any company when `companyId` is null). */
export function findEntry(db: Executor, companyId: string | null, id: string) {
  return db
    .selectFrom('time_entries')
    .selectAll()
    .where('id', '=', id)
    .$if(companyId !== null, (q) => q.where('company_id', '=', companyId!))
    .executeTakeFirst();
}

/** An entry's employee (deleted or not) as an EmployeeRef's row. */
export function findEmployeeRef(db: Executor, employeeId: string) {
  return db
    .selectFrom('employees')
    .select(['id', 'external_id'])
    .where('id', '=', employeeId)
    .executeTakeFirstOrThrow();
}

/**
 * The entry's employee (deleted or not) with their workplace's zone, row-locked for the rest of the
 * transaction on PostgreSQL: the lock every punch of the employee takes first, so a change of an entry
 * queues behind the employee's punches and the other changes, on any instance.
 */
export function lockEntryEmployee(tx: Tx, employeeId: string) {
  return tx
    .selectFrom('employees as e')
    .leftJoin('workplaces as w', 'w.id', 'e.workplace_id')
    .select(['e.id', 'e.external_id', 'e.workplace_id', 'w.time_zone as workplace_time_zone'])
    .where('e.id', '=', employeeId)
    .$if(rowLocks(tx), (q) => q.forUpdate('e'))
    .executeTakeFirst();
}

/** The columns a change of an entry writes (besides `updated_at` and `version`, always written). */
const PATCH_COLUMNS = [
  'work_date',
  'start_at',
  'end_at',
  'start_time',
  'end_time',
  'ends_next_day',
  'break_minutes',
  'net_seconds',
  'status',
  'note',
  'approved_at',
  'closed_by_id',
  'clock_out_event',
  'edited',
  'auto_closed',
] as const;

export type EntryPatch = Partial<Pick<TimeEntryRow, (typeof PATCH_COLUMNS)[number]>> & {
  updated_at: string;
  version: number;
};

/** The columns of `row` a change writes. */
export function patchOf(row: TimeEntryRow): EntryPatch {
  const patch: Record<string, unknown> = { updated_at: row.updated_at, version: row.version };
  for (const column of PATCH_COLUMNS) patch[column] = row[column];
  return patch as EntryPatch;
}

/**
 * Writes a change of an entry, if it is still at `expectedVersion` (the row lock makes this certain;
 * the condition keeps it so whatever the caller did). The number of rows changed: 0 or 1.
 */
export async function updateEntry(tx: Tx, id: string, expectedVersion: number, patch: EntryPatch) {
  const result = await tx
    .updateTable('time_entries')
    .set(patch)
    .where('id', '=', id)
    .where('version', '=', expectedVersion)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Removes an entry and its breaks (its revisions stay); 0 when it was no longer at `expectedVersion`. */
export async function deleteEntryRows(tx: Tx, id: string, expectedVersion: number): Promise<number> {
  await tx.deleteFrom('time_entry_breaks').where('time_entry_id', '=', id).execute();
  const result = await tx
    .deleteFrom('time_entries')
    .where('id', '=', id)
    .where('version', '=', expectedVersion)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Replaces an entry's breaks with `rows`. */
export async function replaceBreaks(tx: Tx, entryId: string, rows: TimeEntryBreakRow[]): Promise<void> {
  await tx.deleteFrom('time_entry_breaks').where('time_entry_id', '=', entryId).execute();
  if (rows.length > 0) await tx.insertInto('time_entry_breaks').values(rows).execute();
}

/**
 * Another entry of the employee that meets [from, to) (to null: an open end). Every stored entry lasts
 * less than 24 hours, so one that reaches `from` started less than a day before it (`startedAfter`).
 */
export async function findOverlap(
  db: Executor,
  input: { employeeId: string; entryId: string; from: string; to: string | null; startedAfter: string },
): Promise<string | null> {
  const row = await db
    .selectFrom('time_entries')
    .select('id')
    .where('employee_id', '=', input.employeeId)
    .where('id', '!=', input.entryId)
    .where('start_at', '>', input.startedAfter)
    .$if(input.to !== null, (q) => q.where('start_at', '<', input.to!))
    .where((eb) => eb.or([eb('end_at', 'is', null), eb('end_at', '>', input.from)]))
    .limit(ONE_ROW)
    .executeTakeFirst();
  return row?.id ?? null;
}

/** The schedule in force for the employee on `workDate` (the latest that took effect on or before it), if any. */
export async function scheduleInForce(
  db: Executor,
  employeeId: string,
  workDate: string,
): Promise<string | null> {
  const row = await db
    .selectFrom('employee_schedules')
    .select('schedule_id')
    .where('employee_id', '=', employeeId)
    .where('effective_from', '<=', workDate)
    .orderBy('effective_from', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.schedule_id ?? null;
}
