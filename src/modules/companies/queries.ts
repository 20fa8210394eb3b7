import { type Executor } from '../../platform/db/database.js';
/* A company's workplaces and schedules, always inside one company (another company's are not found). */

/** The company's workplaces by name. */
export function listWorkplacesOfCompany(db: Executor, companyId: string) {
  return db
    .selectFrom('workplaces')
    .select(['id', 'name', 'time_zone', 'web_clock_allowed_ips', 'kiosk_badge_only'])
    .where('company_id', '=', companyId)
    .orderBy('name')
    .orderBy('id')
    .execute();
}

/** The company's schedules by name. */
export function listSchedulesOfCompany(db: Executor, companyId: string) {
  return db
    .selectFrom('schedules')
    .select(['id', 'name', 'weekly_hours'])
    .where('company_id', '=', companyId)
    .orderBy('name')
    .orderBy('id')
    .execute();
}

export function findWorkplaceOfCompany(db: Executor, companyId: string, id: string) {
  return db
    .selectFrom('workplaces')
    .select(['id'])
    .where('id', '=', id)
    .where('company_id', '=', companyId)
    .executeTakeFirst();
}

export function findScheduleOfCompany(db: Executor, companyId: string, id: string) {
  return db
    .selectFrom('schedules')
    .select(['id'])
    .where('id', '=', id)
    .where('company_id', '=', companyId)
    .executeTakeFirst();
}
