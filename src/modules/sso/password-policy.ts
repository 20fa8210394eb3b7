import type { Executor } from '../../platform/db/database.js';
import { domainsOf, findPasswordPolicy } from './queries.js';
import { authorityOf, canonicalEmail, emailDomain, withinAuthority } from './rules.js';

/*
 * Password sign-in when the company requires single sign-on (issue 34): refused for the people the
 * provider can sign in, that is those linked to its issuer and those whose first sign-in links them by
 * email: an address at one of the company's allowed domains (normalised, second review item 2), within
 * the configuration's authority. Never for a super admin (their password is the way back in when the
 * provider is down), nor for someone outside the allowed domains or whom the provider may not link by
 * email, until they have linked their account from a signed-in session: they would otherwise be locked out.
 */

/** Whether this person may not sign in (or accept an invitation) with a password. */
export async function passwordSignInRefused(db: Executor, userId: string): Promise<boolean> {
  const row = await findPasswordPolicy(db, userId);
  if (!row || row.super_admin === 1) return false;
  if (row.subject !== null) return true;
  // Only an address the provider can link by email (ASCII local part) at one of the allowed domains.
  const canonical = canonicalEmail(row.email);
  const domain = emailDomain(row.email);
  if (!canonical?.asciiLocal || domain === null) return false;
  if (!(await domainsOf(db, row.company_id)).includes(domain)) return false;
  const person = { superAdmin: false, permissions: JSON.parse(row.permissions) as number[] };
  return withinAuthority(person, authorityOf(row.configurer_permissions));
}
