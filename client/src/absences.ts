// The absences, holidays and leave balances of the public API v1 (issue 31), as methods of the
// client: the same token handling, Idempotency-Key and retries as every other call.
import type { Client } from 'openapi-fetch';
import type { paths } from './schema.js';
import type {
  Absence,
  AbsenceInput,
  AbsenceListQuery,
  AbsencePage,
  AbsenceResult,
  AbsenceType,
  HolidayListQuery,
  Holiday,
  LeaveBalanceQuery,
  LeaveBalances,
  Page,
} from './types.js';

export interface AbsenceCallOptions {
  signal?: AbortSignal;
}

export interface DecisionOptions extends AbsenceCallOptions {
  /** `true`: every check runs, nothing changes; the answer has `dryRun: true`. */
  dryRun?: boolean;
  idempotencyKey?: string;
  /** The version the decision is meant for (an absence's `version`): another is 412 version_mismatch. */
  ifMatch?: number;
}

export interface AbsenceMethods {
  /** GET /absence-types (scope leave.read). */
  listAbsenceTypes(options?: AbsenceCallOptions): Promise<{ items: AbsenceType[] }>;
  /** GET /holidays: a workplace's public and company holidays, at most 366 days. */
  listHolidays(query: HolidayListQuery, options?: AbsenceCallOptions): Promise<{ items: Holiday[] }>;
  /** GET /absences: one page, by start date then id. */
  listAbsences(query?: AbsenceListQuery, options?: AbsenceCallOptions): Promise<AbsencePage>;
  /** Every absence matching `query`, page after page. */
  absences(
    query?: Omit<AbsenceListQuery, 'cursor'>,
    options?: AbsenceCallOptions,
  ): AsyncGenerator<Absence, void, undefined>;
  /** GET /absences/{id}. */
  getAbsence(id: string, options?: AbsenceCallOptions): Promise<Absence>;
  /** POST /absences (scope leave.manage): requested, or approved at once when its type needs no approval. */
  createAbsence(body: AbsenceInput, options?: DecisionOptions): Promise<AbsenceResult>;
  /** POST /absences/{id}/approve. */
  approveAbsence(id: string, options?: DecisionOptions): Promise<AbsenceResult>;
  /** POST /absences/{id}/reject, with a reason. */
  rejectAbsence(id: string, reason: string, options?: DecisionOptions): Promise<AbsenceResult>;
  /** POST /absences/{id}/cancel, with a reason: withdraws a request or cancels an approved absence. */
  cancelAbsence(id: string, reason: string, options?: DecisionOptions): Promise<AbsenceResult>;
  /** GET /leave-balances: an employee's balances of a year. */
  leaveBalances(query: LeaveBalanceQuery, options?: AbsenceCallOptions): Promise<LeaveBalances>;
}

/** What the client lends these methods: its typed fetch, its error unwrapping and its pager. */
export interface ClientParts {
  raw: Client<paths>;
  unwrap<T>(operation: string, result: { data?: T; error?: unknown; response: Response }): T;
  paginate<T>(
    fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
  ): AsyncGenerator<T, void, undefined>;
}

function headers(options: DecisionOptions | undefined) {
  return {
    'X-Service-Dry-Run': options?.dryRun === true,
    ...(options?.idempotencyKey !== undefined ? { 'Idempotency-Key': options.idempotencyKey } : {}),
    ...(options?.ifMatch !== undefined ? { 'If-Match': `"${options.ifMatch}"` } : {}),
  };
}

export function absenceMethods({ raw, unwrap, paginate }: ClientParts): AbsenceMethods {
  const decide = async (
    decision: 'reject' | 'cancel',
    id: string,
    reason: string,
    options?: DecisionOptions,
  ) =>
    unwrap(
      `${decision}Absence`,
      await raw.POST(`/api/public/v1/absences/{id}/${decision}`, {
        params: { path: { id }, header: headers(options) },
        body: { reason },
        signal: options?.signal,
      }),
    );
  const methods: AbsenceMethods = {
    async listAbsenceTypes(call) {
      return unwrap(
        'listAbsenceTypes',
        await raw.GET('/api/public/v1/absence-types', { signal: call?.signal }),
      );
    },
    async listHolidays(query, call) {
      return unwrap(
        'listHolidays',
        await raw.GET('/api/public/v1/holidays', { params: { query }, signal: call?.signal }),
      );
    },
    async listAbsences(query = {}, call) {
      return unwrap(
        'listAbsences',
        await raw.GET('/api/public/v1/absences', { params: { query }, signal: call?.signal }),
      );
    },
    absences(query = {}, call) {
      return paginate((cursor) =>
        methods.listAbsences(cursor === undefined ? query : { ...query, cursor }, call),
      );
    },
    async getAbsence(id, call) {
      return unwrap(
        'getAbsence',
        await raw.GET('/api/public/v1/absences/{id}', { params: { path: { id } }, signal: call?.signal }),
      );
    },
    async createAbsence(body, options) {
      const { 'If-Match': _ignored, ...header } = headers(options);
      return unwrap(
        'createAbsence',
        await raw.POST('/api/public/v1/absences', { params: { header }, body, signal: options?.signal }),
      );
    },
    async approveAbsence(id, options) {
      return unwrap(
        'approveAbsence',
        await raw.POST('/api/public/v1/absences/{id}/approve', {
          params: { path: { id }, header: headers(options) },
          signal: options?.signal,
        }),
      );
    },
    rejectAbsence: (id, reason, options) => decide('reject', id, reason, options),
    cancelAbsence: (id, reason, options) => decide('cancel', id, reason, options),
    async leaveBalances(query, call) {
      return unwrap(
        'listLeaveBalances',
        await raw.GET('/api/public/v1/leave-balances', { params: { query }, signal: call?.signal }),
      );
    },
  };
  return methods;
}
