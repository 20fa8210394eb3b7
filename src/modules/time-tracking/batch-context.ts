import type { FieldError } from '../../domain/errors.js';
import { localizeInstant, type ParsedInstant } from '../../domain/time-zone.js';
import type { ExpressionBuilder } from 'kysely';
import type { Tx } from '../../platform/db/database.js';
import type { Schema } from '../../platform/db/schema.js';
import type { TimeEntryRow } from '../../platform/db/schema.js';
import { isStorableText } from '../../shared/stored-text.js';
import type { Principal } from '../auth/service.js';
import { type EmployeeWithZone, lockEmployeesWithZones } from '../employees/queries.js';
import { MAX_SESSION_MS } from './punch-rules.js';
import type { ClockEventInput } from './results.js';
import { employeeLookup, parseInstantField } from './writes.js';
import type { BreakRow } from './queries/breaks.js';
import { OPEN } from './queries/entries.js';

/*
 * What a batch of punches is decided on (issue 32, batch-set.ts), in one statement each: the
 * employees (row-locked in id order on PostgreSQL), their open sessions and their entries of the days
 * around the punches, those entries' breaks, their schedules, confirmed days, and the company's closed
 * periods of those days. A superset of what the single punch's context statement (queries/context.ts) and
 * duplicate lookups (queries/duplicates.ts) reach: an entry reaching a punch's instant, or swallowed by closing
 * a session at it, started less than two days before it, and so did a duplicate's entry, except the
 * open session, which is read whatever its age.
 */

/** The entries and breaks of one employee, as the batch has left them so far. */
export interface EmployeeRows {
  entries: Map<string, TimeEntryRow>;
}

export interface BatchContext {
  byId: Map<string, EmployeeWithZone>;
  byExternalId: Map<string, EmployeeWithZone>;
  rows: Map<string, EmployeeRows>;
  /** Breaks by entry, oldest first (start, then id). */
  breaks: Map<string, BreakRow[]>;
  /** Schedules by employee, the latest effective first. */
  schedules: Map<string, { schedule_id: string; effective_from: string }[]>;
  confirmed: Set<string>;
  /** The company's closed periods (not reopened), by end date. */
  periods: { id: string; from_date: string; to_date: string; workplace_id: string | null }[];
  /** The work dates of the open sessions read. */
  openDates: string[];
}

/** Everything the batch's punches are decided on, in one statement each (see above). */
export async function loadBatchContext(
  tx: Tx,
  principal: Principal,
  events: ClockEventInput[],
  errors: FieldError[][],
): Promise<BatchContext> {
  const companyId = principal.companyId;
  const ids = new Set<string>();
  const externalIds = new Set<string>();
  const parsed: (ParsedInstant | null)[] = events.map((event, i) => {
    if (errors[i]!.length > 0) return null;
    const selector = employeeLookup(principal, event.employee);
    if (typeof selector.id === 'string') ids.add(selector.id.toLowerCase());
    else if (typeof selector.externalId === 'string' && isStorableText(selector.externalId))
      externalIds.add(selector.externalId);
    try {
      return parseInstantField(event.occurredAt, 'occurredAt');
    } catch {
      return null;
    }
  });
  const employees = await lockEmployeesWithZones(tx, companyId, [...ids], [...externalIds]);
  const byId = new Map(employees.map((e) => [e.id, e]));
  const byExternalId = new Map<string, EmployeeWithZone>();
  for (const e of employees) if (e.external_id !== null) byExternalId.set(e.external_id, e);
  const loaded: BatchContext = {
    byId,
    byExternalId,
    rows: new Map(employees.map((e) => [e.id, { entries: new Map() }])),
    breaks: new Map(),
    schedules: new Map(),
    confirmed: new Set(),
    periods: [],
    openDates: [],
  };
  if (employees.length === 0) return loaded;
  const employeeIds = employees.map((e) => e.id);
  // The punches' instants and work dates, each in its employee's zone (any zone bounds it: ±14 h).
  const epochs: number[] = [];
  const dates: string[] = [];
  for (const [i, instant] of parsed.entries()) {
    if (!instant) continue;
    const selector = employeeLookup(principal, events[i]!.employee);
    const found =
      typeof selector.id === 'string'
        ? byId.get(selector.id.toLowerCase())
        : byExternalId.get(selector.externalId ?? '');
    if (!found) continue;
    epochs.push(instant.epochMs);
    dates.push(localizeInstant(instant, found.workplace_time_zone ?? principal.company.timeZone).workDate);
  }
  if (epochs.length === 0) return loaded;
  await readRows(tx, loaded, employeeIds, {
    from: new Date(Math.min(...epochs) - 2 * MAX_SESSION_MS - 60_000).toISOString(),
    to: new Date(Math.max(...epochs) + 60_000).toISOString(),
  });
  await readDays(tx, principal.companyId, loaded, employeeIds, dates);
  return loaded;
}

/** The employees' open sessions and entries started from `from` to `to`, and their breaks. */
async function readRows(
  tx: Tx,
  loaded: BatchContext,
  employeeIds: string[],
  { from, to }: { from: string; to: string },
): Promise<void> {
  // The entries' predicate, once for the entries and once for their breaks: no entry id is bound, so
  // a batch reaching back 30 days binds as few parameters as one of today (review of s32, F5).
  const read = (eb: ExpressionBuilder<Schema, 'time_entries'>) =>
    eb.and([
      eb('time_entries.employee_id', 'in', employeeIds),
      eb.or([
        eb('time_entries.status', '=', OPEN),
        eb.and([eb('time_entries.start_at', '>', from), eb('time_entries.start_at', '<=', to)]),
      ]),
    ]);
  const entries = await tx.selectFrom('time_entries').selectAll().where(read).execute();
  for (const entry of entries) loaded.rows.get(entry.employee_id)!.entries.set(entry.id, entry);
  for (const entry of entries) loaded.breaks.set(entry.id, []);
  if (entries.length > 0) {
    // The breaks of exactly the entries read (review of s32, F1): a duplicate break's entry started
    // less than two days before the punch, so it is one of them (duplicates.ts, clock-event.ts).
    const breaks = await tx
      .selectFrom('time_entry_breaks')
      .innerJoin('time_entries', 'time_entries.id', 'time_entry_breaks.time_entry_id')
      .selectAll('time_entry_breaks')
      .where(read)
      .orderBy('time_entry_breaks.start_at')
      .orderBy('time_entry_breaks.id')
      .execute();
    // Read in the same transaction as its entries, under the employees' locks; skipped, not thrown
    // on, should a break ever come without its entry: no lookup reaches a break whose entry is not read.
    for (const b of breaks) loaded.breaks.get(b.time_entry_id)?.push(b);
  }
  loaded.openDates = entries.filter((e) => e.status === 'open').map((e) => e.work_date);
}

/** The employees' schedules, confirmed days and the company's closed periods, of the punches' days and the open sessions'. */
async function readDays(
  tx: Tx,
  companyId: string,
  loaded: BatchContext,
  employeeIds: string[],
  dates: string[],
): Promise<void> {
  const allDates = [...dates, ...loaded.openDates].sort();
  const firstDay = allDates[0]!;
  const lastDay = allDates.at(-1)!;
  const schedules = await tx
    .selectFrom('employee_schedules')
    .select(['employee_id', 'schedule_id', 'effective_from'])
    .where('employee_id', 'in', employeeIds)
    .where('effective_from', '<=', lastDay)
    .orderBy('effective_from', 'desc')
    .execute();
  for (const s of schedules) {
    const list = loaded.schedules.get(s.employee_id) ?? [];
    list.push(s);
    loaded.schedules.set(s.employee_id, list);
  }
  const confirmed = await tx
    .selectFrom('confirmed_days')
    .select(['employee_id', 'work_date'])
    .where('employee_id', 'in', employeeIds)
    .where('work_date', '>=', firstDay)
    .where('work_date', '<=', lastDay)
    .execute();
  for (const d of confirmed) loaded.confirmed.add(`${d.employee_id}|${d.work_date}`);
  loaded.periods = await tx
    .selectFrom('locked_periods')
    .select(['id', 'from_date', 'to_date', 'workplace_id'])
    .where('company_id', '=', companyId)
    .where('reopened_at', 'is', null)
    .where('to_date', '>=', firstDay)
    .where('from_date', '<=', lastDay)
    .orderBy('to_date')
    .orderBy('id')
    .execute();
}
