import { ApiError, validationError } from '../../domain/errors.js';
import { type ParsedInstant, parseInstantWithOffset, type LocalizedInstant } from '../../domain/time-zone.js';
import { isUniqueViolation, type Tx, uniqueViolationTarget } from '../../platform/db/database.js';
import { WritePlan } from '../../platform/db/write-plan.js';
import { type AuditEntry, planAudit } from '../audit/queries.js';
import type { Principal } from '../auth/service.js';
import { type EmployeeSelector, lockEmployeeForWrite } from '../employees/service.js';
import type { EmployeeForWrite, EmployeeWithZone } from '../employees/queries.js';
import { type NewEvent, planEvents } from '../events/service.js';
import { type BreakClosing, type BreakRow, planCloseOpenBreak, planInsertBreak } from './queries/breaks.js';
import type { PunchContext } from './queries/context.js';
import {
  planCompleteSession,
  planInsertEntry,
  planUpdateOpenSession,
  type SessionClosing,
} from './queries/entries.js';
import { type NewRevision, planRevision } from '../corrections/revisions.js';
import { MAX_SESSION_MS } from './punch-rules.js';
import type { ClockEventInput, newEntry, WriteOutcome } from './results.js';

/*
 * What every write of time tracking shares: the employee's row lock and time zone, the business rules
 * and the day locks every write checks, and the audit row and event every write records.
 */

/** A punch on its way to being written: who, when, the employee, the localised instant, its context. */
export interface PunchWrite {
  principal: Principal;
  at: string;
  employee: EmployeeForWrite;
  punch: LocalizedInstant;
  context: PunchContext;
  /** The open session's breaks, oldest first (read only when it has any). */
  breaks: BreakRow[];
  input: ClockEventInput;
  dryRun: boolean;
  /** The entry's source at a clock-in: time_clock, or web_clock (issue 35). */
  source: string;
  /** The review flags the punch adds (in its entry and its events). */
  reviewFlags: string[];
}

export function parseInstantField(value: string, field: string): ParsedInstant {
  const parsed = parseInstantWithOffset(value);
  if (!parsed)
    throw validationError([
      { field, message: 'must be an RFC 3339 date-time with an explicit UTC offset', code: 'format' },
    ]);
  return parsed;
}

/*
 * Every stored entry lasts less than 24 hours (longer sessions and shifts are refused), so an entry
 * that reaches an instant started less than a day before it: the overlap and duplicate lookups read
 * only that day of the employee's history (see queries/duplicates.ts).
 */
export function dayBefore(iso: string): string {
  return new Date(Date.parse(iso) - MAX_SESSION_MS).toISOString();
}

export function notes(deviceId: string | null | undefined): string | null {
  return deviceId ? `[device: ${deviceId}]` : null;
}

export function appendNotes(existing: string | null, addition: string | null): string | null {
  if (!addition) return existing;
  return existing ? `${existing} ${addition}` : addition;
}

/**
 * Spec, time-zone rule: the workplace's zone, else the company's, else the offset as sent. Reading the
 * employee also takes their row lock on PostgreSQL (`FOR UPDATE`): concurrent writes for one employee,
 * from any instance, queue here. SQLite's write transaction (BEGIN IMMEDIATE) already serialises them.
 */
export async function loadEmployeeContext(
  tx: Tx,
  principal: Principal,
  selector: EmployeeSelector,
  /** A keyed punch's key lock, tried in the same statement (see lockEmployeeWithZone). */
  keyLock?: { name: string; busy: () => Error },
): Promise<{ employee: EmployeeForWrite; zone: string | null }> {
  const found = await lockEmployeeForWrite(
    tx,
    principal.companyId,
    employeeLookup(principal, selector),
    keyLock,
  );
  return employeeForPrincipal(principal, selector, found);
}

/**
 * How the employee is looked up: a kiosk device (issue 35) names its employee by id where it sends
 * one; whether that id and an external id match is told only about an employee the device may act
 * for (employeeForPrincipal), never before.
 */
export function employeeLookup(principal: Principal, selector: EmployeeSelector): EmployeeSelector {
  return principal.device && typeof selector.id === 'string' ? { id: selector.id } : selector;
}

/** The employee found for `selector` as the principal may punch for them, with their time zone. */
export function employeeForPrincipal(
  principal: Principal,
  selector: EmployeeSelector,
  found: EmployeeWithZone,
): { employee: EmployeeForWrite; zone: string | null } {
  const device = principal.device;
  const deviceById = device && typeof selector.id === 'string';
  const { workplace_time_zone: zone, status, ...employee } = found;
  // A kiosk device punches only for active employees of its own workplace.
  if (device && (employee.workplace_id !== device.workplaceId || status !== 'active'))
    throw new ApiError('employee_not_found', "no employee of this kiosk's workplace matches");
  if (deviceById && typeof selector.externalId === 'string' && selector.externalId !== employee.external_id)
    throw validationError([
      { field: 'employee', message: 'id and externalId name different employees', code: 'mismatch' },
    ]);
  return { employee, zone: zone ?? principal.company.timeZone };
}

export function assertBusinessRules(
  employee: Pick<EmployeeForWrite, 'workplace_id'>,
  scheduleId: string | null,
  workDate: string,
): void {
  if (employee.workplace_id === null)
    throw new ApiError('business_rule_violation', 'the employee has no workplace');
  if (scheduleId === null)
    throw new ApiError('business_rule_violation', `the employee has no schedule effective on ${workDate}`);
}

/**
 * 409 day_locked when one of the days a write lands on is confirmed (`locked`) or in a closed period
 * of the company or the employee's workplace (`closedPeriod`, issue 30, as the context statement says
 * it: `2026-11-01 to 2026-11-30 is closed (locked period …)`).
 */
export function assertDaysOpen(locked: boolean, dates: string[], closedPeriod: string | null): void {
  if (locked)
    throw new ApiError(
      'day_locked',
      `the employee has confirmed ${[...new Set(dates)].join(' or ')}; it is locked`,
    );
  if (closedPeriod !== null)
    throw new ApiError('day_locked', `the period ${closedPeriod}; reopen it to change its days`);
}

export interface EntryChange {
  action: string;
  entryId: string;
  details: Record<string, unknown>;
  event: NewEvent;
}

/** The audit row of an entry's change. */
export function entryChangeAudit(principal: Principal, at: string, change: EntryChange): AuditEntry {
  return {
    companyId: principal.companyId,
    actorType: principal.kind,
    actorId: principal.id,
    action: change.action,
    targetType: 'time_entry',
    targetId: change.entryId,
    details: change.details,
    at,
  };
}

/*
 * Issue 32: a punch is decided by pure functions (clock-event.ts decidePunch) on a loaded context,
 * into its answer and the rows it writes, as data. The single endpoint writes them one statement
 * each, in order (applyPunchEffects); a batch of punches decides every punch on its in-memory state
 * and writes all of them in multi-row statements (batch-set.ts).
 */
export type NewSession = ReturnType<typeof newEntry>;

export interface OpenSessionPatch {
  breakMinutes: number | null;
  notes: string | null;
  note: string | null;
  updatedAt: string;
  version: number;
}

export type PunchEffect =
  | { kind: 'insertEntry'; entry: NewSession }
  | { kind: 'insertBreak'; row: BreakRow }
  /** `required`: a break must end (break_end), else not_on_break; a clock-out ends one if any. */
  | { kind: 'closeBreak'; closing: BreakClosing; required: boolean }
  | { kind: 'completeSession'; id: string; patch: SessionClosing }
  | { kind: 'updateOpenSession'; id: string; patch: OpenSessionPatch }
  | { kind: 'revision'; revision: NewRevision }
  | { kind: 'change'; at: string; change: EntryChange };

/** A punch decided: its answer, and what it writes (nothing for a dry run). */
export interface PunchDecision {
  outcome: WriteOutcome;
  effects: PunchEffect[];
}

/*
 * The partial unique indexes that are the last word on one open session per employee and one break in
 * progress per entry, as a violation names them: PostgreSQL the index, SQLite its column.
 */
const ONE_OPEN_SESSION = ['time_entries_one_open_session_key', 'time_entries.employee_id'];
const ONE_OPEN_BREAK = ['time_entry_breaks_one_open_key', 'time_entry_breaks.time_entry_id'];

/**
 * The single endpoint's writes of a decided punch (or shift, shift.ts), with what the caller adds (`also`: a keyed punch's
 * stored outcome), as one plan (platform/db/write-plan.ts): one statement on PostgreSQL, one statement
 * each, in order, on SQLite. A unique index refusing the new open session or break is the refusal the
 * rules would have given had they seen the concurrent write (they cannot: the employee is locked).
 */
export async function applyPunchEffects(
  tx: Tx,
  principal: Principal,
  effects: PunchEffect[],
  also?: (plan: WritePlan) => void,
): Promise<void> {
  const plan = new WritePlan();
  let requiredClose: number | null = null;
  for (const effect of effects) {
    switch (effect.kind) {
      case 'insertEntry':
        planInsertEntry(plan, effect.entry);
        break;
      case 'insertBreak':
        planInsertBreak(plan, effect.row);
        break;
      case 'closeBreak':
        if (effect.required) requiredClose = plan.size;
        planCloseOpenBreak(plan, effect.closing);
        break;
      case 'completeSession':
        planCompleteSession(plan, effect.id, effect.patch);
        break;
      case 'updateOpenSession':
        planUpdateOpenSession(plan, effect.id, effect.patch);
        break;
      case 'revision':
        planRevision(plan, effect.revision);
        break;
      case 'change':
        planAudit(plan, entryChangeAudit(principal, effect.at, effect.change));
        await planEvents(tx, plan, principal.companyId, [effect.change.event], effect.at);
        break;
    }
  }
  also?.(plan);
  let written: number[];
  try {
    written = await plan.run(tx);
  } catch (error) {
    if (isUniqueViolation(error)) {
      const target = uniqueViolationTarget(error);
      if (ONE_OPEN_BREAK.some((name) => target.includes(name)))
        throw new ApiError('already_on_break', 'a break is already in progress');
      if (ONE_OPEN_SESSION.some((name) => target.includes(name)))
        throw new ApiError('already_clocked_in', 'a session is already open');
    }
    throw error;
  }
  if (requiredClose !== null && written[requiredClose] !== 1)
    throw new ApiError('not_on_break', 'the employee has no break in progress to end');
}
