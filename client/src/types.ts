// Named shapes of the Punchclock public API v1: the description's named schemas
// (components.schemas in schema.ts, generated from openapi.json), plus what only operations say
// (queries, the error names of each status), so nothing here can drift from the description.
import type { components, operations } from './schema.js';

type Schemas = components['schemas'];

type Responses<K extends keyof operations> = operations[K]['responses'];
type JsonBody<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type ProblemBody<R> = R extends { content: { 'application/problem+json': infer B } } ? B : never;

/** POST /oauth/token, 200. */
export type TokenResponse = Schemas['TokenResponse'];
/** POST /oauth/token errors: OAuth's own JSON `{ error, error_description }`. */
export type OAuthErrorBody = JsonBody<Responses<'issueToken'>[400 | 401 | 429 | 500]>;

/** GET /me: who the token acts for, its scopes and expiry. */
export type TokenDescription = Schemas['TokenDescription'];

/** A page of a list endpoint. */
export interface Page<T> {
  items: T[];
  /** Opaque; null on the last page. */
  nextCursor: string | null;
  hasMore: boolean;
}

export type EmployeePage = Schemas['EmployeePage'];
export type Employee = Schemas['EmployeeListItem'];
export type EmployeeListQuery = NonNullable<operations['listEmployees']['parameters']['query']>;
export type EmployeeStatus = NonNullable<EmployeeListQuery['status']>;

/** PUT /employees/{id}/external-id, 200. */
export type ExternalIdResult = Schemas['ExternalIdResult'];

/** POST /time-clock/events body. */
export type ClockEventInput = Schemas['ClockEvent'];
export type ClockEventType = ClockEventInput['type'];
/** Names an employee in a request: at least one of `id` / `externalId`. */
export type EmployeeSelector = Schemas['EmployeeSelector'];
/** POST /time-entries body (a completed shift). */
export type ShiftInput = Schemas['Shift'];
/** The result of a clock event or a shift (201 recorded, 200 dry run or duplicate). */
export type WriteResult = Schemas['WriteResult'];
/** POST /time-clock/events/batch body: `{ events }`, 1 to 100 clock events, each with an optional `idempotencyKey`. */
export type ClockEventBatch = Schemas['ClockEventBatch'];
export type ClockEventBatchItem = Schemas['ClockEventBatchItem'];
/** POST /time-clock/events/batch, 200: one result per event, in the order sent. */
export type ClockEventBatchResult = Schemas['ClockEventBatchResult'];
/** One event's result: the status and body (write result or problem) POST /time-clock/events would have answered. */
export type ClockEventResult = ClockEventBatchResult['results'][number];
/** A punched break of a clocked entry (`TimeEntry.breaks`). */
export type TimeEntryBreak = Schemas['TimeEntryBreak'];

export type TimeEntryPage = Schemas['TimeEntryPage'];
export type TimeEntry = Schemas['TimeEntry'];
type RawTimeEntryQuery = NonNullable<operations['listTimeEntries']['parameters']['query']>;
/**
 * GET /time-entries query: exactly one of `employeeId` / `externalId` (the description can only say
 * both are optional; the server answers 422 otherwise).
 */
export type TimeEntryListQuery = Omit<RawTimeEntryQuery, 'employeeId' | 'externalId'> &
  ({ employeeId: string; externalId?: never } | { externalId: string; employeeId?: never });

export type TimesheetPage = Schemas['TimesheetPage'];
/** One employee's timesheet: `employee`, `days` (date, hours, breaks, entries, statuses, flags), `totals`. */
export type Timesheet = Schemas['Timesheet'];
/**
 * GET /reports/timesheets query: `from`, `to`, at most one of `employeeId` / `externalId` /
 * `workplaceId`, `status` (`approved` or `all`), `cursor`, `limit`; `delimiter` and `bom` for the CSV.
 */
export type TimesheetQuery = NonNullable<operations['listTimesheets']['parameters']['query']>;

/** GET /time-entries/{id}/revisions: one revision of an entry (issue 30): who changed what, when and why. */
export type TimeEntryRevision = Schemas['TimeEntryRevision'];
/** Who made a change: an API key, a person, a device, the command line or the system. */
export type Actor = Schemas['Actor'];
/** PATCH /time-entries/{id} body: new times, breaks or note, and the reason. */
export type TimeEntryCorrection = Schemas['TimeEntryCorrection'];
/** A closed payroll period. */
export type LockedPeriod = Schemas['LockedPeriod'];
/** POST /locked-periods body: `from`, `to`, optionally `workplaceId`. */
export type PeriodClosing = Schemas['PeriodClosing'];
/** Issue 31: absence types, holidays, absences and leave balances. */
export type AbsenceType = Schemas['AbsenceType'];
export type Holiday = Schemas['Holiday'];
export type HolidayListQuery = operations['listHolidays']['parameters']['query'];
export type Absence = Schemas['Absence'];
export type AbsencePage = Schemas['AbsencePage'];
/** An absence as a write answers it: `dryRun`, `balanceAfter` (deducting types), `id` null on a dry-run creation. */
export type AbsenceResult = Schemas['AbsenceResult'];
/** POST /absences body. */
export type AbsenceInput = Schemas['AbsenceCreate'];
export type AbsenceListQuery = NonNullable<operations['listAbsences']['parameters']['query']>;
export type LeaveBalances = Schemas['LeaveBalances'];
export type LeaveBalance = Schemas['LeaveBalance'];
export type LeaveBalanceQuery = NonNullable<operations['listLeaveBalances']['parameters']['query']>;

/** Any problem document (RFC 9457) an operation of the description may answer with. */
export type Problem = {
  [K in keyof operations]: ProblemBody<Responses<K>[keyof Responses<K>]>;
}[keyof operations];
/** One entry of a 422 problem's `errors[]`. */
export type FieldError = Schemas['FieldError'];
/** Every `error` name the description lists, problem documents and the token endpoint's alike. */
export type ErrorName = Problem['error'] | OAuthErrorBody['error'];
