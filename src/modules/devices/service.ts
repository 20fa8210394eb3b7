import { ApiError } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import {
  claimEnrolment,
  findDevice,
  forgetCode,
  listDevicesOfCompany,
  listRefusalsOfDevice,
} from './queries.js';
import {
  ENROLMENT_MINUTES,
  generateDeviceClientId,
  generateDeviceSecret,
  generateEnrolmentCode,
  hashDeviceSecret,
  hashEnrolmentCode,
  normaliseEnrolmentCode,
} from './secrets.js';
import { auditBase, recordAudit } from '../audit/queries.js';
import { type Actor, type AppContext, CLI_ACTOR, actorOf, inTransaction } from '../context.js';
import { type ConsolePerson } from '../people/person.js';
import { type Executor, type Tx } from '../../platform/db/database.js';
import { type DeviceRow } from '../../platform/db/schema.js';
import { notFound, notInYourCompany, requireText, requireUuid } from '../../shared/input-checks.js';

/*
 * Kiosk devices (issue 35): enrol (a device and its single-use code), the tablet's enrolment with
 * the code, list, revoke, and a workplace's badge-only switch, for the CLI and the console alike.
 */

/** A device as `device list` and the console show it. */
export function deviceView(row: DeviceRow & { refused?: number | string | null; workplace_name?: string }) {
  return {
    id: row.id,
    workplaceId: row.workplace_id,
    name: row.name,
    enrolledAt: row.enrolled_at,
    lastSeenAt: row.last_seen_at,
    queued: row.queued,
    revokedAt: row.revoked_at,
    // Beyond the list: what the console also shows.
    enrolmentExpiresAt: row.enrolled_at === null ? row.enrolment_expires_at : null,
    clockOffsetSeconds: row.clock_offset_ms === null ? null : Math.round(row.clock_offset_ms / 1000),
    lastSyncAt: row.last_sync_at,
    refused: Number(row.refused ?? 0),
  };
}

async function requireWorkplace(db: Executor, workplaceId: string) {
  const id = requireUuid(workplaceId, 'workplace id');
  const row = await db.selectFrom('workplaces').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('workplace', workplaceId);
  return row;
}

/** A new device of a workplace and its enrolment code (shown once; stored as a hash), valid 15 minutes. */
export async function enrolDevice(
  tx: Tx,
  now: number,
  input: { workplaceId: string; name: string; createdBy?: string | null },
  actor: Actor = CLI_ACTOR,
) {
  const name = requireText(input.name, 'name', 100);
  const workplace = await requireWorkplace(tx, input.workplaceId);
  const at = new Date(now).toISOString();
  const expiresAt = new Date(now + ENROLMENT_MINUTES * 60_000).toISOString();
  const code = generateEnrolmentCode();
  const row = {
    id: newId(),
    company_id: workplace.company_id,
    workplace_id: workplace.id,
    name,
    created_by: input.createdBy ?? null,
    created_at: at,
    enrolment_code_hash: hashEnrolmentCode(normaliseEnrolmentCode(code)!),
    enrolment_expires_at: expiresAt,
    enrolled_at: null,
    client_id: null,
    secret_hash: null,
    revoked_at: null,
    last_seen_at: null,
    clock_offset_ms: null,
    last_sync_at: null,
  };
  await tx.insertInto('devices').values(row).execute();
  await recordAudit(tx, {
    ...auditBase(workplace.company_id, at, actor),
    action: 'device.enrol',
    targetType: 'device',
    targetId: row.id,
    details: { workplaceId: workplace.id, name },
  });
  return { id: row.id, workplaceId: workplace.id, name, enrolmentCode: code, expiresAt };
}

/**
 * POST /devices/enrol: the code's one use gives the device its credential (the secret is in this
 * answer only). A wrong, used or expired code reads the same: 401 invalid_enrolment_code.
 */
export async function enrolWithCode(ctx: AppContext, code: string) {
  const normalised = normaliseEnrolmentCode(code);
  const refused = () =>
    new ApiError('invalid_enrolment_code', 'the enrolment code is wrong, already used or expired');
  if (normalised === null) throw refused();
  const codeHash = hashEnrolmentCode(normalised);
  const clientId = generateDeviceClientId();
  const secret = generateDeviceSecret(clientId);
  const device = await inTransaction(ctx, async (tx, now) => {
    const at = new Date(now).toISOString();
    const claimed = await claimEnrolment(tx, {
      codeHash,
      at,
      clientId,
      secretHash: hashDeviceSecret(secret),
    });
    if (claimed)
      await recordAudit(tx, {
        companyId: claimed.company_id,
        actorType: 'device',
        actorId: claimed.id,
        action: 'device.enrolled',
        targetType: 'device',
        targetId: claimed.id,
        at,
      });
    return claimed;
  });
  if (!device) {
    await forgetCode(ctx.database.db, codeHash);
    throw refused();
  }
  return { clientId, clientSecret: secret, workplaceId: device.workplace_id, name: device.name };
}

export async function listDevices(db: Executor, companyId: string) {
  const id = requireUuid(companyId, 'company id');
  const company = await db.selectFrom('companies').select('id').where('id', '=', id).executeTakeFirst();
  if (!company) throw notFound('company', companyId);
  const rows = await listDevicesOfCompany(db, id);
  return { items: rows.map(deviceView) };
}

/** The device stops at once: its next request is 401 invalid_token. Revoking twice is harmless. */
export async function revokeDevice(tx: Tx, now: number, deviceId: string, actor: Actor = CLI_ACTOR) {
  const device = await findDevice(tx, requireUuid(deviceId, 'device id'));
  if (!device) throw notFound('device', deviceId);
  if (device.revoked_at !== null) return { id: device.id, revokedAt: device.revoked_at };
  const at = new Date(now).toISOString();
  await tx
    .updateTable('devices')
    .set({ revoked_at: at, enrolment_code_hash: null })
    .where('id', '=', device.id)
    .execute();
  await recordAudit(tx, {
    ...auditBase(device.company_id, at, actor),
    action: 'device.revoke',
    targetType: 'device',
    targetId: device.id,
  });
  return { id: device.id, revokedAt: at };
}

/** A workplace's `kioskBadgeOnly`: its kiosks list no names, employees identify by badge only. */
export async function setKioskBadgeOnly(
  tx: Tx,
  now: number,
  workplaceId: string,
  badgeOnly: boolean,
  actor: Actor = CLI_ACTOR,
) {
  const workplace = await requireWorkplace(tx, workplaceId);
  const at = new Date(now).toISOString();
  await tx
    .updateTable('workplaces')
    .set({ kiosk_badge_only: badgeOnly ? 1 : 0 })
    .where('id', '=', workplace.id)
    .execute();
  await recordAudit(tx, {
    ...auditBase(workplace.company_id, at, actor),
    action: 'workplace.update',
    targetType: 'workplace',
    targetId: workplace.id,
    details: { kioskBadgeOnly: badgeOnly },
  });
  return { id: workplace.id, name: workplace.name, kioskBadgeOnly: badgeOnly };
}

/* The console's doors: the same operations inside the signed-in person's company. */

async function requireOwnDevice(db: Executor, person: ConsolePerson, deviceId: string) {
  const device = await findDevice(db, deviceId.toLowerCase());
  if (!device || device.company_id !== person.companyId) throw notInYourCompany('device');
  return device;
}

async function requireOwnWorkplace(db: Executor, person: ConsolePerson, workplaceId: string) {
  const row = await db
    .selectFrom('workplaces')
    .selectAll()
    .where('id', '=', workplaceId.toLowerCase())
    .where('company_id', '=', person.companyId)
    .executeTakeFirst();
  // Another company's workplace is not found, as on every device route (not a 422).
  if (!row) throw notInYourCompany('workplace');
  return row;
}

export function consoleEnrolDevice(
  ctx: AppContext,
  person: ConsolePerson,
  body: { workplaceId: string; name: string },
) {
  return inTransaction(ctx, async (tx, now) => {
    await requireOwnWorkplace(tx, person, body.workplaceId);
    return enrolDevice(tx, now, { ...body, createdBy: person.id }, actorOf(person));
  });
}

export async function consoleListDevices(ctx: AppContext, person: ConsolePerson) {
  const [devices, workplaces] = await Promise.all([
    listDevicesOfCompany(ctx.database.db, person.companyId),
    ctx.database.db
      .selectFrom('workplaces')
      .select(['id', 'name', 'kiosk_badge_only'])
      .where('company_id', '=', person.companyId)
      .orderBy('name')
      .orderBy('id')
      .execute(),
  ]);
  return {
    items: devices.map((row) => ({ ...deviceView(row), workplaceName: row.workplace_name })),
    workplaces: workplaces.map((w) => ({ id: w.id, name: w.name, kioskBadgeOnly: w.kiosk_badge_only === 1 })),
  };
}

export function consoleRevokeDevice(ctx: AppContext, person: ConsolePerson, deviceId: string) {
  return inTransaction(ctx, async (tx, now) => {
    const device = await requireOwnDevice(tx, person, deviceId);
    await revokeDevice(tx, now, device.id, actorOf(person));
    return deviceView((await findDevice(tx, device.id))!);
  });
}

export async function consoleDeviceRefusals(ctx: AppContext, person: ConsolePerson, deviceId: string) {
  const device = await requireOwnDevice(ctx.database.db, person, deviceId);
  const rows = await listRefusalsOfDevice(ctx.database.db, person.companyId, device.id);
  return {
    items: rows.map((r) => ({
      employeeId: r.employee_id,
      type: r.type,
      occurredAt: r.occurred_at,
      status: r.status,
      error: r.error,
      detail: r.detail,
      at: r.at,
    })),
  };
}

export function consoleSetBadgeOnly(
  ctx: AppContext,
  person: ConsolePerson,
  workplaceId: string,
  badgeOnly: boolean,
) {
  return inTransaction(ctx, async (tx, now) => {
    await requireOwnWorkplace(tx, person, workplaceId);
    return setKioskBadgeOnly(tx, now, workplaceId, badgeOnly, actorOf(person));
  });
}
