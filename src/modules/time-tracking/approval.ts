import { ApiError, validationError } from '../../domain/errors.js';
import { isUuid } from '../../domain/ids.js';
import { auditBase, recordAudit } from '../audit/queries.js';
import { type Actor, type AppContext, actorOf, CLI_ACTOR, inTransaction } from '../context.js';
import { decideOnEntry } from '../corrections/decisions.js';
import { managerOfAdmin } from '../corrections/entry-access.js';
import { requireOwnEmployee } from '../employees/company-scope.js';
import { employeeRef } from '../employees/views.js';
import { appendEvents } from '../events/service.js';
import {
  findConfirmedDay,
  findEntryCompany,
  listConfirmedDays,
  listEntriesOfEmployee,
} from './queries/approval.js';
import { timeEntryListItem } from './results.js';
import { type Tx } from '../../platform/db/database.js';
import { notFound, notInYourCompany, requireDate, requireUuid } from '../../shared/input-checks.js';
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

/**
 * A manager's decision on a `pending_approval` entry: the corrections room's decision (revision,
 * audit row, event; 409 invalid_status_transition for another status, 409 day_locked in a closed
 * period), by the CLI's operator unless the caller says (the console passes the signed-in person).
 */
export async function decideEntry(
  tx: Tx,
  now: number,
  entryId: string,
  decision: 'approved' | 'rejected',
  actor: Actor = CLI_ACTOR,
  version: number | null = null,
) {
  const id = requireUuid(entryId, 'entry id');
  if (!(await findEntryCompany(tx, id))) throw notFound('time entry', entryId);
  return decideOnEntry(tx, now, managerOfAdmin(actor, null), {
    entryId: id,
    decision: decision === 'approved' ? 'approve' : 'reject',
    reason: null,
    ifMatch: version === null ? null : [version],
    dryRun: false,
  });
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
  | { id: string; status: 403 | 404 | 409 | 412; error: ApiError };

/**
 * Approves or rejects each entry in a transaction of its own; one refused entry does not undo the others.
 * `versions[i]`, when sent, is the version of `ids[i]` the person saw (412 version_mismatch otherwise).
 */
export async function decideEntries(
  ctx: AppContext,
  person: ConsolePerson,
  input: { ids: string[]; decision: 'approved' | 'rejected'; versions?: number[] | undefined },
): Promise<DecisionResult[]> {
  const { ids, decision, versions } = input;
  if (versions !== undefined && versions.length !== ids.length)
    throw validationError([
      { field: 'versions', message: 'must give one version for each id, in the same order', code: 'length' },
    ]);
  const seen = new Map<string, number | null>();
  ids.forEach((id, i) => {
    const key = id.toLowerCase();
    if (!seen.has(key)) seen.set(key, versions?.[i] ?? null);
  });
  const results: DecisionResult[] = [];
  for (const [raw, version] of seen) {
    try {
      const entry = await inTransaction(ctx, async (tx, now) => {
        const owner = isUuid(raw) ? await findEntryCompany(tx, raw) : undefined;
        if (owner?.company_id !== person.companyId) throw notInYourCompany('time entry');
        return decideEntry(tx, now, raw, decision, actorOf(person), version);
      });
      results.push({ id: raw, status: 200, entry });
    } catch (error) {
      // 403: the person's own entry (own_entry); 409: not pending, or a day in a closed period;
      // 412: the entry is not at the version the person saw.
      if (!(error instanceof ApiError) || ![403, 404, 409, 412].includes(error.status)) throw error;
      results.push({ id: raw, status: error.status as 403 | 404 | 409 | 412, error });
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
