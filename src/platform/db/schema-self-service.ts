import type { Selectable } from 'kysely';

/** An employee's request to correct an entry, or to add a missing one (migration 0014, issue 35). */
export interface CorrectionRequestsTable {
  id: string;
  company_id: string;
  employee_id: string;
  /** null: a missing entry (approving records a shift). */
  time_entry_id: string | null;
  date: string;
  proposed_clock_in: string | null;
  proposed_clock_out: string | null;
  proposed_break_minutes: number | null;
  reason: string;
  /** requested, approved, rejected or withdrawn. */
  status: string;
  /** The person who filed it. */
  requested_by: string;
  decided_by_kind: string | null;
  decided_by_id: string | null;
  decided_by_name: string | null;
  decided_at: string | null;
  decision_reason: string | null;
  created_at: string;
  updated_at: string;
}

export type CorrectionRequestRow = Selectable<CorrectionRequestsTable>;
