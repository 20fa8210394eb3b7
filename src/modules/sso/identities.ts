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
  findPeopleByEmail,
  insertIdentity,
  insertPerson,
  personHasIdentity,
  setPermissions,
  touchIdentity,
} from './queries.js';
import {
  emailDomain,
  emailIsVerified,
  type GroupPermissions,
  groupsOf,
  permissionsFromGroups,
} from './rules.js';

/*
 * Who a verified identity is: the person linked to the provider's (issuer, subject) pair; at the
 * first sign-in, the company's person with that email when the provider has verified it (then linked),
 * or a new person when the configuration creates them. Never another company's person, never by email
 * alone once linked. Then the console's usual session.
 */

type Config = Pick<
  SsoConfigsTable,
  'company_id' | 'issuer' | 'groups_claim' | 'group_permissions' | 'create_people'
>;

interface Resolved {
  userId: string;
  permissions: number[];
}

function userActor(companyId: string, userId: string, at: string) {
  return { companyId, actorType: 'user' as const, actorId: userId, at };
}

/** The person this identity signs in as, linking or creating them on the first sign-in. */
async function resolvePerson(tx: Tx, at: string, config: Config, identity: VerifiedIdentity, email: string) {
  const key = { company_id: config.company_id, issuer: config.issuer, subject: identity.subject };
  const linked = await findIdentity(tx, config.company_id, config.issuer, identity.subject);
  if (linked) {
    if (linked.active !== 1) throw new ApiError('sso_person_deactivated', 'this person has been deactivated');
    await touchIdentity(tx, key, at);
    return { userId: linked.user_id, permissions: JSON.parse(linked.permissions) as number[] };
  }
  // Linking by email needs the provider's word that the address is the person's.
  if (!emailIsVerified(identity.claims))
    throw new ApiError('sso_email_unverified', `the identity provider has not verified ${email}`);
  const people = await findPeopleByEmail(tx, config.company_id, email);
  const active = people.find((person) => person.active === 1);
  let resolved: Resolved;
  if (active) {
    if (await personHasIdentity(tx, active.id, config.issuer))
      throw new ApiError(
        'sso_identity_conflict',
        `${email} is linked to another account of this identity provider; an administrator must resolve it`,
      );
    resolved = { userId: active.id, permissions: JSON.parse(active.permissions) as number[] };
  } else if (people.length > 0) {
    throw new ApiError('sso_person_deactivated', `${email} belongs to a deactivated person`);
  } else if (config.create_people === 1) {
    resolved = await createPerson(tx, at, config, identity, email);
  } else {
    throw new ApiError(
      'sso_person_unknown',
      `no person of the company has the email ${email}; an administrator must add them first`,
    );
  }
  await insertIdentity(tx, { ...key, user_id: resolved.userId, at });
  await recordAudit(tx, {
    ...userActor(config.company_id, resolved.userId, at),
    action: 'sso.link',
    targetType: 'user',
    targetId: resolved.userId,
    details: { issuer: config.issuer, subject: identity.subject, email },
  });
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
  const permissions = mappedPermissions(config, identity) ?? [];
  await insertPerson(tx, { id, company_id: config.company_id, email, permissions, at });
  await recordAudit(tx, {
    ...userActor(config.company_id, id, at),
    action: 'user.create',
    targetType: 'user',
    targetId: id,
    details: { via: 'sso', issuer: config.issuer, email, permissions },
  });
  return { userId: id, permissions };
}

/** The permissions the groups claim maps to, or null when no mapping is configured. */
function mappedPermissions(config: Config, identity: VerifiedIdentity): number[] | null {
  const mapping = JSON.parse(config.group_permissions) as GroupPermissions;
  if (config.groups_claim === null || Object.keys(mapping).length === 0) return null;
  return permissionsFromGroups(mapping, groupsOf(identity.claims, config.groups_claim));
}

/**
 * Signs the identity in: the email checked against the allowed domains, the person resolved, their
 * permissions set from the groups mapping when one is configured, and a fresh console session.
 */
export async function signInIdentity(
  tx: Tx,
  now: number,
  config: Config,
  identity: VerifiedIdentity,
  session: { settings: SessionSettings; previousSessionId: string | null },
) {
  const at = new Date(now).toISOString();
  const email = typeof identity.claims.email === 'string' ? identity.claims.email.trim() : '';
  if (email === '') throw new ApiError('sso_response_invalid', 'the identity provider sent no email address');
  const domain = emailDomain(email);
  if (domain === null || !(await domainsOf(tx, config.company_id)).includes(domain))
    throw new ApiError('sso_email_domain_not_allowed', `${email} is outside the company's allowed domains`);
  const person = await resolvePerson(tx, at, config, identity, email);
  const mapped = mappedPermissions(config, identity);
  if (mapped !== null && mapped.join() !== [...person.permissions].sort((a, b) => a - b).join()) {
    await setPermissions(tx, person.userId, mapped);
    await recordAudit(tx, {
      ...userActor(config.company_id, person.userId, at),
      action: 'user.permissions',
      targetType: 'user',
      targetId: person.userId,
      details: { via: 'sso', from: person.permissions, to: mapped },
    });
  }
  if (session.previousSessionId) await deleteSession(tx, tokenHash(session.previousSessionId));
  await deleteExpiredSessions(tx, at, new Date(now - session.settings.idleMinutes * 60_000).toISOString());
  return startSession(tx, now, person.userId, session.settings, {
    method: 'sso',
    issuer: config.issuer,
    subject: identity.subject,
  });
}
