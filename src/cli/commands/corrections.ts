import type { Command } from 'commander';
import { invalid, notFound, requireUuid } from '../../shared/input-checks.js';
import { requireCompany } from '../../modules/companies/service.js';
import { CLI_ACTOR, inTransaction } from '../../modules/context.js';
import { correctEntry } from '../../modules/corrections/correct.js';
import { decideOnEntry } from '../../modules/corrections/decisions.js';
import { deleteTimeEntry } from '../../modules/corrections/delete.js';
import { managerOfAdmin } from '../../modules/corrections/entry-access.js';
import {
  closePeriod,
  listPeriods,
  type PeriodView,
  reopenPeriod,
} from '../../modules/corrections/periods.js';
import { historyOfEntry } from '../../modules/corrections/revisions.js';
import { admin, type Flags } from '../io.js';

/*
 * Corrections and closed periods from the command line (issue 30): the services the API and the
 * console run, as the operator (actor `cli`, in any company).
 */

const OPERATOR = managerOfAdmin(CLI_ACTOR, null);

function describeEntry(e: {
  id: string;
  workDate: string;
  startTime: string;
  endTime: string | null;
  status: string;
  version: number;
}) {
  return `time entry ${e.id}: ${e.workDate} ${e.startTime}–${e.endTime ?? 'open'}, ${e.status}, version ${e.version}`;
}

function describePeriod(p: PeriodView): string {
  const where = p.workplaceId === null ? 'the whole company' : `workplace ${p.workplaceId}`;
  return `period ${p.id}: ${p.from} to ${p.to}, ${where}, ${p.reopenedAt === null ? `closed ${p.closedAt}` : `reopened ${p.reopenedAt}`}`;
}

function breakMinutesOf(value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'none') return null;
  if (!/^\d{1,4}$/.test(value) || Number(value) > 1440)
    throw invalid('break minutes must be a whole number from 0 to 1440, or none');
  return Number(value);
}

function correctionOf(flags: Flags) {
  return {
    ...(flags.clockIn !== undefined ? { clockIn: flags.clockIn } : {}),
    ...(flags.clockOut !== undefined ? { clockOut: flags.clockOut } : {}),
    ...(flags.breakMinutes !== undefined ? { breakMinutes: breakMinutesOf(flags.breakMinutes) } : {}),
    ...(flags.note !== undefined ? { note: flags.note === '' ? null : flags.note } : {}),
    reason: flags.reason!,
  };
}

function registerEntryCommands(entry: Command): void {
  admin(
    entry
      .command('edit')
      .description('correct an entry (times, break, note) with a reason; a clock-out closes an open session')
      .argument('<id>', 'time entry id')
      .option('--clock-in <datetime>', 'new start, RFC 3339 with offset')
      .option('--clock-out <datetime>', 'new end, RFC 3339 with offset')
      .option('--break-minutes <minutes>', 'one break in the middle, in minutes, or none')
      .option('--note <text>', 'the note ("" clears it)')
      .requiredOption('--reason <text>', 'why (kept with the revision)'),
    (ctx, _config, [id], f) =>
      inTransaction(ctx, (tx, now) =>
        correctEntry(tx, now, OPERATOR, {
          entryId: requireUuid(id!, 'entry id'),
          body: correctionOf(f),
          ifMatch: null,
          dryRun: false,
        }),
      ),
    describeEntry,
  );
  admin(
    entry
      .command('delete')
      .description('delete an entry with a reason (its history stays)')
      .argument('<id>', 'time entry id')
      .requiredOption('--reason <text>', 'why'),
    (ctx, _config, [id], f) =>
      inTransaction(ctx, (tx, now) =>
        deleteTimeEntry(tx, now, OPERATOR, {
          entryId: requireUuid(id!, 'entry id'),
          reason: f.reason!,
          ifMatch: null,
          dryRun: false,
        }),
      ),
    (r) => `time entry ${r.id} deleted`,
  );
  admin(
    entry
      .command('reopen')
      .description('an approved or rejected entry back to pending_approval')
      .argument('<id>', 'time entry id')
      .requiredOption('--reason <text>', 'why'),
    (ctx, _config, [id], f) =>
      inTransaction(ctx, (tx, now) =>
        decideOnEntry(tx, now, OPERATOR, {
          entryId: requireUuid(id!, 'entry id'),
          decision: 'reopen',
          reason: f.reason!.trim(),
          ifMatch: null,
          dryRun: false,
        }),
      ),
    describeEntry,
  );
  admin(
    entry
      .command('history')
      .description("an entry's revisions: who changed what, when and why")
      .argument('<id>', 'time entry id'),
    async (ctx, _config, [id]) => {
      const items = await historyOfEntry(ctx.database.db, requireUuid(id!, 'entry id'));
      if (items === null) throw notFound('time entry', id!);
      return { items };
    },
    (r) =>
      r.items
        .map(
          (v) =>
            `${v.revision}. ${v.at} ${v.action} by ${v.actor.name ?? v.actor.kind}${v.reason ? ` (${v.reason})` : ''}${v.changes.map((c) => `\n   ${c.field}: ${JSON.stringify(c.from)} → ${JSON.stringify(c.to)}`).join('')}`,
        )
        .join('\n'),
  );
}

function registerPeriodCommands(program: Command): void {
  const period = program.command('period').description('closed payroll periods');
  admin(
    period
      .command('close')
      .description('close days for payroll: no write may land on them until reopened')
      .requiredOption('--company <id>', 'company id')
      .requiredOption('--from <date>', 'first day YYYY-MM-DD')
      .requiredOption('--to <date>', 'last day YYYY-MM-DD (at most 92 days after --from)')
      .option('--workplace <id>', 'only this workplace'),
    (ctx, _config, _args, f) =>
      inTransaction(ctx, async (tx, now) => {
        const company = await requireCompany(tx, f.company!);
        const manager = { ...OPERATOR, companyId: company.id };
        return closePeriod(
          tx,
          now,
          manager,
          { from: f.from!, to: f.to!, workplaceId: f.workplace ?? null },
          { dryRun: false },
        );
      }),
    describePeriod,
  );
  admin(
    period
      .command('reopen')
      .description('reopen a closed period')
      .argument('<id>', 'period id')
      .requiredOption('--reason <text>', 'why'),
    (ctx, _config, [id], f) =>
      inTransaction(ctx, (tx, now) =>
        reopenPeriod(tx, now, OPERATOR, { periodId: id!, reason: f.reason! }, { dryRun: false }),
      ),
    describePeriod,
  );
  admin(
    period
      .command('list')
      .description("a company's closed periods")
      .requiredOption('--company <id>', 'company id'),
    async (ctx, _config, _args, f) =>
      listPeriods(ctx.database.db, (await requireCompany(ctx.database.db, f.company!)).id),
    (r) => (r.items.length === 0 ? 'no closed periods' : r.items.map(describePeriod).join('\n')),
  );
}

/** `entry edit|delete|reopen|history` (beside `entry approve|reject`), `period close|reopen|list`. */
export function registerCorrectionCommands(program: Command): void {
  const entry =
    program.commands.find((c) => c.name() === 'entry') ??
    program.command('entry').description('time entries');
  registerEntryCommands(entry);
  registerPeriodCommands(program);
}
