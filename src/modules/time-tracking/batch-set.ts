import { type FieldError, validationError } from '../../domain/errors.js';
import { localizeInstant, type LocalizedInstant, type ParsedInstant } from '../../domain/time-zone.js';
import type { Tx } from '../../platform/db/database.js';
import { columnsOf, insertRows, updateById } from '../../platform/db/update-rows.js';
import { type BatchContext, type EmployeeRows, loadBatchContext } from './batch-context.js';
import type { TimeEntryRow } from '../../platform/db/schema.js';
import { recordAudits, type AuditEntry } from '../audit/queries.js';
import type { Principal } from '../auth/service.js';
import { type NewRevision, writeRevisions } from '../corrections/revisions.js';
import { resolveAmong } from '../employees/service.js';
import { appendEventsAt, type NewEvent } from '../events/service.js';
import { decidePunch, parsePunchInstant } from './clock-event.js';
import { duplicateAnswer, duplicateOfBreak, duplicateOfPunch, duplicateWindow } from './duplicate-punches.js';
import { resolveToggle } from './punch-rules.js';
import type { BreakRow } from './queries/breaks.js';
import { ENTRY_COLUMNS } from './queries/entries.js';
import { OPEN_SESSION_COLUMNS, type OpenSession, type PunchContext } from './queries/context.js';
import { type ClockEventInput, punchSource, type WriteOutcome } from './results.js';
import {
  assertBusinessRules,
  dayBefore,
  employeeForPrincipal,
  employeeLookup,
  entryChangeAudit,
  type PunchEffect,
  type PunchWrite,
} from './writes.js';

/*
 * Issue 32, item 2: a batch of punches as a set. `load` reads, in one statement each, everything the
 * batch's punches are decided on: their employees (row-locked in id order on PostgreSQL), the
 * employees' open sessions and their entries of the days around the punches, those entries' breaks,
 * their schedules, confirmed days and the company's closed periods. `decide` runs the single
 * endpoint's steps for one punch (its instant in its window, its employee, a duplicate, its context,
 * the business rules, the pure decision of clock-event.ts) on that state held in memory, and applies
 * the accepted punch's writes to it, so the next punch of the same employee sees them as it would
 * have seen them committed. `flush` writes every accepted punch's rows in multi-row statements.
 * The context a punch gets here is what the single endpoint's statement (queries/context.ts) reads,
 * computed on the rows read (batch-context.ts says why they are enough).
 */

type Fields = ClockEventInput;

/** The set form of a batch (http/plugins/idempotency-batch.ts, SetBatch). */
interface PunchSetBatch {
  decide(index: number, options: { detectDuplicates: boolean }): Promise<WriteOutcome>;
  flush(tx: Tx): Promise<void>;
}

/** A batch's punches as a set (see above); `present` is what the route does to every answer. */
export function punchesAsSet(
  principal: Principal,
  now: () => number,
  events: Fields[],
  errors: FieldError[][],
  present: (outcome: WriteOutcome) => WriteOutcome,
): { load: (tx: Tx) => Promise<PunchSetBatch> } {
  return {
    load: async (tx) => {
      const loaded = await loadBatchContext(tx, principal, events, errors);
      return new PunchSet(principal, now, events, errors, present, loaded);
    },
  };
}

class PunchSet implements PunchSetBatch {
  private readonly effects: { effect: PunchEffect }[] = [];
  private readonly newEntries = new Set<string>();
  private readonly changedEntries = new Set<string>();
  private readonly newBreaks = new Set<string>();
  private readonly changedBreaks = new Set<string>();

  constructor(
    private readonly principal: Principal,
    private readonly now: () => number,
    private readonly events: Fields[],
    private readonly errors: FieldError[][],
    private readonly present: (outcome: WriteOutcome) => WriteOutcome,
    private readonly loaded: BatchContext,
  ) {}

  /** The single endpoint's steps (clock-event.ts, recordClockEvent), in its order, on the state in memory. */
  async decide(index: number, options: { detectDuplicates: boolean }): Promise<WriteOutcome> {
    const principal = this.principal;
    const input = this.events[index]!;
    // A value the single endpoint refuses before it runs: this event's 422.
    if (this.errors[index]!.length > 0) throw validationError(this.errors[index]!);
    const now = this.now();
    const parsed = parsePunchInstant(input.occurredAt, now);
    const found = await resolveAmong(
      principal.companyId,
      employeeLookup(principal, input.employee),
      this.loaded.byId,
      this.loaded.byExternalId,
    );
    const { employee, zone } = employeeForPrincipal(principal, input.employee, found);
    const punch = localizeInstant(parsed, zone);
    const rows = this.rowsOf(employee.id);
    if (options.detectDuplicates) {
      const replay = this.duplicate(rows, employee, input.type, parsed);
      if (replay) return this.present(replay);
    }
    const context = this.contextOf(rows, employee, punch);
    assertBusinessRules(employee, context.scheduleId, punch.workDate);
    const open = context.open;
    const effective =
      input.type === 'toggle' ? resolveToggle(open?.work_date ?? null, punch.workDate) : input.type;
    const breaks =
      open && context.openHasBreaks && effective !== 'clock_in'
        ? (this.loaded.breaks.get(open.id) ?? []).map((b) => ({ ...b }))
        : [];
    const write: PunchWrite = {
      principal,
      at: new Date(now).toISOString(),
      employee,
      punch,
      context,
      breaks,
      input,
      // A skewed device's batch is not decided as a set (see punchesAsSet): no flags from the punch here.
      reviewFlags: [],
      dryRun: false,
      source: punchSource(principal),
    };
    const decision = decidePunch(write, effective);
    for (const effect of decision.effects) this.apply(rows, effect);
    return this.present(decision.outcome);
  }

  private rowsOf(employeeId: string): EmployeeRows {
    let rows = this.loaded.rows.get(employeeId);
    if (!rows) {
      rows = { entries: new Map() };
      this.loaded.rows.set(employeeId, rows);
    }
    return rows;
  }

  /** What findPunchContext reads, on the rows in memory. */
  private contextOf(
    rows: EmployeeRows,
    employee: { id: string; workplace_id: string | null },
    punch: LocalizedInstant,
  ): PunchContext {
    const instant = punch.utcIso;
    const startedAfter = dayBefore(instant);
    const sessionStartedAfter = dayBefore(startedAfter);
    const entries = [...rows.entries.values()].sort((a, b) => compare(a.start_at, b.start_at));
    const openRow = entries.find((e) => e.status === 'open');
    const open = openRow
      ? (Object.fromEntries(OPEN_SESSION_COLUMNS.map((c) => [c, openRow[c]])) as OpenSession)
      : undefined;
    const schedule = (this.loaded.schedules.get(employee.id) ?? []).find(
      (s) => s.effective_from <= punch.workDate,
    );
    const covering = entries.find(
      (c) =>
        c.start_at > startedAfter &&
        c.start_at <= instant &&
        c.status !== 'open' &&
        c.end_at !== null &&
        c.end_at > instant,
    );
    const swallowed = open
      ? entries.find(
          (s) =>
            s.start_at > sessionStartedAfter &&
            s.start_at < instant &&
            s.end_at !== null &&
            s.end_at > open.start_at &&
            s.id !== open.id,
        )
      : undefined;
    const workplaceId = employee.workplace_id ?? '';
    return {
      open,
      scheduleId: schedule?.schedule_id ?? null,
      punchDayLocked: this.loaded.confirmed.has(`${employee.id}|${punch.workDate}`),
      openDayLocked: open !== undefined && this.loaded.confirmed.has(`${employee.id}|${open.work_date}`),
      coveringId: covering?.id ?? null,
      swallowedId: swallowed?.id ?? null,
      openHasBreaks: open !== undefined && (this.loaded.breaks.get(open.id)?.length ?? 0) > 0,
      punchClosedPeriod: this.closedPeriod(workplaceId, punch.workDate),
      openClosedPeriod: open ? this.closedPeriod(workplaceId, open.work_date) : null,
    };
  }

  /** closedPeriodHolding's answer (queries/context.ts) for one day. */
  private closedPeriod(workplaceId: string, day: string): string | null {
    const period = this.loaded.periods.find(
      (p) =>
        p.to_date >= day && p.from_date <= day && (p.workplace_id === null || p.workplace_id === workplaceId),
    );
    return period ? `${period.from_date} to ${period.to_date} is closed (locked period ${period.id})` : null;
  }

  /** replayDuplicate (clock-event.ts) on the rows in memory: the lookups of queries/duplicates.ts. */
  private duplicate(
    rows: EmployeeRows,
    employee: { id: string; external_id: string | null; workplace_id: string | null },
    sentType: ClockEventInput['type'],
    parsed: ParsedInstant,
  ): WriteOutcome | null {
    const w = duplicateWindow(employee.id, sentType, this.principal.id, parsed.epochMs);
    const entries = [...rows.entries.values()];
    if (sentType === 'break_start' || sentType === 'break_end') {
      const breaks = entries.flatMap((e) => this.loaded.breaks.get(e.id) ?? []);
      const brk =
        sentType === 'break_start'
          ? latest(
              breaks.filter(
                (b) =>
                  b.start_event === sentType &&
                  b.created_by_id === w.callerId &&
                  b.start_at >= w.from &&
                  b.start_at <= w.to,
              ),
              (b) => b.start_at,
            )
          : latest(
              breaks.filter(
                (b) =>
                  b.start_at > w.startedAfter &&
                  b.end_event === sentType &&
                  b.closed_by_id === w.callerId &&
                  b.end_at !== null &&
                  b.end_at >= w.from &&
                  b.end_at <= w.to,
              ),
              (b) => b.end_at!,
            );
      if (!brk) return null;
      const entry = rows.entries.get(brk.time_entry_id);
      if (!entry) throw new Error('a duplicate break of an entry the batch did not read');
      const matched = sentType === 'break_start' ? ('start' as const) : ('end' as const);
      return duplicateAnswer(duplicateOfBreak(sentType, { entry, brk, matched }), employee, false);
    }
    const started = latest(
      entries.filter(
        (e) =>
          e.clock_in_event === sentType &&
          e.created_by_id === w.callerId &&
          e.start_at >= w.from &&
          e.start_at <= w.to,
      ),
      (e) => e.start_at,
    );
    if (started)
      return duplicateAnswer(duplicateOfPunch({ entry: started, matched: 'start' }), employee, false);
    const ended = latest(
      entries.filter(
        (e) =>
          e.start_at > w.startedAfter &&
          e.clock_out_event === sentType &&
          e.closed_by_id === w.callerId &&
          e.end_at !== null &&
          e.end_at >= w.from &&
          e.end_at <= w.to,
      ),
      (e) => e.end_at!,
    );
    return ended
      ? duplicateAnswer(duplicateOfPunch({ entry: ended, matched: 'end' }), employee, false)
      : null;
  }

  /** An accepted punch's write, applied to the rows in memory and kept for flush. */
  private apply(rows: EmployeeRows, effect: PunchEffect): void {
    this.effects.push({ effect });
    switch (effect.kind) {
      case 'insertEntry': {
        const row = { ...effect.entry, review_flags: '[]' } as TimeEntryRow;
        rows.entries.set(row.id, row);
        this.newEntries.add(row.id);
        this.loaded.breaks.set(row.id, []);
        return;
      }
      case 'insertBreak': {
        const list = this.loaded.breaks.get(effect.row.time_entry_id) ?? [];
        list.push({ ...effect.row });
        this.loaded.breaks.set(effect.row.time_entry_id, list);
        this.newBreaks.add(effect.row.id);
        return;
      }
      case 'closeBreak': {
        const { entryId, ...closing } = effect.closing;
        const open = (this.loaded.breaks.get(entryId) ?? []).find((b) => b.end_at === null);
        if (!open) {
          if (effect.required) throw new Error('a break decided on ended no break in memory');
          return;
        }
        Object.assign(open, closing);
        if (!this.newBreaks.has(open.id)) this.changedBreaks.add(open.id);
        return;
      }
      case 'completeSession': {
        const row = this.entry(rows, effect.id);
        const p = effect.patch;
        Object.assign(row, {
          break_minutes: p.break_minutes,
          end_at: p.end_at,
          end_time: p.end_time,
          ends_next_day: p.ends_next_day,
          net_seconds: p.net_seconds,
          status: p.status,
          notes: p.notes,
          note: p.note,
          clock_out_event: p.clock_out_event,
          closed_by_id: p.closed_by_id,
          updated_at: p.updated_at,
          version: p.version,
        });
        return;
      }
      case 'updateOpenSession': {
        const row = this.entry(rows, effect.id);
        const p = effect.patch;
        Object.assign(row, {
          break_minutes: p.breakMinutes,
          notes: p.notes,
          note: p.note,
          updated_at: p.updatedAt,
          version: p.version,
        });
        return;
      }
      case 'revision':
      case 'change':
        return;
    }
  }

  private entry(rows: EmployeeRows, id: string): TimeEntryRow {
    const row = rows.entries.get(id);
    if (!row) throw new Error('an entry decided on is not in memory');
    if (!this.newEntries.has(id)) this.changedEntries.add(id);
    return row;
  }

  /** Every accepted punch's rows, in multi-row statements, in an order the unique indexes accept. */
  async flush(tx: Tx): Promise<void> {
    const entries = new Map<string, TimeEntryRow>();
    for (const rows of this.loaded.rows.values()) for (const [id, row] of rows.entries) entries.set(id, row);
    const breaks = new Map<string, BreakRow>();
    for (const list of this.loaded.breaks.values()) for (const b of list) breaks.set(b.id, b);
    // Sessions closed before sessions opened (one open session per employee), breaks likewise.
    await updateById(
      tx,
      'time_entries',
      ENTRY_UPDATE_COLUMNS,
      [...this.changedEntries].map((id) => entries.get(id)!),
    );
    const inserted = [...this.newEntries].map((id) => entries.get(id)!);
    await insertRows(tx, 'time_entries', ENTRY_INSERT_COLUMNS, inserted);
    await updateById(
      tx,
      'time_entry_breaks',
      BREAK_UPDATE_COLUMNS,
      [...this.changedBreaks].map((id) => breaks.get(id)!),
    );
    const newBreaks = [...this.newBreaks].map((id) => breaks.get(id)!);
    if (newBreaks.length > 0) await insertRows(tx, 'time_entry_breaks', columnsOf(newBreaks), newBreaks);
    const revisions: NewRevision[] = [];
    const audits: AuditEntry[] = [];
    const events: { event: NewEvent; at: string }[] = [];
    for (const { effect } of this.effects) {
      if (effect.kind === 'revision') revisions.push(effect.revision);
      if (effect.kind === 'change') {
        audits.push(entryChangeAudit(this.principal, effect.at, effect.change));
        events.push({ event: effect.change.event, at: effect.at });
      }
    }
    await writeRevisions(tx, revisions);
    await recordAudits(tx, audits);
    await appendEventsAt(tx, this.principal.companyId, events);
  }
}

/** A new entry's columns: as planInsertEntry writes them, with its version (a later punch of the batch may have raised it). */
const ENTRY_INSERT_COLUMNS = [...ENTRY_COLUMNS, 'version'] as const;

/** What a punch changes of an existing entry (planCompleteSession, planUpdateOpenSession); integers cast. */
const ENTRY_UPDATE_COLUMNS: (readonly [keyof TimeEntryRow & string, boolean])[] = [
  ['break_minutes', true],
  ['end_at', false],
  ['end_time', false],
  ['ends_next_day', true],
  ['net_seconds', true],
  ['status', false],
  ['notes', false],
  ['note', false],
  ['clock_out_event', false],
  ['closed_by_id', false],
  ['updated_at', false],
  ['version', true],
];

const BREAK_UPDATE_COLUMNS: (readonly [keyof BreakRow & string, boolean])[] = [
  ['end_at', false],
  ['end_time', false],
  ['end_event', false],
  ['closed_by_id', false],
  ['updated_at', false],
];

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The row with the greatest key (ORDER BY key DESC LIMIT 1). */
function latest<T>(rows: T[], key: (row: T) => string): T | undefined {
  let best: T | undefined;
  for (const row of rows) if (best === undefined || key(row) > key(best)) best = row;
  return best;
}
