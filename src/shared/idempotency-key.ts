export type IdempotencyKeyResult = { ok: true; key: string | null } | { ok: false; reason: string };

export const MAX_IDEMPOTENCY_KEY_LENGTH = 128;

// Visible ASCII minus DQUOTE and backslash: keeps unquoted keys unambiguous while still taking the
// UUIDs most clients send, which RFC 8941 sf-token would refuse for starting with a digit.
function isBareKeyChar(code: number): boolean {
  return code >= 0x21 && code <= 0x7e && code !== 0x22 && code !== 0x5c;
}

function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/**
 * Accepts a bare key or an RFC 8941 sf-string; `"abc"` and `abc` name the same key. Length is
 * measured after unquoting.
 */
export function parseIdempotencyKey(value: string | undefined): IdempotencyKeyResult {
  if (value === undefined) return { ok: true, key: null };
  const text = value.replace(/^[ \t]+|[ \t]+$/g, '');
  if (hasControlCharacter(text)) {
    return { ok: false, reason: 'Idempotency-Key must not contain control characters' };
  }

  let key: string;
  if (text.startsWith('"')) {
    const unquoted = unquoteSfString(text);
    if (unquoted === null) return { ok: false, reason: 'Idempotency-Key is not a valid quoted string' };
    key = unquoted;
  } else {
    for (let i = 0; i < text.length; i++) {
      if (!isBareKeyChar(text.charCodeAt(i))) {
        return {
          ok: false,
          reason: 'Idempotency-Key must be visible ASCII without spaces, quotes or backslashes unless quoted',
        };
      }
    }
    key = text;
  }

  if (key === '') return { ok: false, reason: 'Idempotency-Key must not be empty' };
  if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    return { ok: false, reason: `Idempotency-Key must be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters` };
  }
  return { ok: true, key };
}

function unquoteSfString(text: string): string | null {
  let out = '';
  for (let i = 1; i < text.length; i++) {
    const char = text[i]!;
    if (char === '"') return i === text.length - 1 ? out : null;
    if (char === '\\') {
      const next = text[i + 1];
      if (next !== '"' && next !== '\\') return null;
      out += next;
      i++;
      continue;
    }
    const code = char.charCodeAt(0);
    if (code < 0x20 || code > 0x7e) return null;
    out += char;
  }
  return null;
}
