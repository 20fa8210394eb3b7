import { sql } from 'kysely';
import { newId } from '../../domain/ids.js';
import { auditBase, recordAudit } from '../audit/queries.js';
import { type Actor } from '../context.js';
import { KNOWN_PERMISSIONS, personScopes } from '../auth/scopes.js';
import { type TokenService } from '../auth/tokens.js';
import { requireCompany } from '../companies/service.js';
import { deleteSessionsOfUser } from './queries.js';
import { companyOfDomain, peopleByLocalPart } from '../sso/queries.js';
import { canonicalEmail, emailDomain } from '../sso/rules.js';
import {
  type Executor,
  isUniqueViolation,
  type Tx,
  uniqueViolationTarget,
} from '../../platform/db/database.js';
import { invalid, notFound, requireEmail, requireUuid } from '../../shared/input-checks.js';

/**
 * Whether an active person of the company already has this email, compared in its canonical form
 * (sso/rules.ts: the local part lower-cased in ASCII, the domain normalised), as sign-in finds people
 * case-insensitively: `Ada@X.example` and `ada@x.example` are one person.
 */
export async function activePersonWithEmail(
  db: Executor,
  companyId: string,
  email: string,
): Promise<boolean> {
  const canonical = canonicalEmail(email);
  // Non-ASCII: SQL's lower() and substr() differ between the databases (PostgreSQL lower-cases É,
  // SQLite does not; substr counts code points, JS lengths UTF-16 units), so the company's active
  // people are compared here, in code, the same way on both (review 2, #4).
  if ([...email.trim()].some((ch) => ch.codePointAt(0)! > 127)) {
    const active = await db
      .selectFrom('users')
      .select('email')
      .where('company_id', '=', companyId)
      .where('active', '=', 1)
      .execute();
    const same = (other: string) =>
      canonical === null
        ? other.trim().toLowerCase() === email.trim().toLowerCase()
        : canonicalEmail(other)?.email === canonical.email;
    return active.some((row) => same(row.email));
  }
  if (canonical === null)
    return (
      (await db
        .selectFrom('users')
        .select('id')
        .where('company_id', '=', companyId)
        .where(sql<string>`lower(email)`, '=', email.trim().toLowerCase())
        .where('active', '=', 1)
        .executeTakeFirst()) !== undefined
    );
  const candidates = await peopleByLocalPart(db, companyId, canonical.email);
  return candidates.some((c) => c.active === 1 && canonicalEmail(c.email)?.email === canonical.email);
}

export function parsePermissions(value: string | undefined): number[] {
  if (value === undefined || value.trim() === '') return [];
  const numbers = value.split(',').map((part) => part.trim());
  const result: number[] = [];
  for (const part of numbers) {
    if (!/^\d+$/.test(part) || !KNOWN_PERMISSIONS.includes(Number(part)))
      throw invalid(`unknown permission ${part}; known: ${KNOWN_PERMISSIONS.join(', ')}`);
    if (!result.includes(Number(part))) result.push(Number(part));
  }
  return result.sort((a, b) => a - b);
}

export async function requireUser(db: Executor, userId: string) {
  const id = requireUuid(userId, 'user id');
  const user = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  if (!user) throw notFound('user', userId);
  return user;
}

export function userPermissions(row: { permissions: string }): number[] {
  return JSON.parse(row.permissions) as number[];
}

export async function createUser(
  tx: Tx,
  now: number,
  input: {
    companyId: string;
    email: string;
    permissions?: string;
    superAdmin?: boolean;
    employee?: string;
    /** Who creates them (the audit row's actor); default the CLI. */
    actor?: Actor;
  },
) {
  const email = requireEmail(input.email);
  const permissions = parsePermissions(input.permissions);
  const at = new Date(now).toISOString();
  const company = await requireCompany(tx, input.companyId);
  let employeeId: string | null = null;
  if (input.employee !== undefined) {
    employeeId = requireUuid(input.employee, 'employee id');
    const employee = await tx
      .selectFrom('employees')
      .select('id')
      .where('id', '=', employeeId)
      .where('company_id', '=', company.id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (!employee) throw notFound('employee in this company', input.employee);
    const linked = await tx
      .selectFrom('users')
      .select('id')
      .where('employee_id', '=', employeeId)
      .where('active', '=', 1)
      .executeTakeFirst();
    if (linked) throw invalid(`employee ${employeeId} already has an active person (${linked.id})`);
  }
  if (await activePersonWithEmail(tx, company.id, email))
    throw invalid(`an active user with email ${email} already exists in this company`);
  // Their sign-ins would be sent to another company's identity provider (issue 34).
  const domain = emailDomain(email);
  const ssoCompany = domain === null ? undefined : await companyOfDomain(tx, domain);
  if (ssoCompany !== undefined && ssoCompany !== company.id)
    throw invalid(`the email domain ${domain} signs in with another company's single sign-on`);
  const row = {
    id: newId(),
    company_id: company.id,
    email,
    permissions: JSON.stringify(permissions),
    super_admin: input.superAdmin ? 1 : 0,
    active: 1,
    employee_id: employeeId,
    created_at: at,
    deactivated_at: null,
  };
  try {
    await tx.insertInto('users').values(row).execute();
  } catch (error) {
    // users_active_employee_key: another active person of the employee was created meanwhile.
    if (isUniqueViolation(error) && uniqueViolationTarget(error).includes('employee'))
      throw invalid(`employee ${employeeId} already has an active person`);
    throw error;
  }
  await recordAudit(tx, {
    ...auditBase(company.id, at, input.actor),
    action: 'user.create',
    targetType: 'user',
    targetId: row.id,
  });
  return { id: row.id, companyId: company.id, email, permissions, superAdmin: row.super_admin === 1 };
}

export async function deactivateUser(tx: Tx, now: number, userId: string) {
  const at = new Date(now).toISOString();
  const user = await requireUser(tx, userId);
  if (user.active === 1) {
    await tx.updateTable('users').set({ active: 0, deactivated_at: at }).where('id', '=', user.id).execute();
    // Their console sessions end at once (each request also checks that the person is active).
    await deleteSessionsOfUser(tx, user.id);
    await recordAudit(tx, {
      ...auditBase(user.company_id, at),
      action: 'user.deactivate',
      targetType: 'user',
      targetId: user.id,
    });
  }
  return { id: user.id, active: false as const };
}

export async function issueUserToken(tx: Tx, tokens: TokenService, userId: string) {
  const user = await requireUser(tx, userId);
  if (user.active !== 1) throw invalid(`user ${user.id} is deactivated`);
  const scopes = personScopes({ permissions: userPermissions(user), superAdmin: user.super_admin === 1 });
  const { token, expiresIn } = await tokens.issue({
    principal: 'user',
    subject: user.id,
    companyId: user.company_id,
    scopes,
  });
  return { access_token: token, token_type: 'Bearer' as const, expires_in: expiresIn };
}
