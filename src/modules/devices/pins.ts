import { randomBytes } from 'node:crypto';
import { ApiError, validationError } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { auditBase, recordAudit } from '../audit/queries.js';
import { type Actor, type AppContext, CLI_ACTOR, actorOf, inTransaction } from '../context.js';
import { type ConsolePerson } from '../people/person.js';
import { hashPassword, verifyPassword } from '../people/passwords.js';
import { rowLocks, type Executor, type Tx } from '../../platform/db/database.js';
import { notFound, notInYourCompany, requireUuid } from '../../shared/input-checks.js';

/*
 * Kiosk PINs (issue 35): 4 to 8 digits, stored only as scrypt (people/passwords.ts), never logged.
 * Guessing is bounded in the database, so every instance counts the same: 5 wrong PINs lock that
 * employee's PIN at that device, 20 wrong lock the device, each for 15 minutes (429 pin_locked with
 * Retry-After). An attempt is counted as wrong before its PIN is checked and forgiven when it was
 * right, so guesses sent in parallel cannot test more PINs than the limit allows.
 */

export const PIN_PATTERN = /^\d{4,8}$/;
export const EMPLOYEE_PIN_LIMIT = 5;
export const DEVICE_PIN_LIMIT = 20;
export const PIN_LOCK_MS = 15 * 60_000;
/**
 * Checked against an employee without a PIN, so both take the same time: made by hashPassword itself
 * (once, on first use), so its scrypt parameters are always those of a real PIN's hash.
 */
let noPinHash: Promise<string> | null = null;
export function dummyPinHash(): Promise<string> {
  noPinHash ??= hashPassword(randomBytes(16).toString('hex'));
  return noPinHash;
}

/** A PIN checked and hashed, before any transaction opens (scrypt takes ~100 ms: no writer waits on it). */
export interface HashedPin {
  readonly pinHash: string;
}

export async function hashPin(pin: string): Promise<HashedPin> {
  if (!PIN_PATTERN.test(pin))
    throw validationError([{ field: 'pin', message: 'must be 4 to 8 digits', code: 'format' }]);
  return { pinHash: await hashPassword(pin) };
}

/** `employee set-pin ID` (and the console): the PIN (hashed by hashPin) replaces any earlier one. */
export async function setEmployeePin(
  tx: Tx,
  now: number,
  employeeId: string,
  pin: HashedPin,
  actor: Actor = CLI_ACTOR,
) {
  const id = requireUuid(employeeId, 'employee id');
  const employee = await tx
    .selectFrom('employees')
    .select(['id', 'company_id'])
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!employee) throw notFound('employee', employeeId);
  const at = new Date(now).toISOString();
  const { pinHash } = pin;
  await tx
    .insertInto('employee_pins')
    .values({ employee_id: employee.id, company_id: employee.company_id, pin_hash: pinHash, set_at: at })
    .onConflict((oc) => oc.column('employee_id').doUpdateSet({ pin_hash: pinHash, set_at: at }))
    .execute();
  await recordAudit(tx, {
    ...auditBase(employee.company_id, at, actor),
    action: 'employee.set_pin',
    targetType: 'employee',
    targetId: employee.id,
  });
  return { id: employee.id, pinSet: true as const };
}

/** The console's door: an employee of the person's own company. */
export async function consoleSetPin(ctx: AppContext, person: ConsolePerson, employeeId: string, pin: string) {
  const hashed = await hashPin(pin);
  return inTransaction(ctx, async (tx, now) => {
    const employee = await tx
      .selectFrom('employees')
      .select('id')
      .where('id', '=', employeeId.toLowerCase())
      .where('company_id', '=', person.companyId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (!employee) throw notInYourCompany('employee');
    return setEmployeePin(tx, now, employee.id, hashed, actorOf(person));
  });
}

interface Attempt {
  companyId: string;
  deviceId: string;
  employeeId: string;
}

function locked(until: string, now: number, whose: 'employee' | 'device'): ApiError {
  const seconds = Math.max(1, Math.ceil((Date.parse(until) - now) / 1000));
  return new ApiError(
    'pin_locked',
    whose === 'employee'
      ? `too many wrong PINs for this employee at this device; try again in ${Math.ceil(seconds / 60)} minutes or use a badge`
      : `too many wrong PINs at this device; PINs are refused here for ${Math.ceil(seconds / 60)} minutes`,
    null,
    { 'retry-after': String(seconds) },
  );
}

async function activeLock(tx: Tx, a: Attempt, employee: boolean, at: string) {
  return tx
    .selectFrom('kiosk_pin_locks')
    .select(['locked_until'])
    .where('device_id', '=', a.deviceId)
    .where('employee_id', employee ? '=' : 'is', employee ? a.employeeId : null)
    .where('locked_until', '>', at)
    .orderBy('locked_until', 'desc')
    .executeTakeFirst();
}

/** Wrong PINs since the window opened (15 minutes) or since the last lock of the same kind ended. */
async function countFailures(tx: Tx, a: Attempt, employee: boolean, now: number): Promise<number> {
  const windowStart = new Date(now - PIN_LOCK_MS).toISOString();
  const lastLock = await tx
    .selectFrom('kiosk_pin_locks')
    .select(['locked_until'])
    .where('device_id', '=', a.deviceId)
    .where('employee_id', employee ? '=' : 'is', employee ? a.employeeId : null)
    .orderBy('locked_until', 'desc')
    .executeTakeFirst();
  const since = lastLock && lastLock.locked_until > windowStart ? lastLock.locked_until : windowStart;
  const row = await tx
    .selectFrom('kiosk_pin_failures')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('device_id', '=', a.deviceId)
    .$if(employee, (q) => q.where('employee_id', '=', a.employeeId))
    .where('at', '>', since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function lockOut(tx: Tx, a: Attempt, employee: boolean, now: number): Promise<string> {
  const until = new Date(now + PIN_LOCK_MS).toISOString();
  await tx
    .insertInto('kiosk_pin_locks')
    .values({
      id: newId(),
      company_id: a.companyId,
      device_id: a.deviceId,
      employee_id: employee ? a.employeeId : null,
      locked_at: new Date(now).toISOString(),
      locked_until: until,
    })
    .execute();
  return until;
}

/** Serialises the PIN attempts of one device (PostgreSQL; SQLite's write transaction already does). */
async function lockDeviceRow(tx: Tx, deviceId: string): Promise<void> {
  if (rowLocks(tx))
    await tx.selectFrom('devices').select('id').where('id', '=', deviceId).forUpdate().execute();
}

/**
 * Before a PIN is checked: refused while a lock holds (or once the count is reached, locking then);
 * otherwise the attempt is recorded as wrong and its id returned, to be forgiven if it was right.
 */
async function beginAttempt(ctx: AppContext, a: Attempt): Promise<string> {
  return inTransaction(ctx, async (tx, now) => {
    await lockDeviceRow(tx, a.deviceId);
    const at = new Date(now).toISOString();
    const deviceLock = await activeLock(tx, a, false, at);
    if (deviceLock) throw locked(deviceLock.locked_until, now, 'device');
    const employeeLock = await activeLock(tx, a, true, at);
    if (employeeLock) throw locked(employeeLock.locked_until, now, 'employee');
    if ((await countFailures(tx, a, false, now)) >= DEVICE_PIN_LIMIT)
      throw locked(await lockOut(tx, a, false, now), now, 'device');
    if ((await countFailures(tx, a, true, now)) >= EMPLOYEE_PIN_LIMIT)
      throw locked(await lockOut(tx, a, true, now), now, 'employee');
    const id = newId();
    await tx
      .insertInto('kiosk_pin_failures')
      .values({ id, company_id: a.companyId, device_id: a.deviceId, employee_id: a.employeeId, at })
      .execute();
    return id;
  });
}

/** After the check: a right PIN forgives the employee's wrong ones at this device; a wrong one may lock. */
async function endAttempt(ctx: AppContext, a: Attempt, right: boolean): Promise<void> {
  await inTransaction(ctx, async (tx, now) => {
    await lockDeviceRow(tx, a.deviceId);
    if (right) {
      await tx
        .deleteFrom('kiosk_pin_failures')
        .where('device_id', '=', a.deviceId)
        .where('employee_id', '=', a.employeeId)
        .execute();
      return;
    }
    const at = new Date(now).toISOString();
    if ((await countFailures(tx, a, true, now)) >= EMPLOYEE_PIN_LIMIT && !(await activeLock(tx, a, true, at)))
      await lockOut(tx, a, true, now);
    if ((await countFailures(tx, a, false, now)) >= DEVICE_PIN_LIMIT && !(await activeLock(tx, a, false, at)))
      await lockOut(tx, a, false, now);
  });
}

function pinHashOf(db: Executor, employeeId: string) {
  return db
    .selectFrom('employee_pins')
    .select('pin_hash')
    .where('employee_id', '=', employeeId)
    .executeTakeFirst();
}

/** Checks `pin` for the employee at the device: returns when right, else 401 invalid_pin or 429 pin_locked. */
export async function checkPin(ctx: AppContext, a: Attempt, pin: string): Promise<void> {
  await beginAttempt(ctx, a);
  const stored = await pinHashOf(ctx.database.db, a.employeeId);
  const right =
    PIN_PATTERN.test(pin) &&
    (await verifyPassword(pin, stored?.pin_hash ?? (await dummyPinHash()))) &&
    !!stored;
  await endAttempt(ctx, a, right);
  if (!right) throw new ApiError('invalid_pin', 'the PIN is wrong');
}

/*
 * Unknown badges (review #2): a badge is the employee's external id, so a device's token could try
 * badges until one is known. Unknown badges are counted per device in the database: at 20 within 15
 * minutes the device's badges are all refused (429 badge_locked, Retry-After) until the oldest of
 * them is 15 minutes old. Counted and checked under the device's row lock, so parallel tries cannot
 * pass the limit.
 */
export const BADGE_FAILURE_LIMIT = 20;
export const BADGE_WINDOW_MS = 15 * 60_000;

/**
 * Looks a badge up at a device: `find` runs inside the transaction that counts; an unknown badge
 * (find answers undefined) is recorded. Refused with 429 badge_locked while the limit is reached.
 */
export async function checkBadge<T>(
  ctx: AppContext,
  device: { companyId: string; deviceId: string },
  find: (tx: Tx) => Promise<T | undefined>,
): Promise<T | undefined> {
  return inTransaction(ctx, async (tx, now) => {
    await lockDeviceRow(tx, device.deviceId);
    const locked = await badgeLock(tx, device.deviceId, now);
    if (locked) throw locked;
    const found = await find(tx);
    if (found === undefined) await insertBadgeFailures(tx, device, now, 1);
    return found;
  });
}

/** 429 badge_locked while the device has had 20 unknown badges in 15 minutes; else null. */
async function badgeLock(db: Executor, deviceId: string, now: number): Promise<ApiError | null> {
  const windowStart = new Date(now - BADGE_WINDOW_MS).toISOString();
  const recent = await db
    .selectFrom('kiosk_badge_failures')
    .select('at')
    .where('device_id', '=', deviceId)
    .where('at', '>', windowStart)
    .orderBy('at', 'desc')
    .limit(BADGE_FAILURE_LIMIT)
    .execute();
  if (recent.length < BADGE_FAILURE_LIMIT) return null;
  // The 20th most recent ages out of the window first: then one badge may be tried again.
  const freeAt = Date.parse(recent[BADGE_FAILURE_LIMIT - 1]!.at) + BADGE_WINDOW_MS;
  const seconds = Math.max(1, Math.ceil((freeAt - now) / 1000));
  return new ApiError(
    'badge_locked',
    `too many unknown badges at this device; badges are refused here for ${Math.ceil(seconds / 60)} minutes`,
    null,
    { 'retry-after': String(seconds) },
  );
}

async function insertBadgeFailures(
  db: Executor,
  device: { companyId: string; deviceId: string },
  now: number,
  count: number,
): Promise<void> {
  const at = new Date(now).toISOString();
  const rows = Array.from({ length: count }, () => ({
    id: newId(),
    company_id: device.companyId,
    device_id: device.deviceId,
    at,
  }));
  if (rows.length > 0) await db.insertInto('kiosk_badge_failures').values(rows).execute();
}

/**
 * Punches that name their employee by badge only (externalId, no id) count like identify's badges:
 * refused while the device is locked (before anything runs), and each 404 counted after.
 */
export async function assertBadgesOpen(ctx: AppContext, deviceId: string): Promise<void> {
  const locked = await badgeLock(ctx.database.db, deviceId, ctx.now());
  if (locked) throw locked;
}

export async function recordUnknownBadges(
  ctx: AppContext,
  device: { companyId: string; deviceId: string },
  count: number,
): Promise<void> {
  await insertBadgeFailures(ctx.database.db, device, ctx.now(), count);
}

/** What the lock-outs no longer read: attempts and locks older than an hour (their window is 15 minutes). */
export const KIOSK_ATTEMPTS_KEPT_MS = 60 * 60_000;

/** Periodic cleanup (http/plugins/event-retention.ts): wrong PINs, unknown badges and ended locks. */
export async function pruneKioskAttempts(ctx: AppContext): Promise<number> {
  const before = new Date(ctx.now() - KIOSK_ATTEMPTS_KEPT_MS).toISOString();
  const db = ctx.database.db;
  const results = await Promise.all([
    db.deleteFrom('kiosk_pin_failures').where('at', '<', before).executeTakeFirst(),
    db.deleteFrom('kiosk_badge_failures').where('at', '<', before).executeTakeFirst(),
    db.deleteFrom('kiosk_pin_locks').where('locked_until', '<', before).executeTakeFirst(),
  ]);
  return results.reduce((sum, result) => sum + Number(result.numDeletedRows), 0);
}
