import type { Command } from 'commander';
import { admin } from '../io.js';
import { inTransaction } from '../../modules/context.js';
import { confirmDay, decideEntry } from '../../modules/time-tracking/approval.js';

/** `day confirm`, `entry approve|reject`. */
export function registerTimeCommands(program: Command): void {
  admin(
    program
      .command('day')
      .description('work days')
      .command('confirm')
      .description('the employee confirms (locks) a work date')
      .requiredOption('--employee <id>', 'employee id')
      .requiredOption('--date <date>', 'work date YYYY-MM-DD'),
    (ctx, _config, _args, f) =>
      inTransaction(ctx, (tx, now) => confirmDay(tx, now, { employeeId: f.employee!, date: f.date! })),
    (r) => `${r.date} locked for employee ${r.employeeId}`,
  );

  const entry = program.command('entry').description('time entries');
  for (const [name, decision] of [
    ['approve', 'approved'],
    ['reject', 'rejected'],
  ] as const)
    admin(
      entry.command(name).description(`${name} a pending_approval entry`).argument('<id>', 'time entry id'),
      (ctx, _config, [id]) => inTransaction(ctx, (tx, now) => decideEntry(tx, now, id!, decision)),
      (r) => `time entry ${r.id} ${r.status}`,
    );
}
