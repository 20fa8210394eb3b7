import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createCursorCodec, MAX_CURSOR_LENGTH } from '../../src/domain/cursor.js';

const secret = Buffer.from('0123456789abcdef0123456789abcdef');
const codec = createCursorCodec(secret);
const B64URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

describe('cursor codec', () => {
  it('round-trips a payload', () => {
    const payload = { after: '2024-05-01T08:00:00Z', id: 'e_123', filters: { employee: 'x', n: 3 }, ü: 'ß' };
    const cursor = codec.encode(payload);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(codec.decode(cursor)).toEqual(payload);
  });

  it('is deterministic and opaque to other secrets', () => {
    const cursor = codec.encode({ a: 1 });
    expect(codec.encode({ a: 1 })).toBe(cursor);
    expect(createCursorCodec(Buffer.from('another secret of some length')).decode(cursor)).toBeNull();
  });

  it('accepts a Uint8Array secret and is unaffected by later mutation of it', () => {
    const bytes = new Uint8Array(secret);
    const fromBytes = createCursorCodec(bytes);
    const cursor = fromBytes.encode({ page: 2 });
    expect(codec.decode(cursor)).toEqual({ page: 2 });
    bytes.fill(0);
    expect(fromBytes.decode(cursor)).toEqual({ page: 2 });
  });

  it('rejects an empty secret', () => {
    expect(() => createCursorCodec(new Uint8Array())).toThrow(RangeError);
  });

  it('rejects every single-character alteration', () => {
    const cursor = codec.encode({ after: 'abc', id: 42, filters: { from: '2024-01-01' } });
    let attempts = 0;
    for (let i = 0; i < cursor.length; i++) {
      for (const replacement of [...B64URL_ALPHABET, '.', '=', '+', '/', ' ']) {
        if (replacement === cursor[i]) continue;
        const altered = cursor.slice(0, i) + replacement + cursor.slice(i + 1);
        expect(codec.decode(altered), `position ${i} -> ${replacement}`).toBeNull();
        attempts++;
      }
    }
    expect(attempts).toBeGreaterThan(cursor.length * 60);
  });

  it('rejects every single-bit flip of the underlying bytes', () => {
    const cursor = codec.encode({ id: 'x' });
    const [body, tag] = cursor.split('.') as [string, string];
    for (const [part, rebuild] of [
      [body, (b: Buffer) => `${b.toString('base64url')}.${tag}`],
      [tag, (b: Buffer) => `${body}.${b.toString('base64url')}`],
    ] as const) {
      const bytes = Buffer.from(part, 'base64url');
      for (let i = 0; i < bytes.length; i++) {
        for (let bit = 0; bit < 8; bit++) {
          const flipped = Buffer.from(bytes);
          flipped[i]! ^= 1 << bit;
          expect(codec.decode(rebuild(flipped))).toBeNull();
        }
      }
    }
  });

  it('rejects truncation, extension and wrong-length tags', () => {
    const cursor = codec.encode({ id: 1 });
    const [body, tag] = cursor.split('.') as [string, string];
    expect(codec.decode(cursor.slice(0, -1))).toBeNull();
    expect(codec.decode(`${cursor}A`)).toBeNull();
    expect(codec.decode(`${cursor}=`)).toBeNull();
    expect(codec.decode(body)).toBeNull();
    expect(codec.decode(`${body}.`)).toBeNull();
    expect(codec.decode(`.${tag}`)).toBeNull();
    expect(codec.decode(`${cursor}.${tag}`)).toBeNull();
    const fullTag = Buffer.concat([Buffer.from(tag, 'base64url'), Buffer.alloc(16)]).toString('base64url');
    expect(codec.decode(`${body}.${fullTag}`)).toBeNull();
  });

  it('rejects garbage', () => {
    for (const value of ['', '.', '..', 'abc', 'abc.def', '%%%.%%%', '\u0000.\u0000', 'a'.repeat(5000)]) {
      expect(codec.decode(value)).toBeNull();
    }
    expect(codec.decode(undefined as unknown as string)).toBeNull();
    expect(codec.decode(123 as unknown as string)).toBeNull();
  });

  it('rejects correctly signed bodies that are not JSON objects', () => {
    const forge = (json: string): string => {
      const body = Buffer.from(json).toString('base64url');
      const tag = createHmac('sha256', secret).update(body).digest().subarray(0, 16).toString('base64url');
      return `${body}.${tag}`;
    };
    expect(codec.decode(forge('{"ok":true}'))).toEqual({ ok: true });
    for (const json of ['[1,2]', 'null', '42', '"str"', 'true', '{"a":', 'not json']) {
      expect(codec.decode(forge(json))).toBeNull();
    }
  });

  it('enforces the length cap on both sides', () => {
    expect(() => codec.encode({ blob: 'x'.repeat(MAX_CURSOR_LENGTH) })).toThrow(RangeError);
    // Largest payload that still fits.
    const fits = (n: number): boolean => {
      try {
        codec.encode({ b: 'x'.repeat(n) });
        return true;
      } catch {
        return false;
      }
    };
    let size = 0;
    while (fits(size + 1)) size++;
    const atCap = codec.encode({ b: 'x'.repeat(size) });
    expect(atCap.length).toBeLessThanOrEqual(MAX_CURSOR_LENGTH);
    expect(codec.decode(atCap)).toEqual({ b: 'x'.repeat(size) });
    expect(codec.decode(`${atCap}${'A'.repeat(MAX_CURSOR_LENGTH + 1 - atCap.length)}`)).toBeNull();
  });

  it('rejects non-object payloads at encode time', () => {
    expect(() => codec.encode([] as unknown as Record<string, unknown>)).toThrow(TypeError);
    expect(() => codec.encode(null as unknown as Record<string, unknown>)).toThrow(TypeError);
  });

  it('lets callers bind a cursor to its query through the payload', () => {
    const cursor = codec.encode({ q: { employee: 'e1', from: '2024-01-01' }, after: 'id9' });
    const decoded = codec.decode(cursor);
    expect(decoded?.['q']).toEqual({ employee: 'e1', from: '2024-01-01' });
    expect(decoded?.['q']).not.toEqual({ employee: 'e2', from: '2024-01-01' });
  });
});
