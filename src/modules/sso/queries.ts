import { sql } from 'kysely';
import type { Executor, Tx } from '../../platform/db/database.js';
import type { SsoConfigsTable, SsoLoginsTable } from '../../platform/db/schema.js';

/* Rows of single sign-on (migration 0009): configurations, their domains, linked identities, sign-ins under way. */

export function findConfig(db: Executor, companyId: string) {
  return db.selectFrom('sso_configs').selectAll().where('company_id', '=', companyId).executeTakeFirst();
}

export async function domainsOf(db: Executor, companyId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('sso_domains')
    .select('domain')
    .where('company_id', '=', companyId)
    .orderBy('domain')
    .execute();
  return rows.map((row) => row.domain);
}

/** The company whose single sign-on serves this email domain, or undefined. */
export async function companyOfDomain(db: Executor, domain: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('sso_domains')
    .select('company_id')
    .where('domain', '=', domain)
    .executeTakeFirst();
  return row?.company_id;
}

/** The configuration's row written whole (insert, or replace the company's). */
export async function upsertConfig(tx: Tx, row: SsoConfigsTable): Promise<void> {
  await tx
    .insertInto('sso_configs')
    .values(row)
    .onConflict((oc) =>
      oc.column('company_id').doUpdateSet({
        issuer: row.issuer,
        client_id: row.client_id,
        client_secret: row.client_secret,
        groups_claim: row.groups_claim,
        group_permissions: row.group_permissions,
        create_people: row.create_people,
        require_sso: row.require_sso,
        configurer_permissions: row.configurer_permissions,
        updated_at: row.updated_at,
      }),
    )
    .execute();
}

/** The company's domains become exactly `domains` (a domain of another company: a unique violation). */
export async function replaceDomains(tx: Tx, companyId: string, domains: readonly string[]): Promise<void> {
  await tx.deleteFrom('sso_domains').where('company_id', '=', companyId).execute();
  if (domains.length > 0)
    await tx
      .insertInto('sso_domains')
      .values(domains.map((domain) => ({ domain, company_id: companyId })))
      .execute();
}

/** Which of `domains` another company's single sign-on already serves. */
export async function domainsTakenByOthers(db: Executor, companyId: string, domains: readonly string[]) {
  if (domains.length === 0) return [];
  const rows = await db
    .selectFrom('sso_domains')
    .select('domain')
    .where('domain', 'in', [...domains])
    .where('company_id', '!=', companyId)
    .execute();
  return rows.map((row) => row.domain);
}

/** Removes the configuration, its domains, its links and its sign-ins under way. */
export async function deleteConfig(tx: Tx, companyId: string): Promise<boolean> {
  await deleteIdentities(tx, companyId);
  await tx.deleteFrom('sso_domains').where('company_id', '=', companyId).execute();
  const result = await tx.deleteFrom('sso_configs').where('company_id', '=', companyId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * What decides whether this person may sign in with a password: their company's configuration when it
 * requires single sign-on (its authority), and whether they are linked to its issuer; undefined when the
 * company does not require it.
 */
export function findPasswordPolicy(db: Executor, userId: string) {
  return db
    .selectFrom('users as u')
    .innerJoin('sso_configs as s', 's.company_id', 'u.company_id')
    .leftJoin('sso_identities as i', (join) =>
      join.onRef('i.user_id', '=', 'u.id').onRef('i.issuer', '=', 's.issuer'),
    )
    .select([
      'u.email',
      'u.permissions',
      'u.super_admin',
      's.company_id',
      's.configurer_permissions',
      'i.subject',
    ])
    .where('u.id', '=', userId)
    .where('s.require_sso', '=', 1)
    .executeTakeFirst();
}

/**
 * Active people (of any company) whose email may be at one of these (normalised) domains: a superset
 * the caller narrows with `emailDomain` (second review, item 1). An ASCII address is at `d` only when it
 * ends in `@d` or `@d.` in any case; any address with a character beyond ASCII is a candidate too, since
 * IDNA maps Unicode spellings (`bücher`, a Kelvin sign, full-width letters) onto ASCII domains.
 */
export async function peopleAtDomains(db: Executor, domains: readonly string[]) {
  if (domains.length === 0) return [];
  return db
    .selectFrom('users')
    .select(['id', 'company_id', 'email', 'super_admin'])
    .where('active', '=', 1)
    .where((eb) =>
      eb.or([
        eb(sql<number>`octet_length(email)`, '<>', sql<number>`length(email)`),
        ...domains.flatMap((domain) => [
          eb(sql<string>`lower(email)`, 'like', `%@${domain}`),
          eb(sql<string>`lower(email)`, 'like', `%@${domain}.`),
        ]),
      ]),
    )
    .execute();
}

/** Removes the company's links to its provider (the issuer changed: nobody stays linked to the old one). */
export async function deleteIdentities(tx: Tx, companyId: string): Promise<void> {
  await tx.deleteFrom('sso_identities').where('company_id', '=', companyId).execute();
  await tx.deleteFrom('sso_logins').where('company_id', '=', companyId).execute();
}

/** Ends the company's console sessions begun with single sign-on. */
export async function deleteSsoSessions(tx: Tx, companyId: string): Promise<void> {
  await tx
    .deleteFrom('console_sessions')
    .where('company_id', '=', companyId)
    .where('sign_in_method', '=', 'sso')
    .execute();
}

/** The company's people who have a console session begun with a password (or before methods were kept). */
export function peopleWithPasswordSessions(db: Executor, companyId: string) {
  return db
    .selectFrom('console_sessions as c')
    .innerJoin('users as u', 'u.id', 'c.user_id')
    .select(['u.id'])
    .distinct()
    .where('c.company_id', '=', companyId)
    .where((eb) => eb.or([eb('c.sign_in_method', '=', 'password'), eb('c.sign_in_method', 'is', null)]))
    .execute();
}

/** Ends these people's console sessions begun with a password. */
export async function deletePasswordSessions(tx: Tx, userIds: readonly string[]): Promise<void> {
  if (userIds.length === 0) return;
  await tx
    .deleteFrom('console_sessions')
    .where('user_id', 'in', [...userIds])
    .where((eb) => eb.or([eb('sign_in_method', '=', 'password'), eb('sign_in_method', 'is', null)]))
    .execute();
}

export async function insertLogin(tx: Executor, row: SsoLoginsTable): Promise<void> {
  await tx.insertInto('sso_logins').values(row).execute();
}

export async function deleteExpiredLogins(db: Executor, at: string): Promise<void> {
  await db.deleteFrom('sso_logins').where('expires_at', '<=', at).execute();
}

export function findOpenLogin(db: Executor, stateHash: string, at: string) {
  return db
    .selectFrom('sso_logins')
    .selectAll()
    .where('state_hash', '=', stateHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', at)
    .executeTakeFirst();
}

/** Marks the sign-in used if nobody has; true for the one caller that did (a state is used once). */
export async function claimLogin(db: Executor, stateHash: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('sso_logins')
    .set({ used_at: at })
    .where('state_hash', '=', stateHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export function findIdentity(db: Executor, companyId: string, issuer: string, subject: string) {
  return db
    .selectFrom('sso_identities as i')
    .innerJoin('users as u', 'u.id', 'i.user_id')
    .select(['i.user_id', 'u.active', 'u.permissions', 'u.super_admin', 'u.email'])
    .where('i.company_id', '=', companyId)
    .where('i.issuer', '=', issuer)
    .where('i.subject', '=', subject)
    .executeTakeFirst();
}

/**
 * The company's people whose email's local part is, lower-cased, the canonical address's (ASCII), active
 * ones first, then oldest first: the candidates the caller compares in code on both sides' canonical
 * forms (second review, item 3).
 */
export function peopleByLocalPart(db: Executor, companyId: string, canonical: string) {
  const local = canonical.slice(0, canonical.lastIndexOf('@') + 1);
  return db
    .selectFrom('users')
    .select(['id', 'active', 'permissions', 'super_admin', 'email'])
    .where('company_id', '=', companyId)
    .where(sql<string>`lower(substr(email, 1, ${local.length}))`, '=', local)
    .orderBy('active', 'desc')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** An active person of the company, to link to a provider's account ("link my account"). */
export function findPersonToLink(db: Executor, companyId: string, userId: string) {
  return db
    .selectFrom('users')
    .select(['id', 'email', 'permissions', 'super_admin'])
    .where('id', '=', userId)
    .where('company_id', '=', companyId)
    .where('active', '=', 1)
    .executeTakeFirst();
}

/** Whether the person is already linked to a subject of this issuer (another account of the provider). */
export async function personHasIdentity(db: Executor, userId: string, issuer: string): Promise<boolean> {
  const row = await db
    .selectFrom('sso_identities')
    .select('subject')
    .where('user_id', '=', userId)
    .where('issuer', '=', issuer)
    .executeTakeFirst();
  return row !== undefined;
}

export async function insertIdentity(
  tx: Tx,
  row: { company_id: string; issuer: string; subject: string; user_id: string; at: string },
): Promise<void> {
  await tx
    .insertInto('sso_identities')
    .values({
      company_id: row.company_id,
      issuer: row.issuer,
      subject: row.subject,
      user_id: row.user_id,
      created_at: row.at,
      last_sign_in_at: row.at,
    })
    .execute();
}

export async function touchIdentity(
  tx: Tx,
  key: { company_id: string; issuer: string; subject: string },
  at: string,
): Promise<void> {
  await tx
    .updateTable('sso_identities')
    .set({ last_sign_in_at: at })
    .where('company_id', '=', key.company_id)
    .where('issuer', '=', key.issuer)
    .where('subject', '=', key.subject)
    .execute();
}

export async function insertPerson(
  tx: Tx,
  row: { id: string; company_id: string; email: string; permissions: number[]; at: string },
): Promise<void> {
  await tx
    .insertInto('users')
    .values({
      id: row.id,
      company_id: row.company_id,
      email: row.email,
      permissions: JSON.stringify(row.permissions),
      super_admin: 0,
      active: 1,
      employee_id: null,
      created_at: row.at,
      deactivated_at: null,
      password_hash: null,
    })
    .execute();
}

export async function setPermissions(tx: Tx, userId: string, permissions: number[]): Promise<void> {
  await tx
    .updateTable('users')
    .set({ permissions: JSON.stringify(permissions) })
    .where('id', '=', userId)
    .execute();
}
