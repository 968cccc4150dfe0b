/**
 * The outbound address policy, one for every request the service makes on a tenant's behalf
 * (webhook deliveries, JWK Set fetches): the URL is https, and every address its host resolves to
 * is a public one, unless ALLOW_PRIVATE_NETWORKS allows plain http and loopback, private,
 * link-local and unspecified addresses. IPv6 forms that carry an IPv4 address (mapped, translated,
 * compatible, 6to4, NAT64) are judged by that IPv4 address. Callers check before every request and
 * connect to the checked address (`pinnedLookup`), so a DNS answer that changes between the check
 * and the connection (rebinding) cannot move the request elsewhere. A refusal names the rule that
 * refused, never an address the host resolved to: those are the network's, not the tenant's.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';

const blockedV4 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blockedV4.addSubnet(network, prefix, 'ipv4');

// IPv6 networks refused whatever they carry: unique-local, link-local, multicast, Teredo (its
// embedded addresses are obfuscated) and the local-use NAT64 prefix (its IPv4 bits sit where the
// operator chose).
const blockedV6 = new BlockList();
for (const [network, prefix] of [
  ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8], ['2001::', 32], ['64:ff9b:1::', 48],
] as const) blockedV6.addSubnet(network, prefix, 'ipv6');

/** A URL the policy refuses; `rule` says which rule, in words fit for the tenant who sent it. */
export class OutboundRefusal extends Error {
  constructor(readonly rule: string) {
    super(rule);
    this.name = 'OutboundRefusal';
  }
}

export interface OutboundTarget {
  url: URL;
  /** The checked address the request connects to. */
  address: string;
  family: 4 | 6;
}

/** The eight 16-bit groups of an IPv6 address (as `isIP` accepts it), or undefined. */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (dotted) {
    const [a, b, c, d] = dotted.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -dotted.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const groups = tail === undefined ? left : [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

const ipv4Of = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;

/** The IPv4 address an IPv6 address carries, when it is one of the forms that embed one. */
export function embeddedIpv4(address: string): string | undefined {
  const g = ipv6Groups(address);
  if (!g) return undefined;
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  // ::a.b.c.d (compatible), ::ffff:a.b.c.d (mapped), ::ffff:0:a.b.c.d (translated)
  if (zeros(0, 5) && (g[5] === 0 || g[5] === 0xffff)) return ipv4Of(g[6]!, g[7]!);
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return ipv4Of(g[6]!, g[7]!);
  // 64:ff9b::a.b.c.d (NAT64, RFC 6052)
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return ipv4Of(g[6]!, g[7]!);
  // 2002:AABB:CCDD:: (6to4)
  if (g[0] === 0x2002) return ipv4Of(g[1]!, g[2]!);
  return undefined;
}

/** True for an address anyone on the internet could also reach: none of the refused ranges. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !blockedV4.check(address, 'ipv4');
  if (family !== 6) return false;
  const g = ipv6Groups(address);
  if (!g || g.every((x) => x === 0) || (g.slice(0, 7).every((x) => x === 0) && g[7] === 1)) return false;
  const carried = embeddedIpv4(address);
  if (carried !== undefined) return carried !== '0.0.0.0' && !blockedV4.check(carried, 'ipv4');
  return !blockedV6.check(address, 'ipv6');
}

/** Parses and checks the URL's shape and scheme, without resolving it. */
export function parseOutboundUrl(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundRefusal('is not a valid absolute URL');
  }
  const schemes = allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) throw new OutboundRefusal(allowPrivate ? 'must be http or https' : 'must be https');
  if (url.username || url.password) throw new OutboundRefusal('must not carry a user name or password');
  return url;
}

/** Resolves the URL's host and answers the address to connect to; throws OutboundRefusal. */
export async function resolveOutboundTarget(raw: string, allowPrivate: boolean, timeoutMs = 5000): Promise<OutboundTarget> {
  const url = parseOutboundUrl(raw, allowPrivate);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: Array<{ address: string; family: number }>;
  let timer: NodeJS.Timeout | undefined;
  try {
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timed out')), timeoutMs);
    });
    addresses = await Promise.race([lookup(host, { all: true, verbatim: true }), deadline]);
  } catch {
    throw new OutboundRefusal(`has a host that does not resolve`);
  } finally {
    clearTimeout(timer);
  }
  if (addresses.length === 0) throw new OutboundRefusal('has a host that does not resolve');
  if (!allowPrivate && addresses.some((a) => !isPublicAddress(a.address))) {
    throw new OutboundRefusal('has a host that is, or resolves to, a loopback, private, link-local or unspecified address');
  }
  const [first] = addresses;
  return { url, address: first!.address, family: first!.family === 6 ? 6 : 4 };
}

/** A DNS lookup that answers the checked address whatever the host: the connection is pinned to it. */
export function pinnedLookup(target: OutboundTarget): LookupFunction {
  return ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  }) as LookupFunction;
}

const NETWORK_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused',
  ECONNRESET: 'the connection was reset',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  ETIMEDOUT: 'the connection timed out',
  EPIPE: 'the connection was closed',
};

/** A network error in words that name no address (node's messages carry the connected IP and port). */
export function describeNetworkError(error: Error & { code?: string }): string {
  if (error.code && NETWORK_ERRORS[error.code]) return NETWORK_ERRORS[error.code]!;
  if (error.code?.startsWith('ERR_TLS') || /certificate|SSL|TLS/i.test(error.message)) return `the TLS handshake failed (${error.code ?? 'certificate'})`;
  return error.message.replace(/\b\d{1,3}(\.\d{1,3}){3}(:\d+)?\b|\[?[0-9a-f]{0,4}(:[0-9a-f]{0,4}){2,7}\]?(:\d+)?/gi, '(address)');
}
