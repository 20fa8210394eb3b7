import type { Tx } from '../../platform/db/database.js';
import { holidaysByWorkplace } from '../absences/holidays.js';
import { listApprovedAbsences } from '../absences/queries.js';
import type { RuleShift } from './exception-rules.js';

/**
 * The shifts of `shifts` that an approved absence or a holiday covers: no `no_show` is raised for
 * them (issue 33). An approved absence of the shift's employee touching the shift's day covers it,
 * whatever its portion (a half day off may well be the half the shift was planned in), and so does a
 * public or company holiday of the shift's workplace that day, full or half (issues 31 and 33). Two
 * statements for the run's shifts of the company (the employees' approved absences over the shifts'
 * days, the holiday overrides; the regions' holidays are computed).
 */
export async function excusedShiftIds(
  tx: Tx,
  companyId: string,
  shifts: readonly RuleShift[],
): Promise<ReadonlySet<string>> {
  if (shifts.length === 0) return new Set<string>();
  const dates = shifts.map((s) => s.date).sort();
  const from = dates[0]!;
  const to = dates.at(-1)!;
  const employeeIds = [...new Set(shifts.map((s) => s.employeeId))];
  const [absences, holidays] = await Promise.all([
    listApprovedAbsences(tx, companyId, employeeIds, from, to),
    holidaysByWorkplace(tx, companyId, from, to),
  ]);
  const holidayDays = new Map(
    [...holidays].map(([workplaceId, list]) => [workplaceId, new Set(list.map((h) => h.date))]),
  );
  const excused = new Set<string>();
  for (const shift of shifts) {
    const away = absences.some(
      (a) => a.employee_id === shift.employeeId && a.start_date <= shift.date && a.end_date >= shift.date,
    );
    const holiday = (holidayDays.get(shift.workplaceId) ?? holidayDays.get(null))?.has(shift.date) === true;
    if (away || holiday) excused.add(shift.id);
  }
  return excused;
}
