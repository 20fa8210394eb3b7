import { ApiError } from '../../domain/errors.js';
import { todayIn } from '../../domain/time-zone.js';
import type { Executor } from '../../platform/db/database.js';
import { isAddressAllowed } from '../auth/ip-allowlist.js';
import type { Principal } from '../auth/service.js';
import type { ConsolePerson } from '../people/person.js';
import { findSelfEmployee, type SelfEmployeeRow } from './queries.js';

/*
 * Who a self-service caller is (issue 35): the employee the signed-in person is linked to, read from
 * the database on every request. A person without one, or whose employee was deleted, is refused
 * (403 not_an_employee); no self-service route takes an employee id, so nobody reaches another
 * employee's data through it.
 */

export interface Self {
  person: ConsolePerson;
  employee: SelfEmployeeRow;
  /** The employee's zone: their workplace's, else the company's. */
  timeZone: string | null;
}

export async function requireSelf(db: Executor, person: ConsolePerson): Promise<Self> {
  if (person.employeeId === null)
    throw new ApiError('not_an_employee', 'self-service is for people linked to an employee');
  const employee = await findSelfEmployee(db, person.companyId, person.employeeId);
  if (!employee) throw new ApiError('not_an_employee', 'the employee this person was linked to is deleted');
  return { person, employee, timeZone: employee.workplace_time_zone ?? employee.company_time_zone };
}

/** The employee's today: the date in their zone. */
export function todayOf(self: Self, now: number): string {
  return todayIn(self.timeZone, now);
}

/** The workplace's web-clock ranges (null or empty: any address). */
export function allowedRanges(employee: Pick<SelfEmployeeRow, 'web_clock_allowed_ips'>): string[] {
  const value = employee.web_clock_allowed_ips;
  return value === null || value === '' ? [] : value.split(',');
}

export function addressAllowed(self: Self, address: string): boolean {
  return isAddressAllowed(address, allowedRanges(self.employee));
}

/**
 * The web clock's gate, in order: time tracking on (403 time_tracking_disabled), the company's web
 * clock on (403 web_clock_disabled), the caller's address in the workplace's ranges when it has any
 * (403 address_not_allowed).
 */
export function assertWebClockAllowed(self: Self, address: string): void {
  if (self.employee.time_tracking !== 1)
    throw new ApiError('time_tracking_disabled', 'time tracking is switched off for this company');
  if (self.employee.web_clock !== 1)
    throw new ApiError('web_clock_disabled', 'the web clock is switched off for this company');
  if (!addressAllowed(self, address))
    throw new ApiError(
      'address_not_allowed',
      `the web clock of this workplace is not allowed from ${address}; punch at work, or ask an administrator`,
    );
}

/** The person as a principal of the time clock: their punches are theirs (actor kind person). */
export function principalOfSelf(self: Self): Principal {
  return {
    kind: 'user',
    id: self.person.id,
    companyId: self.person.companyId,
    clientId: null,
    scopes: [],
    tokenExpiresAt: new Date(0),
    company: { timeZone: self.person.company.timeZone, timeTracking: self.employee.time_tracking === 1 },
  };
}
