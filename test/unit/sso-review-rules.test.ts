import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { UnsafeTarget } from '../../src/modules/webhooks/address-guard.js';
import { guardedFetch } from '../../src/modules/sso/outbound.js';
import {
  checkGroupPermissions,
  grantable,
  groupsOf,
  issuerProblem,
  parseGroupPermissions,
  permissionsFromGroups,
  withinAuthority,
} from '../../src/modules/sso/rules.js';

/* The pure rules behind the fixes of issue 34's security review (the items are named in each test). */

describe('single sign-on review rules', () => {
  it('review 1 and 5: acts on a person only within the configuration’s authority, never on a super admin', () => {
    const authority = [47, 93];
    expect(withinAuthority({ superAdmin: false, permissions: [47] }, authority)).toBe(true);
    expect(withinAuthority({ superAdmin: false, permissions: [] }, authority)).toBe(true);
    expect(withinAuthority({ superAdmin: false, permissions: [47, 93] }, authority)).toBe(true);
    expect(withinAuthority({ superAdmin: false, permissions: [47, 90] }, authority)).toBe(false);
    expect(withinAuthority({ superAdmin: true, permissions: [] }, authority)).toBe(false);
    expect(withinAuthority({ superAdmin: false, permissions: [90, 91, 92] }, null)).toBe(true);
    expect(withinAuthority({ superAdmin: true, permissions: [] }, null)).toBe(false);
    expect(grantable([47, 49, 93], [47, 93])).toEqual([47, 93]);
    expect(grantable([47, 49], null)).toEqual([47, 49]);
  });

  it('review 6: group names of Object.prototype are groups like any other', () => {
    const mapping = { staff: [47] };
    expect(permissionsFromGroups(mapping, ['constructor', '__proto__', 'toString', 'staff'])).toEqual([47]);
    const parsed = JSON.parse('{"__proto__": [49], "constructor": [47]}') as Record<string, number[]>;
    const checked = checkGroupPermissions(parsed);
    expect(Object.getPrototypeOf(checked.mapping)).toBe(Object.prototype);
    expect(Object.hasOwn(checked.mapping, '__proto__')).toBe(true);
    expect(permissionsFromGroups(checked.mapping, ['__proto__'])).toEqual([49]);
    expect(permissionsFromGroups(checked.mapping, ['constructor'])).toEqual([47]);
    const cli = parseGroupPermissions('__proto__=47,constructor=49');
    expect(Object.getPrototypeOf(cli)).toBe(Object.prototype);
    expect(Object.keys(cli).sort()).toEqual(['__proto__', 'constructor']);
    expect(groupsOf({}, 'constructor')).toEqual([]);
    expect(groupsOf({ a: {} }, 'a.constructor')).toEqual([]);
    expect(groupsOf({ a: { __proto__: null, b: ['x'] } }, 'a.b')).toEqual(['x']);
  });

  it('review 7: an issuer is the provider’s base URL written as the URL standard writes it', () => {
    for (const good of [
      'https://idp.example.com',
      'https://idp.example.com/',
      'https://login.microsoftonline.com/tenant-id/v2.0',
      'https://sso.example.com/realms/acme',
      'http://127.0.0.1:8080',
    ])
      expect(issuerProblem(good), good).toBeNull();
    for (const bad of [
      'https://idp.example.com/.well-known/openid-configuration',
      'https://idp.example.com/.WELL-KNOWN/openid-configuration',
      'https://idp.example.com/tenant/.well-known/',
      'https://idp.example.com/%2Ewell-known/openid-configuration',
      'https://IDP.example.com',
      'https://idp.example.com:443',
      'https://idp.example.com/a/../b',
      'https://idp.example.com/a/%2e%2e/b',
    ])
      expect(issuerProblem(bad), bad).not.toBeNull();
  });

  it('review 3: the provider’s fetch reaches only allowed addresses, never follows a redirect, and tells nothing', async () => {
    let connections = 0;
    const server = createServer((_req, res) => res.writeHead(302, { location: 'http://127.0.0.3/' }).end());
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.2', resolve));
    const url = `http://127.0.0.2:${(server.address() as AddressInfo).port}/x`;
    try {
      await expect(guardedFetch({ allowHttp: true, allowedHosts: [] })(url)).rejects.toBeInstanceOf(
        UnsafeTarget,
      );
      await expect(
        guardedFetch({ allowHttp: true, allowedHosts: ['127.0.0.1'] })(url),
      ).rejects.toBeInstanceOf(UnsafeTarget);
      expect(connections).toBe(0);
      const answer = await guardedFetch({ allowHttp: true, allowedHosts: ['127.0.0.2'] })(url);
      expect(answer.status).toBe(302);
      expect(connections).toBe(1);
      await expect(
        guardedFetch({ allowHttp: true, allowedHosts: ['0.0.0.0/0'] })('http://example.com/'),
      ).rejects.toThrow(/https/);
      await expect(
        guardedFetch({ allowHttp: true, allowedHosts: [] })('https://169.254.169.254/latest/meta-data'),
      ).rejects.toBeInstanceOf(UnsafeTarget);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
