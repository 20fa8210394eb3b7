import type { CursorCodec } from '../../domain/cursor.js';
import { ApiError, validationError } from '../../domain/errors.js';
import { invalidCursor } from '../../shared/pages.js';
import { isUuid } from '../../domain/ids.js';
import { createApiKey, revokeApiKey, rotateApiKey } from '../admin/api-keys.js';
import { requireCompany, requireDailyThreshold, updateCompany } from '../admin/companies.js';
import { invalid, parseDateOrDateTime, requireText, requireTimeZone } from '../admin/validation.js';
import { parseCidrList } from '../auth/ip-allowlist.js';
import { isScopeId, mayGrantScope } from '../auth/scopes.js';
import { confirmDay, decideEntry } from '../admin/days-and-entries.js';
import type { ConsolePerson } from '../console/service.js';
import { type Actor, type AppContext, inTransaction } from '../context.js';
import type { ApiKeyRow } from '../../platform/db/schema.js';
import { timeEntryListItem } from '../views.js';
import {
  findConfirmedDay,
  findEmployeeOfCompany,
  findEntryCompany,
  findKeyOfCompany,
  listConfirmedDays,
  listEntriesOfEmployee,
  listKeysOfCompany,
  searchEmployees,
} from './queries.js';

/*
 * The admin API's operations. Each runs the same service the CLI runs (modules/admin/), in a
 * transaction, after making sure that what the person names belongs to their own company: another
 * company's id is not found (404), exactly like an id that does not exist.
 */

function actorOf(person: ConsolePerson): Actor {
  return { type: 'user', id: person.id };
}

/** An API key as the console shows it: everything but its secret (only a hash of which is stored). */
function keyListItem(row: ApiKeyRow) {
  return {
    id: row.id,
    name: row.name,
    clientId: row.client_id,
    scopes: JSON.parse(row.scopes) as string[],
    createdBy: row.created_by,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
    allowedIps: JSON.parse(row.allowed_ips) as string[],
    previousSecretValidUntil: row.previous_secret_valid_until,
  };
}

function notFound(what: string): ApiError {
  return new ApiError('not_found', `no ${what} with this id in your company`);
}

async function requireOwnKey(
  db: Parameters<typeof findKeyOfCompany>[0],
  person: ConsolePerson,
  keyId: string,
) {
  const key = await findKeyOfCompany(db, person.companyId, keyId.toLowerCase());
  if (!key) throw notFound('API key');
  return key;
}

export async function listKeys(ctx: AppContext, person: ConsolePerson) {
  const rows = await listKeysOfCompany(ctx.database.db, person.companyId);
  return { items: rows.map(keyListItem) };
}

/**
 * Runs one of the admin services' own parsers on one field: its refusal becomes a 422 naming the
 * field, so the console can show it next to the input. The service checks the same again.
 */
function checkField(field: string, parse: () => unknown): void {
  try {
    parse();
  } catch (error) {
    if (error instanceof ApiError && error.errorName === 'validation_failed' && error.fieldErrors === null)
      throw validationError([{ field, message: error.detail ?? error.message, code: 'invalid' }]);
    throw error;
  }
}

/** Creates a key for the person's company, with the spec's scope rule (checked by createApiKey). */
export function createKey(
  ctx: AppContext,
  person: ConsolePerson,
  body: { name: string; scopes: string[]; expiresAt?: string | null; allowedIps?: string[] },
) {
  checkField('name', () => requireText(body.name, 'name'));
  checkField('scopes', () => {
    const unknown = body.scopes.filter((scope) => !isScopeId(scope));
    if (unknown.length > 0) throw invalid(`unknown scope(s): ${unknown.join(', ')}`);
  });
  if (body.expiresAt) checkField('expiresAt', () => parseDateOrDateTime(body.expiresAt!, 'expiresAt'));
  if (body.allowedIps)
    checkField('allowedIps', () => {
      const parsed = parseCidrList(body.allowedIps!);
      if (!parsed.ok) throw invalid(`not an IP address or CIDR range: ${parsed.invalid}`);
    });
  return inTransaction(ctx, async (tx, now) => {
    const created = await createApiKey(
      tx,
      now,
      {
        companyId: person.companyId,
        createdBy: person.id,
        name: body.name,
        scopes: body.scopes.join(','),
        ...(body.expiresAt ? { expires: body.expiresAt } : {}),
        ...(body.allowedIps && body.allowedIps.length > 0 ? { allowIp: body.allowedIps.join(',') } : {}),
      },
      actorOf(person),
    );
    const row = await requireOwnKey(tx, person, created.id);
    return { ...keyListItem(row), clientSecret: created.secret };
  });
}

export function rotateKey(ctx: AppContext, person: ConsolePerson, keyId: string, graceSeconds?: number) {
  return inTransaction(ctx, async (tx, now) => {
    const key = await requireOwnKey(tx, person, keyId);
    // A new secret is the key's whole power: only someone who could have granted its scopes gets one
    // (the specification's rule for creating a key), or a person holding 90 alone could read what
    // a key of wider scopes reads.
    const beyond = (JSON.parse(key.scopes) as string[]).filter(
      (scope) => !isScopeId(scope) || !mayGrantScope(person, scope),
    );
    if (beyond.length > 0)
      throw new ApiError(
        'forbidden',
        `this key has scope(s) you may not grant (${beyond.join(', ')}); ask someone who may to rotate it`,
      );
    const rotated = await rotateApiKey(
      tx,
      now,
      key.id,
      graceSeconds === undefined ? undefined : String(graceSeconds),
      actorOf(person),
    );
    return { ...keyListItem(await requireOwnKey(tx, person, key.id)), clientSecret: rotated.secret };
  });
}

export function revokeKey(ctx: AppContext, person: ConsolePerson, keyId: string) {
  return inTransaction(ctx, async (tx, now) => {
    const key = await requireOwnKey(tx, person, keyId);
    await revokeApiKey(tx, now, key.id, actorOf(person));
    return keyListItem(await requireOwnKey(tx, person, key.id));
  });
}

/** The company's employees by name, for the console's picker; `search` matches names, email, external id. */
export async function listEmployeesByName(
  ctx: AppContext,
  cursors: CursorCodec,
  person: ConsolePerson,
  query: { search?: string; limit?: number; cursor?: string },
) {
  const search = query.search?.trim() ? query.search.trim() : null;
  const limit = query.limit ?? 50;
  let offset = 0;
  if (query.cursor !== undefined) {
    const payload = cursors.decode(query.cursor);
    // Bound to its listing: another company's or another search's cursor is refused.
    if (payload?.k !== 'admin-employees' || payload.c !== person.companyId || payload.s !== search)
      throw invalidCursor();
    if (typeof payload.o !== 'number' || !Number.isSafeInteger(payload.o) || payload.o < 0)
      throw invalidCursor();
    offset = payload.o;
  }
  const rows = await searchEmployees(ctx.database.db, person.companyId, { search, offset, limit: limit + 1 });
  const hasMore = rows.length > limit;
  const items = rows.slice(0, limit).map((row) => ({
    id: row.id,
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    externalId: row.external_id,
    status: row.status,
    workplaceId: row.workplace_id,
  }));
  return {
    items,
    nextCursor: hasMore
      ? cursors.encode({ k: 'admin-employees', c: person.companyId, s: search, o: offset + limit })
      : null,
    hasMore,
  };
}

/** At most this many days per listing: a week is what the screen shows, a couple of months is plenty. */
const MAX_RANGE_DAYS = 62;

async function requireOwnEmployee(
  db: Parameters<typeof findEmployeeOfCompany>[0],
  person: ConsolePerson,
  id: string,
) {
  const employee = await findEmployeeOfCompany(db, person.companyId, id.toLowerCase());
  if (!employee) throw notFound('employee');
  return employee;
}

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
  | { id: string; status: 404 | 409; error: ApiError };

/** Approves or rejects each entry in a transaction of its own; one refused entry does not undo the others. */
export async function decideEntries(
  ctx: AppContext,
  person: ConsolePerson,
  ids: string[],
  decision: 'approved' | 'rejected',
): Promise<DecisionResult[]> {
  const results: DecisionResult[] = [];
  for (const raw of new Set(ids.map((id) => id.toLowerCase()))) {
    try {
      const entry = await inTransaction(ctx, async (tx, now) => {
        const owner = isUuid(raw) ? await findEntryCompany(tx, raw) : undefined;
        if (owner?.company_id !== person.companyId) throw notFound('time entry');
        return decideEntry(tx, now, raw, decision, actorOf(person));
      });
      results.push({ id: raw, status: 200, entry });
    } catch (error) {
      if (!(error instanceof ApiError) || (error.status !== 404 && error.status !== 409)) throw error;
      results.push({ id: raw, status: error.status, error });
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

function companyOf(view: {
  id: string;
  name: string;
  timeZone: string | null;
  timeTracking: string;
  apiAccess: string;
  workweekStart: string;
  dailyOvertimeAfter: number | null;
  workingTimeRules: string;
}) {
  return {
    id: view.id,
    name: view.name,
    timeZone: view.timeZone,
    timeTracking: view.timeTracking === 'on',
    apiAccess: view.apiAccess === 'on',
    workweekStart: view.workweekStart,
    dailyOvertimeHours: view.dailyOvertimeAfter,
    workingTimeRules: view.workingTimeRules,
  };
}

export async function getCompany(ctx: AppContext, person: ConsolePerson) {
  const row = await requireCompany(ctx.database.db, person.companyId);
  return {
    id: row.id,
    name: row.name,
    timeZone: row.time_zone,
    timeTracking: row.time_tracking === 1,
    apiAccess: row.api_access === 1,
    workweekStart: row.workweek_start,
    dailyOvertimeHours:
      row.daily_overtime_after_seconds === null ? null : row.daily_overtime_after_seconds / 3600,
    workingTimeRules: row.working_time_rules,
  };
}

/** Changes the person's own company (always theirs: no company id is taken from the request). */
export function changeCompany(
  ctx: AppContext,
  person: ConsolePerson,
  body: {
    timeZone?: string | null;
    timeTracking?: boolean;
    apiAccess?: boolean;
    workweekStart?: string;
    dailyOvertimeHours?: number | null;
    workingTimeRules?: string;
  },
) {
  if (typeof body.timeZone === 'string') checkField('timeZone', () => requireTimeZone(body.timeZone!));
  if (typeof body.dailyOvertimeHours === 'number')
    checkField('dailyOvertimeHours', () => requireDailyThreshold(String(body.dailyOvertimeHours)));
  return inTransaction(ctx, async (tx, now) =>
    companyOf(
      await updateCompany(
        tx,
        now,
        person.companyId,
        {
          ...(body.timeZone !== undefined
            ? { timeZone: body.timeZone === null ? 'none' : body.timeZone }
            : {}),
          ...(body.timeTracking !== undefined ? { timeTracking: body.timeTracking ? 'on' : 'off' } : {}),
          ...(body.apiAccess !== undefined ? { apiAccess: body.apiAccess ? 'on' : 'off' } : {}),
          // The CLI's own checks of the timesheet settings (`company update --workweek-start …`).
          ...(body.workweekStart !== undefined ? { workweekStart: body.workweekStart } : {}),
          ...(body.dailyOvertimeHours !== undefined
            ? {
                dailyOvertimeAfter:
                  body.dailyOvertimeHours === null ? 'none' : String(body.dailyOvertimeHours),
              }
            : {}),
          ...(body.workingTimeRules !== undefined ? { workingTimeRules: body.workingTimeRules } : {}),
        },
        actorOf(person),
      ),
    ),
  );
}
