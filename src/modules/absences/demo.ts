import { addDays, todayIn } from '../../domain/time-zone.js';
import { weekdayIndex } from '../../domain/timesheets/overtime.js';
import type { Tx } from '../../platform/db/database.js';
import { createAbsence } from './absences.js';
import { cliCaller } from './actors.js';
import { findType } from './calendar.queries.js';
import { decideAbsence } from './decisions.js';
import { setEntitlement } from './leave.js';
import { updateAbsenceType } from './types.js';
import { setHolidayRegion } from './working-days.js';

/*
 * The demo company's leave (issue 31): Berlin's public holidays at the head office, 25 vacation days
 * a year (5 carried over until 31 March), Grace's 28 days set for this year, and a few absences
 * around today: Ada's vacation next week (approved), Grace's sick days last week, Alan's vacation
 * request in three weeks (waiting for a decision). Each covers three weekdays or more: at least one is
 * a working day whatever the holidays.
 */
export async function seedDemoLeave(
  tx: Tx,
  now: number,
  demo: { companyId: string; timeZone: string; workplaceId: string; employeeIds: readonly string[] },
): Promise<void> {
  const cli = { type: 'cli' as const, id: null };
  const caller = cliCaller({ id: demo.companyId, time_zone: demo.timeZone });
  await setHolidayRegion(tx, now, demo.workplaceId, 'DE-BE', cli);
  const vacation = (await findType(tx, demo.companyId, { code: 'vacation' }))!;
  await updateAbsenceType(
    tx,
    now,
    demo.companyId,
    vacation.id,
    { yearlyEntitlementDays: 25, carryOverMaxDays: 5, carryOverExpiresOn: '03-31' },
    cli,
  );
  const [ada, grace, alan] = demo.employeeIds as [string, string, string];
  const today = todayIn(demo.timeZone, now);
  await setEntitlement(tx, now, caller, {
    employeeId: grace,
    typeCode: 'vacation',
    year: today.slice(0, 4),
    days: 28,
  });
  const monday = addDays(today, -weekdayIndex(today));
  const request = (employee: string, typeCode: string, from: string, to: string) =>
    createAbsence(
      tx,
      now,
      caller,
      { employee: { id: employee }, typeCode, startDate: from, endDate: to },
      { dryRun: false },
    );
  const adas = await request(ada, 'vacation', addDays(monday, 7), addDays(monday, 9));
  const decision = { reason: null, ifMatch: null, dryRun: false };
  await decideAbsence(tx, now, caller, adas.body.id!, 'approve', decision);
  await request(grace, 'sick', addDays(monday, -7), addDays(monday, -5));
  await request(alan, 'vacation', addDays(monday, 21), addDays(monday, 25));
}
