/* Single sign-on's tables (migration 0009), apart from schema.ts to keep it readable. */

/** Single sign-on (migration 0009): one configuration per company. */
export interface SsoConfigsTable {
  company_id: string;
  issuer: string;
  client_id: string;
  /** Sealed like webhook secrets (`v1.<key id>.<iv>.<tag>.<ciphertext>`). */
  client_secret: string;
  groups_claim: string | null;
  /** JSON object: group name → permission numbers. */
  group_permissions: string;
  create_people: number;
  require_sso: number;
  /**
   * JSON array: the permissions of the console person who saved the configuration, its authority over
   * people (linking by email, the groups mapping); null: saved by the operator or a super admin.
   */
  configurer_permissions: string | null;
  created_at: string;
  updated_at: string;
}

export interface SsoDomainsTable {
  domain: string;
  company_id: string;
}

export interface SsoIdentitiesTable {
  company_id: string;
  issuer: string;
  subject: string;
  user_id: string;
  created_at: string;
  last_sign_in_at: string;
}

export interface SsoLoginsTable {
  state_hash: string;
  company_id: string;
  browser_hash: string;
  redirect_uri: string;
  return_to: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  /** A signed-in person linking their account ("link my account"), or null for a sign-in. */
  link_user_id: string | null;
}
