import { describe, expect, it } from 'vitest';
import { isAddressAllowed, parseCidrList } from '../../src/modules/auth/ip-allowlist.js';

function ranges(input: string[]): string[] {
  const result = parseCidrList(input);
  if (!result.ok) throw new Error(`unexpected invalid entry ${result.invalid}`);
  return result.ranges;
}

describe('parseCidrList', () => {
  it('normalises IPv4 and IPv6 ranges', () => {
    expect(parseCidrList(['10.0.0.0/8', '2001:DB8:0:0::/32', '192.168.1.7/24', ' 172.16.0.0/12 '])).toEqual({
      ok: true,
      ranges: ['10.0.0.0/8', '2001:db8::/32', '192.168.1.0/24', '172.16.0.0/12'],
    });
  });

  it('turns bare addresses into host ranges', () => {
    expect(ranges(['203.0.113.5', '::1', '2001:db8::0:1'])).toEqual([
      '203.0.113.5/32',
      '::1/128',
      '2001:db8::1/128',
    ]);
  });

  it('accepts the extreme prefixes', () => {
    expect(ranges(['0.0.0.0/0', '::/0', '1.2.3.4/32', '::1/128'])).toEqual([
      '0.0.0.0/0',
      '::/0',
      '1.2.3.4/32',
      '::1/128',
    ]);
  });

  it('rewrites IPv4-mapped IPv6 ranges as IPv4', () => {
    expect(ranges(['::ffff:10.0.0.0/104', '::ffff:127.0.0.1'])).toEqual(['10.0.0.0/8', '127.0.0.1/32']);
  });

  it('accepts an empty list', () => {
    expect(parseCidrList([])).toEqual({ ok: true, ranges: [] });
  });

  it.each([
    '',
    '   ',
    'garbage',
    '10.0.0.0/33',
    '2001:db8::/129',
    '10.0.0.0/',
    '10.0.0.0/-1',
    '10.0.0.0/08',
    '10.0.0.0/8/8',
    '10.0.0.0/ 8',
    '256.0.0.1',
    '10.0.0',
    '10',
    '0x0a.0.0.1',
    '010.0.0.1',
    '1::2::3',
    '12345::1',
    'fe80::1%eth0',
    '::ffff:10.0.0.0/64',
    '10.0.0.0/8,192.168.0.0/16',
  ])('rejects %j', (entry) => {
    expect(parseCidrList(['10.0.0.0/8', entry])).toEqual({ ok: false, invalid: entry });
  });
});

describe('isAddressAllowed', () => {
  it('allows everything when the list is empty', () => {
    expect(isAddressAllowed('203.0.113.9', [])).toBe(true);
    expect(isAddressAllowed('not an address', [])).toBe(true);
  });

  it('matches IPv4 ranges at their boundaries', () => {
    const list = ranges(['10.1.0.0/16']);
    expect(isAddressAllowed('10.1.0.0', list)).toBe(true);
    expect(isAddressAllowed('10.1.255.255', list)).toBe(true);
    expect(isAddressAllowed('10.0.255.255', list)).toBe(false);
    expect(isAddressAllowed('10.2.0.0', list)).toBe(false);
  });

  it('matches single hosts exactly', () => {
    const list = ranges(['192.0.2.10']);
    expect(isAddressAllowed('192.0.2.10', list)).toBe(true);
    expect(isAddressAllowed('192.0.2.11', list)).toBe(false);
  });

  it('matches IPv6 ranges', () => {
    const list = ranges(['2001:db8::/32', '::1']);
    expect(isAddressAllowed('2001:db8:ffff::1', list)).toBe(true);
    expect(isAddressAllowed('2001:0db8:0000:0000:0000:0000:0000:0001', list)).toBe(true);
    expect(isAddressAllowed('2001:db9::1', list)).toBe(false);
    expect(isAddressAllowed('::1', list)).toBe(true);
    expect(isAddressAllowed('::2', list)).toBe(false);
  });

  it('matches IPv4-mapped socket addresses against IPv4 ranges', () => {
    const list = ranges(['127.0.0.0/8']);
    expect(isAddressAllowed('::ffff:127.0.0.1', list)).toBe(true);
    expect(isAddressAllowed('::FFFF:127.1.2.3', list)).toBe(true);
    expect(isAddressAllowed('::ffff:7f00:1', list)).toBe(true);
    expect(isAddressAllowed('::ffff:128.0.0.1', list)).toBe(false);
  });

  it('matches mapped ranges against plain IPv4 addresses', () => {
    const list = ranges(['::ffff:192.168.0.0/112']);
    expect(isAddressAllowed('192.168.4.4', list)).toBe(true);
    expect(isAddressAllowed('::ffff:192.168.4.4', list)).toBe(true);
    expect(isAddressAllowed('192.169.0.1', list)).toBe(false);
  });

  it('never matches across address families', () => {
    expect(isAddressAllowed('10.0.0.1', ranges(['::/0']))).toBe(false);
    expect(isAddressAllowed('::1', ranges(['0.0.0.0/0']))).toBe(false);
    expect(isAddressAllowed('::ffff:10.0.0.1', ranges(['::/0']))).toBe(false);
  });

  it('ignores the zone of a link-local address', () => {
    expect(isAddressAllowed('fe80::1%eth0', ranges(['fe80::/10']))).toBe(true);
  });

  it('refuses unparsable addresses when a list is configured', () => {
    const list = ranges(['0.0.0.0/0', '::/0']);
    for (const address of ['', 'localhost', '10.0.0', '010.0.0.1', '1.2.3.4.5', '::g', '[::1]']) {
      expect(isAddressAllowed(address, list)).toBe(false);
    }
  });

  it('skips corrupted entries instead of opening up', () => {
    expect(isAddressAllowed('10.0.0.1', ['nonsense', '10.0.0.0/99'])).toBe(false);
    expect(isAddressAllowed('10.0.0.1', ['nonsense', '10.0.0.0/8'])).toBe(true);
  });
});
