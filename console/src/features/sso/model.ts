/*
 * The company's single sign-on as the admin API shows it (GET /company/sso), the form's draft, and the
 * body a save sends (PUT /company/sso).
 */

export interface SsoConfig {
  issuer: string;
  clientId: string;
  allowedDomains: string[];
  groupsClaim: string | null;
  groupPermissions: Record<string, number[]>;
  createPeople: boolean;
  requireSso: boolean;
}

export interface SsoSettings {
  redirectUri: string;
  configuration: SsoConfig | null;
}

export interface Draft {
  issuer: string;
  clientId: string;
  clientSecret: string;
  domains: string;
  groupsClaim: string;
  mapping: string;
  createPeople: boolean;
  requireSso: boolean;
}

export function draftOf(config: SsoConfig | null): Draft {
  return {
    issuer: config?.issuer ?? '',
    clientId: config?.clientId ?? '',
    clientSecret: '',
    domains: config?.allowedDomains.join(', ') ?? '',
    groupsClaim: config?.groupsClaim ?? '',
    mapping: Object.entries(config?.groupPermissions ?? {})
      .map(([group, permissions]) => `${group} = ${permissions.join(', ')}`)
      .join('\n'),
    createPeople: config?.createPeople ?? false,
    requireSso: config?.requireSso ?? false,
  };
}

/** One line per group, `group = 47, 90`; a line that cannot be read: its message instead. */
export function parseMapping(text: string): Record<string, number[]> | string {
  const mapping = new Map<string, number[]>();
  for (const line of text.split('\n').map((l) => l.trim())) {
    if (line === '') continue;
    const eq = line.lastIndexOf('=');
    const numbers =
      eq > 0
        ? line
            .slice(eq + 1)
            .split(/[\s,+]+/)
            .filter(Boolean)
        : [];
    if (eq <= 0 || !numbers.every((n) => /^\d+$/.test(n)))
      return `Write each line as "group = 47, 90": ${line}`;
    mapping.set(line.slice(0, eq).trim(), numbers.map(Number));
  }
  return Object.fromEntries(mapping);
}

export function bodyOf(draft: Draft, mapping: Record<string, number[]>) {
  return {
    issuer: draft.issuer.trim(),
    clientId: draft.clientId.trim(),
    ...(draft.clientSecret !== '' ? { clientSecret: draft.clientSecret } : {}),
    allowedDomains: draft.domains
      .split(/[\s,]+/)
      .map((d) => d.trim())
      .filter(Boolean),
    groupsClaim: draft.groupsClaim.trim() || null,
    groupPermissions: mapping,
    createPeople: draft.createPeople,
    requireSso: draft.requireSso,
  };
}
