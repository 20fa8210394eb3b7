/*
 * The browser's binding to a sign-in under way (docs/admin-api-contract.md, "Single sign-on"): a random
 * value in an HttpOnly, SameSite=Lax cookie. On https it is `__Host-pc_sso` (Secure, Path=/, no Domain:
 * no sibling host can set or overwrite it); on plain http (local use, tests) `pc_sso` on the sign-on paths.
 */

export const BINDING_PATH = '/api/admin/v1/sso';

export function bindingCookieName(secure: boolean): string {
  return secure ? '__Host-pc_sso' : 'pc_sso';
}

/** The Set-Cookie value of the binding (an empty value with Max-Age=0 clears it). */
export function bindingCookie(secure: boolean, value: string, maxAgeSeconds: number): string {
  const attributes = secure
    ? ['Path=/', 'HttpOnly', 'SameSite=Lax', 'Secure', `Max-Age=${maxAgeSeconds}`]
    : [`Path=${BINDING_PATH}`, 'HttpOnly', 'SameSite=Lax', `Max-Age=${maxAgeSeconds}`];
  return [`${bindingCookieName(secure)}=${value}`, ...attributes].join('; ');
}
