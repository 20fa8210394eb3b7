import type { Command } from 'commander';
import { createUser, deactivateUser, issueUserToken } from '../../modules/admin/users.js';
import { resolveUrls, TOKEN_AUDIENCE } from '../../platform/config.js';
import { inTransaction } from '../../modules/context.js';
import { admin } from '../io.js';

/** `user create|deactivate|token`. */
export function registerUserCommands(program: Command): void {
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
}
