import type { Executor } from '../database.js';
import { boundLimit, ONE_ROW, prepareQuery } from '../prepared.js';
import type { EmployeeRow } from '../schema.js';

// The lookups below run on every write and most reads: compiled once (see prepared.ts).
function lookup(column: 'id' | 'external_id') {
  return prepareQuery(2, (db, companyId: string, value: string) =>
    db
      .selectFrom('employees')
      .selectAll()
      .where('company_id', '=', companyId)
      .where(column, '=', value)
      .where('deleted_at', 'is', null),
  );
}

const byId = lookup('id');
const byExternalId = lookup('external_id');

export async function findEmployeeById(
  db: Executor,
  companyId: string,
  employeeId: string,
): Promise<EmployeeRow | undefined> {
  return byId.executeTakeFirst(db, companyId, employeeId);
}

export async function findEmployeeByExternalId(
  db: Executor,
  companyId: string,
  externalId: string,
): Promise<EmployeeRow | undefined> {
  return byExternalId.executeTakeFirst(db, companyId, externalId);
}

/*
 * What a time-clock write reads of the employee it records for: who they are and where they work. No
 * more, since every column read costs on every punch (on PostgreSQL pg describes, parses and builds
 * each one anew).
 */
const WRITER_COLUMNS = ['e.id', 'e.external_id', 'e.workplace_id'] as const;

/** The employee a time-clock write records for, as far as it reads them (WRITER_COLUMNS). */
export type EmployeeForWrite = Pick<EmployeeRow, 'id' | 'external_id' | 'workplace_id'>;

/** That employee with the time zone of their workplace (null without a workplace or a zone). */
export type EmployeeWithZone = EmployeeForWrite & { workplace_time_zone: string | null };

/** The employee (by `e.id` or `e.external_id`) with their workplace's zone; `lock` adds FOR UPDATE OF e. */
function withZoneLookup(column: 'e.id' | 'e.external_id', lock: boolean) {
  return prepareQuery(2, (db, companyId: string, value: string) => {
    const query = db
      .selectFrom('employees as e')
      .leftJoin('workplaces as w', 'w.id', 'e.workplace_id')
      .select(WRITER_COLUMNS)
      .select('w.time_zone as workplace_time_zone')
      .where('e.company_id', '=', companyId)
      .where(column, '=', value)
      .where('e.deleted_at', 'is', null);
    // The row lock on the employee serialises writes for them (PostgreSQL).
    return lock ? query.forUpdate('e') : query;
  });
}

const byIdWithZone = withZoneLookup('e.id', false);
const byExternalIdWithZone = withZoneLookup('e.external_id', false);
const byIdWithZoneForUpdate = withZoneLookup('e.id', true);
const byExternalIdWithZoneForUpdate = withZoneLookup('e.external_id', true);

/** `lock`: also take the employee's row lock (`FOR UPDATE`, PostgreSQL only) in the same statement. */
export async function findEmployeeWithZoneById(
  db: Executor,
  companyId: string,
  employeeId: string,
  lock = false,
): Promise<EmployeeWithZone | undefined> {
  return (lock ? byIdWithZoneForUpdate : byIdWithZone).executeTakeFirst(db, companyId, employeeId);
}

export async function findEmployeeWithZoneByExternalId(
  db: Executor,
  companyId: string,
  externalId: string,
  lock = false,
): Promise<EmployeeWithZone | undefined> {
  return (lock ? byExternalIdWithZoneForUpdate : byExternalIdWithZone).executeTakeFirst(
    db,
    companyId,
    externalId,
  );
}

/** The columns of an employee list item (use-cases/views.ts): pages read nothing else. */
export const EMPLOYEE_LIST_COLUMNS = [
  'id',
  'external_id',
  'first_name',
  'last_name',
  'email',
  'status',
  'department_id',
  'position_id',
] as const;

export type EmployeeListRow = Pick<EmployeeRow, (typeof EMPLOYEE_LIST_COLUMNS)[number]>;

const pageFirst = prepareQuery(2, (db, companyId: string, limit: number) =>
  db
    .selectFrom('employees')
    .select(EMPLOYEE_LIST_COLUMNS)
    .where('company_id', '=', companyId)
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .limit(boundLimit(limit)),
);
const pageAfter = prepareQuery(3, (db, companyId: string, afterId: string, limit: number) =>
  db
    .selectFrom('employees')
    .select(EMPLOYEE_LIST_COLUMNS)
    .where('company_id', '=', companyId)
    .where('deleted_at', 'is', null)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(boundLimit(limit)),
);
const pageFirstWithStatus = prepareQuery(3, (db, companyId: string, status: string, limit: number) =>
  db
    .selectFrom('employees')
    .select(EMPLOYEE_LIST_COLUMNS)
    .where('company_id', '=', companyId)
    .where('deleted_at', 'is', null)
    .where('status', '=', status)
    .orderBy('id')
    .limit(boundLimit(limit)),
);
const pageAfterWithStatus = prepareQuery(
  4,
  (db, companyId: string, status: string, afterId: string, limit: number) =>
    db
      .selectFrom('employees')
      .select(EMPLOYEE_LIST_COLUMNS)
      .where('company_id', '=', companyId)
      .where('deleted_at', 'is', null)
      .where('status', '=', status)
      .where('id', '>', afterId)
      .orderBy('id')
      .limit(boundLimit(limit)),
);

export async function listEmployeesPage(
  db: Executor,
  companyId: string,
  options: { status: string | null; afterId: string | null; limit: number },
): Promise<EmployeeListRow[]> {
  const { status, afterId, limit } = options;
  if (status) {
    return afterId
      ? pageAfterWithStatus.execute(db, companyId, status, afterId, limit)
      : pageFirstWithStatus.execute(db, companyId, status, limit);
  }
  return afterId ? pageAfter.execute(db, companyId, afterId, limit) : pageFirst.execute(db, companyId, limit);
}

export async function findLatestScheduleId(db: Executor, employeeId: string): Promise<string | null> {
  const row = await db
    .selectFrom('employee_schedules')
    .select('schedule_id')
    .where('employee_id', '=', employeeId)
    .orderBy('effective_from', 'desc')
    .limit(ONE_ROW)
    .executeTakeFirst();
  return row?.schedule_id ?? null;
}
