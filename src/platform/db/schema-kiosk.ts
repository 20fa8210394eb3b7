import type { Generated } from 'kysely';

/*
 * The tables of kiosk devices (migration 0012, issue 35), with the conventions of schema.ts (which
 * lists them in its Schema).
 */

/** Migration 0012: kiosk devices of a workplace. */
export interface DevicesTable {
  id: string;
  company_id: string;
  workplace_id: string;
  name: string;
  created_by: string | null;
  created_at: string;
  enrolment_code_hash: string | null;
  enrolment_expires_at: string;
  enrolled_at: string | null;
  client_id: string | null;
  secret_hash: string | null;
  revoked_at: string | null;
  last_seen_at: string | null;
  queued: Generated<number>;
  clock_offset_ms: number | null;
  last_sync_at: string | null;
}

/** Migration 0012: an employee's kiosk PIN (scrypt), one row per employee. */
export interface EmployeePinsTable {
  employee_id: string;
  company_id: string;
  pin_hash: string;
  set_at: string;
}

export interface KioskPinFailuresTable {
  id: string;
  company_id: string;
  device_id: string;
  employee_id: string;
  at: string;
}

/** An unknown badge typed at a device (review #2): at most 20 per device in 15 minutes. */
export interface KioskBadgeFailuresTable {
  id: string;
  company_id: string;
  device_id: string;
  at: string;
}

export interface KioskPinLocksTable {
  id: string;
  company_id: string;
  device_id: string;
  employee_id: string | null;
  locked_at: string;
  locked_until: string;
}

export interface DeviceRefusalsTable {
  id: string;
  company_id: string;
  device_id: string;
  employee_id: string | null;
  type: string;
  occurred_at: string;
  status: number;
  error: string;
  detail: string | null;
  idempotency_key: string | null;
  at: string;
}
