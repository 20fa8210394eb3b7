/*
 * The public description's security words, shared by the OpenAPI plugin and the routes: the OAuth 2.0
 * scheme's name, and the pseudo-scope of a kiosk device's token (issue 35, principal `device`), which
 * no key can hold: it names the operations a device's token may call.
 */

export const OAUTH2 = 'oauth2';
export const DEVICE_SCOPE = 'device';
export const DEVICE_SCOPE_LABEL =
  "A kiosk device's token (principal `device`, from a device credential): only the kiosk operations and the time clock's punches for its workplace's employees";

/** The `security` of an operation a kiosk device's token may call, besides what `others` allow. */
export function deviceSecurity(...others: Record<string, string[]>[]) {
  return [...others, { [OAUTH2]: [DEVICE_SCOPE] }];
}

/** The scopes the description is filtered by for a caller: a device's token sees what `device` names. */
export function describedScopes(
  principal: { kind: string; scopes: readonly string[] } | null | undefined,
): readonly string[] | null {
  if (!principal) return null;
  return principal.kind === 'device' ? [DEVICE_SCOPE] : principal.scopes;
}
