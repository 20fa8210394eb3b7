import { sql } from 'kysely';
import { type Executor, rowLocks, type Tx } from '../../../platform/db/database.js';
import type { LockedPeriodsTable } from '../../../platform/db/schema.js';

/* Rows of closed payroll periods (issue 30), and the automatic clock-out's candidates. */

/** A closed period with the names of who closed (and reopened) it: a key's name or a person's email. */
function periodsWithNames(db: Executor) {
  return db
    .selectFrom('locked_periods as p')
    .leftJoin('api_keys as k1', (join) =>
      join.onRef('k1.id', '=', 'p.closed_by_id').on('p.closed_by_kind', '=', 'api_key'),
    )
    .leftJoin('users as u1', (join) =>
      join.onRef('u1.id', '=', 'p.closed_by_id').on('p.closed_by_kind', '=', 'person'),
    )
    .leftJoin('api_keys as k2', (join) =>
      join.onRef('k2.id', '=', 'p.reopened_by_id').on('p.reopened_by_kind', '=', 'api_key'),
    )
    .leftJoin('users as u2', (join) =>
      join.onRef('u2.id', '=', 'p.reopened_by_id').on('p.reopened_by_kind', '=', 'person'),
    )
    .selectAll('p')
    .select((eb) => [
      eb.fn.coalesce('k1.name', 'u1.email').as('closed_by_name'),
      eb.fn.coalesce('k2.name', 'u2.email').as('reopened_by_name'),
    ]);
}

export type PeriodRow = NonNullable<Awaited<ReturnType<typeof findPeriod>>>;

export function findPeriod(db: Executor, companyId: string | null, id: string) {
  return periodsWithNames(db)
    .where('p.id', '=', id)
    .$if(companyId !== null, (q) => q.where('p.company_id', '=', companyId!))
    .executeTakeFirst();
}

/** The company's closed periods (not reopened), by first day. */
export function listClosedPeriods(db: Executor, companyId: string) {
  return periodsWithNames(db)
    .where('p.company_id', '=', companyId)
    .where('p.reopened_at', 'is', null)
    .orderBy('p.from_date')
    .orderBy('p.id')
    .execute();
}

export async function insertPeriod(tx: Tx, row: LockedPeriodsTable): Promise<void> {
  await lockCompanyEmployees(tx, row.company_id);
  await tx.insertInto('locked_periods').values(row).execute();
}

/*
 * Closing a period against concurrent writes (PostgreSQL, READ COMMITTED). Every write of an entry
 * (a punch, a shift, a correction, a deletion, a decision) first takes its employee's row lock
 * (FOR UPDATE) and only then, in a later statement, reads the closed periods. Closing takes the row
 * locks of all the company's employees before it inserts the period: a write that holds its
 * employee's lock finishes (and commits) before the close goes on, so its entry lands before the
 * period exists; a write that comes later waits for the close to commit, and its check — a new
 * statement, so a new snapshot — sees the period and refuses the day (409 day_locked). No write lands
 * on a day closed by a concurrent close. The rows are locked in id order, so two closes do not deadlock. (The workplace of a period does not narrow the lock: an
 * employee may change workplace meanwhile.) SQLite's write transactions (BEGIN IMMEDIATE) are serial
 * already. Not covered by a test: the interleaving cannot be forced deterministically through the API.
 */
async function lockCompanyEmployees(tx: Tx, companyId: string): Promise<void> {
  if (!rowLocks(tx)) return;
  await tx
    .selectFrom('employees')
    .select('id')
    .where('company_id', '=', companyId)
    .orderBy('id')
    .forUpdate()
    .execute();
}

/** Reopens a closed period; 0 when it was reopened already. */
export async function markReopened(
  tx: Tx,
  id: string,
  reopened: { at: string; kind: string; actorId: string | null; reason: string },
): Promise<number> {
  const result = await tx
    .updateTable('locked_periods')
    .set({
      reopened_at: reopened.at,
      reopened_by_kind: reopened.kind,
      reopened_by_id: reopened.actorId,
      reopen_reason: reopened.reason,
    })
    .where('id', '=', id)
    .where('reopened_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export function findWorkplaceOfCompany(db: Executor, companyId: string, id: string) {
  return db
    .selectFrom('workplaces')
    .select('id')
    .where('id', '=', id)
    .where('company_id', '=', companyId)
    .executeTakeFirst();
}

/** The companies with an automatic clock-out, and their setting. */
export function companiesWithAutoClockOut(db: Executor) {
  return db
    .selectFrom('companies')
    .select(['id', 'auto_clock_out_after_hours as hours'])
    .where('auto_clock_out_after_hours', 'is not', null)
    .execute();
}

/**
 * The company's open sessions that started at or before `startedBy`, oldest first, after `after`.
 * The status is a literal, as in every lookup of open sessions: the partial index on them applies.
 */
export function findDueSessions(
  db: Executor,
  input: { companyId: string; startedBy: string; after: { start: string; id: string } | null; limit: number },
) {
  const { after } = input;
  return db
    .selectFrom('time_entries')
    .select(['id', 'employee_id', 'start_at'])
    .where('status', '=', sql.lit('open'))
    .where('company_id', '=', input.companyId)
    .where('start_at', '<=', input.startedBy)
    .$if(after !== null, (q) =>
      q.where((eb) =>
        eb.or([
          eb('start_at', '>', after!.start),
          eb.and([eb('start_at', '=', after!.start), eb('id', '>', after!.id)]),
        ]),
      ),
    )
    .orderBy('start_at')
    .orderBy('id')
    .limit(input.limit)
    .execute();
}

/** The company's automatic clock-out setting, read again in the closing transaction. */
export async function autoClockOutHours(db: Executor, companyId: string): Promise<number | null> {
  const row = await db
    .selectFrom('companies')
    .select('auto_clock_out_after_hours')
    .where('id', '=', companyId)
    .executeTakeFirst();
  return row?.auto_clock_out_after_hours ?? null;
}
