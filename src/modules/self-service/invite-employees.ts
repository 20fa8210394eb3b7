import { ApiError } from '../../domain/errors.js';
import { isUuid } from '../../domain/ids.js';
import type { Tx } from '../../platform/db/database.js';
import { recordAudit } from '../audit/queries.js';
import { requireCompany } from '../companies/service.js';
import { type Actor, CLI_ACTOR } from '../context.js';
import { inviteUser } from '../people/service.js';
import { activePersonWithEmail, createUser } from '../people/users.js';
import { companyOfDomain } from '../sso/queries.js';
import { emailDomain } from '../sso/rules.js';
import { employeesWithoutPerson, findWorkplace, lockCompanyForInvites } from './queries.js';

/** Why an employee was left out of "invite everyone" (never another company's domain by name). */
export type InviteSkipReason = 'email_in_use' | 'email_domain_signs_in_elsewhere' | 'invalid_email';

/**
 * "Invite everyone" (issue 35): a self-service person (no permissions, linked to the employee) for
 * every live employee of the company (or of one workplace), active or on leave, with an email and no
 * person linked yet, each with a one-use invitation link (72 hours). An employee is skipped, with the
 * reason, when an active person of the company already uses the email (compared in its canonical
 * form), when the email's domain signs in with another company's single sign-on, or when the email is
 * not an address. Nothing is sent: the links are answered once, to be handed out. The caller holds
 * working links of every employee (they act as them until the links are used): the console's route
 * needs permissions 91 and 92 both. The audit log names the caller for every person and invitation, and one
 * `employees.invite_all` row sums it up.
 */
export async function inviteEmployees(
  tx: Tx,
  now: number,
  input: { companyId: string; workplaceId: string | null; publicBaseUrl: string; actor?: Actor },
) {
  const actor = input.actor ?? CLI_ACTOR;
  const company = await requireCompany(tx, input.companyId);
  // One invite everyone of a company at a time (PostgreSQL): two at once created two persons for each
  // employee. The unique index users_active_employee_key refuses a second active person of an employee.
  await lockCompanyForInvites(tx, company.id);
  let workplaceId: string | null = null;
  if (input.workplaceId !== null) {
    const workplace = isUuid(input.workplaceId)
      ? await findWorkplace(tx, input.workplaceId.toLowerCase())
      : undefined;
    if (!workplace || workplace.company_id !== company.id)
      throw new ApiError('not_found', `unknown workplace: ${input.workplaceId}`);
    workplaceId = workplace.id;
  }
  const items: { employeeId: string; userId: string; url: string; expiresAt: string }[] = [];
  const skipped: { employeeId: string; reason: InviteSkipReason }[] = [];
  for (const employee of await employeesWithoutPerson(tx, company.id, workplaceId)) {
    const email = employee.email.trim();
    const domain = emailDomain(email);
    const skip = (reason: InviteSkipReason) => skipped.push({ employeeId: employee.id, reason });
    if (domain === null || !/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 254) {
      skip('invalid_email');
      continue;
    }
    const ssoCompany = await companyOfDomain(tx, domain);
    if (ssoCompany !== undefined && ssoCompany !== company.id) {
      skip('email_domain_signs_in_elsewhere');
      continue;
    }
    if (await activePersonWithEmail(tx, company.id, email)) {
      skip('email_in_use');
      continue;
    }
    const user = await createUser(tx, now, { companyId: company.id, email, employee: employee.id, actor });
    const invitation = await inviteUser(tx, now, user.id, input.publicBaseUrl, actor);
    items.push({ employeeId: employee.id, userId: user.id, ...invitation });
  }
  await recordAudit(tx, {
    companyId: company.id,
    actorType: actor.type,
    actorId: actor.id,
    at: new Date(now).toISOString(),
    action: 'employees.invite_all',
    targetType: 'company',
    targetId: company.id,
    details: { workplaceId, invited: items.length, skipped: skipped.length },
  });
  return { items, skipped };
}
