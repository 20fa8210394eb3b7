import type { ConsolePerson } from './person.js';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../../domain/errors.js';
import { recordAudit } from '../audit/queries.js';
import { type Actor, type AppContext, CLI_ACTOR } from '../context.js';
import {
  dummyPasswordHash,
  hashPassword,
  randomToken,
  requireAcceptablePassword,
  tokenHash,
  verifyPassword,
} from './passwords.js';
import {
  claimInvitation,
  deleteExpiredSessions,
  deleteSession,
  deleteSessionsOfUser,
  endInvitationsOfUser,
  findPerson,
  findSessionPerson,
  findSignInCandidates,
  insertInvitation,
  insertSession,
  invitationIsOpen,
  setPasswordHash,
  touchSession,
} from './queries.js';
import { requireUser } from './users.js';
import { passwordSignInRefused } from '../sso/password-policy.js';
import { type Tx } from '../../platform/db/database.js';
import { invalid } from '../../shared/input-checks.js';

/** How long console sessions live (CONSOLE_SESSION_IDLE_MINUTES, CONSOLE_SESSION_MAX_HOURS). */
export interface SessionSettings {
  idleMinutes: number;
  maxHours: number;
}

/** A session found for a request: the person, and what the CSRF check compares with. */
export interface ResolvedSession {
  person: ConsolePerson;
  csrfTokenHash: string;
}

export const INVITATION_HOURS = 72;
/** last_seen_at is written at most this often: an idle timeout of minutes needs no write per request. */
const TOUCH_EVERY_MS = 60_000;

/**
 * The CSRF token of a session: an HMAC of a fixed label under the session id. Bound to its session
 * (another session's token never matches), recomputable from the cookie, and telling nothing about
 * the id it is derived from.
 */
export function csrfTokenFor(sessionId: string): string {
  return createHmac('sha256', sessionId).update('punchclock console csrf v1').digest('base64url');
}

/** Whether `token` (the X-CSRF-Token header) is the session's CSRF token, compared in constant time. */
export function csrfTokenMatches(session: ResolvedSession, token: string | undefined): boolean {
  if (token === undefined || token === '' || token.length > 200) return false;
  const given = Buffer.from(tokenHash(token));
  const expected = Buffer.from(session.csrfTokenHash);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export function hasPermission(person: Pick<ConsolePerson, 'permissions' | 'superAdmin'>, permission: number) {
  return person.superAdmin || person.permissions.includes(permission);
}

function personOf(
  row: {
    user_id: string;
    email: string;
    permissions: string;
    super_admin: number;
    employee_id: string | null;
    company_id: string;
    company_name: string;
    company_time_zone: string | null;
  },
  csrfToken: string,
  sessionExpiresAt: string,
): ConsolePerson {
  return {
    sessionExpiresAt,
    id: row.user_id,
    email: row.email,
    companyId: row.company_id,
    permissions: JSON.parse(row.permissions) as number[],
    superAdmin: row.super_admin === 1,
    employeeId: row.employee_id,
    csrfToken,
    company: { id: row.company_id, name: row.company_name, timeZone: row.company_time_zone },
  };
}

function personActor(companyId: string, userId: string, at: string) {
  return { companyId, actorType: 'user' as const, actorId: userId, at };
}

/** How a session began: its method is kept with it; `details` go into the sign-in's audit row. */
export interface SignInMethod {
  method: 'password' | 'sso';
  details?: Record<string, unknown>;
}

/** A fresh session for `userId` (a new random id every time: no session fixation). */
export async function startSession(
  tx: Tx,
  now: number,
  userId: string,
  settings: SessionSettings,
  how: SignInMethod = { method: 'password' },
) {
  const person = await findPerson(tx, userId);
  if (!person || person.active !== 1) throw new ApiError('invalid_credentials');
  const sessionId = randomToken();
  const csrfToken = csrfTokenFor(sessionId);
  const at = new Date(now).toISOString();
  const expiresAt = new Date(now + settings.maxHours * 3_600_000).toISOString();
  await insertSession(tx, {
    id_hash: tokenHash(sessionId),
    user_id: userId,
    company_id: person.company_id,
    csrf_token_hash: tokenHash(csrfToken),
    created_at: at,
    last_seen_at: at,
    expires_at: expiresAt,
    sign_in_method: how.method,
  });
  await recordAudit(tx, {
    ...personActor(person.company_id, userId, at),
    action: 'console.sign_in',
    targetType: 'user',
    targetId: userId,
    details: how.details ?? null,
  });
  return { sessionId, person: personOf(person, csrfToken, expiresAt) };
}

/**
 * Signs in with email and password. A wrong password and an unknown email are the same
 * `invalid_credentials`, and cost the same scrypt time. The same email may belong to people of
 * several companies: the oldest whose password matches and whose company lets them use a password is
 * signed in (each account by its own company's rule); `sso_required` when every match is refused.
 * `previousSessionId` (the cookie the request carried, if any) ends: a sign-in never continues an
 * existing session.
 */
export async function signIn(
  ctx: AppContext,
  settings: SessionSettings,
  input: { email: string; password: string },
  previousSessionId: string | null,
) {
  const candidates = await findSignInCandidates(ctx.database.db, input.email.trim());
  const matches: string[] = [];
  if (candidates.length === 0) await verifyPassword(input.password, await dummyPasswordHash());
  for (const candidate of candidates)
    if (await verifyPassword(input.password, candidate.password_hash!)) matches.push(candidate.id);
  if (matches.length === 0) throw new ApiError('invalid_credentials');
  let userId: string | undefined;
  for (const id of matches)
    if (!(await passwordSignInRefused(ctx.database.db, id))) {
      userId = id;
      break;
    }
  // Told only to whoever knows the password: the company signs in with its identity provider.
  if (userId === undefined) throw new ApiError('sso_required');
  const chosen = userId;
  return ctx.database.transaction(async (tx) => {
    const now = ctx.now();
    if (previousSessionId) await deleteSession(tx, tokenHash(previousSessionId));
    // Sessions nobody presents again would stay: every sign-in clears out the ended ones.
    await deleteExpiredSessions(
      tx,
      new Date(now).toISOString(),
      new Date(now - settings.idleMinutes * 60_000).toISOString(),
    );
    return startSession(tx, now, chosen, settings);
  });
}

/**
 * The live session named by the cookie's id, or null. A session past its absolute end, idle too
 * long, or of a person deactivated since, is deleted and gives null.
 */
export async function resolveSession(
  ctx: AppContext,
  settings: SessionSettings,
  sessionId: string | null,
): Promise<ResolvedSession | null> {
  if (!sessionId || sessionId.length > 200) return null;
  const idHash = tokenHash(sessionId);
  const row = await findSessionPerson(ctx.database.db, idHash);
  if (!row) return null;
  const now = ctx.now();
  const lastSeen = Date.parse(row.last_seen_at);
  if (
    row.active !== 1 ||
    Date.parse(row.expires_at) <= now ||
    lastSeen + settings.idleMinutes * 60_000 <= now
  ) {
    await deleteSession(ctx.database.db, idHash);
    return null;
  }
  if (now - lastSeen >= TOUCH_EVERY_MS)
    await touchSession(ctx.database.db, idHash, new Date(now).toISOString());
  return {
    person: personOf(row, csrfTokenFor(sessionId), row.expires_at),
    csrfTokenHash: row.csrf_token_hash,
  };
}

export async function signOut(ctx: AppContext, sessionId: string | null): Promise<void> {
  if (sessionId) await deleteSession(ctx.database.db, tokenHash(sessionId));
}

/**
 * An invitation for `userId`: one use, valid for 72 hours, its token only in the URL's fragment (a
 * browser never sends the fragment to a server, so it reaches no access log).
 */
export async function inviteUser(
  tx: Tx,
  now: number,
  userId: string,
  publicBaseUrl: string,
  actor: Actor = CLI_ACTOR,
) {
  const user = await requireUser(tx, userId);
  if (user.active !== 1) throw invalid(`user ${user.id} is deactivated`);
  const token = randomToken();
  const at = new Date(now).toISOString();
  const expiresAt = new Date(now + INVITATION_HOURS * 3_600_000).toISOString();
  await endInvitationsOfUser(tx, user.id, at);
  await insertInvitation(tx, {
    token_hash: tokenHash(token),
    user_id: user.id,
    created_at: at,
    expires_at: expiresAt,
  });
  await recordAudit(tx, {
    companyId: user.company_id,
    actorType: actor.type,
    actorId: actor.id,
    at,
    action: 'user.invite',
    targetType: 'user',
    targetId: user.id,
  });
  return { url: `${publicBaseUrl}/console/#/invite/${token}`, expiresAt };
}

/** Sets a person's password (`punchclock user set-password`); their console sessions end. */
export async function setUserPassword(ctx: AppContext, userId: string, password: string) {
  requireAcceptablePassword(password);
  const hash = await hashPassword(password);
  return ctx.database.transaction(async (tx) => {
    const user = await requireUser(tx, userId);
    if (user.active !== 1) throw invalid(`user ${user.id} is deactivated`);
    await setPasswordHash(tx, user.id, hash);
    await deleteSessionsOfUser(tx, user.id);
    await endInvitationsOfUser(tx, user.id, new Date(ctx.now()).toISOString());
    await recordAudit(tx, {
      companyId: user.company_id,
      actorType: 'cli',
      actorId: null,
      at: new Date(ctx.now()).toISOString(),
      action: 'user.set_password',
      targetType: 'user',
      targetId: user.id,
    });
    return { id: user.id, passwordSet: true as const };
  });
}

/**
 * Accepts an invitation: the person chooses a password and is signed in. An unknown, used or expired
 * token is `410 invitation_invalid`; the invitation is used once (a conditional update decides).
 */
export async function acceptInvitation(
  ctx: AppContext,
  settings: SessionSettings,
  input: { token: string; password: string },
  previousSessionId: string | null = null,
) {
  requireAcceptablePassword(input.password);
  // A token that opens nothing costs no scrypt: the look is cheap (the token has 256 bits, nothing to
  // guess), and an unauthenticated flood of random tokens cannot fill the thread pool with hashing.
  if (!(await invitationIsOpen(ctx.database.db, tokenHash(input.token), new Date(ctx.now()).toISOString())))
    throw new ApiError('invitation_invalid');
  // Hashed before the transaction: scrypt's time is not spent holding a write lock.
  const hash = await hashPassword(input.password);
  return ctx.database.transaction(async (tx) => {
    const now = ctx.now();
    const at = new Date(now).toISOString();
    // The conditional claim decides (two accepts at once: one wins).
    const userId = await claimInvitation(tx, tokenHash(input.token), at);
    if (userId === undefined) throw new ApiError('invitation_invalid');
    const person = await findPerson(tx, userId);
    if (!person || person.active !== 1) throw new ApiError('invitation_invalid');
    if (await passwordSignInRefused(tx, userId)) throw new ApiError('sso_required');
    await setPasswordHash(tx, userId, hash);
    await deleteSessionsOfUser(tx, userId);
    await endInvitationsOfUser(tx, userId, at);
    // The browser's earlier session (another person's, perhaps) ends, as at sign-in.
    if (previousSessionId) await deleteSession(tx, tokenHash(previousSessionId));
    await recordAudit(tx, {
      ...personActor(person.company_id, userId, at),
      action: 'user.set_password',
      targetType: 'user',
      targetId: userId,
    });
    return startSession(tx, now, userId, settings);
  });
}
