/* Kiosk devices as the admin API answers (issue 35). */

export interface Device {
  id: string;
  workplaceId: string;
  workplaceName: string;
  name: string;
  enrolledAt: string | null;
  lastSeenAt: string | null;
  queued: number;
  revokedAt: string | null;
  enrolmentExpiresAt: string | null;
  clockOffsetSeconds: number | null;
  lastSyncAt: string | null;
  refused: number;
}

export interface KioskWorkplace {
  id: string;
  name: string;
  kioskBadgeOnly: boolean;
}

export interface Enrolment {
  id: string;
  workplaceId: string;
  name: string;
  enrolmentCode: string;
  expiresAt: string;
}

export interface Refusal {
  employeeId: string | null;
  type: string;
  occurredAt: string;
  status: number;
  error: string;
  detail: string | null;
  at: string;
}

/** The device's state in words: waiting for its code, code expired, enrolled, revoked. */
export function deviceState(device: Device, now: number): string {
  if (device.revokedAt) return 'revoked';
  if (device.enrolledAt) return 'active';
  if (device.enrolmentExpiresAt && Date.parse(device.enrolmentExpiresAt) <= now) return 'expired';
  return 'waiting_for_code';
}

/** The clock offset in words, when the device told it. */
export function offsetWords(seconds: number | null): string {
  if (seconds === null) return 'not known yet';
  if (Math.abs(seconds) <= 120) return 'in time';
  const minutes = Math.round(Math.abs(seconds) / 60);
  return `${minutes} min ${seconds > 0 ? 'behind' : 'ahead'} (entries flagged)`;
}
