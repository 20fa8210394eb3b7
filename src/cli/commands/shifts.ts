import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import { createCursorCodec } from '../../domain/cursor.js';
import { compileBodyCheck } from '../../http/validation.js';
import {
  createShiftFromCli,
  deleteShiftFromCli,
  importShifts,
  listShiftsFromCli,
  publishFromCli,
} from '../../modules/planned-shifts/cli.service.js';
import { PlannedShiftInputSchema } from '../../modules/planned-shifts/schemas.js';
import type { ShiftView } from '../../modules/planned-shifts/views.js';
import { admin } from '../io.js';

/** The public API's own checks of an item's values, so a refusal reads the same from the CLI. */
const checkItem = compileBodyCheck(PlannedShiftInputSchema);

function describeShift(s: ShiftView): string {
  return (
    `shift ${s.id}${s.externalId ? ` (${s.externalId})` : ''}: employee ${s.employee.id}, ${s.date} ${s.start} – ${s.end}, ` +
    `break ${s.breakMinutes} min, ${s.status}, version ${s.version}`
  );
}

/** `shift create --employee ID --start T --end T …`. */
function shiftCreateCommand(shift: Command): void {
  admin(
    shift
      .command('create')
      .description('plan a shift (upserted by --external-id when given)')
      .requiredOption('--employee <id>', 'employee id')
      .requiredOption('--start <datetime>', 'start, RFC 3339 with offset')
      .requiredOption('--end <datetime>', 'end, RFC 3339 with offset (less than 24 hours after the start)')
      .option('--workplace <id>', "workplace id (default: the employee's)")
      .option('--break-minutes <n>', 'planned unpaid break (default 0)')
      .option('--external-id <id>', "the scheduler's id of the shift")
      .option('--status <draft|published>', 'default draft'),
    (ctx, _config, _args, f) =>
      createShiftFromCli(ctx, checkItem, {
        employee: f.employee!,
        start: f.start!,
        end: f.end!,
        workplace: f.workplace,
        breakMinutes: f.breakMinutes,
        externalId: f.externalId,
        status: f.status,
      }),
    describeShift,
  );
}

/** `shift list`, `shift delete`, `shift publish`. */
function shiftListingCommands(shift: Command): void {
  admin(
    shift
      .command('list')
      .description('the shifts dated from..to (at most 92 days), by start')
      .requiredOption('--company <id>', 'company id')
      .requiredOption('--from <date>', 'first date, YYYY-MM-DD')
      .requiredOption('--to <date>', 'last date, YYYY-MM-DD'),
    (ctx, _config, _args, f) =>
      listShiftsFromCli(ctx, createCursorCodec(randomBytes(32)), {
        company: f.company!,
        from: f.from!,
        to: f.to!,
      }),
    (r) => (r.shifts.length === 0 ? 'no shifts' : r.shifts.map(describeShift).join('\n')),
  );
  admin(
    shift.command('delete').description('delete a planned shift').argument('<id>', 'shift id'),
    (ctx, _config, [id]) => deleteShiftFromCli(ctx, id!),
    (r) => `deleted shift ${r.deleted}`,
  );
  admin(
    shift
      .command('publish')
      .description('publish the drafts dated from..to')
      .requiredOption('--company <id>', 'company id')
      .requiredOption('--from <date>', 'first date, YYYY-MM-DD')
      .requiredOption('--to <date>', 'last date, YYYY-MM-DD')
      .option('--workplace <id>', 'only this workplace'),
    (ctx, _config, _args, f) =>
      publishFromCli(ctx, { company: f.company!, from: f.from!, to: f.to!, workplace: f.workplace }),
    (r) => `published ${r.published} shift(s)`,
  );
}

/** `shift import --company ID --file F.csv`. */
function shiftImportCommand(shift: Command): void {
  admin(
    shift
      .command('import')
      .description(
        'import shifts from a CSV file with the columns external_id,employee_external_id,workplace_id,start,end,break_minutes,note,status; ' +
          'each row is upserted by external_id, so importing the file again changes nothing',
      )
      .requiredOption('--company <id>', 'company id')
      .requiredOption('--file <path>', 'the CSV file'),
    (ctx, _config, _args, f) => importShifts(ctx, checkItem, { company: f.company!, file: f.file! }),
    (r) =>
      [
        ...r.results.filter((row) => row.result === 'refused').map((row) => `line ${row.line}: ${row.error}`),
        `${r.rows} row(s): ${r.created} created, ${r.updated} updated, ${r.unchanged} unchanged, ${r.refused} refused`,
      ].join('\n'),
  );
}

/** `shift create|list|delete|publish|import` (issue 33). */
export function registerShiftCommands(program: Command): void {
  const shift = program.command('shift').description('planned shifts');
  shiftCreateCommand(shift);
  shiftListingCommands(shift);
  shiftImportCommand(shift);
}
