import type { Generated, Insertable, Selectable, Updateable } from 'kysely';
import type {
  AbsenceTypesTable,
  AbsencesTable,
  HolidayOverridesTable,
  LeaveEntitlementsTable,
} from './schema-absences.js';
import type {
  DeviceRefusalsTable,
  DevicesTable,
  EmployeePinsTable,
  KioskBadgeFailuresTable,
  KioskPinFailuresTable,
  KioskPinLocksTable,
} from './schema-kiosk.js';

import type { CorrectionRequestsTable } from './schema-self-service.js';
import type { SsoConfigsTable, SsoDomainsTable, SsoIdentitiesTable, SsoLoginsTable } from './schema-sso.js';

export type { SsoConfigsTable, SsoDomainsTable, SsoIdentitiesTable, SsoLoginsTable };

export type { AbsenceTypesTable, AbsencesTable, HolidayOverridesTable, LeaveEntitlementsTable };
export type { CorrectionRequestRow, CorrectionRequestsTable } from './schema-self-service.js';

/*
 * Portable column conventions, identical on SQLite and PostgreSQL so that one set of queries serves
 * both: ids are UUID text; instants are ISO-8601 UTC text with milliseconds (`toISOString()`), which
 * sorts and compares correctly as text; dates `YYYY-MM-DD`; wall-clock times `HH:MM:SS`; booleans
 * integer 0/1; JSON as text.
 */

export interface CompaniesTable {
  id: string;
  name: string;
  time_zone: string | null;
  time_tracking: number;
  api_access: number;
  created_at: string;
  updated_at: string;
  /** monday … sunday (migration 0005). */
  workweek_start: string;
  daily_overtime_after_seconds: number | null;
  /** none, de-arbzg or us-ca. */
  working_time_rules: string;
  /** Attendance exceptions and report rounding (migration 0008). */
  late_grace_minutes: number;
  no_show_after_minutes: number;
  /** none, nearest, up or down: reports only. */
  rounding: string;
  rounding_minutes: number;
  /** 1-23: open sessions are closed that many hours after their start; null: never (migration 0007). */
  auto_clock_out_after_hours: number | null;
  /** 1: the personal web clock is on (migration 0014; default 0). */
  web_clock: Generated<number>;
}

export interface WorkplacesTable {
  id: string;
  company_id: string;
  name: string;
  time_zone: string | null;
  created_at: string;
  /** Public holidays' region code, e.g. DE-BY (migration 0010); null: none. */
  holiday_region: string | null;
  /** 1: the kiosk lists no names, employees identify by badge only (migration 0012). */
  kiosk_badge_only: Generated<number>;
  /** The personal web clock's allowed addresses, CIDR ranges comma-separated (migration 0014); null: any. */
  web_clock_allowed_ips: Generated<string | null>;
}

export interface SchedulesTable {
  id: string;
  company_id: string;
  name: string;
  weekly_hours: number | null;
  created_at: string;
  /** Weekday names worked, comma-separated (migration 0010; default monday … friday). */
  work_days: Generated<string>;
  /** Hours of a work day; null: weekly hours ÷ work days (migration 0010). */
  daily_hours: number | null;
}

export interface EmployeesTable {
  id: string;
  company_id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  status: string;
  external_id: string | null;
  department_id: string | null;
  position_id: string | null;
  workplace_id: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
  /** Employment dates (migration 0010), null when unknown. */
  hired_on: string | null;
  left_on: string | null;
}

export interface EmployeeSchedulesTable {
  id: string;
  employee_id: string;
  schedule_id: string;
  effective_from: string;
  created_at: string;
}

export interface UsersTable {
  id: string;
  company_id: string;
  email: string;
  permissions: string;
  super_admin: number;
  active: number;
  employee_id: string | null;
  created_at: string;
  deactivated_at: string | null;
  /** scrypt of the console password (`scrypt$N$r$p$salt$hash`), null until one is set. */
  password_hash: string | null;
}

export interface ApiKeysTable {
  id: string;
  company_id: string;
  client_id: string;
  name: string;
  secret_hash: string;
  previous_secret_hash: string | null;
  previous_secret_valid_until: string | null;
  scopes: string;
  created_by: string;
  created_at: string;
  expires_at: string | null;
  allowed_ips: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

export interface SigningKeysTable {
  kid: string;
  algorithm: string;
  private_jwk: string;
  public_jwk: string;
  created_at: string;
}

export interface TimeEntriesTable {
  id: string;
  company_id: string;
  employee_id: string;
  work_date: string;
  start_at: string;
  end_at: string | null;
  start_time: string;
  end_time: string | null;
  ends_next_day: number;
  break_minutes: number | null;
  net_seconds: number | null;
  status: string;
  source: string;
  time_zone: string;
  notes: string | null;
  note: string | null;
  clock_in_event: string | null;
  clock_out_event: string | null;
  created_by_type: string;
  created_by_id: string | null;
  closed_by_id: string | null;
  created_at: string;
  updated_at: string;
  approved_at: string | null;
  /** The number of the entry's revisions (migration 0007): 1 when recorded. */
  version: Generated<number>;
  /** 1 once a correction happened. */
  edited: Generated<number>;
  /** 1 once the automatic clock-out closed it. */
  auto_closed: Generated<number>;
  /** The kiosk device that recorded it (migration 0012), null otherwise. */
  device_id: Generated<string | null>;
  /** JSON array of review flags (migration 0012): `device_clock_skew`, `offline_punch` (web clock), or `[]`. */
  review_flags: Generated<string>;
}

export interface TimeEntryBreaksTable {
  id: string;
  company_id: string;
  employee_id: string;
  time_entry_id: string;
  start_at: string;
  end_at: string | null;
  start_time: string;
  end_time: string | null;
  start_event: string;
  end_event: string | null;
  created_by_id: string | null;
  closed_by_id: string | null;
  created_at: string;
  updated_at: string;
}

/** Migration 0007: the recording of an entry and every change after it. */
export interface TimeEntryRevisionsTable {
  time_entry_id: string;
  revision: number;
  company_id: string;
  at: string;
  action: string;
  /** api_key, person, device, cli or system. */
  actor_kind: string;
  actor_id: string | null;
  reason: string | null;
  /** JSON [{field, from, to}]. */
  changes: string;
}

/** Migration 0007: closed payroll periods (the company's, or one workplace's). */
export interface LockedPeriodsTable {
  id: string;
  company_id: string;
  workplace_id: string | null;
  from_date: string;
  to_date: string;
  closed_at: string;
  closed_by_kind: string;
  closed_by_id: string | null;
  reopened_at: string | null;
  reopened_by_kind: string | null;
  reopened_by_id: string | null;
  reopen_reason: string | null;
}

export interface ConfirmedDaysTable {
  employee_id: string;
  work_date: string;
  confirmed_at: string;
}

export interface IdempotencyRecordsTable {
  company_id: string;
  api_key_id: string;
  idempotency_key: string;
  request_hash: string;
  state: string;
  response_status: number | null;
  response_body: string | null;
  created_at: string;
  expires_at: string;
}

export interface AuditLogTable {
  id: string;
  company_id: string | null;
  actor_type: string;
  actor_id: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  details: string | null;
  created_at: string;
}

export interface AppSecretsTable {
  name: string;
  value: string;
  created_at: string;
}

export interface EventSequencesTable {
  company_id: string;
  last_seq: number;
  pruned_through: number;
}

export interface EventsTable {
  company_id: string;
  seq: number;
  id: string;
  type: string;
  occurred_at: string;
  data: string;
}

/** Events written by a change on PostgreSQL, not numbered yet (migration 0011; the event sequencer numbers them). */
export interface PendingEventsTable {
  pos: Generated<number>;
  company_id: string;
  id: string;
  type: string;
  occurred_at: string;
  data: string;
}

export interface ConsoleSessionsTable {
  id_hash: string;
  user_id: string;
  company_id: string;
  csrf_token_hash: string;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  /** How the person signed in (migration 0009): 'password', 'sso'; null for sessions made before it. */
  sign_in_method: string | null;
}

export interface ConsoleInvitationsTable {
  token_hash: string;
  user_id: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  /** A signed-in person linking their account ("link my account"), or null for a sign-in. */
  link_user_id: string | null;
}

export interface WebhookEndpointsTable {
  id: string;
  company_id: string;
  url: string;
  event_types: string;
  description: string | null;
  status: string;
  disabled_reason: string | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: string | null;
  created_by_key_id: string | null;
  start_seq: number;
  after_seq: number;
  failing_since: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookDeliveriesTable {
  id: string;
  endpoint_id: string;
  company_id: string;
  event_id: string;
  event_type: string;
  origin: string;
  payload: string;
  state: string;
  attempts: number;
  next_attempt_at: string | null;
  lease_owner: string | null;
  lease_until: string | null;
  last_status: number | null;
  last_error: string | null;
  last_duration_ms: number | null;
  last_attempt_at: string | null;
  created_at: string;
}

/** Planned shifts (migration 0008, issue 33). */
export interface PlannedShiftsTable {
  id: string;
  company_id: string;
  employee_id: string;
  workplace_id: string;
  external_id: string | null;
  date: string;
  start_at: string;
  end_at: string;
  time_zone: string;
  break_minutes: number;
  note: string | null;
  /** draft or published. */
  status: string;
  version: number;
  created_at: string;
  updated_at: string;
}

/** Attendance exceptions found by the job (migration 0008, issue 33). */
export interface AttendanceExceptionsTable {
  id: string;
  company_id: string;
  employee_id: string;
  workplace_id: string | null;
  /** late_in, early_out, no_show, missed_clock_out or unplanned. */
  kind: string;
  planned_shift_id: string | null;
  shift_version: number | null;
  time_entry_id: string | null;
  date: string;
  minutes: number;
  dedupe_key: string;
  detected_at: string;
  resolved_at: string | null;
}

export interface Schema {
  companies: CompaniesTable;
  workplaces: WorkplacesTable;
  schedules: SchedulesTable;
  employees: EmployeesTable;
  employee_schedules: EmployeeSchedulesTable;
  users: UsersTable;
  api_keys: ApiKeysTable;
  signing_keys: SigningKeysTable;
  time_entries: TimeEntriesTable;
  confirmed_days: ConfirmedDaysTable;
  idempotency_records: IdempotencyRecordsTable;
  audit_log: AuditLogTable;
  app_secrets: AppSecretsTable;
  event_sequences: EventSequencesTable;
  events: EventsTable;
  pending_events: PendingEventsTable;
  time_entry_breaks: TimeEntryBreaksTable;
  console_sessions: ConsoleSessionsTable;
  console_invitations: ConsoleInvitationsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  planned_shifts: PlannedShiftsTable;
  attendance_exceptions: AttendanceExceptionsTable;
  time_entry_revisions: TimeEntryRevisionsTable;
  locked_periods: LockedPeriodsTable;
  sso_configs: SsoConfigsTable;
  sso_domains: SsoDomainsTable;
  sso_identities: SsoIdentitiesTable;
  sso_logins: SsoLoginsTable;
  absence_types: AbsenceTypesTable;
  holiday_overrides: HolidayOverridesTable;
  leave_entitlements: LeaveEntitlementsTable;
  absences: AbsencesTable;
  devices: DevicesTable;
  employee_pins: EmployeePinsTable;
  kiosk_pin_failures: KioskPinFailuresTable;
  kiosk_pin_locks: KioskPinLocksTable;
  kiosk_badge_failures: KioskBadgeFailuresTable;
  device_refusals: DeviceRefusalsTable;
  correction_requests: CorrectionRequestsTable;
}

export type CompanyRow = Selectable<CompaniesTable>;
export type EmployeeRow = Selectable<EmployeesTable>;
export type UserRow = Selectable<UsersTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type TimeEntryRow = Selectable<TimeEntriesTable>;
export type NewTimeEntry = Insertable<TimeEntriesTable>;
export type TimeEntryUpdate = Updateable<TimeEntriesTable>;
export type TimeEntryBreakRow = Selectable<TimeEntryBreaksTable>;
export type IdempotencyRecordRow = Selectable<IdempotencyRecordsTable>;
export type PlannedShiftRow = Selectable<PlannedShiftsTable>;
export type AttendanceExceptionRow = Selectable<AttendanceExceptionsTable>;

export type DeviceRow = Selectable<DevicesTable>;
