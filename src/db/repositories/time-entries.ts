import type { Executor } from '../database.js';
import type { NewTimeEntry, TimeEntryRow, TimeEntryUpdate } from '../schema.js';

export async function findOpenSession(db: Executor, employeeId: string): Promise<TimeEntryRow | undefined> {
  return db
    .selectFrom('time_entries')
    .selectAll()
    .where('employee_id', '=', employeeId)
    .where('status', '=', 'open')
    .executeTakeFirst();
}

/** An entry that covers the instant: started at or before it and, once closed, ended after it. */
export async function findEntryCovering(db: Executor, employeeId: string, instant: string) {
  return db
    .selectFrom('time_entries')
    .select('id')
    .where('employee_id', '=', employeeId)
    .where('status', '!=', 'open')
    .where('start_at', '<=', instant)
    .where('end_at', '>', instant)
    .limit(1)
    .executeTakeFirst();
}

/** Any entry other than `exceptId` whose span meets [from, to); an open session reaches to the end of time. */
export async function findEntryOverlapping(
  db: Executor,
  employeeId: string,
  from: string,
  to: string,
  exceptId: string | null = null,
) {
  let query = db
    .selectFrom('time_entries')
    .select(['id', 'work_date', 'status'])
    .where('employee_id', '=', employeeId)
    .where('start_at', '<', to)
    .where((eb) => eb.or([eb('end_at', 'is', null), eb('end_at', '>', from)]));
  if (exceptId !== null) query = query.where('id', '!=', exceptId);
  return query.limit(1).executeTakeFirst();
}

/** Spec, Idempotency rule 6: a punch of the same type, by the same caller, within the window of an existing one. */
export async function findDuplicatePunch(
  db: Executor,
  input: { employeeId: string; sentType: string; callerId: string; from: string; to: string },
): Promise<{ entry: TimeEntryRow; matched: 'start' | 'end' } | undefined> {
  const started = await db
    .selectFrom('time_entries')
    .selectAll()
    .where('employee_id', '=', input.employeeId)
    .where('clock_in_event', '=', input.sentType)
    .where('created_by_id', '=', input.callerId)
    .where('start_at', '>=', input.from)
    .where('start_at', '<=', input.to)
    .orderBy('start_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (started) return { entry: started, matched: 'start' };
  const ended = await db
    .selectFrom('time_entries')
    .selectAll()
    .where('employee_id', '=', input.employeeId)
    .where('clock_out_event', '=', input.sentType)
    .where('closed_by_id', '=', input.callerId)
    .where('end_at', '>=', input.from)
    .where('end_at', '<=', input.to)
    .orderBy('end_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return ended ? { entry: ended, matched: 'end' } : undefined;
}

export async function isDayLocked(db: Executor, employeeId: string, dates: string[]): Promise<boolean> {
  const row = await db
    .selectFrom('confirmed_days')
    .select('work_date')
    .where('employee_id', '=', employeeId)
    .where('work_date', 'in', dates)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export async function insertTimeEntry(db: Executor, entry: NewTimeEntry): Promise<void> {
  await db.insertInto('time_entries').values(entry).execute();
}

export async function updateTimeEntry(db: Executor, id: string, patch: TimeEntryUpdate): Promise<void> {
  await db.updateTable('time_entries').set(patch).where('id', '=', id).execute();
}

export async function listTimeEntriesPage(
  db: Executor,
  input: {
    companyId: string;
    employeeId: string;
    from: string;
    to: string;
    after: { workDate: string; id: string } | null;
    limit: number;
  },
): Promise<TimeEntryRow[]> {
  let query = db
    .selectFrom('time_entries')
    .selectAll()
    .where('employee_id', '=', input.employeeId)
    .where('company_id', '=', input.companyId)
    .where('work_date', '>=', input.from)
    .where('work_date', '<=', input.to);
  const after = input.after;
  if (after)
    query = query.where((eb) =>
      eb.or([
        eb('work_date', '>', after.workDate),
        eb.and([eb('work_date', '=', after.workDate), eb('id', '>', after.id)]),
      ]),
    );
  return query.orderBy('work_date').orderBy('id').limit(input.limit).execute();
}
