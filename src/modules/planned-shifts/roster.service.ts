import { DateTime } from 'luxon';
import { ApiError, validationError } from '../../domain/errors.js';
import { addDays, daysBetween } from '../../domain/time-zone.js';
import type { ConsolePerson } from '../people/person.js';
import { type AppContext, actorOf, inTransaction } from '../context.js';
import {
  employeesByIds,
  exceptionsOfWorkplace,
  rosterEmployees,
  shiftsOfWorkplace,
  workplaceOfCompany,
  workplacesOfCompany,
} from './queries/console.js';
import { type BatchItem, type ItemOutcome, type PlanScope, upsertShifts } from './batch.js';
import { dateRange, deleteShift, publishShifts } from './shifts.service.js';
import { exceptionView, shiftView, type ShiftView } from './views.js';

/*
 * The console's Roster screen (issue 33): a workplace's week of shifts with its exceptions, and the
 * changes a shift manager makes there. Every change is the public API's own operation (batch.ts,
 * shifts.service.ts) for the person's company; the console sends wall-clock days and times, which
 * are read in the workplace's zone (so a week copied across a DST change keeps its 09:00).
 */

const MAX_ROSTER_DAYS = 31;

const companyZone = (person: ConsolePerson) => person.company.timeZone ?? 'UTC';

function scopeOf(person: ConsolePerson): PlanScope {
  return { companyId: person.companyId, companyZone: person.company.timeZone, actor: actorOf(person) };
}

async function requireWorkplace(ctx: AppContext, person: ConsolePerson, id: string) {
  const workplace = await workplaceOfCompany(ctx.database.db, person.companyId, id.toLowerCase());
  if (!workplace) throw new ApiError('not_found', 'no workplace with this id in your company');
  return { ...workplace, zone: workplace.time_zone ?? person.company.timeZone ?? 'UTC' };
}

/** The instant (RFC 3339 with offset) of a wall-clock day and time in `zone`. */
export function wallInstant(date: string, time: string, zone: string): string {
  return DateTime.fromISO(`${date}T${time}`, { zone }).toISO({ suppressMilliseconds: true })!;
}

const timeOf = (view: ShiftView) => ({
  startTime: view.start.slice(11, 16),
  endTime: view.end.slice(11, 16),
});

/**
 * What of the roster a person may see beyond the plan (review of issue 33, finding 8): the plan itself
 * (employees' names and ids, workplaces, shifts) is for anyone who plans (97) or reads attendance (47);
 * the exceptions are attendance data (47, as `attendance.read` on the public API) and the employees'
 * email addresses are people data (52, or 47 whose screens already show them).
 */
export interface RosterVisibility {
  exceptions: boolean;
  emails: boolean;
}

export async function rosterOf(
  ctx: AppContext,
  person: ConsolePerson,
  query: { workplaceId?: string; from: string; to: string },
  visible: RosterVisibility,
) {
  const { from, to } = dateRange(query);
  if (daysBetween(from, to) > MAX_ROSTER_DAYS)
    throw validationError([
      { field: 'to', message: `a roster spans at most ${MAX_ROSTER_DAYS} days`, code: 'range' },
    ]);
  const db = ctx.database.db;
  const workplaces = await workplacesOfCompany(db, person.companyId);
  const listed = workplaces.map((w) => ({ id: w.id, name: w.name }));
  const empty = { workplaces: listed, workplace: null, timeZone: companyZone(person), from, to };
  if (query.workplaceId === undefined && workplaces.length === 0)
    return { ...empty, employees: [], shifts: [], exceptions: visible.exceptions ? [] : null };
  const workplace = await requireWorkplace(ctx, person, query.workplaceId ?? workplaces[0]!.id);
  const range = { companyId: person.companyId, workplaceId: workplace.id, from, to };
  const [shifts, exceptions] = await Promise.all([
    shiftsOfWorkplace(db, range),
    visible.exceptions ? exceptionsOfWorkplace(db, range) : Promise.resolve([]),
  ]);
  const employees = await rosterEmployees(db, person.companyId, workplace.id, [
    ...new Set([...shifts.map((s) => s.employee_id), ...exceptions.map((x) => x.employee_id)]),
  ]);
  return {
    ...empty,
    workplace: { id: workplace.id, name: workplace.name },
    timeZone: workplace.zone,
    employees: employees.map((e) => ({
      id: e.id,
      externalId: e.external_id,
      firstName: e.first_name,
      lastName: e.last_name,
      email: visible.emails ? e.email : null,
    })),
    shifts: shifts.map((row) => {
      const view = shiftView(row, { id: row.employee_id, external_id: row.employee_external_id });
      return { ...view, ...timeOf(view) };
    }),
    exceptions: visible.exceptions
      ? exceptions.map((row) =>
          exceptionView(row, { id: row.employee_id, external_id: row.employee_external_id }),
        )
      : null,
  };
}

export interface RosterShiftInput {
  employeeId: string;
  workplaceId: string;
  date: string;
  startTime: string;
  endTime: string;
  breakMinutes?: number;
  note?: string | null;
}

/** The console's fields for the batch's: the end at or before the start is on the next day. */
async function itemOf(
  ctx: AppContext,
  person: ConsolePerson,
  input: RosterShiftInput,
): Promise<BatchItem['item']> {
  const workplace = await requireWorkplace(ctx, person, input.workplaceId);
  const endDate = input.endTime <= input.startTime ? addDays(input.date, 1) : input.date;
  return {
    employee: { id: input.employeeId },
    workplaceId: workplace.id,
    start: wallInstant(input.date, input.startTime, workplace.zone),
    end: wallInstant(endDate, input.endTime, workplace.zone),
    breakMinutes: input.breakMinutes ?? 0,
    note: input.note ?? null,
  };
}

const CONSOLE_FIELDS: Record<string, string> = { start: 'startTime', end: 'endTime', employee: 'employeeId' };

/** An item's refusal as the console's problem: the fields named as the console names them. */
function settled(outcome: ItemOutcome): ShiftView & { startTime: string; endTime: string } {
  if ('error' in outcome) {
    const { error } = outcome;
    if (error.fieldErrors)
      throw validationError(
        error.fieldErrors.map((e) => ({ ...e, field: CONSOLE_FIELDS[e.field] ?? e.field })),
        error.detail ?? undefined,
      );
    throw error;
  }
  return { ...outcome.body, ...timeOf(outcome.body) };
}

export async function createRosterShift(ctx: AppContext, person: ConsolePerson, input: RosterShiftInput) {
  const item = await itemOf(ctx, person, input);
  const [outcome] = await inTransaction(ctx, (tx, now) =>
    upsertShifts(tx, now, scopeOf(person), [{ item, invalid: null }], { dryRun: false }),
  );
  return settled(outcome!);
}

export async function updateRosterShift(
  ctx: AppContext,
  person: ConsolePerson,
  id: string,
  input: RosterShiftInput,
) {
  const item = await itemOf(ctx, person, input);
  const [outcome] = await inTransaction(ctx, (tx, now) =>
    upsertShifts(tx, now, scopeOf(person), [{ item, invalid: null, id: id.toLowerCase() }], {
      dryRun: false,
    }),
  );
  return settled(outcome!);
}

export async function deleteRosterShift(ctx: AppContext, person: ConsolePerson, id: string): Promise<void> {
  await inTransaction(ctx, (tx, now) =>
    deleteShift(tx, now, { companyId: person.companyId, actor: actorOf(person) }, id),
  );
}

/** The previous week's shifts of the workplace, a week later, as drafts; those that would overlap are skipped. */
export async function copyPreviousWeek(
  ctx: AppContext,
  person: ConsolePerson,
  input: { workplaceId: string; weekStart: string },
) {
  const workplace = await requireWorkplace(ctx, person, input.workplaceId);
  const { from } = dateRange({ from: input.weekStart, to: input.weekStart });
  const source = await shiftsOfWorkplace(ctx.database.db, {
    companyId: person.companyId,
    workplaceId: workplace.id,
    from: addDays(from, -7),
    to: addDays(from, -1),
  });
  const live = new Set(
    (
      await employeesByIds(
        ctx.database.db,
        person.companyId,
        source.map((s) => s.employee_id),
      )
    ).map((e) => e.id),
  );
  const items: BatchItem[] = source
    .filter((s) => live.has(s.employee_id))
    .map((s) => {
      const view = shiftView(s, { id: s.employee_id, external_id: null });
      const { startTime, endTime } = timeOf(view);
      const startDate = addDays(view.start.slice(0, 10), 7);
      const endDate = addDays(view.end.slice(0, 10), 7);
      return {
        invalid: null,
        item: {
          employee: { id: s.employee_id },
          workplaceId: workplace.id,
          start: wallInstant(startDate, startTime, workplace.zone),
          end: wallInstant(endDate, endTime, workplace.zone),
          breakMinutes: Number(s.break_minutes),
          note: s.note,
        },
      };
    });
  const outcomes =
    items.length === 0
      ? []
      : await inTransaction(ctx, (tx, now) =>
          upsertShifts(tx, now, scopeOf(person), items, { dryRun: false }),
        );
  const created = outcomes.filter((o) => !('error' in o)).length;
  return { created, skipped: source.length - created };
}

export async function publishRange(
  ctx: AppContext,
  person: ConsolePerson,
  input: { workplaceId: string; from: string; to: string },
) {
  const workplace = await requireWorkplace(ctx, person, input.workplaceId);
  const { published } = await inTransaction(ctx, (tx, now) =>
    publishShifts(
      tx,
      now,
      { companyId: person.companyId, actor: actorOf(person) },
      { ...input, workplaceId: workplace.id },
      { dryRun: false },
    ),
  );
  return { published };
}
