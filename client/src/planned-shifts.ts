import type { Client } from 'openapi-fetch';
import type { components, operations, paths } from './schema.js';

// Planned shifts and attendance exceptions (issue 33), typed from the description.

type Schemas = components['schemas'];
export type PlannedShift = Schemas['PlannedShift'];
/** One item of POST /planned-shifts/batch: with `externalId` (the scheduler's id) it upserts. */
export type PlannedShiftInput = Schemas['PlannedShiftInput'];
/** POST /planned-shifts/batch body: `{ shifts }`, 1 to 500 items. */
export type PlannedShiftBatch = Schemas['PlannedShiftBatch'];
/** POST /planned-shifts/batch, 200: one result per item (201 created, 200 updated or unchanged, or a problem). */
export type PlannedShiftBatchResult = Schemas['PlannedShiftBatchResult'];
export type PlannedShiftQuery = operations['listPlannedShifts']['parameters']['query'];
export type PlannedShiftPage =
  operations['listPlannedShifts']['responses'][200]['content']['application/json'];
export type PublishRange = NonNullable<
  paths['/api/public/v1/planned-shifts/publish']['post']['requestBody']
>['content']['application/json'];
export type PublishResult =
  operations['publishPlannedShifts']['responses'][200]['content']['application/json'];
export type AttendanceException = Schemas['AttendanceException'];
export type AttendanceExceptionQuery = NonNullable<
  operations['listAttendanceExceptions']['parameters']['query']
>;
export type AttendanceExceptionPage =
  operations['listAttendanceExceptions']['responses'][200]['content']['application/json'];

interface Call {
  signal?: AbortSignal;
}
interface Write extends Call {
  dryRun?: boolean;
  idempotencyKey?: string;
}

export interface PlannedShiftMethods {
  /** GET /planned-shifts: one page of the shifts dated from..to, by start then id. */
  listPlannedShifts(query: PlannedShiftQuery, options?: Call): Promise<PlannedShiftPage>;
  /** Every planned shift matching `query`, following `nextCursor` page after page. */
  plannedShifts(
    query: Omit<PlannedShiftQuery, 'cursor'>,
    options?: Call,
  ): AsyncGenerator<PlannedShift, void, undefined>;
  /** POST /planned-shifts/batch (scope shifts.manage): one refused item does not throw, only a refused batch does. */
  upsertPlannedShifts(batch: PlannedShiftBatch, options?: Write): Promise<PlannedShiftBatchResult>;
  /** DELETE /planned-shifts/{id}. */
  deletePlannedShift(id: string, options?: Call): Promise<void>;
  /** POST /planned-shifts/publish: the drafts dated from..to (of one workplace) become published. */
  publishPlannedShifts(range: PublishRange, options?: Write): Promise<PublishResult>;
  /** GET /attendance-exceptions: one page, by date then id. */
  listAttendanceExceptions(
    query?: AttendanceExceptionQuery,
    options?: Call,
  ): Promise<AttendanceExceptionPage>;
  /** Every exception matching `query`, following `nextCursor` page after page. */
  attendanceExceptions(
    query?: Omit<AttendanceExceptionQuery, 'cursor'>,
    options?: Call,
  ): AsyncGenerator<AttendanceException, void, undefined>;
}

/** What the client's methods share: the raw client and its helpers (client.ts). */
export interface MethodKit {
  raw: Client<paths>;
  unwrap<T>(operation: string, result: { data?: T; error?: unknown; response: Response }): T;
  fail(operation: string, result: { error?: unknown; response: Response }): void;
  writeHeaders(write: Write | undefined): { 'X-Service-Dry-Run': boolean; 'Idempotency-Key'?: string };
  paginate<T>(
    fetchPage: (
      cursor: string | undefined,
    ) => Promise<{ items: T[]; nextCursor: string | null; hasMore: boolean }>,
  ): AsyncGenerator<T, void, undefined>;
}

export function plannedShiftMethods(kit: MethodKit): PlannedShiftMethods {
  const { raw, unwrap, writeHeaders, paginate } = kit;
  const methods: PlannedShiftMethods = {
    async listPlannedShifts(query, call) {
      return unwrap(
        'listPlannedShifts',
        await raw.GET('/api/public/v1/planned-shifts', { params: { query }, signal: call?.signal }),
      );
    },
    plannedShifts(query, call) {
      return paginate((cursor) =>
        methods.listPlannedShifts(cursor === undefined ? query : { ...query, cursor }, call),
      );
    },
    async upsertPlannedShifts(batch, write) {
      return unwrap(
        'upsertPlannedShifts',
        await raw.POST('/api/public/v1/planned-shifts/batch', {
          params: { header: writeHeaders(write) },
          body: batch,
          signal: write?.signal,
        }),
      );
    },
    async deletePlannedShift(id, call) {
      const result = await raw.DELETE('/api/public/v1/planned-shifts/{id}', {
        params: { path: { id } },
        signal: call?.signal,
      });
      if (!result.response.ok) kit.fail('deletePlannedShift', result);
    },
    async publishPlannedShifts(range, write) {
      return unwrap(
        'publishPlannedShifts',
        await raw.POST('/api/public/v1/planned-shifts/publish', {
          params: { header: writeHeaders(write) },
          body: range,
          signal: write?.signal,
        }),
      );
    },
    async listAttendanceExceptions(query = {}, call) {
      return unwrap(
        'listAttendanceExceptions',
        await raw.GET('/api/public/v1/attendance-exceptions', { params: { query }, signal: call?.signal }),
      );
    },
    attendanceExceptions(query = {}, call) {
      return paginate((cursor) =>
        methods.listAttendanceExceptions(cursor === undefined ? query : { ...query, cursor }, call),
      );
    },
  };
  return methods;
}
