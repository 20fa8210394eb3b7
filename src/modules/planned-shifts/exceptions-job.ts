import { addDays } from '../../domain/time-zone.js';
import { newId } from '../../domain/ids.js';
import { tryTransactionLock, type Tx } from '../../platform/db/database.js';
import type { AttendanceExceptionRow } from '../../platform/db/schema.js';
import type { AppContext } from '../context.js';
import { appendEvents, type NewEvent } from '../events/service.js';
import { excusedShiftIds } from './absences.js';
import {
  companiesToJudge,
  employeesOfCompany,
  exceptionsSince,
  insertExceptions,
  publishedShiftsBetween,
  resolveException,
  shiftStates,
  workedEntriesOfDays,
  workedEntriesBetween,
} from './queries/exceptions.js';
import {
  type Candidate,
  evaluateAttendance,
  type ExistingException,
  type RuleEntry,
  type RuleShift,
} from './exception-rules.js';
import { findCompanySettings } from './queries/shifts.js';
import type { ExceptionKind } from './schemas.js';
import { exceptionView } from './views.js';

/*
 * The attendance-exceptions job (issue 33), run once a minute by every `serve` instance (unless
 * EXCEPTIONS_JOB=false). Each run judges, company by company, the published shifts that started in
 * the last two days against the entries (exception-rules.ts) and records what is new, in one
 * transaction per company with the events `attendance.exception_detected` / `_resolved`.
 *
 * Detected once, with any number of instances on one PostgreSQL: a run takes the company's advisory
 * lock without waiting (another instance on the same company: this one skips it), and every
 * exception's key is unique in the table, so an insert that comes second adds nothing and emits no
 * event; a resolution only updates a row still open. SQLite's write transactions are serial.
 */

const HOUR_MS = 3_600_000;
/** Shifts that started this long ago are judged no more (what they left open stays as it is). */
export const JUDGED_HOURS = 48;

export interface JobRun {
  companies: number;
  detected: number;
  resolved: number;
}

/** One run at `ctx.now()` over every company with something to judge. */
export async function runExceptionsJob(ctx: AppContext): Promise<JobRun> {
  const nowMs = ctx.now();
  const fromMs = nowMs - JUDGED_HOURS * HOUR_MS;
  const companies = await companiesToJudge(ctx.database.db, {
    from: new Date(fromMs).toISOString(),
    to: new Date(nowMs).toISOString(),
    sinceDate: sinceDateOf(fromMs),
  });
  const run: JobRun = { companies: 0, detected: 0, resolved: 0 };
  for (const companyId of companies) {
    const done = await ctx.database.transaction((tx) => judgeCompany(tx, companyId, nowMs));
    if (done === null) continue;
    run.companies += 1;
    run.detected += done.detected;
    run.resolved += done.resolved;
  }
  return run;
}

/** The first date whose exceptions the run reads: a day before the window's start, whatever the zone. */
function sinceDateOf(fromMs: number): string {
  return addDays(new Date(fromMs).toISOString().slice(0, 10), -1);
}

const toShift = (row: Awaited<ReturnType<typeof publishedShiftsBetween>>[number]): RuleShift => ({
  id: row.id,
  version: Number(row.version),
  employeeId: row.employee_id,
  workplaceId: row.workplace_id,
  date: row.date,
  startMs: Date.parse(row.start_at),
  endMs: Date.parse(row.end_at),
});

const toEntry = (row: Awaited<ReturnType<typeof workedEntriesBetween>>[number]): RuleEntry => ({
  id: row.id,
  employeeId: row.employee_id,
  workDate: row.work_date,
  startMs: Date.parse(row.start_at),
  endMs: row.end_at === null ? null : Date.parse(row.end_at),
});

const toExisting = (row: AttendanceExceptionRow): ExistingException => ({
  id: row.id,
  key: row.dedupe_key,
  kind: row.kind as ExceptionKind,
  employeeId: row.employee_id,
  date: row.date,
  plannedShiftId: row.planned_shift_id,
  shiftVersion: row.shift_version === null ? null : Number(row.shift_version),
  resolved: row.resolved_at !== null,
});

/** One company's run, in its transaction; null when another instance is judging it right now. */
export async function judgeCompany(
  tx: Tx,
  companyId: string,
  nowMs: number,
): Promise<{ detected: number; resolved: number } | null> {
  if (!(await tryTransactionLock(tx, `attendance-exceptions:${companyId}`))) return null;
  const iso = (ms: number) => new Date(ms).toISOString();
  const fromMs = nowMs - JUDGED_HOURS * HOUR_MS;
  const settings = await findCompanySettings(tx, companyId);
  if (!settings) return { detected: 0, resolved: 0 };
  // Shifts a day either side of the window say which days are planned (for `unplanned`).
  const shifts = (
    await publishedShiftsBetween(tx, companyId, iso(fromMs - 26 * HOUR_MS), iso(nowMs + 26 * HOUR_MS))
  ).map(toShift);
  // Entries from a day before the window: a session running at a shift's start counts for it.
  const entries = (await workedEntriesBetween(tx, companyId, iso(fromMs - 24 * HOUR_MS), iso(nowMs))).map(
    toEntry,
  );
  const existingRows = await exceptionsSince(tx, companyId, sinceDateOf(fromMs));
  const open = existingRows.filter((r) => r.resolved_at === null && r.planned_shift_id !== null);
  const states = await shiftStates(tx, [...new Set(open.map((r) => r.planned_shift_id!))]);
  const employees = await employeesOfCompany(tx, companyId);
  const openUnplanned = existingRows.filter((r) => r.resolved_at === null && r.kind === 'unplanned');
  const unplannedDays = new Map<string, number[]>(
    openUnplanned.map((r) => [`${r.employee_id}:${r.date}`, []]),
  );
  for (const entry of await workedEntriesOfDays(tx, openUnplanned))
    unplannedDays.get(`${entry.employee_id}:${entry.work_date}`)?.push(Date.parse(entry.start_at));
  const judged = shifts.filter((s) => s.startMs >= fromMs && s.startMs <= nowMs);
  const evaluation = evaluateAttendance({
    nowMs,
    fromMs,
    settings: {
      lateGraceMinutes: Number(settings.late_grace_minutes),
      noShowAfterMinutes: Number(settings.no_show_after_minutes),
    },
    shifts,
    entries: entries.filter((e) => e.startMs >= fromMs || e.endMs === null || e.endMs > fromMs),
    existing: existingRows.map(toExisting),
    current: new Map(
      states.map((s) => [
        s.id,
        { startMs: Date.parse(s.start_at), endMs: Date.parse(s.end_at), published: s.status === 'published' },
      ]),
    ),
    excused: await excusedShiftIds(tx, companyId, judged),
    workplaceOf: new Map(employees.map((e) => [e.id, e.workplace_id])),
    unplannedDays,
  });
  const refs = new Map(employees.map((e) => [e.id, { id: e.id, external_id: e.external_id }]));
  return record(tx, companyId, iso(nowMs), evaluation, refs);
}

function rowOf(companyId: string, candidate: Candidate, at: string): AttendanceExceptionRow {
  return {
    id: newId(),
    company_id: companyId,
    employee_id: candidate.employeeId,
    workplace_id: candidate.workplaceId,
    kind: candidate.kind,
    planned_shift_id: candidate.plannedShiftId,
    shift_version: candidate.shiftVersion,
    time_entry_id: candidate.timeEntryId,
    date: candidate.date,
    minutes: candidate.minutes,
    dedupe_key: candidate.key,
    detected_at: at,
    resolved_at: candidate.resolved ? at : null,
  };
}

/** Writes what the evaluation found and appends its events, last (they hold the company's sequence). */
async function record(
  tx: Tx,
  companyId: string,
  at: string,
  evaluation: ReturnType<typeof evaluateAttendance>,
  refs: Map<string, { id: string; external_id: string | null }>,
): Promise<{ detected: number; resolved: number }> {
  const events: NewEvent[] = [];
  const refOf = (row: AttendanceExceptionRow) =>
    refs.get(row.employee_id) ?? { id: row.employee_id, external_id: null };
  const inserted = await insertExceptions(
    tx,
    evaluation.detect.map((c) => rowOf(companyId, c, at)),
  );
  for (const row of inserted) {
    events.push({
      type: 'attendance.exception_detected',
      data: exceptionView({ ...row, resolved_at: null }, refOf(row)),
    });
    if (row.resolved_at !== null)
      events.push({ type: 'attendance.exception_resolved', data: exceptionView(row, refOf(row)) });
  }
  let resolved = inserted.filter((row) => row.resolved_at !== null).length;
  for (const change of evaluation.resolve) {
    const row = await resolveException(tx, { id: change.id, at, minutes: change.minutes });
    if (!row) continue;
    resolved += 1;
    events.push({ type: 'attendance.exception_resolved', data: exceptionView(row, refOf(row)) });
  }
  await appendEvents(tx, companyId, events, at);
  return { detected: inserted.length, resolved };
}

/**
 * The timer of one instance: a run every `intervalMs` while the server listens, never two at once in
 * this process (that only saves work: several processes are safe, see above).
 */
export class ExceptionsJob {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly ctx: AppContext,
    private readonly options: { intervalMs: number; onError: (error: unknown) => void },
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.tick(), this.options.intervalMs);
    this.timer.unref();
  }

  /** Runs once now unless a run is going on; resolves when that run ends. */
  tick(): Promise<void> {
    this.running ??= runExceptionsJob(this.ctx)
      .then(() => undefined)
      .catch(this.options.onError)
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
