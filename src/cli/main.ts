#!/usr/bin/env node
/**
 * The `punchclock` binary: the operating contract's `serve`, `migrate` and admin commands
 * (shared/spec/operations.md). Every admin command opens the store named by DATABASE_URL, applies
 * pending migrations, runs one use case and prints its result: one JSON object with `--json`, a short
 * human-readable form otherwise. Any failure is one `error: <reason>` line on stderr and exit code 1.
 */
import { Command, CommanderError } from 'commander';
import { type Config, loadConfig, resolveUrls, TOKEN_AUDIENCE } from '../config.js';
import { createStore } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { ApiError } from '../errors.js';
import { createApiKey, listApiKeys, revokeApiKey, rotateApiKey } from '../use-cases/admin/api-keys.js';
import {
  createCompany,
  createSchedule,
  createWorkplace,
  updateCompany,
} from '../use-cases/admin/companies.js';
import { confirmDay, decideEntry } from '../use-cases/admin/days-and-entries.js';
import { seedDemo } from '../use-cases/admin/demo.js';
import {
  createEmployee,
  deleteEmployee,
  type EmployeeInput,
  updateEmployee,
} from '../use-cases/admin/employees.js';
import { createUser, deactivateUser, issueUserToken } from '../use-cases/admin/users.js';
import { invalid, requireUuid } from '../use-cases/admin/validation.js';
import type { UseCaseContext } from '../use-cases/context.js';

/** Parsed option values: every value flag is a string; boolean flags (`--super-admin`, `--json`) are `true`. */
type Flags = Record<string, string | undefined>;
type Run<R> = (ctx: UseCaseContext, config: Config, args: string[], flags: Flags) => Promise<R>;

/** One line, no stack: ApiError's detail, otherwise the error's message. */
function reason(error: unknown): string {
  let text: string;
  if (error instanceof ApiError) text = error.detail ?? error.message;
  else if (error instanceof CommanderError) text = error.message.replace(/^error:\s*/, '');
  else if (error instanceof AggregateError && !error.message)
    text = error.errors.map((e: unknown) => (e instanceof Error ? e.message : String(e))).join('; ');
  else if (error instanceof Error) text = error.message || error.name;
  else text = String(error);
  return text.replace(/\s*\n\s*/g, ' ').trim() || 'unknown error';
}

/** Opens the store named by DATABASE_URL, applies pending migrations (unless told not to), runs `fn`, closes. */
async function withStore<R>(
  fn: (ctx: UseCaseContext, config: Config) => Promise<R>,
  options: { migrate: boolean } = { migrate: true },
): Promise<R> {
  const config = loadConfig();
  const store = createStore(config.database, { poolSize: 2 });
  try {
    if (options.migrate) await migrateToLatest(store.db);
    return await fn({ store, now: Date.now }, config);
  } finally {
    await store.close().catch(() => {});
  }
}

function print(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'none';
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.map(describeValue).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** The default human-readable form: one `key: value` line per field. */
function describe(result: object): string {
  return Object.entries(result)
    .map(([key, value]) => `${key}: ${describeValue(value)}`)
    .join('\n');
}

/**
 * Declares an admin command: adds `--json` and an action that opens the store, runs the use case,
 * prints the result and closes the store. Errors propagate to `main`, which prints them.
 */
function admin<R extends object>(
  cmd: Command,
  run: Run<R>,
  human: (result: R) => string = describe,
): Command {
  return cmd.option('--json', 'print exactly one JSON object').action(async (...params: unknown[]) => {
    const command = params.at(-1) as Command;
    const flags = command.opts<Flags>();
    const args = command.processedArgs as string[];
    const result = await withStore((ctx, config) => run(ctx, config, args, flags));
    print(flags.json ? JSON.stringify(result) : human(result));
  });
}

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
];

function employeeFlags(cmd: Command, clearable: boolean): Command {
  for (const [flags, description] of EMPLOYEE_FLAGS) {
    const takesNone = clearable && /workplace|schedule <|external-id|department|position/.test(flags);
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
  };
}

function describeEmployee(e: Awaited<ReturnType<typeof createEmployee>>): string {
  const name = [e.firstName, e.lastName].filter(Boolean).join(' ') || '(no name)';
  return `employee ${e.id}: ${name} <${e.email}>, ${e.status}, external id ${e.externalId ?? 'none'}, workplace ${e.workplaceId ?? 'none'}, schedule ${e.scheduleId ?? 'none'}`;
}

function describeCompany(c: Awaited<ReturnType<typeof createCompany>>): string {
  return `company ${c.id}: ${c.name}, time zone ${c.timeZone ?? 'none'}, time tracking ${c.timeTracking}, API access ${c.apiAccess}`;
}

function describeKeys(result: Awaited<ReturnType<typeof listApiKeys>>): string {
  if (result.items.length === 0) return 'no API keys';
  return result.items
    .map((k) => {
      const state = k.revokedAt
        ? `revoked ${k.revokedAt}`
        : k.expiresAt
          ? `expires ${k.expiresAt}`
          : 'active';
      return `${k.id}  ${k.clientId}  ${k.name}  [${k.scopes.join(' ')}]  ${state}  last used ${k.lastUsedAt ?? 'never'}`;
    })
    .join('\n');
}

function describeDemo(d: Awaited<ReturnType<typeof seedDemo>>): string {
  return [
    `demo company ${d.companyId}`,
    `client id: ${d.clientId}`,
    `secret:    ${d.secret}   (shown only now)`,
    'get a token:',
    `  ${d.tokenCurl}`,
  ].join('\n');
}

function adminCommands(program: Command): void {
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
      createCompany(ctx, {
        name: f.name!,
        timeZone: f.timeZone,
        timeTracking: f.timeTracking,
        apiAccess: f.apiAccess,
      }),
    describeCompany,
  );
  admin(
    company
      .command('update')
      .description("change a company's settings")
      .argument('<id>', 'company id')
      .option('--name <name>', 'company name')
      .option('--time-zone <zone|none>', 'IANA time zone, or none')
      .option('--time-tracking <on|off>', 'time tracking')
      .option('--api-access <on|off>', 'API access'),
    (ctx, _config, [id], f) =>
      updateCompany(ctx, id!, {
        name: f.name,
        timeZone: f.timeZone,
        timeTracking: f.timeTracking,
        apiAccess: f.apiAccess,
      }),
    describeCompany,
  );

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
      createWorkplace(ctx, { companyId: f.company!, name: f.name!, timeZone: f.timeZone }),
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
      createSchedule(ctx, { companyId: f.company!, name: f.name!, weeklyHours: f.weeklyHours }),
  );

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
    (ctx, _config, _args, f) => createEmployee(ctx, f.company!, employeeInput(f)),
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
      if (f.company !== undefined) await assertEmployeeInCompany(ctx, id!, f.company);
      return updateEmployee(ctx, id!, employeeInput(f));
    },
    describeEmployee,
  );
  admin(
    employee.command('delete').description('soft-delete an employee').argument('<id>', 'employee id'),
    (ctx, _config, [id]) => deleteEmployee(ctx, id!),
    (r) => `employee ${r.id} deleted`,
  );

  const user = program.command('user').description('people who administer a company');
  admin(
    user
      .command('create')
      .description('create a user')
      .requiredOption('--company <id>', 'company id')
      .requiredOption('--email <email>', 'email address')
      .option('--permissions <numbers>', 'comma-separated permission numbers (86, 47, 49, 52, 72, 90)')
      .option('--super-admin', 'may do and grant everything')
      .option('--employee <id>', 'the employee this person is'),
    (ctx, _config, _args, f) =>
      createUser(ctx, {
        companyId: f.company!,
        email: f.email!,
        permissions: f.permissions,
        superAdmin: Boolean(f.superAdmin),
        employee: f.employee,
      }),
  );
  admin(
    user.command('deactivate').description('the person leaves the company').argument('<id>', 'user id'),
    (ctx, _config, [id]) => deactivateUser(ctx, id!),
    (r) => `user ${r.id} deactivated`,
  );
  admin(
    user.command('token').description("a person's own session token").argument('<id>', 'user id'),
    async (ctx, config, [id]) => {
      // Loaded only here: jose is needed by this command alone.
      const { TokenService } = await import('../auth/tokens.js');
      const tokens = new TokenService(
        ctx.store.db,
        resolveUrls(config, config.port).tokenIssuer,
        TOKEN_AUDIENCE,
        ctx.now,
      );
      await tokens.init();
      return issueUserToken(ctx, tokens, id!);
    },
    (r) => r.access_token,
  );

  const key = program.command('key').description('company API keys');
  admin(
    key
      .command('create')
      .description('create an API key')
      .requiredOption('--company <id>', 'company id')
      .requiredOption('--created-by <userId>', 'the user creating the key (needs permission 90)')
      .requiredOption('--name <name>', 'key name')
      .requiredOption('--scopes <scopes>', 'comma-separated scopes')
      .option('--expires <date>', 'expiry: a date (start of that day, UTC) or a date-time with offset')
      .option('--allow-ip <cidrs>', 'comma-separated addresses or CIDR ranges the key may be used from'),
    (ctx, _config, _args, f) =>
      createApiKey(ctx, {
        companyId: f.company!,
        createdBy: f.createdBy!,
        name: f.name!,
        scopes: f.scopes!,
        expires: f.expires,
        allowIp: f.allowIp,
      }),
    (r) =>
      [
        `API key ${r.id} (${r.name})`,
        `client id: ${r.clientId}`,
        `secret:    ${r.secret}   (shown only now)`,
        `scopes:    ${r.scopes.join(', ')}`,
        `expires:   ${r.expiresAt ?? 'never'}`,
        `allowed:   ${r.allowedIps.length > 0 ? r.allowedIps.join(', ') : 'any address'}`,
      ].join('\n'),
  );
  admin(
    key.command('list').description("a company's API keys").requiredOption('--company <id>', 'company id'),
    (ctx, _config, _args, f) => listApiKeys(ctx, f.company!),
    describeKeys,
  );
  admin(
    key
      .command('rotate')
      .description('a new secret for a key')
      .argument('<id>', 'key id')
      .option('--grace <seconds>', 'how long the old secret keeps working (default 0)'),
    (ctx, _config, [id], f) => rotateApiKey(ctx, id!, f.grace),
  );
  admin(
    key.command('revoke').description('revoke a key now').argument('<id>', 'key id'),
    (ctx, _config, [id]) => revokeApiKey(ctx, id!),
    (r) => `API key ${r.id} revoked at ${r.revokedAt}`,
  );

  admin(
    program
      .command('day')
      .description('work days')
      .command('confirm')
      .description('the employee confirms (locks) a work date')
      .requiredOption('--employee <id>', 'employee id')
      .requiredOption('--date <date>', 'work date YYYY-MM-DD'),
    (ctx, _config, _args, f) => confirmDay(ctx, { employeeId: f.employee!, date: f.date! }),
    (r) => `${r.date} locked for employee ${r.employeeId}`,
  );

  const entry = program.command('entry').description('time entries');
  for (const [name, decision] of [
    ['approve', 'approved'],
    ['reject', 'rejected'],
  ] as const)
    admin(
      entry.command(name).description(`${name} a pending_approval entry`).argument('<id>', 'time entry id'),
      (ctx, _config, [id]) => decideEntry(ctx, id!, decision),
      (r) => `time entry ${r.id} ${r.status}`,
    );

  admin(
    program.command('demo').description('seed a demo company on an empty database'),
    (ctx, config) => seedDemo(ctx, resolveUrls(config, config.port).publicBaseUrl),
    describeDemo,
  );
}

/** `employee update --company C`: the employee must belong to C (the flag never moves anyone). */
async function assertEmployeeInCompany(ctx: UseCaseContext, employeeId: string, companyId: string) {
  const row = await ctx.store.db
    .selectFrom('employees')
    .select('company_id')
    .where('id', '=', requireUuid(employeeId, 'employee id'))
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (row && row.company_id !== requireUuid(companyId, 'company id'))
    throw invalid(`employee ${employeeId} does not belong to company ${companyId}`);
}

function buildProgram(): Command {
  const program = new Command('punchclock')
    .description('Punchclock time & attendance API: server and administration')
    .exitOverride()
    // Commander's own error text (and help shown for a missing command) is replaced by main's one line.
    .configureOutput({ writeErr: () => {} });

  program
    .command('serve')
    .description('apply pending migrations, then serve the API')
    .option('--demo-if-empty', 'seed the demo company when the database is empty')
    .action(async (options: { demoIfEmpty?: boolean }) => {
      const config = loadConfig();
      // Loaded only here: the admin commands do not pay for the HTTP stack.
      const { runServer } = await import('../server.js');
      await runServer(config, { demoIfEmpty: Boolean(options.demoIfEmpty) });
    });

  program
    .command('migrate')
    .description('apply pending migrations and exit')
    .option('--json', 'print exactly one JSON object')
    .action(async (options: { json?: boolean }) => {
      const applied = await withStore((ctx) => migrateToLatest(ctx.store.db), { migrate: false });
      if (options.json) print(JSON.stringify({ applied }));
      else print(applied.length > 0 ? `applied: ${applied.join(', ')}` : 'database is up to date');
    });

  adminCommands(program);
  return program;
}

async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help asked for (`--help`, `help <command>`) exits 0; help shown because no command was given is a failure.
      if (error.exitCode === 0) return 0;
      if (error.code === 'commander.help') {
        process.stderr.write('error: missing command (see --help)\n');
        return 1;
      }
    }
    process.stderr.write(`error: ${reason(error)}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
