import { type Executor } from '../../../platform/db/database.js';
import { LIST_COLUMNS } from './entries.js';
/* Rows behind the approval of an employee's days: their entries, the confirmed days, an entry's company. */

export function findEntryCompany(db: Executor, entryId: string) {
  return db.selectFrom('time_entries').select(['company_id']).where('id', '=', entryId).executeTakeFirst();
}

/** The employee's entries whose day (the day they started) is in [from, to]. */
export function listEntriesOfEmployee(db: Executor, employeeId: string, from: string, to: string) {
  return db
    .selectFrom('time_entries')
    .select([...LIST_COLUMNS, 'start_at'])
    .where('employee_id', '=', employeeId)
    .where('work_date', '>=', from)
    .where('work_date', '<=', to)
    .orderBy('work_date')
    .orderBy('start_at')
    .orderBy('id')
    .execute();
}

export async function listConfirmedDays(db: Executor, employeeId: string, from: string, to: string) {
  const rows = await db
    .selectFrom('confirmed_days')
    .select(['work_date'])
    .where('employee_id', '=', employeeId)
    .where('work_date', '>=', from)
    .where('work_date', '<=', to)
    .orderBy('work_date')
    .execute();
  return rows.map((r) => r.work_date);
}

export function findConfirmedDay(db: Executor, employeeId: string, date: string) {
  return db
    .selectFrom('confirmed_days')
    .select(['confirmed_at'])
    .where('employee_id', '=', employeeId)
    .where('work_date', '=', date)
    .executeTakeFirst();
}
