export type FormBodyResult =
  | { ok: true; params: Map<string, string> }
  | { ok: false; reason: 'repeated_parameter' | 'unreadable'; parameter?: string };

export type BasicAuthorizationResult =
  | { present: false }
  | { present: true; ok: true; clientId: string; clientSecret: string }
  | { present: true; ok: false };

export type IdempotencyKeyResult = { ok: true; key: string | null } | { ok: false; reason: string };

export const MAX_IDEMPOTENCY_KEY_LENGTH = 128;

// URLSearchParams passes malformed escapes through verbatim and swaps invalid UTF-8 for U+FFFD,
// which would let a garbled credential compare as some other string; decodeURIComponent throws on
// both, so it is used as the decoder.
function formDecode(text: string): string | null {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return null;
  }
}

/**
 * Parses application/x-www-form-urlencoded. Parameters with an empty value are left out of the map
 * (and so never count as repeated), as RFC 6749 §3.1 requires them to be treated as omitted.
 */
export function parseFormBody(raw: string): FormBodyResult {
  const params = new Map<string, string>();
  for (const pair of raw.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = formDecode(eq === -1 ? pair : pair.slice(0, eq));
    const value = formDecode(eq === -1 ? '' : pair.slice(eq + 1));
    if (name === null || value === null) return { ok: false, reason: 'unreadable' };
    if (value === '') continue;
    if (params.has(name)) return { ok: false, reason: 'repeated_parameter', parameter: name };
    params.set(name, value);
  }
  return { ok: true, params };
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function decodeBase64Strict(text: string): string | null {
  if (!BASE64.test(text)) return null;
  const unpadded = text.replace(/=+$/, '');
  // Padding, when present, must be exactly what the length calls for.
  if (unpadded.length !== text.length && text.length % 4 !== 0) return null;
  if (unpadded.length % 4 === 1) return null;
  const bytes = Buffer.from(unpadded, 'base64');
  if (bytes.toString('base64').replace(/=+$/, '') !== unpadded) return null;
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}

/**
 * RFC 6749 §2.3.1 has clients form-urlencode the id and secret before joining them with ':' and
 * base64-encoding, so both halves are form-decoded after splitting at the first ':'.
 */
export function parseBasicAuthorization(header: string | undefined): BasicAuthorizationResult {
  if (header === undefined) return { present: false };
  const match = /^([^\s]+)[ \t]+([^\s]+)[ \t]*$/.exec(header.trim());
  if (match === null || match[1]!.toLowerCase() !== 'basic') return { present: true, ok: false };
  const decoded = decodeBase64Strict(match[2]!);
  if (decoded === null) return { present: true, ok: false };
  const colon = decoded.indexOf(':');
  if (colon === -1) return { present: true, ok: false };
  const clientId = formDecode(decoded.slice(0, colon));
  const clientSecret = formDecode(decoded.slice(colon + 1));
  if (clientId === null || clientSecret === null || clientId === '') return { present: true, ok: false };
  return { present: true, ok: true, clientId, clientSecret };
}

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
