import { type Executor } from '../../../platform/db/database.js';
import { prepareQuery } from '../../../platform/db/prepared.js';
import type { WritePlan } from '../../../platform/db/write-plan.js';
import { type TimeEntryBreakRow } from '../../../platform/db/schema.js';

/*
 * Breaks (issue 20): rows of `time_entry_breaks`, each inside its clocked entry; at most one open
 * (no end) per entry, enforced by a partial unique index.
 */

export type BreakRow = TimeEntryBreakRow;

const entryBreaksQuery = prepareQuery((db, p: { entryId: string }) =>
  db
    .selectFrom('time_entry_breaks')
    .selectAll()
    .where('time_entry_id', '=', p.entryId)
    .orderBy('start_at')
    .orderBy('id'),
);

/** An entry's breaks, oldest first. */
export async function findEntryBreaks(db: Executor, entryId: string): Promise<BreakRow[]> {
  return entryBreaksQuery.execute(db, { entryId });
}

/** The breaks of several entries (a page of a list), oldest first, by entry id. */
export async function findBreaksOfEntries(
  db: Executor,
  entryIds: string[],
): Promise<Map<string, BreakRow[]>> {
  const byEntry = new Map<string, BreakRow[]>(entryIds.map((id) => [id, []]));
  if (entryIds.length === 0) return byEntry;
  const rows = await db
    .selectFrom('time_entry_breaks')
    .selectAll()
    .where('time_entry_id', 'in', entryIds)
    .orderBy('time_entry_id')
    .orderBy('start_at')
    .orderBy('id')
    .execute();
  for (const row of rows) byEntry.get(row.time_entry_id)?.push(row);
  return byEntry;
}

export const BREAK_COLUMNS = [
  'id',
  'company_id',
  'employee_id',
  'time_entry_id',
  'start_at',
  'end_at',
  'start_time',
  'end_time',
  'start_event',
  'end_event',
  'created_by_id',
  'closed_by_id',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof BreakRow)[];

/** A new (open) break as one write of a plan; a second open break of the entry fails (partial unique index) (a punch's writes in one statement, issue 32). */
export function planInsertBreak(plan: WritePlan, row: BreakRow): void {
  plan.insert('time_entry_breaks', BREAK_COLUMNS, row);
}

/** The entry's open break ended, as one write of a plan: the plan's run says how many breaks it ended (0 or 1). */
export function planCloseOpenBreak(plan: WritePlan, closing: BreakClosing): void {
  plan.update(
    'time_entry_breaks',
    {
      end_at: closing.end_at,
      end_time: closing.end_time,
      end_event: closing.end_event,
      closed_by_id: closing.closed_by_id,
      updated_at: closing.updated_at,
    },
    { time_entry_id: closing.entryId, end_at: null },
  );
}

export interface BreakClosing {
  entryId: string;
  end_at: string;
  end_time: string;
  end_event: string;
  closed_by_id: string;
  updated_at: string;
}
