import ipaddr from 'ipaddr.js';

type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;
type ParsedRange = [IpAddress, number];

export type CidrListResult = { ok: true; ranges: string[] } | { ok: false; invalid: string };

const PREFIX_PATTERN = /^(0|[1-9]\d{0,2})$/;

// ipaddr.js happily accepts legacy IPv4 spellings ('10', '0x0a.0.0.1', '010.0.0.1' = 8.0.0.1) that
// would make an allow-list entry mean something other than what the operator reads, so only
// dotted-quad decimal is accepted for IPv4.
function parseAddress(text: string, allowZone: boolean): IpAddress | null {
  if (text.includes(':')) {
    if (!allowZone && text.includes('%')) return null;
    if (!ipaddr.IPv6.isValid(text)) return null;
    const parsed = ipaddr.IPv6.parse(text);
    // Socket addresses of dual-stack listeners arrive as ::ffff:a.b.c.d; they must be judged by the
    // IPv4 rules an operator wrote, not by IPv6 ones that never mention them.
    return parsed.isIPv4MappedAddress() ? parsed.toIPv4Address() : parsed;
  }
  return ipaddr.IPv4.isValidFourPartDecimal(text) ? ipaddr.IPv4.parse(text) : null;
}

function parseRange(entry: string): ParsedRange | null {
  const text = entry.trim();
  if (text === '') return null;
  const slash = text.indexOf('/');
  const addressText = slash === -1 ? text : text.slice(0, slash);
  const prefixText = slash === -1 ? null : text.slice(slash + 1);
  if (prefixText !== null && !PREFIX_PATTERN.test(prefixText)) return null;

  const isMapped = addressText.includes(':');
  const address = parseAddress(addressText, false);
  if (address === null) return null;

  let prefix: number;
  if (address.kind() === 'ipv4' && isMapped) {
    // A mapped range such as ::ffff:10.0.0.0/104 is rewritten as 10.0.0.0/8 so that it matches the
    // IPv4 form every mapped socket address is converted to before matching.
    const written = prefixText === null ? 128 : Number(prefixText);
    if (written < 96 || written > 128) return null;
    prefix = written - 96;
  } else {
    const max = address.kind() === 'ipv4' ? 32 : 128;
    prefix = prefixText === null ? max : Number(prefixText);
    if (prefix > max) return null;
  }
  return [maskToNetwork(address, prefix), prefix];
}

function maskToNetwork(address: IpAddress, prefix: number): IpAddress {
  const bytes = address.toByteArray();
  for (let i = 0; i < bytes.length; i++) {
    const keep = Math.max(0, Math.min(8, prefix - i * 8));
    bytes[i] = (bytes[i] ?? 0) & ((0xff << (8 - keep)) & 0xff);
  }
  return ipaddr.fromByteArray(bytes);
}

function formatRange([address, prefix]: ParsedRange): string {
  const text = address.kind() === 'ipv6' ? (address as ipaddr.IPv6).toRFC5952String() : address.toString();
  return `${text}/${prefix}`;
}

/**
 * Host bits are cleared rather than rejected ('10.1.2.3/8' becomes '10.0.0.0/8'), since the intent
 * is unambiguous. Output order and length match the input, one normalised range per entry.
 */
export function parseCidrList(input: string[]): CidrListResult {
  const ranges: string[] = [];
  for (const entry of input) {
    const parsed = typeof entry === 'string' ? parseRange(entry) : null;
    if (parsed === null) return { ok: false, invalid: String(entry) };
    ranges.push(formatRange(parsed));
  }
  return { ok: true, ranges };
}

/**
 * `ranges` is expected to come from parseCidrList; an entry that does not parse is skipped, so a
 * corrupted list fails closed instead of opening up.
 */
export function isAddressAllowed(address: string, ranges: string[]): boolean {
  if (ranges.length === 0) return true;
  if (typeof address !== 'string') return false;
  const parsed = parseAddress(address.trim(), true);
  if (parsed === null) return false;
  for (const entry of ranges) {
    const range = parseRange(entry);
    if (range === null || range[0].kind() !== parsed.kind()) continue;
    if (parsed.match(range)) return true;
  }
  return false;
}
