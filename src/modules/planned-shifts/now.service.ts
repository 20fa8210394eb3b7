import { ApiError } from '../../domain/errors.js';
import type { ConsolePerson } from '../people/person.js';
import type { AppContext } from '../context.js';
import {
  employeesByIds,
  entriesOfEmployeesSince,
  publishedShiftsAround,
  workplaceOfCompany,
  workplacesOfCompany,
} from './queries/console.js';
import { belongsTo, EARLY_CLOCK_IN_MS } from './exception-rules.js';
import { findCompanySettings } from './queries/shifts.js';
import { instantIn } from './views.js';

/*
 * The Now screen's attendance (issue 33), computed at the moment it is asked (not from the job): the
 * published shifts that have started and not ended, or start within the hour, whose employee has
 * not clocked in for them. `late` once the start and the company's grace have passed, else
 * `not_yet_in`.
 */

const HOUR_MS = 3_600_000;
const SOON_MS = HOUR_MS;

export async function attendanceNow(ctx: AppContext, person: ConsolePerson, query: { workplaceId?: string }) {
  const db = ctx.database.db;
  const nowMs = ctx.now();
  const workplaceId = query.workplaceId?.toLowerCase() ?? null;
  if (workplaceId !== null && !(await workplaceOfCompany(db, person.companyId, workplaceId)))
    throw new ApiError('not_found', 'no workplace with this id in your company');
  const settings = await findCompanySettings(db, person.companyId);
  const graceMs = Number(settings?.late_grace_minutes ?? 5) * 60_000;
  const shifts = (
    await publishedShiftsAround(db, {
      companyId: person.companyId,
      workplaceId,
      from: new Date(nowMs - 24 * HOUR_MS).toISOString(),
      to: new Date(nowMs + SOON_MS).toISOString(),
    })
  ).filter((s) => Date.parse(s.end_at) > nowMs);
  const employeeIds = [...new Set(shifts.map((s) => s.employee_id))];
  const [entries, employees, workplaces] = await Promise.all([
    entriesOfEmployeesSince(db, employeeIds, new Date(nowMs - 48 * HOUR_MS).toISOString()),
    employeesByIds(db, person.companyId, employeeIds),
    workplacesOfCompany(db, person.companyId),
  ]);
  const people = new Map(employees.map((e) => [e.id, e]));
  const places = new Map(workplaces.map((w) => [w.id, w]));
  const items = shifts.flatMap((s) => {
    const shift = {
      ...s,
      version: 1,
      employeeId: s.employee_id,
      workplaceId: s.workplace_id,
      startMs: Date.parse(s.start_at),
      endMs: Date.parse(s.end_at),
    };
    const arrived = entries.some(
      (e) =>
        e.employee_id === s.employee_id &&
        belongsTo(
          {
            id: e.id,
            employeeId: e.employee_id,
            workDate: e.work_date,
            startMs: Date.parse(e.start_at),
            endMs: e.end_at === null ? null : Date.parse(e.end_at),
          },
          shift,
        ),
    );
    const employee = people.get(s.employee_id);
    if (arrived || !employee || shift.startMs - nowMs > SOON_MS || nowMs < shift.startMs - EARLY_CLOCK_IN_MS)
      return [];
    const workplace = places.get(s.workplace_id);
    return [
      {
        state: nowMs > shift.startMs + graceMs ? ('late' as const) : ('not_yet_in' as const),
        minutesLate: Math.max(0, Math.floor((nowMs - shift.startMs) / 60_000)),
        plannedShiftId: s.id,
        start: instantIn(s.start_at, s.time_zone),
        end: instantIn(s.end_at, s.time_zone),
        employee: {
          id: employee.id,
          externalId: employee.external_id,
          firstName: employee.first_name,
          lastName: employee.last_name,
          email: employee.email,
        },
        workplace: { id: s.workplace_id, name: workplace?.name ?? '' },
      },
    ];
  });
  return { items, timeZone: person.company.timeZone ?? 'UTC' };
}
