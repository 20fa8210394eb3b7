import { describe, expect, it } from 'vitest';
import { bodyOf, draftOf, parseMapping } from '../../console/src/features/sso/model.js';

/** The Company screen's single sign-on form (console/src/features/sso/model.ts), which runs in the browser. */
describe('console single sign-on form', () => {
  it('reads one line per group, any group name (even __proto__), and names a line it cannot read', () => {
    const mapping = parseMapping('payroll = 47, 49\n\n__proto__ = 47\nadmins=90+93');
    expect(mapping).toEqual({ payroll: [47, 49], ['__proto__']: [47], admins: [90, 93] });
    expect(Object.getPrototypeOf(mapping)).toBe(Object.prototype);
    expect(parseMapping('nonumbers')).toMatch(/group = 47, 90/);
    expect(parseMapping('g = 4x')).toMatch(/g = 4x/);
  });

  it('sends the secret only when typed, and the domains as a list', () => {
    const draft = {
      ...draftOf(null),
      issuer: ' https://idp.example.com ',
      clientId: 'x',
      domains: 'a.example, b.example',
    };
    expect(bodyOf(draft, {})).toEqual({
      issuer: 'https://idp.example.com',
      clientId: 'x',
      allowedDomains: ['a.example', 'b.example'],
      groupsClaim: null,
      groupPermissions: {},
      createPeople: false,
      requireSso: false,
    });
    expect(bodyOf({ ...draft, clientSecret: 's' }, {})).toMatchObject({ clientSecret: 's' });
  });
});
