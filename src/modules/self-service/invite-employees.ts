import { ApiError } from '../../domain/errors.js';
import { isUuid } from '../../domain/ids.js';
import type { Tx } from '../../platform/db/database.js';
import { requireCompany } from '../companies/service.js';
import { inviteUser } from '../people/service.js';
import { createUser } from '../people/users.js';
import { activePersonWithEmail, employeesWithoutPerson, findWorkplace } from './queries.js';

/**
 * "Invite everyone" (issue 35): a self-service person (no permissions, linked to the employee) for
 * every live employee of the company (or of one workplace) with an email and no active person yet,
 * each with a one-use invitation link (72 hours). An employee whose email an active person of the
 * company already uses is left out (one person per email). Nothing is sent: the links are answered
 * once, to be handed out.
 */
export async function inviteEmployees(
  tx: Tx,
  now: number,
  input: { companyId: string; workplaceId: string | null; publicBaseUrl: string },
) {
  const company = await requireCompany(tx, input.companyId);
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
  for (const employee of await employeesWithoutPerson(tx, company.id, workplaceId)) {
    const email = employee.email.trim();
    if (email === '' || (await activePersonWithEmail(tx, company.id, email))) continue;
    const user = await createUser(tx, now, { companyId: company.id, email, employee: employee.id });
    const invitation = await inviteUser(tx, now, user.id, input.publicBaseUrl);
    items.push({ employeeId: employee.id, userId: user.id, ...invitation });
  }
  return { items };
}
