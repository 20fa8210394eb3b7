import { ApiError } from '../../domain/errors.js';
import type { Tx } from '../../platform/db/database.js';
import { type Principal } from '../auth/service.js';
import { flagSkewedPunch, skewFlags } from '../devices/sync.js';
import { KEY_REPLAYED, type KeyInWrite } from '../idempotency/service.js';
import { recordClockEvent } from './clock-event.js';
import type { ClockEventInput, WriteOutcome } from './results.js';

/* What a kiosk device's punches (issue 35) are held to on the public punch routes. */

/** A kiosk device's punch (issue 35) carries the device's own id as `deviceId`, whatever was sent. */
export function deviceEvent<E extends { deviceId?: string | null }>(principal: Principal, event: E): E {
  return principal.kind === 'device' ? { ...event, deviceId: principal.id } : event;
}

/**
 * A kiosk device may not dry-run a punch (issue 35): a dry run answers an employee's clock state
 * without a badge or PIN, so a device's token could read every colleague's state by trying toggles.
 */
export function refuseDeviceDryRun(principal: Principal, dryRun: boolean): void {
  if (dryRun && principal.kind === 'device')
    throw new ApiError('insufficient_scope', "a kiosk device's token may not use X-Service-Dry-Run");
}

/** A device's punch naming its employee by badge only (externalId, no id): counted like identify's badges. */
export function byBadgeOnly(
  principal: Principal,
  employee: { id?: string | null; externalId?: string | null },
) {
  return principal.kind === 'device' && !employee.id && typeof employee.externalId === 'string';
}

/** An answer to a kiosk device names the employee by id only: the external id (the badge) stays out. */
export function forPrincipal<O extends { body: { employee: { externalId: string | null } } }>(
  principal: Principal,
  outcome: O,
): O {
  if (principal.kind !== 'device') return outcome;
  return { ...outcome, body: { ...outcome.body, employee: { ...outcome.body.employee, externalId: null } } };
}

/**
 * POST /time-clock/events' write: the punch (recordClockEvent) as the principal is answered (a device's
 * answer without the external id, also as its key stores it), a skewed device clock's flag on the entry.
 */
export async function punchAsAnswered(
  tx: Tx,
  now: number,
  principal: Principal,
  body: ClockEventInput,
  options: { dryRun: boolean; detectDuplicates: boolean; key?: KeyInWrite; clockOffset: number | null },
): Promise<WriteOutcome | typeof KEY_REPLAYED> {
  const { clockOffset, ...rest } = options;
  const outcome = await recordClockEvent(tx, now, principal, body, {
    ...rest,
    reviewFlags: skewFlags(clockOffset),
    present: (written) => forPrincipal(principal, written),
  });
  if (outcome === KEY_REPLAYED) return outcome;
  await flagSkewedPunch(tx, clockOffset, outcome);
  return forPrincipal(principal, outcome);
}
