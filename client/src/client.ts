import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { absenceMethods, type AbsenceMethods } from './absences.js';
import { PunchclockError } from './errors.js';
import { type PlannedShiftMethods, plannedShiftMethods } from './planned-shifts.js';
import type { paths } from './schema.js';
import { TokenCache } from './token.js';
import { createTransport, type FetchLike } from './transport.js';
import type {
  ClockEventBatch,
  ClockEventBatchResult,
  ClockEventInput,
  Employee,
  EmployeeListQuery,
  EmployeePage,
  ExternalIdResult,
  Page,
  ShiftInput,
  TimeEntry,
  TimeEntryListQuery,
  TimeEntryPage,
  Timesheet,
  TimesheetPage,
  TimesheetQuery,
  TokenDescription,
  WriteResult,
  LockedPeriod,
  PeriodClosing,
  TimeEntryCorrection,
  TimeEntryRevision,
} from './types.js';

type ClockStatusOperation = paths['/api/public/v1/time-clock/status']['get'];
/** The query of GET /time-clock/status: workplaceId, employeeId or externalId (at most one), cursor, limit. */
export type ClockStatusQuery = NonNullable<ClockStatusOperation['parameters']['query']>;
export type ClockStatusPage = ClockStatusOperation['responses'][200]['content']['application/json'];

type ChangesOperation = paths['/api/public/v1/changes']['get'];
/** The query of GET /changes: cursor, limit, types (comma-separated), start (`oldest` or `now`). */
export type ChangesQuery = NonNullable<ChangesOperation['parameters']['query']>;
export type ChangesPage = ChangesOperation['responses'][200]['content']['application/json'];
export type ChangeEvent = ChangesPage['items'][number];

type WebhookPaths = paths['/api/public/v1/webhooks'];
/** POST /webhooks body: `{url, eventTypes, description?}`. */
export type WebhookInput = NonNullable<WebhookPaths['post']['requestBody']>['content']['application/json'];
/** An endpoint as created (or rotated): its `secret` is shown only then. */
export type WebhookWithSecret = WebhookPaths['post']['responses'][201]['content']['application/json'];
export type WebhookPage = WebhookPaths['get']['responses'][200]['content']['application/json'];
export type WebhookListQuery = NonNullable<WebhookPaths['get']['parameters']['query']>;
type WebhookItemPaths = paths['/api/public/v1/webhooks/{id}'];
export type Webhook = WebhookItemPaths['get']['responses'][200]['content']['application/json'];
/** PATCH /webhooks/{id} body: url, eventTypes, description, `status: 'active'` to re-enable. */
export type WebhookUpdate = NonNullable<
  WebhookItemPaths['patch']['requestBody']
>['content']['application/json'];
export type WebhookRotation =
  paths['/api/public/v1/webhooks/{id}/rotate-secret']['post']['responses'][200]['content']['application/json'];
type DeliveriesOperation = paths['/api/public/v1/webhooks/{id}/deliveries']['get'];
export type WebhookDeliveryPage = DeliveriesOperation['responses'][200]['content']['application/json'];
/** POST /webhooks/{id}/replay body: `{from, to}` or `{deliveryId}`. */
export type WebhookReplay = NonNullable<
  paths['/api/public/v1/webhooks/{id}/replay']['post']['requestBody']
>['content']['application/json'];

export interface PunchclockClientOptions {
  /** The server's base address, e.g. `https://punchclock.example.com` (the API is under `/api/public/v1`). */
  baseUrl: string;
  /** The API key's client id (`svc_…`). */
  clientId: string;
  /** The API key itself (the client secret, shown once when the key was created). */
  clientSecret: string;
  /** Replaces the global `fetch` (tests, proxies, instrumentation). Receives a `Request`. */
  fetch?: FetchLike;
  /** Clock used for the token's expiry, in epoch milliseconds. Default `Date.now`. */
  now?: () => number;
  /** How the client waits before a retry (429 `Retry-After`, backoff). Default `setTimeout`. */
  sleep?: (milliseconds: number) => Promise<void>;
  /**
   * Resends of one call after 429 (waiting `Retry-After`), 502/503/504, `409 idempotency_in_flight`
   * or a network error. Default 3. A 401 is always retried once, after a new token.
   */
  maxRetries?: number;
}

export interface CallOptions {
  signal?: AbortSignal;
}

/** A change of an existing entry (issue 30): a write that may be made conditional on its version. */
export interface ChangeOptions extends WriteOptions {
  /**
   * The version the change is meant for (a time entry's `version`, its ETag): sent as If-Match, so
   * a change someone else made meanwhile answers 412 `version_mismatch` instead of being overwritten.
   */
  ifMatch?: number;
}

export interface WriteOptions extends CallOptions {
  /** `true`: every check runs, nothing is stored; the answer has `dryRun: true`. Default false. */
  dryRun?: boolean;
  /**
   * The write's `Idempotency-Key` (at most 128 characters). Default: a new random UUID per call.
   * Pass your own to make a write safe to repeat across process restarts. The client's own retries
   * always reuse the key of the call.
   */
  idempotencyKey?: string;
}

/** The query of `timeEntries()`: that of `listTimeEntries()` without the cursor, which it follows itself. */
export type TimeEntryIterationQuery = TimeEntryListQuery extends infer Q
  ? Q extends unknown
    ? Omit<Q, 'cursor'>
    : never
  : never;

/** Every operation of the description; planned shifts and exceptions are in planned-shifts.ts, absences in absences.ts. */
export interface PunchclockClient extends PlannedShiftMethods, AbsenceMethods {
  /** GET /me: the calling key, its company, scopes and token expiry. */
  me(options?: CallOptions): Promise<TokenDescription>;
  /** GET /employees: one page (up to `limit`, default 25), ordered by id. */
  listEmployees(query?: EmployeeListQuery, options?: CallOptions): Promise<EmployeePage>;
  /** Every employee matching `query`, following `nextCursor` page after page. */
  employees(
    query?: Omit<EmployeeListQuery, 'cursor'>,
    options?: CallOptions,
  ): AsyncGenerator<Employee, void, undefined>;
  /** PUT /employees/{id}/external-id: sets (or, with null or blank, clears) the badge / HRIS id. */
  setExternalId(id: string, externalId: string | null, options?: WriteOptions): Promise<ExternalIdResult>;
  /** POST /time-clock/events: clock_in, clock_out, toggle, break_start or break_end. */
  recordClockEvent(body: ClockEventInput, options?: WriteOptions): Promise<WriteResult>;
  /**
   * POST /time-clock/events/batch: up to 100 clock events in one request, processed in order, each
   * answered as POST /time-clock/events would have answered it (`results[i].status` and `.body`, a
   * write result or a problem): one refused event does not throw, only a refused batch does. Give each
   * event an `idempotencyKey` (a terminal's own punch id) so that a backlog sent again never records a
   * punch twice; the call's own Idempotency-Key (by default a new one per call, reused by the client's
   * retries) replays the whole answer.
   */
  recordClockEvents(batch: ClockEventBatch, options?: WriteOptions): Promise<ClockEventBatchResult>;
  /** POST /time-entries: a completed shift. */
  recordShift(body: ShiftInput, options?: WriteOptions): Promise<WriteResult>;
  /** GET /time-entries: one page of an employee's entries, ordered by work date, then id. */
  listTimeEntries(query: TimeEntryListQuery, options?: CallOptions): Promise<TimeEntryPage>;
  /** Every time entry matching `query`, following `nextCursor` page after page. */
  timeEntries(
    query: TimeEntryIterationQuery,
    options?: CallOptions,
  ): AsyncGenerator<TimeEntry, void, undefined>;
  /** GET /time-clock/status: one page of who is clocked in, oldest session first. */
  clockStatus(query?: ClockStatusQuery, options?: CallOptions): Promise<ClockStatusPage>;
  /** GET /reports/timesheets: one page of timesheets, one per employee, ordered by id. */
  listTimesheets(query?: TimesheetQuery, options?: CallOptions): Promise<TimesheetPage>;
  /** Every employee's timesheet matching `query`, following `nextCursor` page after page. */
  timesheets(
    query?: Omit<TimesheetQuery, 'cursor' | 'delimiter' | 'bom'>,
    options?: CallOptions,
  ): AsyncGenerator<Timesheet, void, undefined>;
  /**
   * GET /reports/timesheets as `text/csv`: the whole report as a stream of the file's bytes (one row
   * per employee and day), for payroll. `delimiter: 'semicolon'` and `bom: true` suit spreadsheets.
   */
  timesheetsCsv(
    query?: Omit<TimesheetQuery, 'limit'>,
    options?: CallOptions,
  ): Promise<ReadableStream<Uint8Array>>;
  /** GET /changes: one page of the company's change feed, in causal order. */
  listChanges(query?: ChangesQuery, options?: CallOptions): Promise<ChangesPage>;
  /**
   * The company's events after `cursor` (or from the oldest retained one, or with `start: 'now'` only
   * newer ones), page after page, ending at the head. The generator's return value is the resume
   * cursor: keep it and pass it as `cursor` next time to receive only newer events, none twice.
   */
  changes(query?: ChangesQuery, options?: CallOptions): AsyncGenerator<ChangeEvent, string, undefined>;
  /** POST /webhooks: registers an endpoint; the answer's `secret` is shown only now (scope webhooks.manage). */
  createWebhook(body: WebhookInput, options?: CallOptions): Promise<WebhookWithSecret>;
  /** GET /webhooks: one page of the company's endpoints. */
  listWebhooks(query?: WebhookListQuery, options?: CallOptions): Promise<WebhookPage>;
  /** GET /webhooks/{id}. */
  getWebhook(id: string, options?: CallOptions): Promise<Webhook>;
  /** PATCH /webhooks/{id}: url, event types, description; `status: 'active'` re-enables. */
  updateWebhook(id: string, body: WebhookUpdate, options?: CallOptions): Promise<Webhook>;
  /** DELETE /webhooks/{id}. */
  deleteWebhook(id: string, options?: CallOptions): Promise<void>;
  /** POST /webhooks/{id}/rotate-secret: a new secret; the old one keeps signing for 24 hours. */
  rotateWebhookSecret(id: string, options?: CallOptions): Promise<WebhookRotation>;
  /** POST /webhooks/{id}/test: queues a `ping` delivery. */
  testWebhook(id: string, options?: CallOptions): Promise<{ queued: number }>;
  /** GET /webhooks/{id}/deliveries: recent deliveries, newest first. */
  listWebhookDeliveries(
    id: string,
    query?: WebhookListQuery,
    options?: CallOptions,
  ): Promise<WebhookDeliveryPage>;
  /** POST /webhooks/{id}/replay: `{from, to}` re-sends that range's events, `{deliveryId}` one delivery. */
  replayWebhook(id: string, body: WebhookReplay, options?: CallOptions): Promise<{ queued: number }>;
  /** GET /time-entries/{id}: one entry with its `version` (scope attendance.read). */
  getTimeEntry(id: string, options?: CallOptions): Promise<TimeEntry>;
  /** GET /time-entries/{id}/revisions: who changed what, when and why, oldest first. */
  listTimeEntryRevisions(id: string, options?: CallOptions): Promise<{ items: TimeEntryRevision[] }>;
  /** POST /time-entries/{id}/approve (scope attendance.manage): a pending entry approved, with an optional note. */
  approveTimeEntry(id: string, note?: string, options?: ChangeOptions): Promise<TimeEntry>;
  /** POST /time-entries/{id}/reject: a pending entry rejected, with a reason. */
  rejectTimeEntry(id: string, reason: string, options?: ChangeOptions): Promise<TimeEntry>;
  /** POST /time-entries/{id}/reopen: an approved or rejected entry back to pending_approval, with a reason. */
  reopenTimeEntry(id: string, reason: string, options?: ChangeOptions): Promise<TimeEntry>;
  /** PATCH /time-entries/{id}: new times, breaks or note, with a reason; a clockOut closes an open session. */
  correctTimeEntry(id: string, body: TimeEntryCorrection, options?: ChangeOptions): Promise<TimeEntry>;
  /** DELETE /time-entries/{id}: the entry removed, with a reason (its revisions stay). */
  deleteTimeEntry(id: string, reason: string, options?: ChangeOptions): Promise<void>;
  /** POST /locked-periods: closes days for payroll; every write on them is then 409 day_locked. */
  closePeriod(body: PeriodClosing, options?: WriteOptions): Promise<LockedPeriod>;
  /** GET /locked-periods: the company's closed periods. */
  listLockedPeriods(options?: CallOptions): Promise<{ items: LockedPeriod[] }>;
  /** DELETE /locked-periods/{id}: reopens a closed period, with a reason. */
  reopenPeriod(id: string, reason: string, options?: WriteOptions): Promise<void>;
  /**
   * The underlying openapi-fetch client, typed from the description, with the same token handling,
   * Idempotency-Key and retries: for anything the methods above do not cover.
   */
  readonly raw: Client<paths>;
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * openapi-fetch middleware: every write carries an `Idempotency-Key` (a random UUID unless the call
 * set one). It runs before the transport, so the client's own retries send the same key.
 */
export const idempotencyKeyMiddleware: Middleware = {
  onRequest({ request }) {
    if (WRITE_METHODS.has(request.method) && !request.headers.has('idempotency-key')) {
      request.headers.set('idempotency-key', globalThis.crypto.randomUUID());
    }
    return request;
  },
};

export function createPunchclockClient(options: PunchclockClientOptions): PunchclockClient {
  if (!options.baseUrl) throw new TypeError('baseUrl is required');
  if (!options.clientId || !options.clientSecret)
    throw new TypeError('clientId and clientSecret are required');
  const baseUrl = options.baseUrl.replace(/\/+$/, '').replace(/\/api\/public\/v1$/, '');
  const transportOptions = {
    fetch: options.fetch ?? ((request: Request) => globalThis.fetch(request)),
    now: options.now ?? Date.now,
    sleep: options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))),
    maxRetries: options.maxRetries ?? 3,
  };
  const tokens = new TokenCache({
    ...transportOptions,
    baseUrl,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
  });
  const raw = createClient<paths>({ baseUrl, fetch: createTransport(transportOptions, tokens) });
  raw.use(idempotencyKeyMiddleware);

  function unwrap<T>(operation: string, result: { data?: T; error?: unknown; response: Response }): T {
    if (!result.response.ok || result.data === undefined)
      throw PunchclockError.fromResponse(operation, result.response, result.error);
    return result.data;
  }

  function writeHeaders(write: WriteOptions | undefined) {
    return {
      'X-Service-Dry-Run': write?.dryRun === true,
      ...(write?.idempotencyKey !== undefined ? { 'Idempotency-Key': write.idempotencyKey } : {}),
    };
  }

  function changeHeaders(change: ChangeOptions | undefined) {
    return {
      ...writeHeaders(change),
      ...(change?.ifMatch !== undefined ? { 'If-Match': `"${change.ifMatch}"` } : {}),
    };
  }

  async function* paginate<T>(
    fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
  ): AsyncGenerator<T, void, undefined> {
    let cursor: string | undefined;
    for (;;) {
      const page = await fetchPage(cursor);
      yield* page.items;
      if (!page.hasMore || page.nextCursor === null) return;
      cursor = page.nextCursor;
    }
  }

  const client: PunchclockClient = {
    raw,
    ...plannedShiftMethods({
      raw,
      unwrap,
      writeHeaders,
      paginate,
      fail: (operation, result) => {
        throw PunchclockError.fromResponse(operation, result.response, result.error);
      },
    }),
    ...absenceMethods({ raw, unwrap, paginate }),

    async me(call) {
      return unwrap('describeToken', await raw.GET('/api/public/v1/me', { signal: call?.signal }));
    },

    async listEmployees(query = {}, call) {
      return unwrap(
        'listEmployees',
        await raw.GET('/api/public/v1/employees', { params: { query }, signal: call?.signal }),
      );
    },

    employees(query = {}, call) {
      return paginate((cursor) =>
        client.listEmployees(cursor === undefined ? query : { ...query, cursor }, call),
      );
    },

    async setExternalId(id, externalId, write) {
      const { 'Idempotency-Key': idempotencyKey, ...header } = writeHeaders(write);
      return unwrap(
        'setEmployeeExternalId',
        await raw.PUT('/api/public/v1/employees/{id}/external-id', {
          params: { path: { id }, header },
          // The description declares no Idempotency-Key here (a PUT is idempotent by itself); it is
          // sent like on every write, the caller's or else the middleware's.
          headers: idempotencyKey === undefined ? undefined : { 'Idempotency-Key': idempotencyKey },
          body: { externalId },
          signal: write?.signal,
        }),
      );
    },

    async recordClockEvent(body, write) {
      return unwrap(
        'recordClockEvent',
        await raw.POST('/api/public/v1/time-clock/events', {
          params: { header: writeHeaders(write) },
          body,
          signal: write?.signal,
        }),
      );
    },

    async recordClockEvents(batch, write) {
      return unwrap(
        'recordClockEvents',
        await raw.POST('/api/public/v1/time-clock/events/batch', {
          params: { header: writeHeaders(write) },
          body: batch,
          signal: write?.signal,
        }),
      );
    },

    async recordShift(body, write) {
      return unwrap(
        'recordShift',
        await raw.POST('/api/public/v1/time-entries', {
          params: { header: writeHeaders(write) },
          body,
          signal: write?.signal,
        }),
      );
    },

    async listTimeEntries(query, call) {
      return unwrap(
        'listTimeEntries',
        await raw.GET('/api/public/v1/time-entries', { params: { query }, signal: call?.signal }),
      );
    },

    async clockStatus(query = {}, call) {
      return unwrap(
        'clockStatus',
        await raw.GET('/api/public/v1/time-clock/status', { params: { query }, signal: call?.signal }),
      );
    },

    async listTimesheets(query = {}, call) {
      // The operation also answers text/csv; asked for JSON (the default), it answers a page.
      return unwrap(
        'listTimesheets',
        await raw.GET('/api/public/v1/reports/timesheets', {
          params: { query },
          headers: { Accept: 'application/json' },
          signal: call?.signal,
        }),
      ) as TimesheetPage;
    },

    timesheets(query = {}, call) {
      return paginate((cursor) =>
        client.listTimesheets(cursor === undefined ? query : { ...query, cursor }, call),
      );
    },

    async timesheetsCsv(query = {}, call) {
      const result = await raw.GET('/api/public/v1/reports/timesheets', {
        params: { query },
        headers: { Accept: 'text/csv' },
        parseAs: 'stream',
        signal: call?.signal,
      });
      if (!result.response.ok || !result.data)
        throw PunchclockError.fromResponse('listTimesheets', result.response, result.error);
      return result.data as ReadableStream<Uint8Array>;
    },

    async listChanges(query = {}, call) {
      return unwrap(
        'listChanges',
        await raw.GET('/api/public/v1/changes', { params: { query }, signal: call?.signal }),
      );
    },

    async *changes(query = {}, call) {
      let page = await client.listChanges(query, call);
      for (;;) {
        yield* page.items;
        if (!page.hasMore || page.nextCursor === null) return page.resumeCursor;
        page = await client.listChanges({ ...query, start: undefined, cursor: page.nextCursor }, call);
      }
    },

    async createWebhook(body, call) {
      return unwrap(
        'createWebhook',
        await raw.POST('/api/public/v1/webhooks', { body, signal: call?.signal }),
      );
    },

    async listWebhooks(query = {}, call) {
      return unwrap(
        'listWebhooks',
        await raw.GET('/api/public/v1/webhooks', { params: { query }, signal: call?.signal }),
      );
    },

    async getWebhook(id, call) {
      return unwrap(
        'getWebhook',
        await raw.GET('/api/public/v1/webhooks/{id}', { params: { path: { id } }, signal: call?.signal }),
      );
    },

    async updateWebhook(id, body, call) {
      return unwrap(
        'updateWebhook',
        await raw.PATCH('/api/public/v1/webhooks/{id}', {
          params: { path: { id } },
          body,
          signal: call?.signal,
        }),
      );
    },

    async deleteWebhook(id, call) {
      const result = await raw.DELETE('/api/public/v1/webhooks/{id}', {
        params: { path: { id } },
        signal: call?.signal,
      });
      if (!result.response.ok)
        throw PunchclockError.fromResponse('deleteWebhook', result.response, result.error);
    },

    async rotateWebhookSecret(id, call) {
      return unwrap(
        'rotateWebhookSecret',
        await raw.POST('/api/public/v1/webhooks/{id}/rotate-secret', {
          params: { path: { id } },
          signal: call?.signal,
        }),
      );
    },

    async testWebhook(id, call) {
      return unwrap(
        'testWebhook',
        await raw.POST('/api/public/v1/webhooks/{id}/test', {
          params: { path: { id } },
          signal: call?.signal,
        }),
      );
    },

    async listWebhookDeliveries(id, query = {}, call) {
      return unwrap(
        'listWebhookDeliveries',
        await raw.GET('/api/public/v1/webhooks/{id}/deliveries', {
          params: { path: { id }, query },
          signal: call?.signal,
        }),
      );
    },

    async replayWebhook(id, body, call) {
      return unwrap(
        'replayWebhook',
        await raw.POST('/api/public/v1/webhooks/{id}/replay', {
          params: { path: { id } },
          body,
          signal: call?.signal,
        }),
      );
    },

    async getTimeEntry(id, call) {
      return unwrap(
        'getTimeEntry',
        await raw.GET('/api/public/v1/time-entries/{id}', { params: { path: { id } }, signal: call?.signal }),
      );
    },

    async listTimeEntryRevisions(id, call) {
      return unwrap(
        'listTimeEntryRevisions',
        await raw.GET('/api/public/v1/time-entries/{id}/revisions', {
          params: { path: { id } },
          signal: call?.signal,
        }),
      );
    },

    async approveTimeEntry(id, note, change) {
      return unwrap(
        'approveTimeEntry',
        await raw.POST('/api/public/v1/time-entries/{id}/approve', {
          params: { path: { id }, header: changeHeaders(change) },
          body: note === undefined ? {} : { note },
          signal: change?.signal,
        }),
      );
    },

    async rejectTimeEntry(id, reason, change) {
      return unwrap(
        'rejectTimeEntry',
        await raw.POST('/api/public/v1/time-entries/{id}/reject', {
          params: { path: { id }, header: changeHeaders(change) },
          body: { reason },
          signal: change?.signal,
        }),
      );
    },

    async reopenTimeEntry(id, reason, change) {
      return unwrap(
        'reopenTimeEntry',
        await raw.POST('/api/public/v1/time-entries/{id}/reopen', {
          params: { path: { id }, header: changeHeaders(change) },
          body: { reason },
          signal: change?.signal,
        }),
      );
    },

    async correctTimeEntry(id, body, change) {
      return unwrap(
        'correctTimeEntry',
        await raw.PATCH('/api/public/v1/time-entries/{id}', {
          params: { path: { id }, header: changeHeaders(change) },
          body,
          signal: change?.signal,
        }),
      );
    },

    async deleteTimeEntry(id, reason, change) {
      const result = await raw.DELETE('/api/public/v1/time-entries/{id}', {
        params: { path: { id }, header: changeHeaders(change) },
        body: { reason },
        signal: change?.signal,
      });
      if (!result.response.ok)
        throw PunchclockError.fromResponse('deleteTimeEntry', result.response, result.error);
    },

    async closePeriod(body, write) {
      return unwrap(
        'closePeriod',
        await raw.POST('/api/public/v1/locked-periods', {
          params: { header: writeHeaders(write) },
          body,
          signal: write?.signal,
        }),
      );
    },

    async listLockedPeriods(call) {
      return unwrap(
        'listLockedPeriods',
        await raw.GET('/api/public/v1/locked-periods', { signal: call?.signal }),
      );
    },

    async reopenPeriod(id, reason, write) {
      const result = await raw.DELETE('/api/public/v1/locked-periods/{id}', {
        params: { path: { id }, header: writeHeaders(write) },
        body: { reason },
        signal: write?.signal,
      });
      if (!result.response.ok)
        throw PunchclockError.fromResponse('reopenPeriod', result.response, result.error);
    },

    timeEntries(query, call) {
      return paginate((cursor) =>
        client.listTimeEntries(
          (cursor === undefined ? query : { ...query, cursor }) as TimeEntryListQuery,
          call,
        ),
      );
    },
  };
  return client;
}
