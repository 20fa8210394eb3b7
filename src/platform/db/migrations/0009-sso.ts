import type { Kysely } from 'kysely';

/*
 * Single sign-on with a company's OpenID Provider (issue 34).
 * - `sso_configs`: one per company: the issuer, the client id, the client secret sealed like webhook
 *   secrets (AES-256-GCM under WEBHOOK_ENCRYPTION_KEY or the database's key), the groups claim and its
 *   mapping to permission numbers (JSON), and the two switches.
 * - `sso_domains`: the email domains a configuration serves. The primary key is the database's last
 *   word that a domain leads to one company only.
 * - `sso_identities`: a person linked to the provider's (issuer, subject) pair, never to an email.
 *   The primary key keeps a pair to one person of the company; the unique index keeps a person to one
 *   subject of an issuer (a provider account recreated with the same email links nobody silently).
 * - `sso_logins`: sign-ins under way: the SHA-256 of the `state` sent to the provider and of the
 *   browser-binding cookie (the nonce and the PKCE verifier are derived from that cookie, so nothing
 *   here lets a copy of the database finish someone's sign-in), the redirect URI sent, the return
 *   address, ten minutes of life and the instant it was used (a state is used once); for a signed-in
 *   person linking their account, who they are (`link_user_id`).
 * - `sso_configs.configurer_permissions`: the permissions of whoever saved the configuration in the
 *   console (null: the operator or a super admin): what it may do to people without them (issue 34's
 *   review: link by email, or set permissions by group, only people within them; never a super admin).
 * - `console_sessions.sign_in_method`: 'password' or 'sso', so that requiring single sign-on ends
 *   password sessions and removing it (or changing the issuer) ends its sessions.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sso_configs')
    .addColumn('company_id', 'text', (c) => c.primaryKey().references('companies.id'))
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('client_secret', 'text', (c) => c.notNull())
    .addColumn('groups_claim', 'text')
    .addColumn('group_permissions', 'text', (c) => c.notNull())
    .addColumn('create_people', 'integer', (c) => c.notNull())
    .addColumn('require_sso', 'integer', (c) => c.notNull())
    .addColumn('configurer_permissions', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('sso_domains')
    .addColumn('domain', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('sso_configs.company_id'))
    .execute();
  await db.schema.createIndex('sso_domains_company_idx').on('sso_domains').column('company_id').execute();

  await db.schema
    .createTable('sso_identities')
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_sign_in_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('sso_identities_pk', ['company_id', 'issuer', 'subject'])
    .execute();
  await db.schema
    .createIndex('sso_identities_user_issuer_idx')
    .on('sso_identities')
    .columns(['user_id', 'issuer'])
    .unique()
    .execute();

  await db.schema
    .createTable('sso_logins')
    .addColumn('state_hash', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('browser_hash', 'text', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('return_to', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('link_user_id', 'text', (c) => c.references('users.id'))
    .execute();
  await db.schema.createIndex('sso_logins_expires_idx').on('sso_logins').column('expires_at').execute();

  await db.schema.alterTable('console_sessions').addColumn('sign_in_method', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('console_sessions').dropColumn('sign_in_method').execute();
  await db.schema.dropTable('sso_logins').execute();
  await db.schema.dropTable('sso_identities').execute();
  await db.schema.dropTable('sso_domains').execute();
  await db.schema.dropTable('sso_configs').execute();
}
