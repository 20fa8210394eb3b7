import { ApiError, type FieldError, validationError } from '../../domain/errors.js';
import type { CursorCodec } from '../../domain/cursor.js';
import { isUuid, newId } from '../../domain/ids.js';
import { type Executor, isUniqueViolation, type Tx } from '../../platform/db/database.js';
import type { CorrectionRequestsTable } from '../../platform/db/schema.js';
import { invalidCursor } from '../../shared/pages.js';
import { recordAudit } from '../audit/queries.js';
import { actorOf } from '../context.js';
import { addShiftFor } from '../corrections/add-shift.js';
import { correctEntry } from '../corrections/correct.js';
import { type Manager, managerOfAdmin } from '../corrections/entry-access.js';
import { findEntry, lockEntryEmployee } from '../corrections/queries/entries.js';
import { appendEvents, type EventType } from '../events/service.js';
import type { ConsolePerson } from '../people/person.js';
import { createShift } from '../time-tracking/shift.js';
import {
  type CorrectionRequestWithEmployee,
  decideCorrectionRequest,
  findCorrectionRequest,
  insertCorrectionRequest,
  listCorrectionRequests,
  openMissingRequest,
  openRequestForEntry,
} from './queries.js';
import { requestView } from './request-view.js';
import type { CorrectionRequestBody, CorrectionRequestStatus, CorrectionRequestView } from './schemas.js';
import { principalOfSelf, type Self } from './self.js';

/*
 * Correction requests (issue 35, item 2). The employee files one on an entry of theirs (or for a
 * missing entry) and may withdraw it while it waits; a manager (permission 91) approves it, which
 * applies it through the corrections room (a revision by the manager whose reason names the request),
 * or rejects it with a reason. Filing checks the same rules a manager's correction meets (a dry run of
 * it), so a request that could never be applied is refused at once; approving runs them again.
 * Statuses: requested → approved | rejected | withdrawn; each decision is a conditional update of a
 * row still requested (decided once).
 */

function notFound(id: string): ApiError {
  return new ApiError('not_found', `no correction request ${id} of yours`);
}

/** Who checks a request's rules when it is filed: nobody's own entry, nothing written (a dry run). */
function reviewer(companyId: string): Manager {
  return { companyId, actor: { kind: 'system', id: null } };
}

/** What was proposed, without the fields left out (null: unchanged). */
function proposedOf(body: CorrectionRequestBody) {
  const { clockIn, clockOut, breakMinutes } = body.proposed;
  return {
    ...(clockIn != null ? { clockIn } : {}),
    ...(clockOut != null ? { clockOut } : {}),
    ...(breakMinutes != null ? { breakMinutes } : {}),
  };
}

function field(name: string, message: string, code: string): FieldError {
  return { field: name, message, code };
}

/** The rules of a request for an existing entry of the employee: the manager's correction, dry-run. */
async function checkEntryRequest(
  tx: Tx,
  now: number,
  self: Self,
  entryId: string,
  body: CorrectionRequestBody,
) {
  const entry = isUuid(entryId)
    ? await findEntry(tx, self.person.companyId, entryId.toLowerCase())
    : undefined;
  if (!entry || entry.employee_id !== self.employee.id)
    throw new ApiError('not_found', `no time entry ${entryId} of yours`);
  const proposed = proposedOf(body);
  if (Object.keys(proposed).length === 0)
    throw validationError([
      field('proposed', 'propose at least one of clockIn, clockOut, breakMinutes', 'nothing_to_change'),
    ]);
  const waiting = await openRequestForEntry(tx, entry.id);
  if (waiting !== undefined)
    throw new ApiError(
      'correction_request_open',
      `request ${waiting} for this entry is waiting for a decision`,
    );
  await correctEntry(tx, now, reviewer(self.person.companyId), {
    entryId: entry.id,
    body: { ...proposed, reason: body.reason },
    ifMatch: null,
    dryRun: true,
  });
  return { entryId: entry.id, version: entry.version, date: entry.work_date };
}

/** The rules of a request for a missing entry: the shift a manager would add, dry-run. */
async function checkMissingRequest(tx: Tx, now: number, self: Self, body: CorrectionRequestBody) {
  const { clockIn, clockOut, breakMinutes } = body.proposed;
  const errors: FieldError[] = [];
  if (body.date === undefined) errors.push(field('date', 'is required for a missing entry', 'required'));
  if (clockIn == null) errors.push(field('proposed.clockIn', 'is required for a missing entry', 'required'));
  if (clockOut == null)
    errors.push(field('proposed.clockOut', 'is required for a missing entry', 'required'));
  if (errors.length > 0) throw validationError(errors);
  const waiting = await openMissingRequest(tx, self.employee.id, body.date!);
  if (waiting !== undefined)
    throw new ApiError(
      'correction_request_open',
      `request ${waiting} for a missing entry on ${body.date} is waiting for a decision`,
    );
  const result = await createShift(
    tx,
    now,
    principalOfSelf(self),
    {
      employee: { id: self.employee.id },
      clockIn: clockIn!,
      clockOut: clockOut!,
      breakMinutes: breakMinutes ?? null,
    },
    { dryRun: true },
  );
  if (result.body.workDate !== body.date)
    throw validationError([
      field('date', `the proposed times are worked on ${result.body.workDate}`, 'mismatch'),
    ]);
  return { entryId: null, version: null, date: body.date };
}

async function recordRequestChange(
  tx: Tx,
  row: CorrectionRequestWithEmployee,
  change: { at: string; actorId: string; action: string; event: EventType },
): Promise<CorrectionRequestView> {
  const view = requestView(row);
  await recordAudit(tx, {
    companyId: row.company_id,
    actorType: 'user',
    actorId: change.actorId,
    action: change.action,
    targetType: 'correction_request',
    targetId: row.id,
    details: { status: row.status, timeEntryId: row.time_entry_id, date: row.date },
    at: change.at,
  });
  await appendEvents(tx, row.company_id, [{ type: change.event, data: view }], change.at);
  return view;
}

/** The employee files a request (201). */
export async function fileCorrectionRequest(
  tx: Tx,
  now: number,
  self: Self,
  body: CorrectionRequestBody,
): Promise<CorrectionRequestView> {
  if (body.reason.trim() === '') throw validationError([field('reason', 'must not be blank', 'blank')]);
  const target =
    body.timeEntryId === null
      ? await checkMissingRequest(tx, now, self, body)
      : await checkEntryRequest(tx, now, self, body.timeEntryId, body);
  const at = new Date(now).toISOString();
  const row: CorrectionRequestsTable = {
    id: newId(),
    company_id: self.person.companyId,
    employee_id: self.employee.id,
    time_entry_id: target.entryId,
    time_entry_version: target.version,
    date: target.date,
    proposed_clock_in: body.proposed.clockIn ?? null,
    proposed_clock_out: body.proposed.clockOut ?? null,
    proposed_break_minutes: body.proposed.breakMinutes ?? null,
    reason: body.reason.trim(),
    status: 'requested',
    requested_by: self.person.id,
    decided_by_kind: null,
    decided_by_id: null,
    decided_by_name: null,
    decided_at: null,
    decision_reason: null,
    created_at: at,
    updated_at: at,
  };
  try {
    await insertCorrectionRequest(tx, row);
  } catch (error) {
    // Two requests for one entry (or one missing day) at once: both passed the check above, the
    // partial unique index (correction_requests_open_entry_key, _open_missing_key) lets one in.
    if (isUniqueViolation(error))
      throw new ApiError(
        'correction_request_open',
        'another request for this entry (or this missing day) is waiting for a decision',
      );
    throw error;
  }
  const stored = (await findCorrectionRequest(tx, row.company_id, row.id))!;
  return recordRequestChange(tx, stored, {
    at,
    actorId: self.person.id,
    action: 'correction_request.file',
    event: 'correction.requested',
  });
}

function assertWaiting(row: CorrectionRequestWithEmployee, to: string): void {
  if (row.status !== 'requested')
    throw new ApiError(
      'invalid_status_transition',
      `the correction request is ${row.status}: it cannot be ${to} (allowed while requested)`,
    );
}

/** Moves the request to its decision, once; 409 when another decision came first. */
async function settle(
  tx: Tx,
  row: CorrectionRequestWithEmployee,
  person: ConsolePerson,
  decision: { status: CorrectionRequestStatus; at: string; reason: string | null },
): Promise<CorrectionRequestWithEmployee> {
  const changed = await decideCorrectionRequest(tx, row.id, {
    status: decision.status,
    decided_by_kind: 'person',
    decided_by_id: person.id,
    decided_by_name: person.email,
    decided_at: decision.at,
    decision_reason: decision.reason,
  });
  if (changed !== 1)
    throw new ApiError('invalid_status_transition', 'the correction request was decided meanwhile');
  return (await findCorrectionRequest(tx, row.company_id, row.id))!;
}

/** The employee withdraws a waiting request of theirs. */
export async function withdrawCorrectionRequest(tx: Tx, now: number, self: Self, id: string) {
  const row = isUuid(id)
    ? await findCorrectionRequest(tx, self.person.companyId, id.toLowerCase(), self.employee.id)
    : undefined;
  if (!row) throw notFound(id);
  assertWaiting(row, 'withdrawn');
  const at = new Date(now).toISOString();
  const settled = await settle(tx, row, self.person, { status: 'withdrawn', at, reason: null });
  return recordRequestChange(tx, settled, {
    at,
    actorId: self.person.id,
    action: 'correction_request.withdraw',
    event: 'correction.withdrawn',
  });
}

/** A request of the manager's company that the manager may decide (not their own employee's). */
async function loadForDecision(tx: Tx, person: ConsolePerson, id: string, to: string) {
  const row = isUuid(id) ? await findCorrectionRequest(tx, person.companyId, id.toLowerCase()) : undefined;
  if (!row) throw new ApiError('not_found', `no correction request ${id} in this company`);
  if (person.employeeId !== null && person.employeeId === row.employee_id)
    throw new ApiError('own_entry', 'someone else decides on your own correction requests');
  assertWaiting(row, to);
  return row;
}

/** The reason of the revision an approval writes: it names the request (at most 500 characters). */
function revisionReason(row: CorrectionRequestWithEmployee): string {
  return `correction request ${row.id}: ${row.reason}`.slice(0, 500);
}

/** A manager approves: the correction (or the missing shift) is applied by them, then the request is approved. */
export async function approveCorrectionRequest(tx: Tx, now: number, person: ConsolePerson, id: string) {
  const row = await loadForDecision(tx, person, id, 'approved');
  // The employee's row is locked before the request's: deleting the entry or the employee locks the
  // employee, then closes their waiting requests; taking the locks in the other order deadlocks (PG).
  await lockEntryEmployee(tx, row.employee_id);
  // Decided first: of two approvals at once, the second waits at this conditional update and is then
  // refused before it applies anything (the correction below rolls back with a refusal too).
  const at = new Date(now).toISOString();
  const settled = await settle(tx, row, person, { status: 'approved', at, reason: null });
  const proposed = {
    ...(row.proposed_clock_in !== null ? { clockIn: row.proposed_clock_in } : {}),
    ...(row.proposed_clock_out !== null ? { clockOut: row.proposed_clock_out } : {}),
    ...(row.proposed_break_minutes !== null ? { breakMinutes: row.proposed_break_minutes } : {}),
  };
  if (row.time_entry_id !== null)
    await correctEntry(tx, now, managerOfAdmin(actorOf(person), person.companyId), {
      entryId: row.time_entry_id,
      body: { ...proposed, reason: revisionReason(row) },
      // Applied only over the entry the employee saw: changed since (a punch, a manager's correction)
      // is refused, and the request stays waiting to be rejected and filed again.
      ifMatch: row.time_entry_version === null ? null : [row.time_entry_version],
      dryRun: false,
    }).catch((error: unknown) => {
      if (error instanceof ApiError && error.errorName === 'version_mismatch')
        throw new ApiError(
          'version_mismatch',
          `the entry changed after the request was filed (it was at version ${row.time_entry_version}): reject the request and ask the employee to file it again on the entry as it is now`,
        );
      throw error;
    });
  else
    // The request names itself in revision 1's reason; the entry's note stays the employee's to write.
    await addShiftFor(
      tx,
      now,
      person,
      {
        employee: { id: row.employee_id },
        clockIn: row.proposed_clock_in!,
        clockOut: row.proposed_clock_out!,
        breakMinutes: row.proposed_break_minutes,
      },
      { revisionReason: revisionReason(row) },
    );
  return recordRequestChange(tx, settled, {
    at,
    actorId: person.id,
    action: 'correction_request.approve',
    event: 'correction.approved',
  });
}

/** A manager rejects, with a reason. */
export async function rejectCorrectionRequest(
  tx: Tx,
  now: number,
  person: ConsolePerson,
  id: string,
  reason: string,
) {
  if (reason.trim() === '') throw validationError([field('reason', 'must not be blank', 'blank')]);
  const row = await loadForDecision(tx, person, id, 'rejected');
  const at = new Date(now).toISOString();
  const settled = await settle(tx, row, person, { status: 'rejected', at, reason: reason.trim() });
  return recordRequestChange(tx, settled, {
    at,
    actorId: person.id,
    action: 'correction_request.reject',
    event: 'correction.rejected',
  });
}

/** Requests a page holds (newest first). */
export const REQUESTS_PAGE = 100;

/**
 * A page of requests, newest first; the cursor is bound to its listing (kind, company, employee or
 * status), so another listing's cursor is refused (422 invalid_cursor).
 */
async function requestsPage(
  db: Executor,
  cursors: CursorCodec,
  filter: { companyId: string; employeeId?: string; status?: string },
  cursor: string | undefined,
) {
  const key = JSON.stringify([filter.companyId, filter.employeeId ?? null, filter.status ?? null]);
  let after: { createdAt: string; id: string } | undefined;
  if (cursor !== undefined) {
    const p = cursors.decode(cursor);
    if (p?.k !== 'correction-requests' || p.f !== key || typeof p.t !== 'string' || typeof p.a !== 'string')
      throw invalidCursor('list of correction requests');
    after = { createdAt: p.t, id: p.a };
  }
  const rows = await listCorrectionRequests(db, {
    ...filter,
    ...(after !== undefined ? { after } : {}),
    limit: REQUESTS_PAGE + 1,
  });
  const items = rows.slice(0, REQUESTS_PAGE);
  const last = items.at(-1);
  const nextCursor =
    rows.length > REQUESTS_PAGE && last
      ? cursors.encode({ k: 'correction-requests', f: key, t: last.created_at, a: last.id })
      : null;
  return { items, nextCursor };
}

/** The employee's own requests, newest first, 100 a page. */
export async function ownCorrectionRequests(db: Executor, cursors: CursorCodec, self: Self, cursor?: string) {
  const page = await requestsPage(
    db,
    cursors,
    { companyId: self.person.companyId, employeeId: self.employee.id },
    cursor,
  );
  return { items: page.items.map(requestView), nextCursor: page.nextCursor };
}

/** The company's requests for managers (default: the waiting ones), with each employee's name, 100 a page. */
export async function companyCorrectionRequests(
  db: Executor,
  cursors: CursorCodec,
  person: ConsolePerson,
  query: { status?: string; cursor?: string },
) {
  const page = await requestsPage(
    db,
    cursors,
    { companyId: person.companyId, status: query.status ?? 'requested' },
    query.cursor,
  );
  const rows = page.items;
  return {
    nextCursor: page.nextCursor,
    items: rows.map((row) => ({
      ...requestView(row),
      employeeName: [row.first_name, row.last_name].filter(Boolean).join(' ') || row.employee_email,
    })),
  };
}
