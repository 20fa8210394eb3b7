import { ApiError, validationError } from '../../domain/errors.js';
import { isUuid } from '../../domain/ids.js';
import { auditBase, recordAudit } from '../audit/queries.js';
import { type Actor, type AppContext, actorOf, inTransaction } from '../context.js';
import { requireOwnEmployee } from '../employees/company-scope.js';
import { employeeRef } from '../employees/views.js';
import { appendEvents } from '../events/service.js';
import {
  findConfirmedDay,
  findEntryCompany,
  listConfirmedDays,
  listEntriesOfEmployee,
} from './queries/approval.js';
import { timeEntryListItem, ENTRY_SOURCES } from './results.js';
import { type Tx } from '../../platform/db/database.js';
import { notFound, notInYourCompany, requireDate, requireUuid } from '../../shared/input-checks.js';
import { findEntryBreaks } from './queries/breaks.js';
import { type ConsolePerson } from '../people/person.js';

export async function confirmDay(
  tx: Tx,
  now: number,
  input: { employeeId: string; date: string },
  actor?: Actor,
) {
  const employeeId = requireUuid(input.employeeId, 'employee id');
  const date = requireDate(input.date, 'date');
  const at = new Date(now).toISOString();
  const employee = await tx
    .selectFrom('employees')
    .select(['id', 'company_id', 'external_id'])
    .where('id', '=', employeeId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!employee) throw notFound('employee', input.employeeId);
  const existing = await tx
    .selectFrom('confirmed_days')
    .select('work_date')
    .where('employee_id', '=', employee.id)
    .where('work_date', '=', date)
    .executeTakeFirst();
  if (!existing) {
    await tx
      .insertInto('confirmed_days')
      .values({ employee_id: employee.id, work_date: date, confirmed_at: at })
      .execute();
    await recordAudit(tx, {
      ...auditBase(employee.company_id, at, actor),
      action: 'day.confirm',
      targetType: 'employee',
      targetId: employee.id,
      details: { date },
    });
    await appendEvents(
      tx,
      employee.company_id,
      [{ type: 'day.confirmed', data: { employee: employeeRef(employee), date } }],
      at,
    );
  }
  return { employeeId: employee.id, date, locked: true as const };
}

/** A manager's decision on a `pending_approval` entry. */
export async function decideEntry(
  tx: Tx,
  now: number,
  entryId: string,
  decision: 'approved' | 'rejected',
  actor?: Actor,
) {
  const id = requireUuid(entryId, 'entry id');
  const at = new Date(now).toISOString();
  const entry = await tx.selectFrom('time_entries').selectAll().where('id', '=', id).executeTakeFirst();
  if (!entry) throw notFound('time entry', entryId);
  if (entry.status !== 'pending_approval')
    throw new ApiError(
      'business_rule_violation',
      `entry ${entry.id} is ${entry.status}; only pending_approval entries can be decided`,
    );
  await tx
    .updateTable('time_entries')
    .set({ status: decision, approved_at: decision === 'approved' ? at : null, updated_at: at })
    .where('id', '=', entry.id)
    .execute();
  await recordAudit(tx, {
    ...auditBase(entry.company_id, at, actor),
    action: decision === 'approved' ? 'time_entry.approve' : 'time_entry.reject',
    targetType: 'time_entry',
    targetId: entry.id,
  });
  const updated = await tx
    .selectFrom('time_entries')
    .selectAll()
    .where('id', '=', entry.id)
    .executeTakeFirstOrThrow();
  const employee = await tx
    .selectFrom('employees')
    .select(['id', 'external_id'])
    .where('id', '=', entry.employee_id)
    .executeTakeFirstOrThrow();
  // An entry of the time clock carries its breaks, as in the list.
  const item = timeEntryListItem(
    updated,
    employee,
    updated.source === ENTRY_SOURCES.timeClock ? await findEntryBreaks(tx, updated.id) : undefined,
  );
  await appendEvents(
    tx,
    entry.company_id,
    [{ type: decision === 'approved' ? 'time_entry.approved' : 'time_entry.rejected', data: item }],
    at,
  );
  return item;
}

/** At most this many days per listing: a week is what the screen shows, a couple of months is plenty. */
const MAX_RANGE_DAYS = 62;

/**
 * An employee's entries of the days [from, to] (an overnight entry on the day it started), pending
 * ones first, and which of those days are confirmed.
 */
export async function listEntries(
  ctx: AppContext,
  person: ConsolePerson,
  query: { employeeId: string; from: string; to: string },
) {
  if (query.from > query.to)
    throw validationError([{ field: 'to', message: 'must not be before from', code: 'range' }]);
  if ((Date.parse(query.to) - Date.parse(query.from)) / 86_400_000 >= MAX_RANGE_DAYS)
    throw validationError([{ field: 'to', message: `at most ${MAX_RANGE_DAYS} days`, code: 'range' }]);
  const db = ctx.database.db;
  const employee = await requireOwnEmployee(db, person, query.employeeId);
  const rows = await listEntriesOfEmployee(db, employee.id, query.from, query.to);
  const pending = rows.filter((r) => r.status === 'pending_approval');
  const others = rows.filter((r) => r.status !== 'pending_approval');
  return {
    items: [...pending, ...others].map((row) => timeEntryListItem(row, employee)),
    confirmedDays: await listConfirmedDays(db, employee.id, query.from, query.to),
    timeZone: employee.workplace_time_zone ?? employee.company_time_zone ?? 'UTC',
  };
}

export type DecisionResult =
  | { id: string; status: 200; entry: ReturnType<typeof timeEntryListItem> }
  | { id: string; status: 404 | 409; error: ApiError };

/** Approves or rejects each entry in a transaction of its own; one refused entry does not undo the others. */
export async function decideEntries(
  ctx: AppContext,
  person: ConsolePerson,
  ids: string[],
  decision: 'approved' | 'rejected',
): Promise<DecisionResult[]> {
  const results: DecisionResult[] = [];
  for (const raw of new Set(ids.map((id) => id.toLowerCase()))) {
    try {
      const entry = await inTransaction(ctx, async (tx, now) => {
        const owner = isUuid(raw) ? await findEntryCompany(tx, raw) : undefined;
        if (owner?.company_id !== person.companyId) throw notInYourCompany('time entry');
        return decideEntry(tx, now, raw, decision, actorOf(person));
      });
      results.push({ id: raw, status: 200, entry });
    } catch (error) {
      if (!(error instanceof ApiError) || (error.status !== 404 && error.status !== 409)) throw error;
      results.push({ id: raw, status: error.status, error });
    }
  }
  return results;
}

export function confirmEmployeeDay(
  ctx: AppContext,
  person: ConsolePerson,
  input: { employeeId: string; date: string },
) {
  return inTransaction(ctx, async (tx, now) => {
    const employee = await requireOwnEmployee(tx, person, input.employeeId);
    await confirmDay(tx, now, { employeeId: employee.id, date: input.date }, actorOf(person));
    const row = await findConfirmedDay(tx, employee.id, input.date);
    return { employeeId: employee.id, date: input.date, confirmedAt: row!.confirmed_at };
  });
}
