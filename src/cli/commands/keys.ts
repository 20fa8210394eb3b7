import type { Command } from 'commander';
import { admin } from '../io.js';
import { createApiKey, listApiKeys, revokeApiKey, rotateApiKey } from '../../modules/api-keys/service.js';
import { inTransaction } from '../../modules/context.js';

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

/** `key create|list|rotate|revoke`. */
export function registerKeyCommands(program: Command): void {
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
      inTransaction(ctx, (tx, now) =>
        createApiKey(tx, now, {
          companyId: f.company!,
          createdBy: f.createdBy!,
          name: f.name!,
          scopes: f.scopes!,
          expires: f.expires,
          allowIp: f.allowIp,
        }),
      ),
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
    (ctx, _config, _args, f) => inTransaction(ctx, (tx) => listApiKeys(tx, f.company!)),
    describeKeys,
  );
  admin(
    key
      .command('rotate')
      .description('a new secret for a key')
      .argument('<id>', 'key id')
      .option('--grace <seconds>', 'how long the old secret keeps working (default 0)'),
    (ctx, _config, [id], f) => inTransaction(ctx, (tx, now) => rotateApiKey(tx, now, id!, f.grace)),
  );
  admin(
    key.command('revoke').description('revoke a key now').argument('<id>', 'key id'),
    (ctx, _config, [id]) => inTransaction(ctx, (tx, now) => revokeApiKey(tx, now, id!)),
    (r) => `API key ${r.id} revoked at ${r.revokedAt}`,
  );
}
