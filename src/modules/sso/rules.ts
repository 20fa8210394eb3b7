import { createHash, createHmac } from 'node:crypto';
import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import type { FieldError } from '../../domain/errors.js';
import { KNOWN_PERMISSIONS } from '../auth/scopes.js';

/*
 * The pure rules of single sign-on (issue 34): email domains, the groups mapping, the return address,
 * the issuer's address, what counts as a verified email, and the values derived from the browser's
 * binding cookie. No database, no network: unit-tested in test/unit/sso-rules.test.ts.
 */

/** Group name → permission numbers (sorted, without repeats). */
export type GroupPermissions = Record<string, number[]>;

export const MAX_DOMAINS = 50;
export const MAX_GROUPS = 100;
export const MAX_GROUP_NAME = 200;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** An email domain as stored: lower case, IDNA (punycode), at least two labels; null when not one. */
export function normaliseDomain(value: string): string | null {
  const trimmed = value.trim().replace(/^@/, '').replace(/\.$/, '');
  if (trimmed === '' || trimmed.length > 253 || /[\s/:@\\?#]/.test(trimmed)) return null;
  const ascii = domainToASCII(trimmed.toLowerCase());
  if (ascii === '' || isIP(ascii) !== 0) return null;
  const labels = ascii.split('.');
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label))) return null;
  return ascii;
}

/** The domain of an email address, normalised like the configured ones; null without one. */
export function emailDomain(email: string): string | null {
  const at = email.lastIndexOf('@');
  if (at <= 0 || at === email.length - 1) return null;
  return normaliseDomain(email.slice(at + 1));
}

/**
 * An email address in the one form every comparison uses (second review, item 3): the local part
 * lower-cased in ASCII only (a Kelvin sign stays a Kelvin sign, never a `k`), the domain normalised like
 * the configured ones (lower case, punycode, no trailing dot). `asciiLocal` says whether the local part
 * is ASCII: only then may a person be found by email. Null without a usable domain.
 */
export function canonicalEmail(email: string): { email: string; asciiLocal: boolean } | null {
  const trimmed = email.trim();
  const at = trimmed.lastIndexOf('@');
  if (at <= 0) return null;
  const domain = emailDomain(trimmed);
  if (domain === null) return null;
  const local = trimmed.slice(0, at);
  const asciiLocal = /^[\x21-\x7e]+$/.test(local);
  return { email: `${asciiLocal ? local.toLowerCase() : local}@${domain}`, asciiLocal };
}

/**
 * Public mail providers' domains (second review, item 4): their addresses belong to no one company, so
 * no configuration may claim them. A short list of the best known; an operator who needs another one
 * refused asks for it here.
 */
export const PUBLIC_MAIL_DOMAINS: readonly string[] = [
  'gmail.com',
  'googlemail.com',
  'outlook.com',
  'hotmail.com',
  'live.com',
  'yahoo.com',
  'icloud.com',
  'me.com',
  'aol.com',
  'proton.me',
  'protonmail.com',
  'gmx.de',
  'gmx.net',
  'web.de',
  'mail.ru',
  'yandex.ru',
  'qq.com',
  '163.com',
];

/** The allowed domains, normalised and deduplicated, with a field error for each bad one. */
export function checkDomains(values: readonly string[]): { domains: string[]; errors: FieldError[] } {
  const domains: string[] = [];
  const errors: FieldError[] = [];
  for (const value of values) {
    const domain = normaliseDomain(value);
    if (domain === null)
      errors.push({ field: 'allowedDomains', message: `not an email domain: ${value}`, code: 'invalid' });
    else if (PUBLIC_MAIL_DOMAINS.includes(domain))
      errors.push({
        field: 'allowedDomains',
        message: `a public mail provider's domain belongs to no one company: ${domain}`,
        code: 'public_domain',
      });
    else if (!domains.includes(domain)) domains.push(domain);
  }
  if (domains.length === 0 && errors.length === 0)
    errors.push({ field: 'allowedDomains', message: 'name at least one email domain', code: 'required' });
  if (domains.length > MAX_DOMAINS)
    errors.push({ field: 'allowedDomains', message: `at most ${MAX_DOMAINS} domains`, code: 'too_many' });
  return { domains: domains.sort(), errors };
}

/**
 * The mapping checked: group names 1..200 characters, known permission numbers; field errors otherwise.
 * Built on a Map: a group named `__proto__` or `constructor` is a group like any other.
 */
export function checkGroupPermissions(mapping: Record<string, readonly number[]>): {
  mapping: GroupPermissions;
  errors: FieldError[];
} {
  const result = new Map<string, number[]>();
  const errors: FieldError[] = [];
  const field = 'groupPermissions';
  const entries = Object.entries(mapping);
  if (entries.length > MAX_GROUPS)
    errors.push({ field, message: `at most ${MAX_GROUPS} groups`, code: 'too_many' });
  for (const [group, permissions] of entries) {
    if (group.trim() === '' || group.length > MAX_GROUP_NAME || group.includes('\u0000'))
      errors.push({
        field,
        message: `a group name must have 1 to ${MAX_GROUP_NAME} characters`,
        code: 'invalid',
      });
    const unknown = permissions.filter((p) => !KNOWN_PERMISSIONS.includes(p));
    if (unknown.length > 0)
      errors.push({
        field,
        message: `unknown permission ${unknown.join(', ')} for group ${group}; known: ${KNOWN_PERMISSIONS.join(', ')}`,
        code: 'invalid',
      });
    result.set(
      group,
      [...new Set(permissions)].sort((a, b) => a - b),
    );
  }
  return { mapping: Object.fromEntries(result), errors };
}

/**
 * The CLI's form `group=90+91,other=47` as a mapping (a group with no numbers, `group=`, maps to none).
 * Throws a message for a malformed entry.
 */
export function parseGroupPermissions(text: string): Record<string, number[]> {
  const mapping = new Map<string, number[]>();
  for (const entry of text.split(',')) {
    if (entry.trim() === '') continue;
    const eq = entry.lastIndexOf('=');
    if (eq <= 0) throw new Error(`--group-permissions: "${entry}" is not group=N+N`);
    const numbers = entry.slice(eq + 1).trim();
    if (numbers !== '' && !/^\d+(\+\d+)*$/.test(numbers))
      throw new Error(`--group-permissions: "${entry}" is not group=N+N`);
    mapping.set(entry.slice(0, eq).trim(), numbers === '' ? [] : numbers.split('+').map(Number));
  }
  return Object.fromEntries(mapping);
}

/** A property of a claims object that is its own (never one of Object.prototype's). */
function own(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' && Object.hasOwn(value, key)
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

/** The groups a claim carries: a string array (or one string); a dotted name is also looked up as a path. */
export function groupsOf(claims: Record<string, unknown>, claim: string): string[] {
  let value: unknown = own(claims, claim);
  if (value === undefined && claim.includes('.')) {
    value = claims;
    for (const part of claim.split('.')) value = own(value, part);
  }
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** The union of the permissions the person's groups map to, sorted (only the mapping's own groups). */
export function permissionsFromGroups(mapping: GroupPermissions, groups: readonly string[]): number[] {
  const result = new Set<number>();
  for (const group of groups) {
    const permissions = own(mapping, group);
    if (Array.isArray(permissions))
      for (const permission of permissions) if (typeof permission === 'number') result.add(permission);
  }
  return [...result].sort((a, b) => a - b);
}

/**
 * What a configuration may do to a person without them (linking them by email, setting their
 * permissions from the groups mapping): its authority is the permissions of whoever saved it (null: the
 * operator, or a super admin). Never a super admin; only people all of whose permissions the authority
 * holds (issue 34's review, items 1 and 5).
 */
export function withinAuthority(
  person: { superAdmin: boolean; permissions: readonly number[] },
  authority: readonly number[] | null,
): boolean {
  if (person.superAdmin) return false;
  return authority === null || person.permissions.every((p) => authority.includes(p));
}

/** A configuration's authority as stored (`configurer_permissions`): null for the operator or a super admin. */
export function authorityOf(stored: string | null): number[] | null {
  return stored === null ? null : (JSON.parse(stored) as number[]);
}

/** The mapped permissions a configuration may set: only those its authority holds. */
export function grantable(permissions: readonly number[], authority: readonly number[] | null): number[] {
  return authority === null ? [...permissions] : permissions.filter((p) => authority.includes(p));
}

const TRUE_VALUES = new Set<unknown>([true, 'true']);

/**
 * Whether the provider vouches for the email: `email_verified` true (OpenID Connect Core 5.1). Entra ID
 * never sends that claim for organisational accounts; its optional claim `xms_edov` (the email's domain
 * is verified by the tenant) counts instead, only when `email_verified` is absent altogether.
 */
export function emailIsVerified(claims: Record<string, unknown>): boolean {
  if (claims.email_verified !== undefined) return TRUE_VALUES.has(claims.email_verified);
  return TRUE_VALUES.has(claims.xms_edov) || claims.xms_edov === 1 || claims.xms_edov === '1';
}

export const CONSOLE_HOME = '/console/';

/**
 * Where to send the browser after sign-in: `value` when it is a path under /console on this server
 * (normalised: `..` and encoded dots resolved, no other host), otherwise the console's home. No open
 * redirect: `//evil.example`, `https://evil.example`, `/\evil.example` and `/console/../api` all give home.
 */
export function safeReturnTo(value: string | undefined | null): string {
  if (!value || value.length > 2000 || !value.startsWith('/') || value.includes('\\')) return CONSOLE_HOME;
  if ([...value].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f))
    return CONSOLE_HOME;
  const base = 'http://console.invalid';
  let url: URL;
  try {
    url = new URL(value, base);
  } catch {
    return CONSOLE_HOME;
  }
  if (url.origin !== base) return CONSOLE_HOME;
  if (url.pathname !== '/console' && !url.pathname.startsWith('/console/')) return CONSOLE_HOME;
  return `${url.pathname}${url.search}${url.hash}`;
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_NAMES.has(hostname) || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/**
 * Why `value` cannot be an issuer, or null: an absolute https URL (http only on a loopback address),
 * written as the URL standard writes it (no `..`, encoded dots or upper-case host to make two spellings
 * of one issuer), without query, fragment, credentials or a `.well-known` segment (openid-client takes
 * a URL with `/.well-known/` as the discovery document itself and skips its issuer check).
 */
export function issuerProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'the issuer must be an absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'the issuer must be an https URL';
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname))
    return 'the issuer must be an https URL (http only on a loopback address, for local providers)';
  if (url.search !== '' || url.hash !== '' || value.includes('?') || value.includes('#'))
    return 'the issuer must not have a query or a fragment';
  if (url.username !== '' || url.password !== '') return 'the issuer must not carry credentials';
  if (/(^|\/)\.well-known(\/|$)/i.test(url.pathname) || /well-known/i.test(value))
    return "the issuer is the provider's base URL, without /.well-known/openid-configuration";
  const canonical = url.pathname === '/' && !value.endsWith('/') ? url.href.slice(0, -1) : url.href;
  if (canonical !== value) return `write the issuer exactly as the provider publishes it (${url.href})`;
  return null;
}

export function isHttpIssuer(issuer: string): boolean {
  return issuer.startsWith('http:');
}

/** SHA-256 of a high-entropy token, base64url (state, binding cookie): what the database keeps. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/**
 * The nonce and the PKCE code verifier of a sign-in, derived from the browser's binding cookie (256
 * random bits): the database keeps only the cookie's hash, so a copy of it cannot finish a sign-in.
 * Both are 43 base64url characters (the verifier: RFC 7636's 43..128 unreserved characters).
 */
export function derivedChecks(binding: string): { nonce: string; codeVerifier: string } {
  const derive = (label: string) => createHmac('sha256', binding).update(label).digest('base64url');
  return { nonce: derive('punchclock sso nonce v1'), codeVerifier: derive('punchclock sso pkce v1') };
}
