import { sql } from 'kysely';
import { type Executor } from '../../../platform/db/database.js';
import type { WritePlan } from '../../../platform/db/write-plan.js';
import { boundLimit, prepareQuery } from '../../../platform/db/prepared.js';
import { type NewTimeEntry, type TimeEntryRow } from '../../../platform/db/schema.js';

/* Time entries: inserting one, completing or changing an open session, and a page of an employee's entries. */

/*
 * The status of an open session is written into the SQL as a literal, never bound: a bound value in
 * the term that makes the partial index on open sessions usable made SQLite re-plan the statement
 * on every run (it cannot know the value will never change), and PostgreSQL can only match the
 * partial index's predicate against a literal in a generic plan.
 */
export const OPEN = sql.lit('open');

export const ENTRY_COLUMNS = [
  'id',
  'company_id',
  'employee_id',
  'work_date',
  'start_at',
  'end_at',
  'start_time',
  'end_time',
  'ends_next_day',
  'break_minutes',
  'net_seconds',
  'status',
  'source',
  'time_zone',
  'notes',
  'note',
  'clock_in_event',
  'clock_out_event',
  'created_by_type',
  'created_by_id',
  'closed_by_id',
  'created_at',
  'updated_at',
  'approved_at',
  'device_id',
] as const satisfies readonly (keyof NewTimeEntry)[];

export type EntryValues = { [K in (typeof ENTRY_COLUMNS)[number]]: string | number | null };

/** A new entry (an open session, or a completed shift) as one write of a plan; a second open session fails (partial unique index). */
export function planInsertEntry(plan: WritePlan, entry: EntryValues): void {
  plan.insert('time_entries', ENTRY_COLUMNS, entry);
}

/** An open session closed (the fields a clock-out sets), as one write of a plan. */
export function planCompleteSession(plan: WritePlan, id: string, p: SessionClosing): void {
  plan.update(
    'time_entries',
    {
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
    },
    { id },
  );
}

/** What a break punch changes on its open session (break sum, device and note, version), as one write of a plan. */
export function planUpdateOpenSession(
  plan: WritePlan,
  id: string,
  p: {
    breakMinutes: number | null;
    notes: string | null;
    note: string | null;
    updatedAt: string;
    version: number;
  },
): void {
  plan.update(
    'time_entries',
    {
      break_minutes: p.breakMinutes,
      notes: p.notes,
      note: p.note,
      updated_at: p.updatedAt,
      version: p.version,
    },
    { id },
  );
}

export interface SessionClosing {
  break_minutes: number | null;
  end_at: string;
  end_time: string;
  ends_next_day: number;
  net_seconds: number;
  status: string;
  notes: string | null;
  note: string | null;
  clock_out_event: string;
  closed_by_id: string;
  updated_at: string;
  /** The entry's version after the clock-out (its revision's number, issue 30). */
  version: number;
}

/** The columns of a time-entry list item (results.ts, timeEntryListItem): pages read nothing else. */
export const LIST_COLUMNS = [
  'id',
  'work_date',
  'start_time',
  'end_time',
  'ends_next_day',
  'net_seconds',
  'break_minutes',
  'status',
  'source',
  'approved_at',
  'created_at',
  // Corrections (issue 30): the item's version, whether it was corrected or closed automatically.
  'version',
  'edited',
  'auto_closed',
  // Issue 35: the kiosk device, the review flags.
  'device_id',
  'review_flags',
] as const;

type ListRow = Pick<TimeEntryRow, (typeof LIST_COLUMNS)[number]>;

type PageJoinRow = { [K in keyof ListRow]: ListRow[K] | null } & {
  employee_row_id: string;
  employee_external_id: string | null;
};

const PAGE_COLUMNS = LIST_COLUMNS.map((column) => `p.${column}` as const);

/*
 * An employee (by id or external id, never a deleted one) and one page of their entries, in one
 * statement: the page is a derived table joined to the employee row, so a missing employee yields no
 * row, an employee without entries in the range one row of nulls. The page itself is an indexed read
 * of (employee_id, work_date, id) in the range, after the cursor's position.
 */
function employeePage(by: 'id' | 'externalId', withAfter: boolean) {
  return (
    db: Executor,
    companyId: string,
    selector: string,
    from: string,
    to: string,
    afterDate: string,
    afterId: string,
    limit: number,
  ) =>
    db
      .selectFrom('employees as e')
      .leftJoin(
        (eb) => {
          let page = eb
            .selectFrom('time_entries')
            .select(LIST_COLUMNS)
            .where(
              'employee_id',
              '=',
              by === 'id'
                ? eb.val(selector)
                : eb
                    .selectFrom('employees as s')
                    .select('s.id')
                    .where('s.company_id', '=', companyId)
                    .where('s.external_id', '=', selector)
                    .where('s.deleted_at', 'is', null),
            )
            .where('company_id', '=', companyId)
            .where('work_date', '>=', from)
            .where('work_date', '<=', to);
          if (withAfter)
            page = page.where((w) =>
              w.or([
                w('work_date', '>', afterDate),
                w.and([w('work_date', '=', afterDate), w('id', '>', afterId)]),
              ]),
            );
          return page.orderBy('work_date').orderBy('id').limit(boundLimit(limit)).as('p');
        },
        (join) => join.onTrue(),
      )
      .select(['e.id as employee_row_id', 'e.external_id as employee_external_id', ...PAGE_COLUMNS])
      .where('e.company_id', '=', companyId)
      .where(by === 'id' ? 'e.id' : 'e.external_id', '=', selector)
      .where('e.deleted_at', 'is', null)
      .orderBy('p.work_date')
      .orderBy('p.id');
}

interface PageInput {
  companyId: string;
  selector: string;
  from: string;
  to: string;
  afterDate: string;
  afterId: string;
  limit: number;
}

const pageQuery = (by: 'id' | 'externalId', withAfter: boolean) =>
  prepareQuery((db, p: PageInput) =>
    employeePage(by, withAfter)(db, p.companyId, p.selector, p.from, p.to, p.afterDate, p.afterId, p.limit),
  );

/** One prepared query per shape: by id or external id, first page or after a cursor. */
const PAGE_QUERIES = {
  id: pageQuery('id', false),
  idAfter: pageQuery('id', true),
  externalId: pageQuery('externalId', false),
  externalIdAfter: pageQuery('externalId', true),
};

/**
 * The employee named by `selector` (lower-cased id, or external id) in the company and a page of their
 * entries in [from, to] after `after`, in one round trip; `employee` undefined when there is no such
 * (undeleted) employee.
 */
export async function findEmployeeEntriesPage(
  db: Executor,
  input: {
    companyId: string;
    selector: { id: string } | { externalId: string };
    from: string;
    to: string;
    after: { workDate: string; id: string } | null;
    limit: number;
  },
): Promise<{ employee: { id: string; external_id: string | null } | undefined; rows: ListRow[] }> {
  const { companyId, selector, from, to, after, limit } = input;
  const byId = 'id' in selector;
  const key = byId ? selector.id : selector.externalId;
  const query = PAGE_QUERIES[`${byId ? 'id' : 'externalId'}${after !== null ? 'After' : ''}`];
  const rows = (await query.execute(db, {
    companyId,
    selector: key,
    from,
    to,
    afterDate: after?.workDate ?? '',
    afterId: after?.id ?? '',
    limit,
  })) as PageJoinRow[];
  const first = rows[0];
  if (first === undefined) return { employee: undefined, rows: [] };
  return {
    employee: { id: first.employee_row_id, external_id: first.employee_external_id },
    rows: first.id === null ? [] : (rows as unknown as ListRow[]),
  };
}
