import { ApiError, type FieldError, validationError } from '../../domain/errors.js';
import { isUniqueViolation, type Tx } from '../../platform/db/database.js';
import type { Executor } from '../../platform/db/database.js';
import type { OutboundPolicy } from '../webhooks/address-guard.js';
import { requireCompany } from '../companies/service.js';
import { auditBase, recordAudit } from '../audit/queries.js';
import { type Grantor } from '../auth/scopes.js';
import { type Actor, type AppContext, inTransaction } from '../context.js';
import { sealSecret } from '../webhooks/secrets.js';
import { passwordSignInRefused } from './password-policy.js';
import { issuerDiscoveryProblem, SsoProblem } from './provider.js';
import {
  deleteConfig,
  deleteIdentities,
  deletePasswordSessions,
  deleteSsoSessions,
  domainsOf,
  domainsTakenByOthers,
  findConfig,
  peopleAtDomains,
  peopleWithPasswordSessions,
  replaceDomains,
  upsertConfig,
} from './queries.js';
import {
  checkDomains,
  checkGroupPermissions,
  emailDomain,
  type GroupPermissions,
  issuerProblem,
} from './rules.js';

/*
 * A company's single sign-on configuration (permission 93 in the console; the operator's
 * `company sso set|show|remove`). The client secret is sealed with the key that seals webhook secrets
 * and is never shown again; saving reads the issuer's discovery document first, so a typo is caught then.
 */

/** Where the provider sends the browser back, under the server's public address. */
export const CALLBACK_PATH = '/api/admin/v1/sso/callback';

/** What the provider conversation needs from the server: the key that seals secrets, the address guard's list. */
export interface SsoKeys {
  /** The key that seals client secrets (the webhook secrets' key). */
  key: Buffer;
  /** SSO_ALLOWED_HOSTS: addresses a provider may resolve to although not public. */
  allowedHosts: readonly string[];
}

/** The address guard's policy for a provider (plain http is refused except to loopback by the fetch). */
export function policyOf(keys: Pick<SsoKeys, 'allowedHosts'>): OutboundPolicy {
  return { allowHttp: true, allowedHosts: keys.allowedHosts };
}

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

/** A configuration's authority over people: null for the operator (no grantor) or a super admin. */
function authorityOfGrantor(grantor: Grantor | null): number[] | null {
  return grantor === null || grantor.superAdmin ? null : [...grantor.permissions].sort((a, b) => a - b);
}

/**
 * The domains this configuration may not claim (issue 34's review, item 2): one used by a person of
 * another company (their sign-ins would be sent to this company's provider), or by a super admin of this
 * company unless the configuration's author is a super admin or the operator. Addresses are compared by
 * their normalised domain (second review, item 1: `bob@bücher.example`, `carl@beta.example.` count).
 * And, for a console author who is not a super admin (second review, item 4), a domain the company does
 * not serve yet must already be used by at least one of its active people: nobody claims another
 * organisation's domain first. The operator's CLI and super admins may name any non-public domain.
 */
async function domainsInUse(
  db: Executor,
  companyId: string,
  domains: readonly string[],
  authority: number[] | null,
  mustBeUsed: readonly string[],
): Promise<ApiError | null> {
  const others = new Set<string>();
  const superAdmins = new Set<string>();
  const ours = new Set<string>();
  for (const person of await peopleAtDomains(db, domains)) {
    const domain = emailDomain(person.email);
    if (domain === null || !domains.includes(domain)) continue;
    if (person.company_id !== companyId) others.add(domain);
    else {
      ours.add(domain);
      if (person.super_admin === 1 && authority !== null) superAdmins.add(domain);
    }
  }
  if (others.size > 0 || superAdmins.size > 0) {
    const parts = [
      ...(others.size > 0 ? [`used by people of another company: ${[...others].sort().join(', ')}`] : []),
      ...(superAdmins.size > 0
        ? [`used by a super admin (only a super admin may claim it): ${[...superAdmins].sort().join(', ')}`]
        : []),
    ];
    const message = parts.join('; ');
    return new ApiError('sso_domain_in_use', message, [{ field: 'allowedDomains', message, code: 'in_use' }]);
  }
  const unproven = mustBeUsed.filter((domain) => !ours.has(domain));
  if (unproven.length === 0) return null;
  const message = `no active person of the company has an email address at ${unproven.join(', ')}; add one first, or ask the operator`;
  return new ApiError('sso_domain_unproven', message, [
    { field: 'allowedDomains', message, code: 'unproven' },
  ]);
}

/** The client secret to store: the new one sealed, or the stored one while issuer and client stay. */
function secretToStore(
  key: Buffer,
  input: SsoConfigInput,
  checked: CheckedInput,
  stored: { issuer: string; client_id: string; client_secret: string } | undefined,
): string {
  if (input.clientSecret !== null) return sealSecret(key, input.clientSecret);
  if (stored && stored.issuer === checked.issuer && stored.client_id === checked.clientId)
    return stored.client_secret;
  // A stored secret never follows the configuration to another issuer or client.
  const message = stored
    ? 'a new issuer or client id needs its client secret'
    : 'the client secret is required';
  throw validationError([{ field: 'clientSecret', message, code: 'required' }], message);
}

/**
 * Saves the company's configuration whole (`company sso set`, `PUT /company/sso`). `grantor`: the
 * console's person, who may map only permissions they hold and whose permissions become the
 * configuration's authority; null for the operator.
 */
export async function setSsoConfig(
  ctx: AppContext,
  keys: SsoKeys,
  companyId: string,
  input: SsoConfigInput,
  actor: Actor,
  grantor: Grantor | null,
): Promise<SsoConfigView> {
  const checked = checkInput(input, grantor);
  const authority = authorityOfGrantor(grantor);
  const company = await requireCompany(ctx.database.db, companyId);
  const stored = await findConfig(ctx.database.db, company.id);
  const sealed = secretToStore(keys.key, input, checked, stored);
  const taken = await domainsTakenByOthers(ctx.database.db, company.id, checked.domains);
  if (taken.length > 0) throw domainTaken(taken);
  // Domains the company does not serve yet, which a console author who is not a super admin proves.
  const served = stored ? await domainsOf(ctx.database.db, company.id) : [];
  const mustBeUsed =
    grantor !== null && !grantor.superAdmin ? checked.domains.filter((d) => !served.includes(d)) : [];
  const inUse = await domainsInUse(ctx.database.db, company.id, checked.domains, authority, mustBeUsed);
  if (inUse) throw inUse;
  // Outside any transaction: the provider's answer may take seconds.
  const problem = await issuerDiscoveryProblem(checked.issuer, policyOf(keys));
  if (problem)
    throw new SsoProblem('validation_failed', problem.message, problem.logDetail, [
      { field: 'issuer', message: problem.message, code: 'discovery_failed' },
    ]);
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
        configurer_permissions: authority === null ? null : JSON.stringify(authority),
        created_at: stored?.created_at ?? at,
        updated_at: at,
      });
      await replaceDomains(tx, company.id, checked.domains);
      const ended = await endWhatNoLongerHolds(tx, company.id, stored, checked.issuer, input.requireSso);
      await recordAudit(tx, {
        ...auditBase(company.id, at, actor),
        action: 'sso.configure',
        targetType: 'company',
        targetId: company.id,
        details: { ...auditDetails(input, checked, authority), ...ended },
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

function auditDetails(input: SsoConfigInput, checked: CheckedInput, authority: number[] | null) {
  return {
    issuer: checked.issuer,
    clientId: checked.clientId,
    clientSecretChanged: input.clientSecret !== null,
    allowedDomains: checked.domains,
    groupsClaim: checked.groupsClaim,
    groupPermissions: checked.mapping,
    createPeople: input.createPeople,
    requireSso: input.requireSso,
    authority,
  };
}

/**
 * What a saved configuration ends (issue 34's review, items 1 and 8): a new issuer drops every link to
 * the old one and ends the sessions it began; switching "require" on ends the password sessions of the
 * people it now refuses a password.
 */
async function endWhatNoLongerHolds(
  tx: Tx,
  companyId: string,
  stored: { issuer: string; require_sso: number } | undefined,
  issuer: string,
  requireSso: boolean,
) {
  const issuerChanged = stored !== undefined && stored.issuer !== issuer;
  if (issuerChanged) {
    await deleteIdentities(tx, companyId);
    await deleteSsoSessions(tx, companyId);
  }
  const ended: string[] = [];
  if (requireSso && stored?.require_sso !== 1)
    for (const { id } of await peopleWithPasswordSessions(tx, companyId))
      if (await passwordSignInRefused(tx, id)) ended.push(id);
  await deletePasswordSessions(tx, ended);
  return { linksDropped: issuerChanged, passwordSessionsEnded: ended.length };
}

/**
 * Removes the configuration with its domains, links and sign-ins under way (`company sso remove`); the
 * sessions single sign-on began end with it.
 */
export async function removeSsoConfig(ctx: AppContext, companyId: string, actor: Actor) {
  const company = await requireCompany(ctx.database.db, companyId);
  const removed = await inTransaction(ctx, async (tx, now) => {
    const gone = await deleteConfig(tx, company.id);
    await deleteSsoSessions(tx, company.id);
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
