import { seedDemoLeave } from '../absences/demo.js';
import { ApiError } from '../../domain/errors.js';
import { createApiKey } from '../api-keys/service.js';
import { SCOPE_IDS } from '../auth/scopes.js';
import { createCompany, createSchedule, createWorkplace, updateCompany } from '../companies/service.js';
import { type AppContext } from '../context.js';
import { createEmployee } from '../employees/changes.js';
import { createUser } from '../people/users.js';
import { type Executor, type Tx, lockTableForWrites } from '../../platform/db/database.js';

export async function databaseIsEmpty(db: Executor): Promise<boolean> {
  const row = await db.selectFrom('companies').select('id').limit(1).executeTakeFirst();
  return row === undefined;
}

/** Operations contract `demo`: a company to try the API with, on an empty database only. */
export async function seedDemo(ctx: AppContext, baseUrl: string) {
  // All or nothing, and the emptiness check holds until commit: two processes seeding at once (the CLI,
  // several `serve --demo-if-empty` on one database) must not both create a demo company. The use cases
  // below run inside this one transaction (SQLite: BEGIN IMMEDIATE already serialises writers).
  return ctx.database.transaction(async (tx) => {
    await lockTableForWrites(tx, 'companies');
    return seedDemoIn(tx, ctx.now(), baseUrl);
  });
}

async function seedDemoIn(tx: Tx, now: number, baseUrl: string) {
  if (!(await databaseIsEmpty(tx)))
    throw new ApiError('validation_failed', 'the database is not empty; demo only seeds an empty one');
  const created = await createCompany(tx, now, { name: 'Demo Company', timeZone: 'Europe/Berlin' });
  // A forgotten clock-out is closed 12 hours after the clock-in (issue 30).
  const company = await updateCompany(tx, now, created.id, { autoClockOutAfter: '12' });
  const workplace = await createWorkplace(tx, now, {
    companyId: company.id,
    name: 'Head office',
    timeZone: 'Europe/Berlin',
  });
  const schedule = await createSchedule(tx, now, {
    companyId: company.id,
    name: 'Full time',
    weeklyHours: '40',
  });
  const people = [
    {
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: 'ada@demo.example',
      externalId: 'BADGE-1001',
      hiredOn: '2021-04-01',
    },
    {
      firstName: 'Grace',
      lastName: 'Hopper',
      email: 'grace@demo.example',
      externalId: 'BADGE-1002',
      hiredOn: '2019-09-16',
    },
    {
      firstName: 'Alan',
      lastName: 'Turing',
      email: 'alan@demo.example',
      externalId: 'BADGE-1003',
      hiredOn: '2024-02-01',
    },
  ];
  const employees = [];
  for (const person of people) {
    employees.push(
      await createEmployee(tx, now, company.id, {
        ...person,
        workplace: workplace.id,
        schedule: schedule.id,
      }),
    );
  }
  // Issue 31: holidays, vacation rules, an entitlement and a few absences.
  await seedDemoLeave(tx, now, {
    companyId: company.id,
    timeZone: 'Europe/Berlin',
    workplaceId: workplace.id,
    employeeIds: employees.map((e) => e.id),
  });
  const admin = await createUser(tx, now, {
    companyId: company.id,
    email: 'admin@demo.example',
    permissions: '86,47,49,52,72,90',
    superAdmin: true,
  });
  const key = await createApiKey(tx, now, {
    companyId: company.id,
    createdBy: admin.id,
    name: 'Demo key',
    scopes: SCOPE_IDS.join(','),
  });
  const tokenUrl = `${baseUrl}/api/public/v1/oauth/token`;
  return {
    companyId: company.id,
    workplaceId: workplace.id,
    scheduleId: schedule.id,
    adminUserId: admin.id,
    employeeIds: employees.map((e) => e.id),
    keyId: key.id,
    clientId: key.clientId,
    secret: key.secret,
    scopes: key.scopes,
    tokenCurl: `curl -s -X POST ${tokenUrl} -u '${key.clientId}:${key.secret}' -d grant_type=client_credentials`,
  };
}
