import { sql } from 'kysely';
import { type Executor, type Tx } from '../../platform/db/database.js';
import { type ConsoleSessionsTable } from '../../platform/db/schema.js';

/** Active people of any company with this email (case-insensitive) who have a password. */
export function findSignInCandidates(db: Executor, email: string) {
  return db
    .selectFrom('users')
    .select(['id', 'company_id', 'password_hash', 'created_at'])
    .where(sql<string>`lower(email)`, '=', email.toLowerCase())
    .where('active', '=', 1)
    .where('password_hash', 'is not', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** The person behind a session with their company, or undefined. */
export function findSessionPerson(db: Executor, idHash: string) {
  return db
    .selectFrom('console_sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .innerJoin('companies as c', 'c.id', 's.company_id')
    .select([
      's.id_hash',
      's.csrf_token_hash',
      's.created_at',
      's.last_seen_at',
      's.expires_at',
      'u.id as user_id',
      'u.email',
      'u.permissions',
      'u.super_admin',
      'u.active',
      'u.employee_id',
      'u.company_id as user_company_id',
      'c.id as company_id',
      'c.name as company_name',
      'c.time_zone as company_time_zone',
    ])
    .where('s.id_hash', '=', idHash)
    .executeTakeFirst();
}

export function findPerson(db: Executor, userId: string) {
  return db
    .selectFrom('users as u')
    .innerJoin('companies as c', 'c.id', 'u.company_id')
    .select([
      'u.id as user_id',
      'u.email',
      'u.permissions',
      'u.super_admin',
      'u.active',
      'u.employee_id',
      'c.id as company_id',
      'c.name as company_name',
      'c.time_zone as company_time_zone',
    ])
    .where('u.id', '=', userId)
    .executeTakeFirst();
}

export async function insertSession(tx: Tx, row: ConsoleSessionsTable): Promise<void> {
  await tx.insertInto('console_sessions').values(row).execute();
}

export async function deleteSession(db: Executor, idHash: string): Promise<void> {
  await db.deleteFrom('console_sessions').where('id_hash', '=', idHash).execute();
}

export async function deleteSessionsOfUser(db: Executor, userId: string): Promise<void> {
  await db.deleteFrom('console_sessions').where('user_id', '=', userId).execute();
}

export async function touchSession(db: Executor, idHash: string, at: string): Promise<void> {
  await db.updateTable('console_sessions').set({ last_seen_at: at }).where('id_hash', '=', idHash).execute();
}

/** Sessions past their absolute end or idle since before `idleBefore`. */
export async function deleteExpiredSessions(db: Executor, at: string, idleBefore: string): Promise<void> {
  await db
    .deleteFrom('console_sessions')
    .where((eb) => eb.or([eb('expires_at', '<=', at), eb('last_seen_at', '<', idleBefore)]))
    .execute();
}

export async function insertInvitation(
  tx: Tx,
  row: { token_hash: string; user_id: string; created_at: string; expires_at: string },
): Promise<void> {
  await tx
    .insertInto('console_invitations')
    .values({ ...row, used_at: null })
    .execute();
}

/** Whether an invitation is unused and unexpired now (a cheap look before a password is hashed). */
export async function invitationIsOpen(db: Executor, tokenHash: string, at: string): Promise<boolean> {
  const row = await db
    .selectFrom('console_invitations')
    .select(['user_id'])
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', at)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Ends every open invitation of a person: a newer link, an accepted one or a password set by the CLI
 * replaces them, so an older link that leaked is no password reset for the rest of its 72 hours.
 */
export async function endInvitationsOfUser(tx: Tx, userId: string, at: string): Promise<void> {
  await tx
    .updateTable('console_invitations')
    .set({ used_at: at })
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .execute();
}

/**
 * Ends every open invitation of the persons linked to an employee (the employee was deleted: a link
 * handed out by "invite everyone" must not sign anyone in to a self-service that no longer exists).
 */
export async function endInvitationsOfEmployee(tx: Tx, employeeId: string, at: string): Promise<void> {
  await tx
    .updateTable('console_invitations')
    .set({ used_at: at })
    .where('used_at', 'is', null)
    .where('user_id', 'in', (eb) => eb.selectFrom('users').select('id').where('employee_id', '=', employeeId))
    .execute();
}

/** Marks the invitation used if it is still unused and unexpired; the user id when it was, else undefined. */
export async function claimInvitation(tx: Tx, tokenHash: string, at: string): Promise<string | undefined> {
  const row = await tx
    .selectFrom('console_invitations')
    .select(['user_id'])
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', at)
    .executeTakeFirst();
  if (!row) return undefined;
  // The conditional update is the last word: of two accepts at once, one changes the row.
  const result = await tx
    .updateTable('console_invitations')
    .set({ used_at: at })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1 ? row.user_id : undefined;
}

export async function setPasswordHash(tx: Tx, userId: string, hash: string): Promise<void> {
  await tx.updateTable('users').set({ password_hash: hash }).where('id', '=', userId).execute();
}
