import type { Kysely } from 'kysely';

/*
 * The console (issue 19): a person's password (scrypt, its parameters and salt stored with it), the
 * console's sessions and the invitations that let a person choose a password. Only hashes of session
 * ids and invitation tokens are stored: a copy of the database signs nobody in. Every instance reads
 * the same sessions, so a sign-out or a deactivation holds on all of them at once.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('password_hash', 'text').execute();

  await db.schema
    .createTable('console_sessions')
    // SHA-256 of the session id (the id is 256 random bits, so a fast hash is enough).
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    // HMAC-SHA256 of the CSRF token under the session id: the token is bound to this session.
    .addColumn('csrf_token_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('console_sessions_user_idx').on('console_sessions').column('user_id').execute();
  await db.schema
    .createIndex('console_sessions_expires_idx')
    .on('console_sessions')
    .column('expires_at')
    .execute();

  await db.schema
    .createTable('console_invitations')
    // SHA-256 of the invitation token.
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema
    .createIndex('console_invitations_user_idx')
    .on('console_invitations')
    .column('user_id')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('console_invitations').execute();
  await db.schema.dropTable('console_sessions').execute();
  await db.schema.alterTable('users').dropColumn('password_hash').execute();
}
