export type FormBodyResult =
  | { ok: true; params: Map<string, string> }
  | { ok: false; reason: 'repeated_parameter' | 'unreadable'; parameter?: string };

export type BasicAuthorizationResult =
  | { present: false }
  | { present: true; ok: true; clientId: string; clientSecret: string }
  | { present: true; ok: false };

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
