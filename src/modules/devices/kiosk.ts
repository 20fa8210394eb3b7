import { ApiError, validationError } from '../../domain/errors.js';
import { checkBadge, checkPin } from './pins.js';
import { type Principal } from '../auth/service.js';
import { type AppContext } from '../context.js';
import { type Executor } from '../../platform/db/database.js';
import { isStorableText } from '../../shared/stored-text.js';

/*
 * What a kiosk device's token reads (issue 35): the names of its own workplace's employees (none
 * when the workplace is badge-only) and who a badge or an employee and PIN are, with their state.
 * Every read is inside the device's company and workplace; anything else is 404 employee_not_found.
 */

type Device = NonNullable<Principal['device']>;

export function requireDevice(principal: Principal): Device {
  if (principal.kind !== 'device' || !principal.device)
    throw new ApiError('insufficient_scope', 'only a kiosk device may use this operation');
  return principal.device;
}

function displayName(row: { first_name: string | null; last_name: string | null }): string {
  return [row.first_name, row.last_name].filter((part) => part && part.trim() !== '').join(' ') || 'Employee';
}

function workplaceEmployees(db: Executor, companyId: string, workplaceId: string) {
  return (
    db
      .selectFrom('employees')
      .select(['id', 'external_id', 'first_name', 'last_name'])
      .where('company_id', '=', companyId)
      .where('workplace_id', '=', workplaceId)
      // A device acts only for active employees (not inactive, suspended or terminated ones).
      .where('status', '=', 'active')
      .where('deleted_at', 'is', null)
  );
}

export async function kioskEmployees(ctx: AppContext, principal: Principal) {
  const device = requireDevice(principal);
  const workplace = await ctx.database.db
    .selectFrom('workplaces')
    .select('kiosk_badge_only')
    .where('id', '=', device.workplaceId)
    .executeTakeFirst();
  if (!workplace || workplace.kiosk_badge_only === 1) return { items: [] };
  const rows = await workplaceEmployees(ctx.database.db, principal.companyId, device.workplaceId).execute();
  const items = rows.map((row) => ({ id: row.id, displayName: displayName(row) }));
  items.sort((a, b) => a.displayName.localeCompare(b.displayName) || a.id.localeCompare(b.id));
  return { items };
}

async function employeeState(db: Executor, companyId: string, employeeId: string) {
  const open = await db
    .selectFrom('time_entries as t')
    .leftJoin('time_entry_breaks as b', (join) =>
      join.onRef('b.time_entry_id', '=', 't.id').on('b.end_at', 'is', null),
    )
    .select(['t.start_at', 'b.start_at as break_since'])
    .where('t.company_id', '=', companyId)
    .where('t.employee_id', '=', employeeId)
    .where('t.status', '=', 'open')
    .executeTakeFirst();
  if (!open) return { clockedIn: false, onBreak: false, since: null };
  return { clockedIn: true, onBreak: open.break_since !== null, since: open.break_since ?? open.start_at };
}

const notHere = () => new ApiError('employee_not_found', "no employee of this kiosk's workplace matches");

/** POST /kiosk/identify: `{badge}` (the employee's external id) or `{employeeId, pin}`. */
export async function identify(
  ctx: AppContext,
  principal: Principal,
  body: { badge?: string; employeeId?: string; pin?: string },
) {
  const device = requireDevice(principal);
  const db = ctx.database.db;
  const byBadge = body.badge !== undefined;
  if (
    byBadge === (body.employeeId !== undefined) ||
    (body.employeeId !== undefined) !== (body.pin !== undefined)
  )
    throw validationError([
      { field: 'badge', message: 'send either badge, or employeeId and pin', code: 'one_of' },
    ]);
  let employee;
  if (byBadge) {
    // Unknown badges are counted per device (and refused past the limit): no enumerating badges.
    const badge = body.badge!.trim();
    employee = await checkBadge(ctx, { companyId: principal.companyId, deviceId: principal.id }, (tx) =>
      badge === '' || !isStorableText(badge)
        ? Promise.resolve(undefined)
        : workplaceEmployees(tx, principal.companyId, device.workplaceId)
            .where('external_id', '=', badge)
            .executeTakeFirst(),
    );
  } else {
    // A badge-only workplace takes no PINs (before any PIN is counted or checked).
    const workplace = await db
      .selectFrom('workplaces')
      .select('kiosk_badge_only')
      .where('id', '=', device.workplaceId)
      .executeTakeFirst();
    if (!workplace || workplace.kiosk_badge_only === 1)
      throw new ApiError('kiosk_badge_only', "this workplace's kiosk identifies by badge only");
    if (!/^[0-9a-fA-F-]{36}$/.test(body.employeeId!)) throw notHere();
    employee = await workplaceEmployees(db, principal.companyId, device.workplaceId)
      .where('id', '=', body.employeeId!.toLowerCase())
      .executeTakeFirst();
  }
  if (!employee) throw notHere();
  if (!byBadge)
    await checkPin(
      ctx,
      { companyId: principal.companyId, deviceId: principal.id, employeeId: employee.id },
      body.pin!,
    );
  return {
    // The external id (the badge) is never told to a device, even for an employee it identified by PIN.
    employee: { id: employee.id, externalId: null },
    displayName: displayName(employee),
    state: await employeeState(db, principal.companyId, employee.id),
  };
}
