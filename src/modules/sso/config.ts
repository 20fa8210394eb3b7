import { ApiError, type FieldError, validationError } from '../../domain/errors.js';
import { isUniqueViolation } from '../../platform/db/database.js';
import type { Executor } from '../../platform/db/database.js';
import { requireCompany } from '../companies/service.js';
import { auditBase, recordAudit } from '../audit/queries.js';
import { type Grantor } from '../auth/scopes.js';
import { type Actor, type AppContext, inTransaction } from '../context.js';
import { sealSecret } from '../webhooks/secrets.js';
import { issuerDiscoveryProblem } from './provider.js';
import {
  deleteConfig,
  domainsOf,
  domainsTakenByOthers,
  findConfig,
  replaceDomains,
  upsertConfig,
} from './queries.js';
import { checkDomains, checkGroupPermissions, type GroupPermissions, issuerProblem } from './rules.js';

/*
 * A company's single sign-on configuration (permission 93 in the console; the operator's
 * `company sso set|show|remove`). The client secret is sealed with the key that seals webhook secrets
 * and is never shown again; saving reads the issuer's discovery document first, so a typo is caught then.
 */

/** Where the provider sends the browser back, under the server's public address. */
export const CALLBACK_PATH = '/api/admin/v1/sso/callback';

export function redirectUriFor(baseUrl: string): string {
  return `${baseUrl.replace(/\/$/, '')}${CALLBACK_PATH}`;
}

export interface SsoConfigInput {
  issuer: string;
  clientId: string;
  /** null: keep the stored secret (only while the issuer and the client id stay the same). */
  clientSecret: string | null;
  allowedDomains: readonly string[];
  groupsClaim: string | null;
  groupPermissions: Record<string, readonly number[]>;
  createPeople: boolean;
  requireSso: boolean;
}

export interface SsoConfigView {
  issuer: string;
  clientId: string;
  clientSecretSet: true;
  allowedDomains: string[];
  groupsClaim: string | null;
  groupPermissions: GroupPermissions;
  createPeople: boolean;
  requireSso: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface SsoSettingsView {
  companyId: string;
  redirectUri: string;
  configuration: SsoConfigView | null;
}

/** The company's configuration as shown (never the secret), or null. */
export async function ssoConfigView(db: Executor, companyId: string): Promise<SsoConfigView | null> {
  const row = await findConfig(db, companyId);
  if (!row) return null;
  return {
    issuer: row.issuer,
    clientId: row.client_id,
    clientSecretSet: true,
    allowedDomains: await domainsOf(db, companyId),
    groupsClaim: row.groups_claim,
    groupPermissions: JSON.parse(row.group_permissions) as GroupPermissions,
    createPeople: row.create_people === 1,
    requireSso: row.require_sso === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** `company sso show ID` and `GET /company/sso`: the configuration and the redirect URI to register. */
export async function ssoSettings(
  db: Executor,
  companyId: string,
  baseUrl: string,
): Promise<SsoSettingsView> {
  const company = await requireCompany(db, companyId);
  return {
    companyId: company.id,
    redirectUri: redirectUriFor(baseUrl),
    configuration: await ssoConfigView(db, company.id),
  };
}

interface CheckedInput {
  issuer: string;
  clientId: string;
  domains: string[];
  groupsClaim: string | null;
  mapping: GroupPermissions;
}

/** Every field's rule at once: 422 validation_failed naming each field that breaks one. */
function checkInput(input: SsoConfigInput, grantor: Grantor | null): CheckedInput {
  const errors: FieldError[] = [];
  const issuer = input.issuer.trim();
  const problem = issuerProblem(issuer);
  if (problem) errors.push({ field: 'issuer', message: problem, code: 'invalid' });
  const clientId = input.clientId.trim();
  if (clientId === '') errors.push({ field: 'clientId', message: 'must not be empty', code: 'required' });
  if (input.clientSecret !== null && input.clientSecret.trim() === '')
    errors.push({ field: 'clientSecret', message: 'must not be empty', code: 'required' });
  const domains = checkDomains(input.allowedDomains);
  errors.push(...domains.errors);
  const groupsClaim = input.groupsClaim?.trim() || null;
  const mapping = checkGroupPermissions(input.groupPermissions);
  errors.push(...mapping.errors);
  if (groupsClaim === null && Object.keys(mapping.mapping).length > 0)
    errors.push({
      field: 'groupsClaim',
      message: 'a group mapping needs the groups claim',
      code: 'required',
    });
  if (grantor && !grantor.superAdmin) {
    // Nobody hands out through the mapping a permission they do not hold themselves.
    const beyond = [...new Set(Object.values(mapping.mapping).flat())].filter(
      (p) => !grantor.permissions.includes(p),
    );
    if (beyond.length > 0)
      errors.push({
        field: 'groupPermissions',
        message: `you may map only permissions you hold yourself; not ${beyond.sort((a, b) => a - b).join(', ')}`,
        code: 'forbidden',
      });
  }
  if (errors.length > 0) throw validationError(errors);
  return { issuer, clientId, domains: domains.domains, groupsClaim, mapping: mapping.mapping };
}

function domainTaken(domains: readonly string[]): ApiError {
  const message = `already used by another company's single sign-on: ${domains.join(', ')}`;
  return new ApiError('sso_domain_taken', message, [
    { field: 'allowedDomains', message, code: 'already_exists' },
  ]);
}

/**
 * Saves the company's configuration whole (`company sso set`, `PUT /company/sso`). `grantor`: the
 * console's person, who may map only permissions they hold; null for the operator.
 */
export async function setSsoConfig(
  ctx: AppContext,
  key: Buffer,
  companyId: string,
  input: SsoConfigInput,
  actor: Actor,
  grantor: Grantor | null,
): Promise<SsoConfigView> {
  const checked = checkInput(input, grantor);
  const company = await requireCompany(ctx.database.db, companyId);
  const stored = await findConfig(ctx.database.db, company.id);
  let sealed: string;
  if (input.clientSecret !== null) sealed = sealSecret(key, input.clientSecret);
  else if (stored && stored.issuer === checked.issuer && stored.client_id === checked.clientId)
    sealed = stored.client_secret;
  else {
    // A stored secret never follows the configuration to another issuer or client.
    const message = stored
      ? 'a new issuer or client id needs its client secret'
      : 'the client secret is required';
    throw validationError([{ field: 'clientSecret', message, code: 'required' }], message);
  }
  const taken = await domainsTakenByOthers(ctx.database.db, company.id, checked.domains);
  if (taken.length > 0) throw domainTaken(taken);
  // Outside any transaction: the provider's answer may take seconds.
  const problem = await issuerDiscoveryProblem(checked.issuer);
  if (problem)
    throw validationError([{ field: 'issuer', message: problem, code: 'discovery_failed' }], problem);
  try {
    await inTransaction(ctx, async (tx, now) => {
      const at = new Date(now).toISOString();
      await upsertConfig(tx, {
        company_id: company.id,
        issuer: checked.issuer,
        client_id: checked.clientId,
        client_secret: sealed,
        groups_claim: checked.groupsClaim,
        group_permissions: JSON.stringify(checked.mapping),
        create_people: input.createPeople ? 1 : 0,
        require_sso: input.requireSso ? 1 : 0,
        created_at: stored?.created_at ?? at,
        updated_at: at,
      });
      await replaceDomains(tx, company.id, checked.domains);
      await recordAudit(tx, {
        ...auditBase(company.id, at, actor),
        action: 'sso.configure',
        targetType: 'company',
        targetId: company.id,
        details: {
          issuer: checked.issuer,
          clientId: checked.clientId,
          clientSecretChanged: input.clientSecret !== null,
          allowedDomains: checked.domains,
          groupsClaim: checked.groupsClaim,
          groupPermissions: checked.mapping,
          createPeople: input.createPeople,
          requireSso: input.requireSso,
        },
      });
    });
  } catch (error) {
    // Another company took one of the domains since the look above: the primary key said no.
    if (isUniqueViolation(error))
      throw domainTaken(await domainsTakenByOthers(ctx.database.db, company.id, checked.domains));
    throw error;
  }
  return (await ssoConfigView(ctx.database.db, company.id))!;
}

/** Removes the configuration with its domains, links and sign-ins under way (`company sso remove`). */
export async function removeSsoConfig(ctx: AppContext, companyId: string, actor: Actor) {
  const company = await requireCompany(ctx.database.db, companyId);
  const removed = await inTransaction(ctx, async (tx, now) => {
    const gone = await deleteConfig(tx, company.id);
    if (gone)
      await recordAudit(tx, {
        ...auditBase(company.id, new Date(now).toISOString(), actor),
        action: 'sso.remove',
        targetType: 'company',
        targetId: company.id,
      });
    return gone;
  });
  return { companyId: company.id, removed };
}
