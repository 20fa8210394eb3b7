import { inTransaction } from '../../src/modules/context.js';
import { createWorkplace } from '../../src/modules/companies/service.js';
import { createEmployee } from '../../src/modules/employees/changes.js';
import { hashPin, setEmployeePin } from '../../src/modules/devices/pins.js';
import { enrolDevice } from '../../src/modules/devices/service.js';
import type { CompanyFixture, TestServer } from './server.js';

/** Shared helpers of the kiosk tests (issue 35). */

export const ENROL = '/api/public/v1/devices/enrol';
export const KIOSK_EMPLOYEES = '/api/public/v1/kiosk/employees';
export const IDENTIFY = '/api/public/v1/kiosk/identify';

export async function newEnrolment(server: TestServer, workplaceId: string, name = 'Front door') {
  return inTransaction(server.ctx, (tx, now) => enrolDevice(tx, now, { workplaceId, name }));
}

export async function enrolWith(server: TestServer, code: string) {
  return server.request(ENROL, { method: 'POST', json: { code } });
}

/** A device enrolled at the fixture's workplace: its id and credential. */
export async function enrolledDevice(server: TestServer, workplaceId: string, name?: string) {
  const enrolment = await newEnrolment(server, workplaceId, name);
  const response = await enrolWith(server, enrolment.enrolmentCode);
  if (response.status !== 201) throw new Error(`enrolment failed: ${response.status}`);
  const credential = (await response.json()) as { clientId: string; clientSecret: string };
  return { id: enrolment.id, ...credential };
}

export async function setPin(server: TestServer, employeeId: string, pin: string) {
  const hashed = await hashPin(pin);
  return inTransaction(server.ctx, (tx, now) => setEmployeePin(tx, now, employeeId, hashed));
}

/** A second workplace of the fixture's company with one employee (badge OTHER-1). */
export async function otherWorkplace(server: TestServer, fixture: CompanyFixture) {
  const workplace = await inTransaction(server.ctx, (tx, now) =>
    createWorkplace(tx, now, { companyId: fixture.companyId, name: 'Other site' }),
  );
  const employee = await inTransaction(server.ctx, (tx, now) =>
    createEmployee(tx, now, fixture.companyId, {
      email: 'other@acme.example',
      firstName: 'Otto',
      lastName: 'Other',
      externalId: 'OTHER-1',
      workplace: workplace.id,
      schedule: fixture.scheduleId,
    }),
  );
  return { workplaceId: workplace.id, employeeId: employee.id };
}
