import { describe, expect, it } from 'vitest';
import {
  canonicalEmail,
  checkDomains,
  checkGroupPermissions,
  derivedChecks,
  emailDomain,
  emailIsVerified,
  groupsOf,
  issuerProblem,
  normaliseDomain,
  parseGroupPermissions,
  permissionsFromGroups,
  PUBLIC_MAIL_DOMAINS,
  safeReturnTo,
} from '../../src/modules/sso/rules.js';

describe('single sign-on rules', () => {
  it('normalises email domains: lower case, punycode, at least two labels; refuses the rest', () => {
    expect(normaliseDomain(' ACME.Example ')).toBe('acme.example');
    expect(normaliseDomain('@acme.example.')).toBe('acme.example');
    expect(normaliseDomain('bücher.example')).toBe('xn--bcher-kva.example');
    for (const bad of [
      '',
      'localhost',
      '127.0.0.1',
      'a b.example',
      'acme.example/x',
      '-a.example',
      'user@acme.example',
    ])
      expect(normaliseDomain(bad), bad).toBeNull();
    expect(emailDomain('Someone@ACME.example')).toBe('acme.example');
    expect(emailDomain('no-at-sign')).toBeNull();
    expect(emailDomain('trailing@')).toBeNull();
  });

  it('checks the allowed domains: deduplicated and sorted, each bad one named, at least one', () => {
    expect(checkDomains(['b.example', 'A.example', 'a.example'])).toEqual({
      domains: ['a.example', 'b.example'],
      errors: [],
    });
    expect(checkDomains(['ok.example', 'not a domain']).errors).toEqual([
      { field: 'allowedDomains', message: 'not an email domain: not a domain', code: 'invalid' },
    ]);
    expect(checkDomains([]).errors[0]?.code).toBe('required');
  });

  it('reads the CLI form of the group mapping and checks permission numbers', () => {
    expect(parseGroupPermissions('group=90+91,other=47')).toEqual({ group: [90, 91], other: [47] });
    expect(parseGroupPermissions('empty=')).toEqual({ empty: [] });
    expect(() => parseGroupPermissions('nonumbers')).toThrow(/group=N\+N/);
    expect(() => parseGroupPermissions('g=90,91')).toThrow(/group=N\+N/);
    expect(checkGroupPermissions({ g: [91, 90, 90] })).toEqual({ mapping: { g: [90, 91] }, errors: [] });
    expect(checkGroupPermissions({ g: [12] }).errors[0]?.message).toMatch(/unknown permission 12/);
  });

  it('maps the groups a claim carries to the union of their permissions', () => {
    const mapping = { staff: [47], payroll: [49, 47], admins: [93] };
    expect(permissionsFromGroups(mapping, ['payroll', 'staff', 'unmapped'])).toEqual([47, 49]);
    expect(permissionsFromGroups(mapping, [])).toEqual([]);
    expect(groupsOf({ groups: ['a', 1, 'b'] }, 'groups')).toEqual(['a', 'b']);
    expect(groupsOf({ groups: 'a' }, 'groups')).toEqual(['a']);
    expect(groupsOf({ realm_access: { roles: ['r'] } }, 'realm_access.roles')).toEqual(['r']);
    expect(groupsOf({ 'https://example.com/groups': ['x'] }, 'https://example.com/groups')).toEqual(['x']);
    expect(groupsOf({}, 'groups')).toEqual([]);
  });

  it('counts an email as verified only on the provider’s word (email_verified, else Entra’s xms_edov)', () => {
    expect(emailIsVerified({ email_verified: true })).toBe(true);
    expect(emailIsVerified({ email_verified: 'true' })).toBe(true);
    expect(emailIsVerified({ email_verified: false, xms_edov: true })).toBe(false);
    expect(emailIsVerified({ xms_edov: true })).toBe(true);
    expect(emailIsVerified({ xms_edov: '1' })).toBe(true);
    expect(emailIsVerified({})).toBe(false);
    expect(emailIsVerified({ email_verified: 'yes' })).toBe(false);
  });

  it('returns only to paths under /console on this server', () => {
    expect(safeReturnTo('/console/#/company')).toBe('/console/#/company');
    expect(safeReturnTo('/console')).toBe('/console');
    expect(safeReturnTo('/console/?a=1#/time-entries?week=2026-W10')).toBe(
      '/console/?a=1#/time-entries?week=2026-W10',
    );
    for (const bad of [
      undefined,
      '',
      'https://evil.example/console/',
      '//evil.example/console/',
      '/\\evil.example',
      '/console/../api/admin/v1/session',
      '/console/%2e%2e/api',
      '/consolex',
      '/console/\nSet-Cookie: x',
      'javascript:alert(1)',
    ])
      expect(safeReturnTo(bad), String(bad)).toBe('/console/');
  });

  it('accepts an https issuer, and http only on a loopback address', () => {
    expect(issuerProblem('https://login.example.com/realms/acme')).toBeNull();
    expect(issuerProblem('http://127.0.0.1:8080')).toBeNull();
    expect(issuerProblem('http://localhost:8080/realms/x')).toBeNull();
    expect(issuerProblem('http://[::1]:8080')).toBeNull();
    expect(issuerProblem('http://idp.example.com')).toMatch(/https/);
    expect(issuerProblem('ftp://idp.example.com')).toMatch(/https/);
    expect(issuerProblem('https://idp.example.com/?tenant=1')).toMatch(/query/);
    expect(issuerProblem('https://user:pw@idp.example.com')).toMatch(/credentials/);
    expect(issuerProblem('idp.example.com')).toMatch(/absolute/);
  });

  it('derives the nonce and a valid PKCE verifier from the binding, differently for each binding', () => {
    const a = derivedChecks('binding-a');
    const b = derivedChecks('binding-b');
    expect(a.codeVerifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a.nonce).not.toBe(a.codeVerifier);
    expect(a).toEqual(derivedChecks('binding-a'));
    expect(b.nonce).not.toBe(a.nonce);
  });

  it('refuses public mail providers’ domains in any spelling (second review, item 4)', () => {
    for (const domain of PUBLIC_MAIL_DOMAINS) expect(normaliseDomain(domain)).toBe(domain);
    expect(checkDomains(['acme.example', 'GMail.com.', '@outlook.com']).errors).toEqual([
      expect.objectContaining({ field: 'allowedDomains', code: 'public_domain' }),
      expect.objectContaining({ field: 'allowedDomains', code: 'public_domain' }),
    ]);
    expect(checkDomains(['gmail.com']).errors.map((e) => e.code)).toEqual(['public_domain']);
  });

  it('writes an email in one canonical form: ASCII-lower-case local part, normalised domain (second review, item 3)', () => {
    expect(canonicalEmail(' Dora@ACME.example. ')).toEqual({ email: 'dora@acme.example', asciiLocal: true });
    expect(canonicalEmail('bob@Bücher.example')).toEqual({
      email: 'bob@xn--bcher-kva.example',
      asciiLocal: true,
    });
    // A Kelvin sign is not a k: kept as it is, and marked as beyond ASCII.
    expect(canonicalEmail('\u212Aate@acme.example')).toEqual({
      email: '\u212Aate@acme.example',
      asciiLocal: false,
    });
    expect(canonicalEmail('Ünal@acme.example')?.asciiLocal).toBe(false);
    for (const bad of ['no-at', '@acme.example', 'x@', 'x@localhost'])
      expect(canonicalEmail(bad), bad).toBeNull();
  });
});
