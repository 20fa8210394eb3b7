import { type Executor } from '../../../platform/db/database.js';
import { ONE_ROW, prepareQuery } from '../../../platform/db/prepared.js';

/* What locks a day against writes: the employee's confirmation, a closed period (issue 30). */

/** The first of `dates` the employee has confirmed, if any. */
export async function firstConfirmedDay(db: Executor, employeeId: string, dates: string[]) {
  const row = await db
    .selectFrom('confirmed_days')
    .select('work_date')
    .where('employee_id', '=', employeeId)
    .where('work_date', 'in', dates)
    .orderBy('work_date')
    .limit(ONE_ROW)
    .executeTakeFirst();
  return row?.work_date ?? null;
}

const closedPeriodQuery = prepareQuery(
  (db, p: { companyId: string; workplaceId: string; from: string; to: string }) =>
    db
      .selectFrom('locked_periods')
      .select(['id', 'from_date', 'to_date'])
      .where('company_id', '=', p.companyId)
      .where('to_date', '>=', p.from)
      .where('from_date', '<=', p.to)
      .where('reopened_at', 'is', null)
      .where((eb) => eb.or([eb('workplace_id', 'is', null), eb('workplace_id', '=', p.workplaceId)]))
      .orderBy('from_date')
      .limit(ONE_ROW),
);

/**
 * A closed period of the company (or of `workplaceId`) that holds a day of [from, to], if any. Run
 * by every write of a time entry: one indexed read of the company's periods ending on or after `from`.
 */
export function findClosedPeriod(
  db: Executor,
  input: { companyId: string; workplaceId: string | null; from: string; to: string },
) {
  return closedPeriodQuery.executeTakeFirst(db, { ...input, workplaceId: input.workplaceId ?? '' });
}
