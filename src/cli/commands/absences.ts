import type { Command } from 'commander';
import { createAbsence, employeeAbsences } from '../../modules/absences/absences.js';
import { cliCallerOf } from '../../modules/absences/actors.js';
import { decideAbsence, type Decision } from '../../modules/absences/decisions.js';
import { clearHolidayOverride, listHolidays, setHolidayOverride } from '../../modules/absences/holidays.js';
import { setEntitlement } from '../../modules/absences/leave.js';
import { createAbsenceType, listAbsenceTypes, updateAbsenceType } from '../../modules/absences/types.js';
import { setHolidayRegion, updateSchedule } from '../../modules/absences/working-days.js';
import { inTransaction } from '../../modules/context.js';
import { readWorkplace, setWebClockAllowedIps } from '../../modules/self-service/settings.js';
import { setKioskBadgeOnly } from '../../modules/devices/service.js';
import { invalid, requireOnOff } from '../../shared/input-checks.js';
import { admin, type Flags } from '../io.js';

/*
 * Issue 31: `absence-type create|list|update`, `absence create|approve|reject|cancel|list`,
 * `leave entitlement set`, `holiday add|remove|list`, `workplace update`, `schedule update`.
 * Every command runs the services the API and the console run, as the operator (actor `cli`).
 */

const CLI = { type: 'cli' as const, id: null };

function typeFlags(f: Flags) {
  return {
    code: f.code,
    name: f.name,
    category: f.category,
    unit: f.unit,
    paid: f.paid,
    countsAsWorkTime: f.countsAsWork,
    requiresApproval: f.requiresApproval,
    deductsFromBalance: f.deducts,
    yearlyEntitlementDays: f.yearlyDays,
    carryOverMaxDays: f.carryOverMax,
    carryOverExpiresOn: f.carryOverExpires,
    allowNegative: f.allowNegative,
  };
}

function registerTypeCommands(program: Command): void {
  const type = program.command('absence-type').description('absence types of a company');
  admin(
    type
      .command('create')
      .description('create an absence type')
      .requiredOption('--company <id>', 'company id')
      .requiredOption('--code <code>', 'unique code, e.g. parental')
      .requiredOption('--name <name>', 'name')
      .requiredOption('--category <category>', 'vacation, sick, unpaid or other')
      .option('--unit <unit>', 'days (default) or hours')
      .option('--paid <on|off>', 'paid (default on)')
      .option('--counts-as-work <on|off>', 'credited in timesheets (default off)')
      .option('--requires-approval <on|off>', 'needs a decision (default on)')
      .option('--deducts <on|off>', 'counted against the balance (default off)')
      .option('--yearly-days <n>', 'yearly entitlement in days (default 0)'),
    async (ctx, _config, _args, f) => {
      const caller = await cliCallerOf(ctx.database.db, { companyId: f.company! });
      return inTransaction(ctx, (tx, now) => createAbsenceType(tx, now, caller.companyId, typeFlags(f), CLI));
    },
  );
  admin(
    type
      .command('list')
      .description("a company's absence types")
      .requiredOption('--company <id>', 'company id'),
    async (ctx, _config, _args, f) => {
      const caller = await cliCallerOf(ctx.database.db, { companyId: f.company! });
      return listAbsenceTypes(ctx.database.db, caller.companyId);
    },
  );
  admin(
    type
      .command('update')
      .description('change an absence type')
      .argument('<id>', 'absence type id')
      .option('--name <name>', 'name')
      .option('--yearly-days <n>', 'yearly entitlement in days')
      .option('--carry-over-max <n>', "days of last year's remainder carried over")
      .option('--carry-over-expires <MM-DD|none>', 'last day carried days count, or none')
      .option('--allow-negative <on|off>', 'a deducting absence may take the balance below zero')
      .option('--requires-approval <on|off>', 'needs a decision'),
    (ctx, _config, [id], f) =>
      inTransaction(ctx, (tx, now) => updateAbsenceType(tx, now, null, id!, typeFlags(f), CLI)),
  );
}

function registerAbsenceCommands(program: Command): void {
  const absence = program.command('absence').description('absences of employees');
  admin(
    absence
      .command('create')
      .description('request an absence (approved at once when its type needs no approval)')
      .requiredOption('--employee <id>', 'employee id')
      .requiredOption('--type <code>', 'absence type code')
      .requiredOption('--from <date>', 'first day')
      .requiredOption('--to <date>', 'last day')
      .option('--portion <portion>', 'full (default), first_half, second_half or hours')
      .option('--hours <h>', 'hours, with --portion hours')
      .option('--note <note>', 'a note'),
    async (ctx, _config, _args, f) => {
      const caller = await cliCallerOf(ctx.database.db, { employeeId: f.employee! });
      const input = {
        employee: { id: f.employee! },
        typeCode: f.type!,
        startDate: f.from!,
        endDate: f.to!,
        ...(f.portion !== undefined ? { portion: f.portion as 'full' } : {}),
        ...(f.hours !== undefined ? { hours: Number(f.hours) } : {}),
        ...(f.note !== undefined ? { note: f.note } : {}),
      };
      const outcome = await inTransaction(ctx, (tx, now) =>
        createAbsence(tx, now, caller, input, { dryRun: false }),
      );
      return outcome.body;
    },
  );
  for (const [decision, needsReason] of [
    ['approve', false],
    ['reject', true],
    ['cancel', true],
  ] as const) {
    const cmd = absence
      .command(decision)
      .description(`${decision} an absence`)
      .argument('<id>', 'absence id');
    if (needsReason) cmd.requiredOption('--reason <reason>', 'why');
    admin(cmd, async (ctx, _config, [id], f) => {
      const caller = await cliCallerOf(ctx.database.db, { absenceId: id! });
      const input = { reason: f.reason ?? null, ifMatch: null, dryRun: false };
      const outcome = await inTransaction(ctx, (tx, now) =>
        decideAbsence(tx, now, caller, id!, decision as Decision, input),
      );
      return outcome.body;
    });
  }
  admin(
    absence
      .command('list')
      .description("an employee's absences")
      .requiredOption('--employee <id>', 'employee id')
      .option('--from <date>', 'first day (default 1 January of this year)')
      .option('--to <date>', 'last day (default 31 December)'),
    async (ctx, _config, _args, f) => {
      const caller = await cliCallerOf(ctx.database.db, { employeeId: f.employee! });
      return employeeAbsences(ctx, caller, { employeeId: f.employee!, from: f.from, to: f.to });
    },
  );
}

function registerHolidayCommands(program: Command): void {
  const holiday = program
    .command('holiday')
    .description("a company's own holidays (overrides of the region's)");
  const scope = (cmd: Command) =>
    cmd
      .requiredOption('--company <id>', 'company id')
      .requiredOption('--date <date>', 'the day')
      .option('--workplace <id>', 'only this workplace (default: the whole company)');
  for (const kind of ['add', 'remove'] as const) {
    const cmd = scope(
      holiday
        .command(kind)
        .description(kind === 'add' ? 'add a holiday (or make one a half day)' : 'remove a holiday'),
    );
    if (kind === 'add')
      cmd.requiredOption('--name <name>', 'name').option('--portion <full|half>', 'full (default) or half');
    admin(cmd, async (ctx, _config, _args, f) => {
      const caller = await cliCallerOf(ctx.database.db, { companyId: f.company! });
      const input = {
        companyId: caller.companyId,
        workplaceId: f.workplace ?? null,
        date: f.date!,
        name: f.name ?? null,
        ...(f.portion ? { portion: f.portion } : {}),
      };
      return inTransaction(ctx, (tx, now) => setHolidayOverride(tx, now, input, kind, CLI));
    });
  }
  admin(
    holiday
      .command('clear')
      .description('drop an override by id')
      .requiredOption('--company <id>', 'company id')
      .argument('<id>', 'override id'),
    async (ctx, _config, [id], f) => {
      const caller = await cliCallerOf(ctx.database.db, { companyId: f.company! });
      return inTransaction(ctx, (tx, now) => clearHolidayOverride(tx, now, caller.companyId, id!, CLI));
    },
  );
  admin(
    holiday
      .command('list')
      .description("a workplace's holidays")
      .requiredOption('--workplace <id>', 'workplace id')
      .requiredOption('--from <date>', 'first day')
      .requiredOption('--to <date>', 'last day (at most 366 days)'),
    async (ctx, _config, _args, f) => {
      const caller = await cliCallerOf(ctx.database.db, { workplaceId: f.workplace! });
      return listHolidays(ctx, caller, { workplaceId: f.workplace!, from: f.from, to: f.to });
    },
  );
}

/** The `update` commands of workplaces and schedules (their groups exist: commands/companies.ts). */
function registerWorkingDayCommands(program: Command): void {
  const group = (name: string) => program.commands.find((c) => c.name() === name) ?? program.command(name);
  admin(
    group('workplace')
      .command('update')
      .description(
        "change a workplace's holiday region, the addresses of its web clock and its kiosk's badge-only switch",
      )
      .argument('<id>', 'workplace id')
      .option('--holiday-region <code|none>', 'region of its public holidays, e.g. DE-BY, US-CA, FR; or none')
      .option(
        '--web-clock-allow-ip <CIDR,…|none>',
        'addresses the personal web clock may be used from, e.g. 203.0.113.0/24; none: any',
      )
      .option('--kiosk-badge-only <on|off>', 'the kiosk lists no names and takes no PINs: badges only'),
    (ctx, _config, [id], f) =>
      inTransaction(ctx, async (tx, now) => {
        if (
          f.holidayRegion === undefined &&
          f.webClockAllowIp === undefined &&
          f.kioskBadgeOnly === undefined
        )
          throw invalid('send --holiday-region, --web-clock-allow-ip or --kiosk-badge-only');
        const badgeOnly =
          f.kioskBadgeOnly === undefined ? undefined : requireOnOff(f.kioskBadgeOnly, '--kiosk-badge-only');
        if (f.holidayRegion !== undefined) await setHolidayRegion(tx, now, id!, f.holidayRegion, CLI);
        if (f.webClockAllowIp !== undefined)
          await setWebClockAllowedIps(tx, now, id!, f.webClockAllowIp, CLI);
        if (badgeOnly !== undefined) await setKioskBadgeOnly(tx, now, id!, badgeOnly, CLI);
        return readWorkplace(tx, id!);
      }),
  );
  admin(
    group('schedule')
      .command('update')
      .description("change a schedule's work days and daily hours")
      .argument('<id>', 'schedule id')
      .option('--work-days <days>', 'weekdays worked, e.g. mon,tue,wed,thu,fri')
      .option('--daily-hours <h|none>', 'hours of a work day (none: weekly hours ÷ work days)'),
    (ctx, _config, [id], f) =>
      inTransaction(ctx, (tx, now) =>
        updateSchedule(tx, now, id!, { workDays: f.workDays, dailyHours: f.dailyHours }, CLI),
      ),
  );
}

export function registerLeaveCommands(program: Command): void {
  registerTypeCommands(program);
  registerAbsenceCommands(program);
  admin(
    program
      .command('leave')
      .description('leave entitlements')
      .command('entitlement')
      .description('yearly entitlements')
      .command('set')
      .description("set an employee's entitlement of a type for a year")
      .requiredOption('--employee <id>', 'employee id')
      .requiredOption('--type <code>', 'absence type code')
      .requiredOption('--year <year>', 'year')
      .requiredOption('--days <n>', 'days'),
    async (ctx, _config, _args, f) => {
      const caller = await cliCallerOf(ctx.database.db, { employeeId: f.employee! });
      const input = { employeeId: f.employee!, typeCode: f.type!, year: f.year!, days: f.days! };
      return inTransaction(ctx, (tx, now) => setEntitlement(tx, now, caller, input));
    },
  );
  registerHolidayCommands(program);
  registerWorkingDayCommands(program);
}
