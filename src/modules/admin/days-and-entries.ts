import { ApiError } from '../../domain/errors.js';
import { recordAudit } from '../audit/queries.js';
import type { Actor } from '../context.js';
import { appendEvents } from '../events/service.js';
import type { Tx } from '../../platform/db/database.js';
import { employeeRef, timeEntryListItem } from '../views.js';
import { auditBase } from './companies.js';
import { notFound, requireDate, requireUuid } from './validation.js';
import { findEntryBreaks } from '../time-tracking/queries.js';
import { ENTRY_SOURCES } from '../time-tracking/service.js';

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
