import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** Cloud metadata services, named in refusals (168.63.129.16, Azure's, is the one in a public range). */
const METADATA = new Set([
  '169.254.169.254',
  'fd00:ec2::254',
  '100.100.100.200',
  '169.254.170.2',
  '168.63.129.16',
]);

export interface OutboundPolicy {
  /** WEBHOOK_ALLOW_HTTP: plain http accepted. */
  allowHttp: boolean;
  /** WEBHOOK_ALLOWED_HOSTS: addresses / CIDR ranges allowed although not public. */
  allowedHosts: readonly string[];
}

/**
 * A refused target. `message` is what callers may be told (no DNS answers in it: it would map an
 * internal network for whoever registers names); `detail` names the addresses, for the server's log.
 */
export class UnsafeTarget extends Error {
  constructor(
    message: string,
    readonly detail: string = message,
  ) {
    super(message);
  }
}

function normalise(address: Address): Address {
  return address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()
    ? (address as ipaddr.IPv6).toIPv4Address()
    : address;
}

function listed(address: Address, allowedHosts: readonly string[]): boolean {
  for (const entry of allowedHosts) {
    if (entry.includes('/')) {
      const [range, bits] = ipaddr.parseCIDR(entry);
      const candidate = normalise(address);
      if (candidate.kind() === range.kind() && candidate.match(range, bits)) return true;
      if (
        candidate.kind() === 'ipv4' &&
        range.kind() === 'ipv6' &&
        (candidate as ipaddr.IPv4).toIPv4MappedAddress().match(range, bits)
      )
        return true;
    } else if (normalise(ipaddr.parse(entry)).toString() === normalise(address).toString()) return true;
  }
  return false;
}

/**
 * Why a receiver may not be called at `text` (a resolved address), or null when it may: only public
 * unicast addresses, unless WEBHOOK_ALLOWED_HOSTS lists it. Refused: loopback, private (RFC 1918),
 * link-local (and so 169.254.169.254), unique-local (fd00:ec2::254), carrier-grade NAT, unspecified,
 * multicast, broadcast, reserved and documentation ranges, IPv6 transition forms that embed an
 * IPv4 address (6to4, Teredo, NAT64).
 */
export function refusalOf(text: string, policy: OutboundPolicy): string | null {
  if (!ipaddr.isValid(text)) return `${text} is not an IP address`;
  const address = normalise(ipaddr.parse(text));
  if (listed(address, policy.allowedHosts)) return null;
  const plain = address.toString();
  if (METADATA.has(plain)) return `${plain} is a cloud metadata address`;
  // IPv4-compatible IPv6 (::/96, deprecated): ::7f00:1 is 127.0.0.1 to some stacks.
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0))
    return `${plain} is not a public address (IPv4-compatible)`;
  const range = address.range();
  if (range === 'unicast') return null;
  return `${plain} is not a public address (${range})`;
}

/** The endpoint URL's own checks: absolute, https (or http when allowed), no credentials. */
export function checkUrl(raw: string, policy: OutboundPolicy): { url: URL } | { problem: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { problem: 'must be an absolute URL' };
  }
  if (url.protocol !== 'https:' && !(policy.allowHttp && url.protocol === 'http:'))
    return { problem: policy.allowHttp ? 'must be an http or https URL' : 'must be an https URL' };
  if (url.username !== '' || url.password !== '') return { problem: 'must not contain credentials' };
  if (url.hash !== '') return { problem: 'must not contain a fragment' };
  return { url };
}

/** The host name of a URL as a resolver or socket wants it (IPv6 literals lose their brackets). */
export function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * Resolves `host` and vets every address it resolves to: one refused address refuses the host (a
 * name answering with a public and a private address is not trusted). Returns the addresses to connect to.
 */
export async function vetHost(
  host: string,
  policy: OutboundPolicy,
): Promise<{ address: string; family: number }[]> {
  const found = isIP(host) !== 0 ? [{ address: host, family: isIP(host) }] : await resolve(host);
  if (found.length === 0) throw new UnsafeTarget(`${host} does not resolve`);
  for (const { address } of found) {
    const refusal = refusalOf(address, policy);
    if (refusal !== null)
      throw isIP(host) !== 0
        ? new UnsafeTarget(refusal)
        : new UnsafeTarget(`${host} resolves to a non-public address`, `${host} resolves to ${refusal}`);
  }
  return found;
}

async function resolve(host: string) {
  try {
    return await dnsLookup(host, { all: true, verbatim: true });
  } catch (error) {
    throw new UnsafeTarget(`${host} does not resolve (${(error as { code?: string }).code ?? 'error'})`);
  }
}
