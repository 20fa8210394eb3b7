import { sql } from 'kysely';
import { type Executor, type Tx, rowLocks } from '../../platform/db/database.js';
import { boundLimit, prepareQuery } from '../../platform/db/prepared.js';
import { type EmployeeRow } from '../../platform/db/schema.js';

const employeeBy = (column: 'id' | 'external_id') =>
  prepareQuery((db, p: { companyId: string; value: string }) =>
    db
      .selectFrom('employees')
      .selectAll()
      .where('company_id', '=', p.companyId)
      .where(column, '=', p.value)
      .where('deleted_at', 'is', null),
  );
const employeeById = employeeBy('id');
const employeeByExternalId = employeeBy('external_id');

export async function findEmployeeById(
  db: Executor,
  companyId: string,
  employeeId: string,
): Promise<EmployeeRow | undefined> {
  return employeeById.executeTakeFirst(db, { companyId, value: employeeId });
}

export async function findEmployeeByExternalId(
  db: Executor,
  companyId: string,
  externalId: string,
): Promise<EmployeeRow | undefined> {
  return employeeByExternalId.executeTakeFirst(db, { companyId, value: externalId });
}

/** The employee a time-clock write records for, as far as it reads them: who they are and where they work. */
export type EmployeeForWrite = Pick<EmployeeRow, 'id' | 'external_id' | 'workplace_id'>;

/** That employee with the time zone of their workplace (null without a workplace or a zone). */
export type EmployeeWithZone = EmployeeForWrite & {
  workplace_time_zone: string | null;
  status: EmployeeRow['status'];
};

const lockBy = (column: 'e.id' | 'e.external_id') =>
  prepareQuery((db, p: { companyId: string; value: string }) =>
    db
      .selectFrom('employees as e')
      .leftJoin('workplaces as w', 'w.id', 'e.workplace_id')
      .select(['e.id', 'e.external_id', 'e.workplace_id', 'e.status', 'w.time_zone as workplace_time_zone'])
      .where('e.company_id', '=', p.companyId)
      .where(column, '=', p.value)
      .where('e.deleted_at', 'is', null)
      // Constant per dialect, so the prepared query may depend on it.
      .$if(rowLocks(db), (q) => q.forUpdate('e')),
  );
const lockById = lockBy('e.id');
const lockByExternalId = lockBy('e.external_id');

/*
 * PostgreSQL, a keyed write (issue 32, item 3): the Idempotency-Key's lock tried first (as
 * tryTransactionLock tries it; a MATERIALIZED CTE, evaluated once, before the rest), then, only if it
 * was taken, the employee read and row-locked as lockBy does: one round trip for both locks. What the
 * write reads next (the key's record, the punch's context) is read by a later statement, on a snapshot
 * taken after both locks are held.
 */
const lockWithKeyBy = (column: 'e.id' | 'e.external_id') =>
  prepareQuery((db, p: { companyId: string; value: string; keyLock: string }) =>
    db
      .with(
        (cte) => cte('k').materialized(),
        (qb) =>
          qb.selectNoFrom(
            sql<boolean>`pg_try_advisory_xact_lock(hashtextextended(${p.keyLock}, 0))`.as('key_locked'),
          ),
      )
      .selectFrom('k')
      .leftJoinLateral(
        (eb) =>
          eb
            .selectFrom('employees as e')
            .leftJoin('workplaces as w', 'w.id', 'e.workplace_id')
            .select([
              'e.id',
              'e.external_id',
              'e.workplace_id',
              'e.status',
              'w.time_zone as workplace_time_zone',
            ])
            .where(sql<boolean>`k.key_locked`)
            .where('e.company_id', '=', p.companyId)
            .where(column, '=', p.value)
            .where('e.deleted_at', 'is', null)
            .forUpdate('e')
            .as('l'),
        (join) => join.onTrue(),
      )
      .select([
        'k.key_locked',
        'l.id',
        'l.external_id',
        'l.workplace_id',
        'l.status',
        'l.workplace_time_zone',
      ]),
  );
const lockWithKeyById = lockWithKeyBy('e.id');
const lockWithKeyByExternalId = lockWithKeyBy('e.external_id');

/**
 * The employee (by id or external id) with their workplace's zone, row-locked for the rest of the
 * transaction (see `rowLocks`): concurrent writes for one employee, from any instance, queue here.
 * With `keyLock` (a keyed write): that lock is tried first, in the same round trip on PostgreSQL, and
 * `keyBusy()` is thrown when another transaction holds it (the employee is then neither read nor locked).
 */
export async function lockEmployeeWithZone(
  tx: Tx,
  companyId: string,
  by: { id: string } | { externalId: string },
  keyLock?: { name: string; busy: () => Error },
): Promise<EmployeeWithZone | undefined> {
  const value = 'id' in by ? by.id : by.externalId;
  if (keyLock && rowLocks(tx)) {
    const query = 'id' in by ? lockWithKeyById : lockWithKeyByExternalId;
    const row = await query.executeTakeFirst(tx, { companyId, value, keyLock: keyLock.name });
    if (row?.key_locked !== true) throw keyLock.busy();
    if (row.id === null) return undefined;
    return row as EmployeeWithZone;
  }
  return 'id' in by
    ? lockById.executeTakeFirst(tx, { companyId, value })
    : lockByExternalId.executeTakeFirst(tx, { companyId, value });
}

/**
 * PostgreSQL: row-locks the company's employees named by `ids` or `externalIds`, in id order, for the
 * rest of the transaction (a batch of punches: two batches naming the same employees in other orders
 * never wait for each other in a circle). Only rows that exist now: an employee created meanwhile under
 * a named external id is locked later, by its punch, out of order; a deadlock that causes is aborted by
 * PostgreSQL and the batch reruns event by event (docs/architecture.md). SQLite: nothing (its write
 * transaction excludes the others).
 */
export async function lockEmployeesInIdOrder(
  tx: Tx,
  companyId: string,
  ids: string[],
  externalIds: string[],
): Promise<void> {
  if (!rowLocks(tx) || ids.length + externalIds.length === 0) return;
  await tx
    .selectFrom('employees')
    .select('id')
    .where('company_id', '=', companyId)
    .where('deleted_at', 'is', null)
    .where((eb) =>
      eb.or([
        ...(ids.length > 0 ? [eb('id', 'in', ids)] : []),
        ...(externalIds.length > 0 ? [eb('external_id', 'in', externalIds)] : []),
      ]),
    )
    .orderBy('id')
    .forUpdate()
    .execute();
}

/**
 * lockEmployeeWithZone for a batch of punches (issue 32): every employee named by `ids` or
 * `externalIds`, with their workplace's zone, in one statement, row-locked in id order on PostgreSQL
 * (see lockEmployeesInIdOrder).
 */
export async function lockEmployeesWithZones(
  tx: Tx,
  companyId: string,
  ids: string[],
  externalIds: string[],
): Promise<EmployeeWithZone[]> {
  if (ids.length + externalIds.length === 0) return [];
  return tx
    .selectFrom('employees as e')
    .leftJoin('workplaces as w', 'w.id', 'e.workplace_id')
    .select(['e.id', 'e.external_id', 'e.workplace_id', 'e.status', 'w.time_zone as workplace_time_zone'])
    .where('e.company_id', '=', companyId)
    .where('e.deleted_at', 'is', null)
    .where((eb) =>
      eb.or([
        ...(ids.length > 0 ? [eb('e.id', 'in', ids)] : []),
        ...(externalIds.length > 0 ? [eb('e.external_id', 'in', externalIds)] : []),
      ]),
    )
    .orderBy('e.id')
    .$if(rowLocks(tx), (q) => q.forUpdate('e'))
    .execute();
}

/** The columns of an employee list item (see views.ts, employeeListItem): pages read nothing else. */
export const EMPLOYEE_LIST_COLUMNS = [
  'id',
  'external_id',
  'first_name',
  'last_name',
  'email',
  'status',
  'department_id',
  'position_id',
  'hired_on',
  'left_on',
] as const;

export type EmployeeListRow = Pick<EmployeeRow, (typeof EMPLOYEE_LIST_COLUMNS)[number]>;

const employeePage = (withStatus: boolean, withAfter: boolean) =>
  prepareQuery((db, p: { companyId: string; status: string; afterId: string; limit: number }) =>
    db
      .selectFrom('employees')
      .select(EMPLOYEE_LIST_COLUMNS)
      .where('company_id', '=', p.companyId)
      .where('deleted_at', 'is', null)
      .$if(withStatus, (q) => q.where('status', '=', p.status))
      .$if(withAfter, (q) => q.where('id', '>', p.afterId))
      .orderBy('id')
      .limit(boundLimit(p.limit)),
  );

/** One prepared query per shape: with or without a status filter, first page or after a cursor. */
const EMPLOYEE_PAGES = {
  all: employeePage(false, false),
  allAfter: employeePage(false, true),
  status: employeePage(true, false),
  statusAfter: employeePage(true, true),
};

/** A page of the company's employees ordered by id, after `afterId`, of one status if given. */
export async function listEmployeesPage(
  db: Executor,
  companyId: string,
  options: { status: string | null; afterId: string | null; limit: number },
): Promise<EmployeeListRow[]> {
  const { status, afterId, limit } = options;
  const query = EMPLOYEE_PAGES[`${status !== null ? 'status' : 'all'}${afterId !== null ? 'After' : ''}`];
  return query.execute(db, { companyId, status: status ?? '', afterId: afterId ?? '', limit });
}

export async function findLatestScheduleId(db: Executor, employeeId: string): Promise<string | null> {
  const row = await db
    .selectFrom('employee_schedules')
    .select('schedule_id')
    .where('employee_id', '=', employeeId)
    .orderBy('effective_from', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.schedule_id ?? null;
}

export function findEmployeeOfCompany(db: Executor, companyId: string, employeeId: string) {
  return db
    .selectFrom('employees as e')
    .leftJoin('workplaces as w', 'w.id', 'e.workplace_id')
    .innerJoin('companies as c', 'c.id', 'e.company_id')
    .select([
      'e.id',
      'e.external_id',
      'w.time_zone as workplace_time_zone',
      'c.time_zone as company_time_zone',
    ])
    .where('e.id', '=', employeeId)
    .where('e.company_id', '=', companyId)
    .where('e.deleted_at', 'is', null)
    .executeTakeFirst();
}

/** A page of the company's employees (never deleted ones) by name, optionally matching `search`. */
export function searchEmployees(
  db: Executor,
  companyId: string,
  options: { search: string | null; offset: number; limit: number },
) {
  let query = db
    .selectFrom('employees')
    .select(['id', 'first_name', 'last_name', 'email', 'external_id', 'status', 'workplace_id'])
    .where('company_id', '=', companyId)
    .where('deleted_at', 'is', null);
  if (options.search !== null) {
    const pattern = `%${options.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    query = query.where((eb) =>
      eb.or(
        ['first_name', 'last_name', 'email', 'external_id'].map(
          (column) => sql<boolean>`lower(coalesce(${sql.ref(column)}, '')) like ${pattern} escape '\\'`,
        ),
      ),
    );
  }
  return query
    .orderBy(sql`lower(coalesce(last_name, ''))`)
    .orderBy(sql`lower(coalesce(first_name, ''))`)
    .orderBy('id')
    .offset(options.offset)
    .limit(options.limit)
    .execute();
}

/** Names and emails of some employees of the company (the "who is in" screen shows people, not ids). */
export function namesOfEmployees(db: Executor, companyId: string, ids: string[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('employees')
    .select(['id', 'first_name', 'last_name', 'email'])
    .where('company_id', '=', companyId)
    .where('id', 'in', ids)
    .execute();
}

/** An employee of the company (never a deleted one) with the schedule assignment that starts last. */
export async function findEmployeeDetail(db: Executor, companyId: string, id: string) {
  const row = await db
    .selectFrom('employees')
    .select([
      'id',
      'first_name',
      'last_name',
      'email',
      'external_id',
      'status',
      'workplace_id',
      'hired_on',
      'left_on',
    ])
    .where('id', '=', id)
    .where('company_id', '=', companyId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!row) return undefined;
  const schedule = await db
    .selectFrom('employee_schedules')
    .select(['schedule_id', 'effective_from'])
    .where('employee_id', '=', id)
    .orderBy('effective_from', 'desc')
    .limit(1)
    .executeTakeFirst();
  return {
    ...row,
    schedule_id: schedule?.schedule_id ?? null,
    schedule_from: schedule?.effective_from ?? null,
  };
}
