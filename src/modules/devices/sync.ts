import { newId } from '../../domain/ids.js';
import { addEntryFlags, deleteRefusal, insertRefusal, recordClockOffset, touchDevice } from './queries.js';
import { type Principal } from '../auth/service.js';
import { type AppContext } from '../context.js';
import { type Tx } from '../../platform/db/database.js';

/*
 * What a kiosk tells the server as it goes (issue 35): its last contact and how many punches wait in
 * its queue (header X-Kiosk-Queue), its clock at a sync (header X-Device-Clock, RFC 3339), the flag
 * of an entry it recorded while its clock was more than 2 minutes off, and the punches refused.
 */

export const QUEUE_HEADER = 'x-kiosk-queue';
export const DEVICE_CLOCK_HEADER = 'x-device-clock';
export const CLOCK_SKEW_LIMIT_MS = 2 * 60_000;
export const CLOCK_SKEW_FLAG = 'device_clock_skew';
/** Contact is written at most this often, unless the queue's length changed. */
const CONTACT_EVERY_MS = 15_000;
const MAX_OFFSET_MS = 2_000_000_000;

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Records the device's contact (and queue length) on its authenticated requests. */
export async function noteDeviceContact(
  ctx: AppContext,
  principal: Principal,
  headers: Record<string, string | string[] | undefined>,
): Promise<void> {
  if (!principal.device) return;
  const raw = headerValue(headers[QUEUE_HEADER]);
  const queued = raw !== undefined && /^\d{1,6}$/.test(raw) ? Number(raw) : null;
  const now = ctx.now();
  const last = principal.device.lastSeenAt === null ? 0 : Date.parse(principal.device.lastSeenAt);
  if (now - last < CONTACT_EVERY_MS && (queued === null || queued === principal.device.queued)) return;
  await touchDevice(ctx.database.db, { deviceId: principal.id, at: new Date(now).toISOString(), queued });
}

/**
 * The device's clock offset at this sync (server minus device, milliseconds), recorded; null when
 * the request does not say its clock (or is not a device's).
 */
export async function recordDeviceClock(
  ctx: AppContext,
  principal: Principal,
  headers: Record<string, string | string[] | undefined>,
): Promise<number | null> {
  if (principal.kind !== 'device') return null;
  const raw = headerValue(headers[DEVICE_CLOCK_HEADER]);
  const deviceMs = raw === undefined ? Number.NaN : Date.parse(raw);
  if (Number.isNaN(deviceMs)) return null;
  const now = ctx.now();
  const offsetMs = Math.max(-MAX_OFFSET_MS, Math.min(MAX_OFFSET_MS, now - deviceMs));
  await recordClockOffset(ctx.database.db, {
    deviceId: principal.id,
    at: new Date(now).toISOString(),
    offsetMs,
  });
  return offsetMs;
}

export function isSkewed(offsetMs: number | null): boolean {
  return offsetMs !== null && Math.abs(offsetMs) > CLOCK_SKEW_LIMIT_MS;
}

/** The review flags of a device's punch: device_clock_skew when its clock is more than 2 minutes off. */
export function skewFlags(offsetMs: number | null): string[] {
  return isSkewed(offsetMs) ? [CLOCK_SKEW_FLAG] : [];
}

/** Flags the entry a punch stored (201) when the device's clock was off; in the punch's transaction. */
export async function flagSkewedPunch(
  tx: Tx,
  offsetMs: number | null,
  outcome: { status: number; body: { timeEntryId: string | null; dryRun: boolean } },
): Promise<void> {
  if (
    !isSkewed(offsetMs) ||
    outcome.status !== 201 ||
    outcome.body.dryRun ||
    outcome.body.timeEntryId === null
  )
    return;
  await addEntryFlags(tx, outcome.body.timeEntryId, [CLOCK_SKEW_FLAG]);
}

/** Refusals that say "not now" rather than "never": the device sends the punch again, not a refusal. */
const TRANSIENT_ERRORS: readonly string[] = ['idempotency_in_flight', 'rate_limited', 'service_unavailable'];

/**
 * A punch of a device's batch that was refused, kept for the administrator (once per idempotency
 * key); a transient refusal (409 idempotency_in_flight, …) is not kept, and a punch stored after an
 * earlier refusal under the same key takes that refusal away.
 */
export async function recordRefusedPunch(
  ctx: AppContext,
  principal: Principal,
  event: { employee: { id?: string | null }; type: string; occurredAt: string },
  idempotencyKey: string | null,
  settled: { status: number; body: string },
): Promise<void> {
  if (principal.kind !== 'device') return;
  if (settled.status < 400) {
    if (idempotencyKey !== null) await deleteRefusal(ctx.database.db, principal.id, idempotencyKey);
    return;
  }
  let error = 'refused';
  let detail: string | null = null;
  try {
    const problem = JSON.parse(settled.body) as { error?: string; detail?: string };
    error = problem.error ?? error;
    detail = problem.detail ?? null;
  } catch {
    // Not a problem document: the status says enough.
  }
  if (TRANSIENT_ERRORS.includes(error) || settled.status >= 500) return;
  const employeeId = event.employee.id ?? null;
  await insertRefusal(ctx.database.db, {
    id: newId(),
    company_id: principal.companyId,
    device_id: principal.id,
    employee_id: employeeId !== null && /^[0-9a-f-]{36}$/i.test(employeeId) ? employeeId.toLowerCase() : null,
    type: String(event.type).slice(0, 40),
    occurred_at: String(event.occurredAt).slice(0, 64),
    status: settled.status,
    error,
    detail: detail === null ? null : detail.slice(0, 500),
    idempotency_key: idempotencyKey,
    at: new Date(ctx.now()).toISOString(),
  });
}
