/* A person signed in to the console, as every feature's admin operations receive them. */

/** The signed-in person as the console sees them (contract: Person). */
export interface ConsolePerson {
  id: string;
  email: string;
  companyId: string;
  permissions: number[];
  superAdmin: boolean;
  /** The employee the person is (`user create --employee`); null for none (issue 35: self-service). */
  employeeId: string | null;
  csrfToken: string;
  company: { id: string; name: string; timeZone: string | null };
  /** The session's absolute end (ISO); the console's offline web clock stops there. */
  sessionExpiresAt: string;
}
