import { type Executor, type Tx } from '../../platform/db/database.js';
import { type DeviceRow } from '../../platform/db/schema.js';

/* Rows of kiosk devices (issue 35), their PINs, lock-outs and refused punches. */

export function findDevice(db: Executor, deviceId: string): Promise<DeviceRow | undefined> {
  return db.selectFrom('devices').selectAll().where('id', '=', deviceId).executeTakeFirst();
}

export function findDeviceByClientId(db: Executor, clientId: string): Promise<DeviceRow | undefined> {
  return db.selectFrom('devices').selectAll().where('client_id', '=', clientId).executeTakeFirst();
}

export function listDevicesOfCompany(db: Executor, companyId: string) {
  return db
    .selectFrom('devices as d')
    .innerJoin('workplaces as w', 'w.id', 'd.workplace_id')
    .selectAll('d')
    .select((eb) => [
      'w.name as workplace_name',
      eb
        .selectFrom('device_refusals as r')
        .select((r) => r.fn.countAll<number | string>().as('n'))
        .whereRef('r.device_id', '=', 'd.id')
        .as('refused'),
    ])
    .where('d.company_id', '=', companyId)
    .orderBy('d.created_at')
    .orderBy('d.id')
    .execute();
}

/** The one use of an enrolment code: only a device still waiting, not revoked, before its expiry. */
export async function claimEnrolment(
  tx: Tx,
  p: { codeHash: string; at: string; clientId: string; secretHash: string },
): Promise<DeviceRow | undefined> {
  const device = await tx
    .selectFrom('devices')
    .selectAll()
    .where('enrolment_code_hash', '=', p.codeHash)
    .executeTakeFirst();
  if (!device) return undefined;
  const claimed = await tx
    .updateTable('devices')
    .set({
      enrolment_code_hash: null,
      enrolled_at: p.at,
      client_id: p.clientId,
      secret_hash: p.secretHash,
      last_seen_at: p.at,
    })
    .where('id', '=', device.id)
    .where('enrolment_code_hash', '=', p.codeHash)
    .where('enrolled_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('enrolment_expires_at', '>', p.at)
    .executeTakeFirst();
  return Number(claimed.numUpdatedRows) === 1 ? device : undefined;
}

/** A code that was tried and is no longer usable (expired) is forgotten, so it can never match again. */
export async function forgetCode(db: Executor, codeHash: string): Promise<void> {
  await db
    .updateTable('devices')
    .set({ enrolment_code_hash: null })
    .where('enrolment_code_hash', '=', codeHash)
    .execute();
}

export async function touchDevice(
  db: Executor,
  p: { deviceId: string; at: string; queued: number | null },
): Promise<void> {
  await db
    .updateTable('devices')
    .set({ last_seen_at: p.at, ...(p.queued === null ? {} : { queued: p.queued }) })
    .where('id', '=', p.deviceId)
    .execute();
}

export async function recordClockOffset(
  db: Executor,
  p: { deviceId: string; at: string; offsetMs: number },
): Promise<void> {
  await db
    .updateTable('devices')
    .set({ clock_offset_ms: p.offsetMs, last_sync_at: p.at })
    .where('id', '=', p.deviceId)
    .execute();
}

/** Adds review flags to an entry, keeping those it has (each flag once, in the order first added). */
export async function addEntryFlags(tx: Tx, entryId: string, flags: string[]): Promise<void> {
  const row = await tx
    .selectFrom('time_entries')
    .select('review_flags')
    .where('id', '=', entryId)
    .executeTakeFirst();
  if (!row) return;
  const had = JSON.parse(row.review_flags) as string[];
  const all = [...had, ...flags.filter((flag) => !had.includes(flag))];
  if (all.length === had.length) return;
  await tx
    .updateTable('time_entries')
    .set({ review_flags: JSON.stringify(all) })
    .where('id', '=', entryId)
    .execute();
}

/** A punch once refused and later stored (sent again with the same key): no longer a refusal. */
export async function deleteRefusal(db: Executor, deviceId: string, idempotencyKey: string): Promise<void> {
  await db
    .deleteFrom('device_refusals')
    .where('device_id', '=', deviceId)
    .where('idempotency_key', '=', idempotencyKey)
    .execute();
}

export async function insertRefusal(
  db: Executor,
  row: {
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
  },
): Promise<void> {
  await db
    .insertInto('device_refusals')
    .values(row)
    .onConflict((oc) => oc.columns(['device_id', 'idempotency_key']).doNothing())
    .execute();
}

export function listRefusalsOfDevice(db: Executor, companyId: string, deviceId: string) {
  return db
    .selectFrom('device_refusals')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('device_id', '=', deviceId)
    .orderBy('at', 'desc')
    .orderBy('id')
    .limit(100)
    .execute();
}
