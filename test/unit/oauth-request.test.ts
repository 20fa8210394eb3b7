import { describe, expect, it } from 'vitest';
import { parseBasicAuthorization, parseFormBody } from '../../src/modules/auth/oauth-request.js';
import { MAX_IDEMPOTENCY_KEY_LENGTH, parseIdempotencyKey } from '../../src/shared/idempotency-key.js';

// What RFC 6749 §2.3.1 clients do: application/x-www-form-urlencoded each half, then base64.
function formEncode(value: string): string {
  return encodeURIComponent(value).replaceAll('%20', '+');
}

function basic(clientId: string, clientSecret: string): string {
  return `Basic ${Buffer.from(`${formEncode(clientId)}:${formEncode(clientSecret)}`).toString('base64')}`;
}

function basicRaw(decoded: string): string {
  return `Basic ${Buffer.from(decoded).toString('base64')}`;
}

describe('parseFormBody', () => {
  it('parses a token request', () => {
    const result = parseFormBody('grant_type=client_credentials&scope=entries%3Aread+entries%3Awrite');
    expect(result).toEqual({
      ok: true,
      params: new Map([
        ['grant_type', 'client_credentials'],
        ['scope', 'entries:read entries:write'],
      ]),
    });
  });

  it('decodes + as space and percent escapes, including UTF-8, in names and values', () => {
    const result = parseFormBody('a+b=c+d&e%20f=%C3%A9%2B%26%3D&plus=%2B');
    expect(result.ok && Object.fromEntries(result.params)).toEqual({
      'a b': 'c d',
      'e f': 'é+&=',
      plus: '+',
    });
  });

  it('accepts an empty body and ignores stray separators', () => {
    expect(parseFormBody('')).toEqual({ ok: true, params: new Map() });
    expect(parseFormBody('&&a=1&&')).toEqual({ ok: true, params: new Map([['a', '1']]) });
  });

  it('keeps only the first = as the separator', () => {
    expect(parseFormBody('code=abc==&x=a=b')).toEqual({
      ok: true,
      params: new Map([
        ['code', 'abc=='],
        ['x', 'a=b'],
      ]),
    });
  });

  it('treats parameters without a value as omitted (RFC 6749 §3.1)', () => {
    expect(parseFormBody('grant_type=client_credentials&scope=&client_secret')).toEqual({
      ok: true,
      params: new Map([['grant_type', 'client_credentials']]),
    });
    expect(parseFormBody('scope=&scope=a')).toEqual({ ok: true, params: new Map([['scope', 'a']]) });
  });

  it('refuses a repeated grant_type', () => {
    expect(parseFormBody('grant_type=client_credentials&grant_type=password')).toEqual({
      ok: false,
      reason: 'repeated_parameter',
      parameter: 'grant_type',
    });
    expect(parseFormBody('grant_type=client_credentials&grant_type=client_credentials')).toMatchObject({
      ok: false,
      reason: 'repeated_parameter',
    });
  });

  it('detects repetition after decoding the name', () => {
    expect(parseFormBody('grant_type=a&grant%5Ftype=b')).toEqual({
      ok: false,
      reason: 'repeated_parameter',
      parameter: 'grant_type',
    });
  });

  it.each(['a=%zz', 'a=%E0%A4%A', 'a=%', 'a=100%', 'a=%C3', 'a=%FF', '%zz=1', 'a=%ED%A0%80'])(
    'refuses malformed percent-encoding in %j',
    (raw) => {
      expect(parseFormBody(raw)).toEqual({ ok: false, reason: 'unreadable' });
    },
  );
});

describe('parseBasicAuthorization', () => {
  it('distinguishes an absent header', () => {
    expect(parseBasicAuthorization(undefined)).toEqual({ present: false });
  });

  it('decodes credentials', () => {
    expect(parseBasicAuthorization(basic('client-1', 'secret'))).toEqual({
      present: true,
      ok: true,
      clientId: 'client-1',
      clientSecret: 'secret',
    });
  });

  it('round-trips `s3 cr:et+%` as real clients send it', () => {
    const header = basic('my client', 's3 cr:et+%');
    expect(Buffer.from(header.slice(6), 'base64').toString()).toBe('my+client:s3+cr%3Aet%2B%25');
    expect(parseBasicAuthorization(header)).toEqual({
      present: true,
      ok: true,
      clientId: 'my client',
      clientSecret: 's3 cr:et+%',
    });
  });

  it('round-trips non-ASCII credentials', () => {
    expect(parseBasicAuthorization(basic('clïent', 'pässwörd€'))).toMatchObject({
      ok: true,
      clientId: 'clïent',
      clientSecret: 'pässwörd€',
    });
  });

  it('splits at the first colon only', () => {
    expect(parseBasicAuthorization(basicRaw('id:a:b:c'))).toMatchObject({
      ok: true,
      clientId: 'id',
      clientSecret: 'a:b:c',
    });
  });

  it('allows an empty secret but not an empty client id', () => {
    expect(parseBasicAuthorization(basicRaw('id:'))).toMatchObject({
      ok: true,
      clientId: 'id',
      clientSecret: '',
    });
    expect(parseBasicAuthorization(basicRaw(':secret'))).toEqual({ present: true, ok: false });
  });

  it('matches the scheme case-insensitively and tolerates extra spaces', () => {
    const token = Buffer.from('id:secret').toString('base64');
    for (const header of [`basic ${token}`, `BASIC ${token}`, `bAsIc   ${token}`, ` Basic ${token} `]) {
      expect(parseBasicAuthorization(header)).toMatchObject({
        ok: true,
        clientId: 'id',
        clientSecret: 'secret',
      });
    }
  });

  it('accepts unpadded base64', () => {
    const token = Buffer.from('id:secret1').toString('base64');
    expect(token.endsWith('=')).toBe(true);
    expect(parseBasicAuthorization(`Basic ${token.replace(/=+$/, '')}`)).toMatchObject({ ok: true });
  });

  it('refuses other schemes and malformed headers as present', () => {
    for (const header of [
      'Bearer abc.def.ghi',
      'Digest username="x"',
      'Basic',
      'Basic ',
      '',
      'Basicdxm6cw==',
      `Basic ${Buffer.from('id:secret').toString('base64')} extra`,
    ]) {
      expect(parseBasicAuthorization(header), header).toEqual({ present: true, ok: false });
    }
  });

  it('refuses malformed base64', () => {
    for (const token of [
      '!!!!',
      'aWQ6c2VjcmV0$',
      'aWQ6c2VjcmV0===',
      'aWQ6c2VjcmV0=',
      'a',
      'aWQ6c2VjcmV0-_',
      'aWR=',
    ]) {
      expect(parseBasicAuthorization(`Basic ${token}`), token).toEqual({ present: true, ok: false });
    }
  });

  it('refuses credentials without a colon', () => {
    expect(parseBasicAuthorization(basicRaw('no-colon'))).toEqual({ present: true, ok: false });
  });

  it('refuses malformed percent-encoding and invalid UTF-8 in either half', () => {
    expect(parseBasicAuthorization(basicRaw('id:%zz'))).toEqual({ present: true, ok: false });
    expect(parseBasicAuthorization(basicRaw('%E0%A4%A:secret'))).toEqual({ present: true, ok: false });
    expect(
      parseBasicAuthorization(`Basic ${Buffer.from([0x69, 0x64, 0x3a, 0xff]).toString('base64')}`),
    ).toEqual({
      present: true,
      ok: false,
    });
  });
});

describe('parseIdempotencyKey', () => {
  it('returns null when absent', () => {
    expect(parseIdempotencyKey(undefined)).toEqual({ ok: true, key: null });
  });

  it('accepts bare tokens, including UUIDs', () => {
    expect(parseIdempotencyKey('abc')).toEqual({ ok: true, key: 'abc' });
    expect(parseIdempotencyKey('8e03978e-40d5-43e8-bc93-6894a57f9324')).toEqual({
      ok: true,
      key: '8e03978e-40d5-43e8-bc93-6894a57f9324',
    });
  });

  it('treats quoted and bare forms as the same key', () => {
    expect(parseIdempotencyKey('"abc"')).toEqual(parseIdempotencyKey('abc'));
  });

  it('unescapes quoted strings', () => {
    expect(parseIdempotencyKey('"a\\"b\\\\c"')).toEqual({ ok: true, key: 'a"b\\c' });
    expect(parseIdempotencyKey('"with space"')).toEqual({ ok: true, key: 'with space' });
  });

  it('ignores surrounding whitespace', () => {
    expect(parseIdempotencyKey('  abc\t')).toEqual({ ok: true, key: 'abc' });
  });

  it('accepts 128 characters and refuses 129, counted after unquoting', () => {
    const max = 'k'.repeat(MAX_IDEMPOTENCY_KEY_LENGTH);
    expect(MAX_IDEMPOTENCY_KEY_LENGTH).toBe(128);
    expect(parseIdempotencyKey(max)).toEqual({ ok: true, key: max });
    expect(parseIdempotencyKey(`"${max}"`)).toEqual({ ok: true, key: max });
    expect(parseIdempotencyKey(`${max}k`)).toMatchObject({ ok: false });
    expect(parseIdempotencyKey(`"${max}k"`)).toMatchObject({ ok: false });
    const escaped = '\\"'.repeat(128);
    expect(parseIdempotencyKey(`"${escaped}"`)).toEqual({ ok: true, key: '"'.repeat(128) });
  });

  it.each([
    ['', 'empty'],
    ['   ', 'empty'],
    ['""', 'empty'],
    ['a\u0000b', 'control'],
    ['"a\tb"', 'control'],
    ['abc\u007f', 'control'],
    ['a\nb', 'control'],
  ])('refuses %j (%s)', (value, kind) => {
    const result = parseIdempotencyKey(value);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(kind === 'empty' ? /empty/ : /control/);
  });

  it.each(['"abc', 'abc"', '"a"b"', '"a\\b"', '"abc\\"', '"é"', 'a b', 'a"b', 'a\\b', 'clé', '"a""b"'])(
    'refuses malformed key %j',
    (value) => {
      const result = parseIdempotencyKey(value);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.reason.length).toBeGreaterThan(0);
    },
  );
});
