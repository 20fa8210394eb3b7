import { createHmac, timingSafeEqual } from 'node:crypto';

export interface CursorCodec {
  encode(payload: Record<string, unknown>): string;
  decode(cursor: string): Record<string, unknown> | null;
}

export const MAX_CURSOR_LENGTH = 1024;
const TAG_BYTES = 16;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

// Node's base64url decoder skips invalid characters and ignores the spare low bits of the final
// character, so several strings decode to the same bytes; insisting on the canonical spelling keeps
// a cursor from having look-alike variants that still verify.
function decodeCanonical(text: string): Buffer | null {
  if (!BASE64URL.test(text)) return null;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : null;
}

/**
 * Cursors are `base64url(JSON) '.' base64url(HMAC-SHA256(secret, <first part>)[0..16])`. They are
 * signed, not encrypted: clients can read the payload, so keep secrets out of it.
 */
export function createCursorCodec(secret: Uint8Array | Buffer): CursorCodec {
  if (secret.length === 0) throw new RangeError('cursor secret must not be empty');
  // Copied so that later mutation of the caller's buffer cannot change or void issued cursors.
  const key = Buffer.from(secret);
  const tag = (body: string): Buffer =>
    createHmac('sha256', key).update(body).digest().subarray(0, TAG_BYTES);

  return {
    encode(payload) {
      if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
        throw new TypeError('cursor payload must be a plain object');
      }
      const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
      const cursor = `${body}.${tag(body).toString('base64url')}`;
      // Failing here surfaces an oversized payload at the point of the bug instead of handing out a
      // cursor that decode would silently refuse on the next page.
      if (cursor.length > MAX_CURSOR_LENGTH) {
        throw new RangeError(`cursor exceeds ${MAX_CURSOR_LENGTH} characters`);
      }
      return cursor;
    },

    decode(cursor) {
      if (typeof cursor !== 'string' || cursor.length > MAX_CURSOR_LENGTH) return null;
      const dot = cursor.indexOf('.');
      if (dot === -1 || cursor.indexOf('.', dot + 1) !== -1) return null;
      const body = cursor.slice(0, dot);
      const given = decodeCanonical(cursor.slice(dot + 1));
      if (given === null || given.length !== TAG_BYTES) return null;
      if (!timingSafeEqual(given, tag(body))) return null;

      const json = decodeCanonical(body);
      if (json === null) return null;
      let value: unknown;
      try {
        value = JSON.parse(json.toString('utf8'));
      } catch {
        return null;
      }
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
      return value as Record<string, unknown>;
    },
  };
}
