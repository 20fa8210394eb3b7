import type { CursorCodec } from '../../domain/cursor.js';
import { ApiError, type FieldError, validationError } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { daysBetween, isValidDate } from '../../domain/time-zone.js';
import type { Executor, Tx } from '../../platform/db/database.js';
import { recordAudit } from '../audit/queries.js';
import { findClosedPeriod } from '../corrections/queries/day-locks.js';
import type { AppContext } from '../context.js';
import { resolveEmployee } from '../employees/service.js';
import { invalidCursor, type Page } from '../../shared/pages.js';
import { appendEvents, type EventType } from '../events/service.js';
import { type LeaveCaller, SYSTEM_ACTOR } from './actors.js';
import { checkBalance } from './balances.js';
import { type CalendarDay, countAbsence, round2, secondsTaken } from './calendar.js';
import { MAX_HOLIDAY_RANGE_DAYS, yearRange } from './holidays.js';
import {
  type AbsenceRow,
  type AbsenceWithType,
  findAbsence,
  firstLockedDay,
  insertAbsence,
  type LeaveEmployeeRow,
  listAbsencePage,
  listLiveAbsences,
  lockEmployee,
} from './queries.js';
import { type AbsenceTypeRow, findType } from './calendar.queries.js';
import type { AbsenceCreate, AbsencePortion, AbsenceResult, AbsencesQuery, AbsenceView } from './schemas.js';
import { employeeCalendar } from './working-days.js';

/* Absences (issue 31): request one, read one, list them. Decisions are in decisions.ts. */

export function absenceView(row: AbsenceWithType): AbsenceView {
  return {
    id: row.id,
    employee: { id: row.employee_id, externalId: row.employee_external_id },
    type: { id: row.absence_type_id, code: row.type_code },
    startDate: row.start_date,
    endDate: row.end_date,
    portion: row.portion as AbsencePortion,
    hours: row.hours === null ? null : Number(row.hours),
    days: Number(row.days),
    status: row.status as AbsenceView['status'],
    note: row.note,
    reason: row.reason,
    decidedAt: row.decided_at,
    decidedBy:
      row.decided_by_kind === null
        ? null
        : {
            kind: row.decided_by_kind as NonNullable<AbsenceView['decidedBy']>['kind'],
            id: row.decided_by_id,
            name: row.decided_by_name,
          },
    createdAt: row.created_at,
    version: Number(row.version),
  };
}

export function resultOf(
  view: AbsenceView | (Omit<AbsenceView, 'id'> & { id: null }),
  dryRun: boolean,
  balanceAfter: number | null,
): AbsenceResult {
  return { ...view, dryRun, balanceAfter };
}

/**
 * Refuses (409 day_locked) a change to what an employee's days from `from` to `to` count when one
 * of them is locked: a day the employee confirmed, or a day of a closed payroll period of the company
 * or of the employee's workplace (issue 30).
 */
export async function assertDaysOpen(
  db: Executor,
  companyId: string,
  employee: Pick<LeaveEmployeeRow, 'id' | 'workplace_id'>,
  from: string,
  to: string,
): Promise<void> {
  const locked = await firstLockedDay(db, employee.id, from, to);
  if (locked !== null) throw new ApiError('day_locked', `${locked} is confirmed (locked) for this employee`);
  const period = await findClosedPeriod(db, { companyId, workplaceId: employee.workplace_id, from, to });
  if (period)
    throw new ApiError(
      'day_locked',
      `the period ${period.from_date} to ${period.to_date} is closed (locked period ${period.id}); reopen it to change its days`,
    );
}

/** Whether two absences of one employee overlap: their ranges meet, unless they are the two halves of one day. */
export function overlaps(
  a: { start_date: string; end_date: string; portion: string },
  b: { startDate: string; endDate: string; portion: string },
): boolean {
  if (a.start_date > b.endDate || a.end_date < b.startDate) return false;
  const halves = ['first_half', 'second_half'];
  return !(halves.includes(a.portion) && halves.includes(b.portion) && a.portion !== b.portion);
}

/** The years of leave balances (GET /leave-balances' `year`), and so of absences. */
const MIN_YEAR = 2000;
const MAX_YEAR = 2100;

interface CheckedRequest {
  startDate: string;
  endDate: string;
  portion: AbsencePortion;
  hours: number | null;
  note: string | null;
}

/** The request's own rules (422, each naming its field), before anything is read. */
export function checkRequest(input: Omit<AbsenceCreate, 'employee' | 'typeCode'>): CheckedRequest {
  const errors: FieldError[] = [];
  const portion = input.portion ?? 'full';
  const hours = input.hours ?? null;
  for (const field of ['startDate', 'endDate'] as const)
    if (!isValidDate(input[field]))
      errors.push({ field, message: 'must be a date YYYY-MM-DD', code: 'format' });
    else if (input[field] < `${MIN_YEAR}-01-01` || input[field] > `${MAX_YEAR}-12-31`)
      // The years a leave balance can be read for: an absence outside them could never be counted.
      errors.push({ field, message: `must be in the years ${MIN_YEAR} to ${MAX_YEAR}`, code: 'range' });
  if (errors.length === 0 && input.endDate < input.startDate)
    errors.push({ field: 'endDate', message: 'must not be before startDate', code: 'range' });
  else if (errors.length === 0 && daysBetween(input.startDate, input.endDate) + 1 > MAX_HOLIDAY_RANGE_DAYS)
    errors.push({
      field: 'endDate',
      message: `an absence spans at most ${MAX_HOLIDAY_RANGE_DAYS} days`,
      code: 'range',
    });
  if (!['full', 'first_half', 'second_half', 'hours'].includes(portion))
    errors.push({
      field: 'portion',
      message: 'must be full, first_half, second_half or hours',
      code: 'enum',
    });
  else if (portion !== 'full' && errors.length === 0 && input.startDate !== input.endDate)
    errors.push({
      field: 'portion',
      message: `a ${portion} absence covers one day: startDate and endDate must be the same`,
      code: 'one_day',
    });
  if (portion === 'hours' && hours === null)
    errors.push({ field: 'hours', message: 'is required with portion hours', code: 'required' });
  if (portion !== 'hours' && hours !== null)
    errors.push({ field: 'hours', message: 'is only allowed with portion hours', code: 'not_allowed' });
  if (hours !== null && !(hours > 0 && hours <= 24))
    errors.push({ field: 'hours', message: 'must be more than 0 and at most 24', code: 'range' });
  const note = input.note ?? null;
  if (note !== null && (note.length > 500 || note.includes('\u0000')))
    errors.push({ field: 'note', message: 'must be at most 500 characters', code: 'length' });
  if (errors.length > 0) throw validationError(errors);
  return {
    startDate: input.startDate,
    endDate: input.endDate,
    portion: portion as AbsencePortion,
    hours,
    note,
  };
}

/** The hours an absence of a type counted in hours takes: the targets of its days (or half of them). */
function hoursOf(calendar: readonly CalendarDay[], portion: AbsencePortion): number {
  return round2(calendar.reduce((sum, day) => sum + secondsTaken(day, portion, null), 0) / 3600);
}

async function requireType(db: Executor, companyId: string, code: string): Promise<AbsenceTypeRow> {
  const type = await findType(db, companyId, { code });
  if (!type)
    throw validationError([
      { field: 'typeCode', message: `the company has no absence type ${code}`, code: 'unknown' },
    ]);
  return type;
}

/** Events of a new absence: requested, and approved at once when its type needs no approval. */
function creationEvents(view: AbsenceView): { type: EventType; data: AbsenceView }[] {
  const events: { type: EventType; data: AbsenceView }[] = [
    { type: 'absence.requested', data: { ...view, status: 'requested', decidedAt: null, decidedBy: null } },
  ];
  if (view.status === 'approved') events.push({ type: 'absence.approved', data: view });
  return events;
}

/** The audit row of a new absence. */
function auditRequest(tx: Tx, caller: LeaveCaller, typeCode: string, row: AbsenceRow): Promise<void> {
  return recordAudit(tx, {
    companyId: caller.companyId,
    actorType: caller.audit.type,
    actorId: caller.audit.id,
    action: 'absence.request',
    targetType: 'absence',
    targetId: row.id,
    details: {
      type: typeCode,
      startDate: row.start_date,
      endDate: row.end_date,
      portion: row.portion,
      status: row.status,
    },
    at: row.created_at,
  });
}

/**
 * POST /absences: the employee's working days in the range are counted, then the refusals in order
 * (404 employee, 422 type or no working day, 409 overlap, 409 locked day, 409 balance); a dry run
 * answers what would be created and stores nothing.
 */
export async function createAbsence(
  tx: Tx,
  now: number,
  caller: LeaveCaller,
  input: AbsenceCreate,
  options: { dryRun: boolean },
): Promise<{ status: 200 | 201; body: AbsenceResult }> {
  const request = checkRequest(input);
  const found = await resolveEmployee(tx, caller.companyId, input.employee);
  const employee = (await lockEmployee(tx, caller.companyId, found.id))!;
  const type = await requireType(tx, caller.companyId, input.typeCode);
  const calendar = await employeeCalendar(tx, caller.companyId, employee, request.startDate, request.endDate);
  const counted = countAbsence(calendar, request.portion, request.hours);
  if (counted.workDays === 0)
    throw validationError([
      {
        field: 'startDate',
        message: `${request.startDate}..${request.endDate} holds no working day of the employee`,
        code: 'no_working_day',
      },
    ]);
  const target = calendar[0]?.targetSeconds ?? 0;
  if (request.portion === 'hours' && request.hours !== null && request.hours * 3600 > target)
    // An absence of hours takes part of one day: at most what the day owes (a half-day holiday owes half).
    throw validationError([
      {
        field: 'hours',
        message: `must be at most the day's target of ${round2(target / 3600)} hours`,
        code: 'range',
      },
    ]);
  const clash = (await listLiveAbsences(tx, employee.id, request.startDate, request.endDate)).find((a) =>
    overlaps(a, request),
  );
  if (clash)
    throw new ApiError(
      'absence_overlaps',
      `overlaps absence ${clash.id} (${clash.start_date}..${clash.end_date}, ${clash.status})`,
    );
  await assertDaysOpen(tx, caller.companyId, employee, request.startDate, request.endDate);
  const balanceAfter = await checkBalance(tx, now, caller, employee, type, { id: null, ...request });
  const at = new Date(now).toISOString();
  const approved = type.requires_approval !== 1;
  const hours = request.hours ?? (type.unit === 'hours' ? hoursOf(calendar, request.portion) : null);
  const row: AbsenceRow = {
    id: newId(),
    company_id: caller.companyId,
    employee_id: employee.id,
    absence_type_id: type.id,
    start_date: request.startDate,
    end_date: request.endDate,
    portion: request.portion,
    hours,
    days: counted.days,
    status: approved ? 'approved' : 'requested',
    note: request.note,
    reason: null,
    decided_at: approved ? at : null,
    decided_by_kind: approved ? SYSTEM_ACTOR.kind : null,
    decided_by_id: null,
    decided_by_name: approved ? SYSTEM_ACTOR.name : null,
    created_by_kind: caller.actor.kind,
    created_by_id: caller.actor.id,
    created_at: at,
    updated_at: at,
    version: 1,
  };
  const view = absenceView({ ...row, type_code: type.code, employee_external_id: employee.external_id });
  if (options.dryRun) return { status: 200, body: resultOf({ ...view, id: null }, true, balanceAfter) };
  await insertAbsence(tx, row);
  await auditRequest(tx, caller, type.code, row);
  await appendEvents(tx, caller.companyId, creationEvents(view), at);
  return { status: 201, body: resultOf(view, false, balanceAfter) };
}

/** GET /absences/{id}: 404 for another company's or an unknown id. */
export async function getAbsence(db: Executor, companyId: string, id: string): Promise<AbsenceView> {
  const row = await findAbsence(db, companyId, id.toLowerCase());
  if (!row) throw new ApiError('not_found', `no absence ${id} in this company`);
  return absenceView(row);
}

/** GET /absences: touching `from`..`to` (at most 366 days, by default this year), by start date then id. */
export async function listAbsences(
  ctx: AppContext,
  cursors: CursorCodec,
  company: { companyId: string; timeZone: string | null },
  query: AbsencesQuery,
): Promise<Page<AbsenceView>> {
  if (query.employeeId !== undefined && query.externalId !== undefined)
    throw validationError([
      { field: 'externalId', message: 'send at most one of employeeId and externalId', code: 'one_of' },
    ]);
  const db = ctx.database.db;
  const { from, to } = yearRange(ctx, company.timeZone, query);
  const employeeId =
    query.employeeId === undefined && query.externalId === undefined
      ? null
      : (
          await resolveEmployee(db, company.companyId, {
            id: query.employeeId ?? null,
            externalId: query.externalId ?? null,
          })
        ).id;
  const listing = {
    k: 'absences',
    c: company.companyId,
    f: from,
    t: to,
    e: employeeId,
    s: query.status ?? null,
    y: query.typeCode ?? null,
  };
  let after: { startDate: string; id: string } | null = null;
  if (query.cursor !== undefined) {
    const p = cursors.decode(query.cursor);
    const same = p !== null && Object.entries(listing).every(([key, value]) => p[key] === value);
    if (!same || !Array.isArray(p.a) || typeof p.a[0] !== 'string' || typeof p.a[1] !== 'string')
      throw invalidCursor();
    after = { startDate: p.a[0], id: p.a[1] };
  }
  const limit = query.limit ?? 25;
  const rows = await listAbsencePage(db, {
    companyId: company.companyId,
    employeeId,
    from,
    to,
    status: query.status ?? null,
    typeCode: query.typeCode ?? null,
    after,
    limit: limit + 1,
  });
  const hasMore = rows.length > limit;
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return {
    items: items.map(absenceView),
    nextCursor: hasMore && last ? cursors.encode({ ...listing, a: [last.start_date, last.id] }) : null,
    hasMore,
  };
}

/** `absence list --employee ID`: all of the employee's absences touching `from`..`to` (default this year). */
export async function employeeAbsences(
  ctx: AppContext,
  caller: LeaveCaller,
  query: { employeeId: string; from?: string; to?: string },
): Promise<{ items: AbsenceView[] }> {
  const db = ctx.database.db;
  const { from, to } = yearRange(ctx, caller.timeZone, query);
  const employee = await resolveEmployee(db, caller.companyId, { id: query.employeeId });
  const items: AbsenceView[] = [];
  let after: { startDate: string; id: string } | null = null;
  for (;;) {
    const rows = await listAbsencePage(db, {
      companyId: caller.companyId,
      employeeId: employee.id,
      from,
      to,
      status: null,
      typeCode: null,
      after,
      limit: 500,
    });
    items.push(...rows.map(absenceView));
    const last = rows.at(-1);
    if (rows.length < 500 || !last) return { items };
    after = { startDate: last.start_date, id: last.id };
  }
}
