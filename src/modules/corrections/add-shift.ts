import { ApiError } from '../../domain/errors.js';
import type { Tx } from '../../platform/db/database.js';
import type { Principal } from '../auth/service.js';
import { actorOf } from '../context.js';
import type { ConsolePerson } from '../people/person.js';
import { createShift } from '../time-tracking/shift.js';
import { assertNotOwnEntry, managerOfAdmin } from './entry-access.js';

/**
 * A person's shift, recorded as the public POST /time-entries records one (the person is its author),
 * with the company's time-tracking switch as it is now (off: 403 time_tracking_disabled, as the API).
 */
async function principalOf(tx: Tx, person: ConsolePerson): Promise<Principal> {
  const company = await tx
    .selectFrom('companies')
    .select('time_tracking')
    .where('id', '=', person.companyId)
    .executeTakeFirstOrThrow();
  if (company.time_tracking !== 1)
    throw new ApiError('time_tracking_disabled', 'time tracking is switched off for this company');
  return {
    kind: 'user',
    id: person.id,
    companyId: person.companyId,
    clientId: null,
    scopes: [],
    tokenExpiresAt: new Date(0),
    company: { timeZone: person.company.timeZone, timeTracking: true },
  };
}

/**
 * The console's "add a missing shift": the public POST /time-entries by the person, not for the
 * employee the person is linked to (someone else records their shifts: 403 own_entry).
 */
export async function addShiftFor(
  tx: Tx,
  now: number,
  person: ConsolePerson,
  body: Parameters<typeof createShift>[3] & { employee: { id: string } },
  options: { revisionReason?: string } = {},
) {
  const principal = await principalOf(tx, person);
  const manager = managerOfAdmin(actorOf(person), person.companyId);
  await assertNotOwnEntry(tx, manager, body.employee.id.toLowerCase());
  return createShift(tx, now, principal, body, { dryRun: false, ...options });
}
