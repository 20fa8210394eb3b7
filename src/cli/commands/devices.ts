import type { Command } from 'commander';
import { admin, readHiddenLine } from '../io.js';
import { inTransaction } from '../../modules/context.js';
import { hashPin, setEmployeePin } from '../../modules/devices/pins.js';
import { enrolDevice, listDevices, revokeDevice, setKioskBadgeOnly } from '../../modules/devices/service.js';
import { requireOnOff } from '../../shared/input-checks.js';

/** `device enrol|list|revoke|badge-only` and `employee set-pin` (issue 35). */
export function registerDeviceCommands(program: Command): void {
  const device = program.command('device').description('kiosk devices (shared tablets at a workplace)');
  admin(
    device
      .command('enrol')
      .description('a new kiosk device and its single-use enrolment code (valid 15 minutes)')
      .requiredOption('--workplace <id>', 'workplace id')
      .requiredOption('--name <name>', 'device name'),
    (ctx, _config, _args, f) =>
      inTransaction(ctx, (tx, now) => enrolDevice(tx, now, { workplaceId: f.workplace!, name: f.name! })),
    (r) =>
      [
        `device ${r.id} (${r.name})`,
        `enrolment code: ${r.enrolmentCode}   (single-use, shown only now)`,
        `expires:        ${r.expiresAt}`,
        'Open /kiosk on the tablet and type the code.',
      ].join('\n'),
  );
  admin(
    device
      .command('list')
      .description("a company's kiosk devices")
      .requiredOption('--company <id>', 'company id'),
    async (ctx, _config, _args, f) => {
      const { items } = await listDevices(ctx.database.db, f.company!);
      return {
        items: items.map(({ id, workplaceId, name, enrolledAt, lastSeenAt, queued, revokedAt }) => ({
          id,
          workplaceId,
          name,
          enrolledAt,
          lastSeenAt,
          queued,
          revokedAt,
        })),
      };
    },
    (r) =>
      r.items.length === 0
        ? 'no devices'
        : r.items
            .map(
              (d) =>
                `${d.id}  ${d.name}  workplace ${d.workplaceId}  ${d.revokedAt ? `revoked ${d.revokedAt}` : d.enrolledAt ? 'enrolled' : 'waiting for its code'}  last contact ${d.lastSeenAt ?? 'never'}  queued ${d.queued}`,
            )
            .join('\n'),
  );
  admin(
    device.command('revoke').description('stop a device now').argument('<id>', 'device id'),
    (ctx, _config, [id]) => inTransaction(ctx, (tx, now) => revokeDevice(tx, now, id!)),
    (r) => `device ${r.id} revoked at ${r.revokedAt}`,
  );
  admin(
    device
      .command('badge-only')
      .description("a workplace's kiosks list no names: employees identify by badge only")
      .argument('<workplaceId>', 'workplace id')
      .argument('<onOff>', 'on or off'),
    (ctx, _config, [workplaceId, onOff]) =>
      inTransaction(ctx, (tx, now) =>
        setKioskBadgeOnly(tx, now, workplaceId!, requireOnOff(onOff!, 'badge-only')),
      ),
  );
  const employee = program.commands.find((c) => c.name() === 'employee');
  if (!employee) throw new Error('register the employee commands first');
  admin(
    employee
      .command('set-pin')
      .description("set an employee's kiosk PIN (4 to 8 digits), read from standard input")
      .argument('<id>', 'employee id'),
    async (ctx, _config, [id]) => {
      const pin = (await readHiddenLine('PIN: ')).trim();
      const hashed = await hashPin(pin);
      return inTransaction(ctx, (tx, now) => setEmployeePin(tx, now, id!, hashed));
    },
    (r) => `PIN set for employee ${r.id}`,
  );
}
