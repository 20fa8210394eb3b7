import type { Executor, Tx } from '../../../platform/db/database.js';
import type { AttendanceExceptionRow } from '../../../platform/db/schema.js';

/* The rows of attendance exceptions (issue 33): what the job reads and writes, and the lists. */

/** Entries that count as worked (open sessions included); drafts and rejected ones do not. */
const WORKED_STATUSES = ['open', 'pending_approval', 'approved'];

/** Companies with published shifts starting from..to, or with exceptions still open since `sinceDate`. */
export async function companiesToJudge(
  db: Executor,
  input: { from: string; to: string; sinceDate: string },
): Promise<string[]> {
  const withShifts = await db
    .selectFrom('planned_shifts')
    .select('company_id')
    .distinct()
    .where('start_at', '>=', input.from)
    .where('start_at', '<=', input.to)
    .where('status', '=', 'published')
    .execute();
  const withOpen = await db
    .selectFrom('attendance_exceptions')
    .select('company_id')
    .distinct()
    .where('resolved_at', 'is', null)
    .where('date', '>=', input.sinceDate)
    .execute();
  return [...new Set([...withShifts, ...withOpen].map((row) => row.company_id))].sort();
}

export interface JudgedShiftRow {
  id: string;
  version: number;
  employee_id: string;
  workplace_id: string;
  date: string;
  start_at: string;
  end_at: string;
}

/** The company's published shifts (of undeleted employees) starting from..to. */
export async function publishedShiftsBetween(
  db: Executor,
  companyId: string,
  from: string,
  to: string,
): Promise<JudgedShiftRow[]> {
  return db
    .selectFrom('planned_shifts as s')
    .innerJoin('employees as e', 'e.id', 's.employee_id')
    .select(['s.id', 's.version', 's.employee_id', 's.workplace_id', 's.date', 's.start_at', 's.end_at'])
    .where('s.company_id', '=', companyId)
    .where('s.start_at', '>=', from)
    .where('s.start_at', '<=', to)
    .where('s.status', '=', 'published')
    .where('e.deleted_at', 'is', null)
    .execute();
}

export interface WorkedEntryRow {
  id: string;
  employee_id: string;
  work_date: string;
  start_at: string;
  end_at: string | null;
}

/**
 * The company's worked entries started from..to, read employee by employee through the
 * (employee_id, start_at) index.
 */
export async function workedEntriesBetween(
  db: Executor,
  companyId: string,
  from: string,
  to: string,
): Promise<WorkedEntryRow[]> {
  return db
    .selectFrom('employees as e')
    .innerJoin('time_entries as t', 't.employee_id', 'e.id')
    .select(['t.id', 't.employee_id', 't.work_date', 't.start_at', 't.end_at'])
    .where('e.company_id', '=', companyId)
    .where('e.deleted_at', 'is', null)
    .where('t.start_at', '>=', from)
    .where('t.start_at', '<=', to)
    .where('t.status', 'in', WORKED_STATUSES)
    .execute();
}

/**
 * The worked entries of these employee-days (the open `unplanned` exceptions'), wherever they started:
 * whether the day still has work that counts.
 */
export async function workedEntriesOfDays(
  db: Executor,
  days: readonly { employee_id: string; date: string }[],
): Promise<{ employee_id: string; work_date: string; start_at: string }[]> {
  if (days.length === 0) return [];
  const employeeIds = [...new Set(days.map((d) => d.employee_id))];
  const dates = [...new Set(days.map((d) => d.date))];
  const wanted = new Set(days.map((d) => `${d.employee_id}:${d.date}`));
  const rows = await db
    .selectFrom('time_entries')
    .select(['employee_id', 'work_date', 'start_at'])
    .where('employee_id', 'in', employeeIds)
    .where('work_date', 'in', dates)
    .where('status', 'in', WORKED_STATUSES)
    .execute();
  return rows.filter((row) => wanted.has(`${row.employee_id}:${row.work_date}`));
}

/** The company's undeleted employees: their external ids and workplaces. */
export async function employeesOfCompany(
  db: Executor,
  companyId: string,
): Promise<{ id: string; external_id: string | null; workplace_id: string | null }[]> {
  return db
    .selectFrom('employees')
    .select(['id', 'external_id', 'workplace_id'])
    .where('company_id', '=', companyId)
    .where('deleted_at', 'is', null)
    .execute();
}

/** The company's exceptions dated on or after `sinceDate`. */
export async function exceptionsSince(
  db: Executor,
  companyId: string,
  sinceDate: string,
): Promise<AttendanceExceptionRow[]> {
  return db
    .selectFrom('attendance_exceptions')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('date', '>=', sinceDate)
    .execute();
}

/** The present version and status of the shifts among `ids` that still exist. */
export async function shiftStates(
  db: Executor,
  ids: readonly string[],
): Promise<{ id: string; version: number; status: string; start_at: string; end_at: string }[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('planned_shifts')
    .select(['id', 'version', 'status', 'start_at', 'end_at'])
    .where('id', 'in', ids)
    .execute();
}

const INSERT_CHUNK = 200;

/** Inserts exceptions; one whose key is already recorded (by any instance) is skipped. Returns those inserted. */
export async function insertExceptions(
  tx: Tx,
  rows: readonly AttendanceExceptionRow[],
): Promise<AttendanceExceptionRow[]> {
  const inserted: AttendanceExceptionRow[] = [];
  for (let i = 0; i < rows.length; i += INSERT_CHUNK)
    inserted.push(
      ...(await tx
        .insertInto('attendance_exceptions')
        .values(rows.slice(i, i + INSERT_CHUNK))
        .onConflict((oc) => oc.doNothing())
        .returningAll()
        .execute()),
    );
  return inserted;
}

/** Resolves an exception still open (its minutes too, when given): the row, or nothing if it was not open. */
export async function resolveException(
  tx: Tx,
  input: { id: string; at: string; minutes: number | null },
): Promise<AttendanceExceptionRow | undefined> {
  return tx
    .updateTable('attendance_exceptions')
    .set(
      input.minutes === null ? { resolved_at: input.at } : { resolved_at: input.at, minutes: input.minutes },
    )
    .where('id', '=', input.id)
    .where('resolved_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

export type ExceptionFilter = { employeeId: string } | { workplaceId: string } | null;

export type ExceptionListRow = AttendanceExceptionRow & { employee_external_id: string | null };

/** A page of the company's exceptions dated from..to, by date then id. */
export async function listExceptionsPage(
  db: Executor,
  input: {
    companyId: string;
    from: string;
    to: string;
    filter: ExceptionFilter;
    kind: string | null;
    after: { date: string; id: string } | null;
    limit: number;
  },
): Promise<ExceptionListRow[]> {
  const { filter, after } = input;
  let query = db
    .selectFrom('attendance_exceptions as x')
    .innerJoin('employees as e', 'e.id', 'x.employee_id')
    .selectAll('x')
    .select('e.external_id as employee_external_id')
    .where('x.company_id', '=', input.companyId)
    .where('x.date', '>=', input.from)
    .where('x.date', '<=', input.to);
  if (filter && 'employeeId' in filter) query = query.where('x.employee_id', '=', filter.employeeId);
  if (filter && 'workplaceId' in filter) query = query.where('x.workplace_id', '=', filter.workplaceId);
  if (input.kind !== null) query = query.where('x.kind', '=', input.kind);
  if (after)
    query = query.where((eb) =>
      eb.or([
        eb('x.date', '>', after.date),
        eb.and([eb('x.date', '=', after.date), eb('x.id', '>', after.id)]),
      ]),
    );
  return query.orderBy('x.date').orderBy('x.id').limit(input.limit).execute();
}
