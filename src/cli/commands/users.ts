import type { Command } from 'commander';
import { admin, readHiddenLine } from '../io.js';
import { inTransaction } from '../../modules/context.js';
import { inviteUser, setUserPassword } from '../../modules/people/service.js';
import { createUser, deactivateUser, issueUserToken } from '../../modules/people/users.js';
import { inviteEmployees } from '../../modules/self-service/invite-employees.js';
import { TOKEN_AUDIENCE, resolveUrls } from '../../platform/config.js';

/** `user create|deactivate|token|invite|invite-employees|set-password`. */
export function registerUserCommands(program: Command): void {
  const user = program.command('user').description('people who administer a company');
  inviteEmployeesCommand(user);
  admin(
    user
      .command('create')
      .description('create a user')
      .requiredOption('--company <id>', 'company id')
      .requiredOption('--email <email>', 'email address')
      .option(
        '--permissions <numbers>',
        'comma-separated permission numbers (86, 47, 49, 52, 72, 90, 91, 92, 93)',
      )
      .option('--super-admin', 'may do and grant everything')
      .option('--employee <id>', 'the employee this person is'),
    (ctx, _config, _args, f) =>
      inTransaction(ctx, (tx, now) =>
        createUser(tx, now, {
          companyId: f.company!,
          email: f.email!,
          permissions: f.permissions,
          superAdmin: Boolean(f.superAdmin),
          employee: f.employee,
        }),
      ),
  );
  admin(
    user.command('deactivate').description('the person leaves the company').argument('<id>', 'user id'),
    (ctx, _config, [id]) => inTransaction(ctx, (tx, now) => deactivateUser(tx, now, id!)),
    (r) => `user ${r.id} deactivated`,
  );
  admin(
    user.command('token').description("a person's own session token").argument('<id>', 'user id'),
    async (ctx, config, [id]) => {
      // Loaded only here: jose is needed by this command alone.
      const { TokenService } = await import('../../modules/auth/tokens.js');
      const tokens = new TokenService(
        ctx.database.db,
        resolveUrls(config, config.port).tokenIssuer,
        TOKEN_AUDIENCE,
        ctx.now,
      );
      await tokens.init();
      return inTransaction(ctx, (tx) => issueUserToken(tx, tokens, id!));
    },
    (r) => r.access_token,
  );
  admin(
    user
      .command('invite')
      .description('a one-use link (72 hours) where the person chooses their console password')
      .argument('<id>', 'user id'),
    (ctx, config, [id]) =>
      inTransaction(ctx, (tx, now) =>
        inviteUser(tx, now, id!, resolveUrls(config, config.port).publicBaseUrl),
      ),
    (r) => `${r.url}\n(one use; expires ${r.expiresAt})`,
  );
  admin(
    user
      .command('set-password')
      .description("set a person's console password, read from standard input (at least 12 characters)")
      .argument('<id>', 'user id'),
    async (ctx, _config, [id]) =>
      setUserPassword(ctx, id!, await readHiddenLine('New password (at least 12 characters, not shown): ')),
    (r) => `password set for user ${r.id}; their console sessions have ended`,
  );
}

/** `user invite-employees --company ID [--workplace ID]` (issue 35). */
function inviteEmployeesCommand(user: Command): void {
  admin(
    user
      .command('invite-employees')
      .description(
        'a self-service person and a one-use link (72 hours) for every employee with an email and no person yet',
      )
      .requiredOption('--company <id>', 'company id')
      .option('--workplace <id>', 'only the employees of this workplace'),
    (ctx, config, _args, f) =>
      inTransaction(ctx, (tx, now) =>
        inviteEmployees(tx, now, {
          companyId: f.company!,
          workplaceId: f.workplace ?? null,
          publicBaseUrl: resolveUrls(config, config.port).publicBaseUrl,
        }),
      ),
    (r) =>
      r.items.length === 0
        ? 'every employee with an email already has a person'
        : r.items.map((i) => `${i.employeeId}  ${i.url}  (one use; expires ${i.expiresAt})`).join('\n'),
  );
}
