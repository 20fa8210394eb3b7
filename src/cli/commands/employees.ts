import type { Command } from 'commander';
import { type Flags, admin } from '../io.js';
import { inTransaction } from '../../modules/context.js';
import {
  type EmployeeInput,
  assertEmployeeInCompany,
  createEmployee,
  deleteEmployee,
  updateEmployee,
} from '../../modules/employees/changes.js';

const EMPLOYEE_FLAGS: [flags: string, description: string][] = [
  ['--first-name <name>', 'first name'],
  ['--last-name <name>', 'last name'],
  ['--status <status>', 'active, inactive, on_leave, suspended or terminated'],
  ['--external-id <id>', 'the id the integrator knows the employee by (at most 64 characters)'],
  ['--workplace <id>', 'workplace id'],
  ['--schedule <id>', 'schedule id'],
  ['--schedule-from <date>', 'first work date the schedule applies to (default: 60 days ago)'],
  ['--department <guid>', 'department guid of the HR product'],
  ['--position <guid>', 'position guid of the HR product'],
  ['--hired-on <date>', 'first day of employment (leave balances are prorated by it)'],
  ['--left-on <date>', 'last day of employment'],
];

function employeeFlags(cmd: Command, clearable: boolean): Command {
  for (const [flags, description] of EMPLOYEE_FLAGS) {
    const takesNone =
      clearable && /workplace|schedule <|external-id|department|position|hired-on|left-on/.test(flags);
    cmd.option(flags, takesNone ? `${description}, or none` : description);
  }
  return cmd;
}

function employeeInput(flags: Flags): EmployeeInput {
  return {
    email: flags.email,
    firstName: flags.firstName,
    lastName: flags.lastName,
    status: flags.status,
    externalId: flags.externalId,
    workplace: flags.workplace,
    schedule: flags.schedule,
    scheduleFrom: flags.scheduleFrom,
    department: flags.department,
    position: flags.position,
    hiredOn: flags.hiredOn,
    leftOn: flags.leftOn,
  };
}

function describeEmployee(e: Awaited<ReturnType<typeof createEmployee>>): string {
  const name = [e.firstName, e.lastName].filter(Boolean).join(' ') || '(no name)';
  return `employee ${e.id}: ${name} <${e.email}>, ${e.status}, external id ${e.externalId ?? 'none'}, workplace ${e.workplaceId ?? 'none'}, schedule ${e.scheduleId ?? 'none'}`;
}

/** `employee create|update|delete`. */
export function registerEmployeeCommands(program: Command): void {
  const employee = program.command('employee').description('employees');
  admin(
    employeeFlags(
      employee
        .command('create')
        .description('create an employee')
        .requiredOption('--company <id>', 'company id')
        .requiredOption('--email <email>', 'email address'),
      false,
    ),
    (ctx, _config, _args, f) =>
      inTransaction(ctx, (tx, now) => createEmployee(tx, now, f.company!, employeeInput(f))),
    describeEmployee,
  );
  admin(
    employeeFlags(
      employee
        .command('update')
        .description('change an employee')
        .argument('<id>', 'employee id')
        .option('--company <id>', "the employee's company (checked, not changed)")
        .option('--email <email>', 'email address'),
      true,
    ),
    async (ctx, _config, [id], f) => {
      if (f.company !== undefined)
        await inTransaction(ctx, (tx) => assertEmployeeInCompany(tx, id!, f.company!));
      return inTransaction(ctx, (tx, now) => updateEmployee(tx, now, id!, employeeInput(f)));
    },
    describeEmployee,
  );
  admin(
    employee.command('delete').description('soft-delete an employee').argument('<id>', 'employee id'),
    (ctx, _config, [id]) => inTransaction(ctx, (tx, now) => deleteEmployee(tx, now, id!)),
    (r) => `employee ${r.id} deleted`,
  );
}
