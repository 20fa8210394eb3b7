/*
 * The tables of absences, leave balances and public holidays (migration 0010, issue 31), with the
 * conventions of schema.ts (which lists them in its Schema and re-exports them).
 */

export interface AbsenceTypesTable {
  id: string;
  company_id: string;
  code: string;
  name: string;
  category: string;
  unit: string;
  paid: number;
  counts_as_work_time: number;
  requires_approval: number;
  deducts_from_balance: number;
  yearly_entitlement_days: number;
  allow_negative: number;
  carry_over_max_days: number;
  /** MM-DD, or null: carried days do not lapse within the year. */
  carry_over_expires_on: string | null;
  created_at: string;
  updated_at: string;
}

export interface HolidayOverridesTable {
  id: string;
  company_id: string;
  workplace_id: string | null;
  date: string;
  /** add or remove. */
  kind: string;
  name: string | null;
  /** full or half. */
  portion: string;
  created_at: string;
}

export interface LeaveEntitlementsTable {
  id: string;
  company_id: string;
  employee_id: string;
  absence_type_id: string;
  year: number;
  days: number;
  created_at: string;
  updated_at: string;
}

export interface AbsencesTable {
  id: string;
  company_id: string;
  employee_id: string;
  absence_type_id: string;
  start_date: string;
  end_date: string;
  portion: string;
  hours: number | null;
  days: number;
  status: string;
  note: string | null;
  reason: string | null;
  decided_at: string | null;
  decided_by_kind: string | null;
  decided_by_id: string | null;
  decided_by_name: string | null;
  created_by_kind: string;
  created_by_id: string | null;
  created_at: string;
  updated_at: string;
  version: number;
}
