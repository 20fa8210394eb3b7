import type { Command } from 'commander';
import { admin } from '../io.js';
import {
  createCompany,
  createSchedule,
  createWorkplace,
  updateCompany,
} from '../../modules/companies/service.js';
import { inTransaction } from '../../modules/context.js';

function describeCompany(c: Awaited<ReturnType<typeof createCompany>>): string {
  return (
    `company ${c.id}: ${c.name}, time zone ${c.timeZone ?? 'none'}, time tracking ${c.timeTracking}, API access ${c.apiAccess}, ` +
    `workweek from ${c.workweekStart}, daily overtime after ${c.dailyOvertimeAfter === null ? 'none' : `${c.dailyOvertimeAfter} h`}, working-time rules ${c.workingTimeRules}, ` +
    `late grace ${c.lateGraceMinutes} min, no-show after ${c.noShowAfterMinutes} min, rounding ${c.rounding === 'none' ? 'none' : `${c.rounding} ${c.roundingMinutes} min`}, ` +
    `automatic clock-out ${c.autoClockOutAfterHours === null ? 'none' : `after ${c.autoClockOutAfterHours} h`}`
  );
}

/**
 * Commander reads an option named `--no-…` as the negation of `--…`: `--no-show-after 30` arrives as
 * `showAfter: '30'`, and as `showAfter: true` when not given.
 */
function noShowAfterFlag(flags: Record<string, unknown>): string | undefined {
  return typeof flags.showAfter === 'string' ? flags.showAfter : undefined;
}

/** `company create|update`, `workplace create`, `schedule create`. */
export function registerCompanyCommands(program: Command): void {
  const company = program.command('company').description('companies');
  admin(
    company
      .command('create')
      .description('create a company')
      .requiredOption('--name <name>', 'company name')
      .option('--time-zone <zone>', 'IANA time zone')
      .option('--time-tracking <on|off>', 'time tracking (default on)')
      .option('--api-access <on|off>', 'API access (default on)'),
    (ctx, _config, _args, f) =>
      inTransaction(ctx, (tx, now) =>
        createCompany(tx, now, {
          name: f.name!,
          timeZone: f.timeZone,
          timeTracking: f.timeTracking,
          apiAccess: f.apiAccess,
        }),
      ),
    describeCompany,
  );
  companyUpdateCommand(company);

  admin(
    program
      .command('workplace')
      .description('workplaces')
      .command('create')
      .description('create a workplace')
      .requiredOption('--company <id>', 'company id')
      .requiredOption('--name <name>', 'workplace name')
      .option('--time-zone <zone>', 'IANA time zone'),
    (ctx, _config, _args, f) =>
      inTransaction(ctx, (tx, now) =>
        createWorkplace(tx, now, { companyId: f.company!, name: f.name!, timeZone: f.timeZone }),
      ),
  );

  admin(
    program
      .command('schedule')
      .description('working-time schedules')
      .command('create')
      .description('create a schedule')
      .requiredOption('--company <id>', 'company id')
      .requiredOption('--name <name>', 'schedule name')
      .option('--weekly-hours <hours>', 'contracted hours per week'),
    (ctx, _config, _args, f) =>
      inTransaction(ctx, (tx, now) =>
        createSchedule(tx, now, { companyId: f.company!, name: f.name!, weeklyHours: f.weeklyHours }),
      ),
  );
}

/** `company update ID [--name …] [--late-grace M --no-show-after M --rounding … --rounding-minutes N] [--auto-clock-out-after H|none] …`. */
function companyUpdateCommand(company: Command): void {
  admin(
    company
      .command('update')
      .description("change a company's settings")
      .argument('<id>', 'company id')
      .option('--name <name>', 'company name')
      .option('--time-zone <zone|none>', 'IANA time zone, or none')
      .option('--time-tracking <on|off>', 'time tracking')
      .option('--api-access <on|off>', 'API access')
      .option('--workweek-start <monday|…|sunday>', 'first day of the workweek (timesheets; default monday)')
      .option('--daily-overtime-after <hours|none>', 'daily overtime threshold in hours, or none')
      .option(
        '--working-time-rules <none|de-arbzg|us-ca>',
        'working-time rule pack whose flags timesheets show',
      )
      .option(
        '--late-grace <minutes>',
        'attendance exceptions: minutes after a shift start before late_in (default 5)',
      )
      .option(
        '--no-show-after <minutes>',
        'attendance exceptions: minutes after a shift start without a clock-in before no_show (default 30)',
      )
      .option('--rounding <none|nearest|up|down>', 'rounding of worked time in reports only (default none)')
      .option('--rounding-minutes <1-30>', 'the rounding grid in minutes (default 15)')
      .option(
        '--auto-clock-out-after <hours|none>',
        'close open sessions this many hours (1-23) after their start, or none',
      )
      .option('--web-clock <on|off>', 'the personal web clock of people linked to employees (default off)'),
    (ctx, _config, [id], f) =>
      inTransaction(ctx, (tx, now) =>
        updateCompany(tx, now, id!, {
          name: f.name,
          timeZone: f.timeZone,
          timeTracking: f.timeTracking,
          apiAccess: f.apiAccess,
          workweekStart: f.workweekStart,
          dailyOvertimeAfter: f.dailyOvertimeAfter,
          workingTimeRules: f.workingTimeRules,
          lateGrace: f.lateGrace,
          noShowAfter: noShowAfterFlag(f),
          rounding: f.rounding,
          roundingMinutes: f.roundingMinutes,
          autoClockOutAfter: f.autoClockOutAfter,
          webClock: f.webClock,
        }),
      ),
    describeCompany,
  );
}
