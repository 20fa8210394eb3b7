import type { Command } from 'commander';
import { invalid, requireOnOff } from '../../shared/input-checks.js';
import { CLI_ACTOR } from '../../modules/context.js';
import {
  removeSsoConfig,
  setSsoConfig,
  ssoSettings,
  type SsoSettingsView,
} from '../../modules/sso/config.js';
import { parseGroupPermissions } from '../../modules/sso/rules.js';
import { resolveUrls } from '../../platform/config.js';
import { loadAppSecret } from '../../platform/app-secrets.js';
import { admin, readHiddenLine } from '../io.js';

function describeSettings(view: SsoSettingsView): string {
  const lines = [`company ${view.companyId}`, `redirect URI to register: ${view.redirectUri}`];
  const c = view.configuration;
  if (c === null) return [...lines, 'single sign-on: not configured'].join('\n');
  const mapping = Object.entries(c.groupPermissions)
    .map(([group, permissions]) => `${group}=${permissions.join('+')}`)
    .join(',');
  return [
    ...lines,
    `issuer: ${c.issuer}`,
    `client id: ${c.clientId} (secret stored encrypted, not shown)`,
    `allowed domains: ${c.allowedDomains.join(', ')}`,
    `groups claim: ${c.groupsClaim ?? 'none'}${mapping ? `, mapping ${mapping}` : ''}`,
    `create people: ${c.createPeople ? 'on' : 'off'}, password sign-in refused: ${c.requireSso ? 'on' : 'off'}`,
  ].join('\n');
}

function groupMapping(text: string | undefined): Record<string, number[]> {
  if (text === undefined) return {};
  try {
    return parseGroupPermissions(text);
  } catch (error) {
    throw invalid((error as Error).message);
  }
}

/** `company sso set|show|remove`: a company's single sign-on with its OpenID Provider. */
export function registerSsoCommands(program: Command): void {
  const company = program.commands.find((c) => c.name() === 'company');
  if (!company) throw new Error('the company command must be registered first');
  const sso = company.command('sso').description("a company's single sign-on (OpenID Connect)");
  admin(
    sso
      .command('set')
      .description(
        'set the whole configuration; the client secret is read from standard input (stored encrypted, never shown)',
      )
      .argument('<id>', 'company id')
      .requiredOption('--issuer <url>', "the provider's issuer URL (https; http only on loopback)")
      .requiredOption('--client-id <id>', 'the client id registered at the provider')
      .requiredOption('--allowed-domains <d,d>', 'comma-separated email domains that sign in here')
      .option('--groups-claim <name>', 'the ID token claim that lists the person’s groups')
      .option(
        '--group-permissions <map>',
        "group=N+N,other=N: permissions per group, e.g. 'admins=90+93,staff=47'",
      )
      .option('--create-people <on|off>', 'create unknown people at their first sign-in (default off)')
      .option(
        '--require <on|off>',
        "refuse password sign-in for the company's people, super admins excepted (default off)",
      ),
    async (ctx, config, [id], f) => {
      const createPeople =
        f.createPeople === undefined ? false : requireOnOff(f.createPeople, 'create people');
      const requireSso = f.require === undefined ? false : requireOnOff(f.require, 'require');
      const groupPermissions = groupMapping(f.groupPermissions);
      const clientSecret = await readHiddenLine('Client secret (not shown): ');
      if (clientSecret.trim() === '')
        throw invalid('the client secret is read from standard input; none was given');
      const key =
        config.webhooks.encryptionKey ??
        (await loadAppSecret(ctx.database.db, 'webhook_encryption_key', ctx.now()));
      await setSsoConfig(
        ctx,
        { key, allowedHosts: config.ssoAllowedHosts },
        id!,
        {
          issuer: f.issuer!,
          clientId: f.clientId!,
          clientSecret,
          allowedDomains: f.allowedDomains!.split(','),
          groupsClaim: f.groupsClaim ?? null,
          groupPermissions,
          createPeople,
          requireSso,
        },
        CLI_ACTOR,
        null,
      );
      return ssoSettings(ctx.database.db, id!, resolveUrls(config, config.port).publicBaseUrl);
    },
    describeSettings,
  );
  admin(
    sso
      .command('show')
      .description('the configuration (never the secret) and the redirect URI to register at the provider')
      .argument('<id>', 'company id'),
    (ctx, config, [id]) => ssoSettings(ctx.database.db, id!, resolveUrls(config, config.port).publicBaseUrl),
    describeSettings,
  );
  admin(
    sso
      .command('remove')
      .description('remove the configuration, its domains and the links of people to the provider')
      .argument('<id>', 'company id'),
    (ctx, _config, [id]) => removeSsoConfig(ctx, id!, CLI_ACTOR),
    (r) =>
      r.removed
        ? `single sign-on removed from company ${r.companyId}`
        : `company ${r.companyId} had no single sign-on`,
  );
}
