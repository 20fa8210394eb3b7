import { ApiError } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import type { Tx } from '../../platform/db/database.js';
import type { SsoConfigsTable } from '../../platform/db/schema.js';
import { recordAudit } from '../audit/queries.js';
import { tokenHash } from '../people/passwords.js';
import { deleteExpiredSessions, deleteSession } from '../people/queries.js';
import { type SessionSettings, startSession } from '../people/service.js';
import type { VerifiedIdentity } from './provider.js';
import {
  domainsOf,
  findIdentity,
  findPersonToLink,
  insertIdentity,
  insertPerson,
  peopleByLocalPart,
  personHasIdentity,
  setPermissions,
  touchIdentity,
} from './queries.js';
import {
  authorityOf,
  canonicalEmail,
  emailDomain,
  emailIsVerified,
  type GroupPermissions,
  grantable,
  groupsOf,
  permissionsFromGroups,
  withinAuthority,
} from './rules.js';

/*
 * Who a verified identity is: the person linked to the provider's (issuer, subject) pair; at the first
 * sign-in, the company's person with that email when the provider has verified it and the configuration
 * has authority over them (never a super admin, never someone holding a permission its author did not
 * hold: they link from a signed-in session), or a new person when the configuration creates them. Never
 * another company's person, never by email alone once linked. Then the console's usual session.
 */

export type Config = Pick<
  SsoConfigsTable,
  'company_id' | 'issuer' | 'groups_claim' | 'group_permissions' | 'create_people' | 'configurer_permissions'
>;

interface Resolved {
  userId: string;
  permissions: number[];
  superAdmin: boolean;
}

function userActor(companyId: string, userId: string, at: string) {
  return { companyId, actorType: 'user' as const, actorId: userId, at };
}

function keyOf(config: Config, identity: VerifiedIdentity) {
  return { company_id: config.company_id, issuer: config.issuer, subject: identity.subject };
}

async function recordLink(
  tx: Tx,
  at: string,
  config: Config,
  identity: VerifiedIdentity,
  userId: string,
  via: string,
) {
  await insertIdentity(tx, { ...keyOf(config, identity), user_id: userId, at });
  await recordAudit(tx, {
    ...userActor(config.company_id, userId, at),
    action: 'sso.link',
    targetType: 'user',
    targetId: userId,
    details: { issuer: config.issuer, subject: identity.subject, via },
  });
}

/** The person this identity signs in as, linking or creating them on the first sign-in. */
async function resolvePerson(
  tx: Tx,
  at: string,
  config: Config,
  identity: VerifiedIdentity,
  canonical: { email: string; asciiLocal: boolean },
) {
  const linked = await findIdentity(tx, config.company_id, config.issuer, identity.subject);
  if (linked) {
    if (linked.active !== 1) throw new ApiError('sso_person_deactivated', 'this person has been deactivated');
    await touchIdentity(tx, keyOf(config, identity), at);
    const permissions = JSON.parse(linked.permissions) as number[];
    return { userId: linked.user_id, permissions, superAdmin: linked.super_admin === 1 };
  }
  // Linking by email needs the provider's word that the address is the person's.
  if (!emailIsVerified(identity.claims))
    throw new ApiError('sso_email_unverified', 'the identity provider has not verified the email address');
  // A local part beyond ASCII has no one case-insensitive form (second review, item 3): such an
  // address is never matched, nor made a new person; its owner links from a signed-in session.
  if (!canonical.asciiLocal)
    throw new ApiError(
      'sso_link_required',
      'sign in with your password once and link your account to the identity provider',
    );
  const email = canonical.email;
  // Both sides in canonical form, compared here: `Dora@ACME.example.` is `dora@acme.example`.
  const people = (await peopleByLocalPart(tx, config.company_id, email)).filter(
    (person) => canonicalEmail(person.email)?.email === email,
  );
  const active = people.find((person) => person.active === 1);
  let resolved: Resolved;
  if (active) {
    resolved = {
      userId: active.id,
      permissions: JSON.parse(active.permissions) as number[],
      superAdmin: active.super_admin === 1,
    };
    if (await personHasIdentity(tx, active.id, config.issuer))
      throw new ApiError(
        'sso_identity_conflict',
        'this person is linked to another account of this identity provider; an administrator must resolve it',
      );
    // Whoever configured the provider may not take over someone with rights they lack (review, item 1).
    if (!withinAuthority(resolved, authorityOf(config.configurer_permissions)))
      throw new ApiError(
        'sso_link_required',
        'sign in with your password once and link your account to the identity provider',
      );
  } else if (people.length > 0) {
    throw new ApiError('sso_person_deactivated', 'this person has been deactivated');
  } else if (config.create_people === 1) {
    resolved = await createPerson(tx, at, config, identity, email);
  } else {
    throw new ApiError(
      'sso_person_unknown',
      'no person of the company has this email address; an administrator must add them first',
    );
  }
  await recordLink(tx, at, config, identity, resolved.userId, 'email');
  return resolved;
}

/**
 * "Link my account": the signed-in person `userId` links this identity to themselves. The provider must
 * have verified that the account's email is the person's; the pair and the person must be free.
 */
async function linkPerson(
  tx: Tx,
  at: string,
  config: Config,
  identity: VerifiedIdentity,
  canonical: { email: string; asciiLocal: boolean },
  userId: string,
): Promise<Resolved> {
  const person = await findPersonToLink(tx, config.company_id, userId);
  if (!person) throw new ApiError('sso_person_deactivated', 'this person has been deactivated');
  const resolved = {
    userId,
    permissions: JSON.parse(person.permissions) as number[],
    superAdmin: person.super_admin === 1,
  };
  const linked = await findIdentity(tx, config.company_id, config.issuer, identity.subject);
  if (linked?.user_id === userId) {
    await touchIdentity(tx, keyOf(config, identity), at);
    return resolved;
  }
  if (linked || (await personHasIdentity(tx, userId, config.issuer)))
    throw new ApiError(
      'sso_identity_conflict',
      'this account of the identity provider, or this person, is already linked to another',
    );
  // Both sides in canonical form; a local part beyond ASCII must be the very same characters.
  if (!emailIsVerified(identity.claims) || canonical.email !== canonicalEmail(person.email)?.email)
    throw new ApiError(
      'sso_link_mismatch',
      "the identity provider's account does not have this person's verified email address",
    );
  await recordLink(tx, at, config, identity, userId, 'session');
  return resolved;
}

async function createPerson(
  tx: Tx,
  at: string,
  config: Config,
  identity: VerifiedIdentity,
  email: string,
): Promise<Resolved> {
  const id = newId();
  const permissions = grantable(
    mappedPermissions(config, identity) ?? [],
    authorityOf(config.configurer_permissions),
  );
  await insertPerson(tx, { id, company_id: config.company_id, email, permissions, at });
  await recordAudit(tx, {
    ...userActor(config.company_id, id, at),
    action: 'user.create',
    targetType: 'user',
    targetId: id,
    details: { via: 'sso', issuer: config.issuer, permissions },
  });
  return { userId: id, permissions, superAdmin: false };
}

/** The permissions the groups claim maps to, or null when no mapping is configured. */
function mappedPermissions(config: Config, identity: VerifiedIdentity): number[] | null {
  const mapping = JSON.parse(config.group_permissions) as GroupPermissions;
  if (config.groups_claim === null || Object.keys(mapping).length === 0) return null;
  return permissionsFromGroups(mapping, groupsOf(identity.claims, config.groups_claim));
}

/**
 * The groups mapping applied at a sign-in (review, item 5): only to people within the configuration's
 * authority (never a super admin, never someone holding a permission its author did not hold), and only
 * with permissions that authority holds.
 */
async function applyMapping(
  tx: Tx,
  at: string,
  config: Config,
  identity: VerifiedIdentity,
  person: Resolved,
) {
  const mapped = mappedPermissions(config, identity);
  const authority = authorityOf(config.configurer_permissions);
  if (mapped === null || !withinAuthority(person, authority)) return;
  const next = grantable(mapped, authority);
  if (next.join() === [...person.permissions].sort((a, b) => a - b).join()) return;
  await setPermissions(tx, person.userId, next);
  await recordAudit(tx, {
    ...userActor(config.company_id, person.userId, at),
    action: 'user.permissions',
    targetType: 'user',
    targetId: person.userId,
    details: { via: 'sso', from: person.permissions, to: next },
  });
}

/** A verified identity's email in canonical form (`canonicalEmail`), inside the company's allowed domains. */
export async function allowedEmail(
  tx: Tx,
  config: Config,
  identity: VerifiedIdentity,
): Promise<{ email: string; asciiLocal: boolean }> {
  const email = typeof identity.claims.email === 'string' ? identity.claims.email.trim() : '';
  if (email === '') throw new ApiError('sso_response_invalid', 'the identity provider sent no email address');
  const canonical = canonicalEmail(email);
  if (canonical === null || !(await domainsOf(tx, config.company_id)).includes(emailDomain(email)!))
    throw new ApiError(
      'sso_email_domain_not_allowed',
      "the email address is outside the company's allowed domains",
    );
  return canonical;
}

/**
 * Signs the identity in: the email checked against the allowed domains, the person resolved (or, for
 * "link my account", the signed-in person linked), their permissions set from the groups mapping when
 * one is configured and allowed, and a fresh console session.
 */
export async function signInIdentity(
  tx: Tx,
  now: number,
  config: Config,
  identity: VerifiedIdentity,
  session: { settings: SessionSettings; previousSessionId: string | null; linkUserId: string | null },
) {
  const at = new Date(now).toISOString();
  const canonical = await allowedEmail(tx, config, identity);
  const person =
    session.linkUserId === null
      ? await resolvePerson(tx, at, config, identity, canonical)
      : await linkPerson(tx, at, config, identity, canonical, session.linkUserId);
  await applyMapping(tx, at, config, identity, person);
  if (session.previousSessionId) await deleteSession(tx, tokenHash(session.previousSessionId));
  await deleteExpiredSessions(tx, at, new Date(now - session.settings.idleMinutes * 60_000).toISOString());
  return startSession(tx, now, person.userId, session.settings, {
    method: 'sso',
    details: { method: 'sso', issuer: config.issuer, subject: identity.subject },
  });
}
