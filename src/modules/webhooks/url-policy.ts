/**
 * The SSRF guard: a webhook URL is https, and every address its host resolves to is a public one
 * (no loopback, private, link-local, unspecified, multicast or IPv4-mapped address), unless
 * WEBHOOK_ALLOW_PRIVATE_NETWORKS allows them and plain http. It runs at creation and before every
 * attempt; the attempt then connects to the address checked here, so a DNS answer that changes
 * between the check and the connection (rebinding) cannot move the request elsewhere.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { AppError } from '../../plugins/errors.js';

// IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) are checked against the IPv4 rules by BlockList itself.
const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128], ['::1', 128], ['64:ff9b::', 96], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8],
] as const) blocked.addSubnet(network, prefix, 'ipv6');

export interface WebhookTarget {
  url: URL;
  /** The checked address the request connects to. */
  address: string;
  family: 4 | 6;
}

const refuse = (detail: string): never => {
  throw new AppError('WEBHOOK_URL_NOT_ALLOWED', detail, { errors: [{ field: 'url', message: detail }] });
};

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return !blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Parses and checks the URL without resolving it (shape and scheme). */
export function parseWebhookUrl(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse('url is not a valid absolute URL');
  }
  const schemes = allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) refuse(`a webhook URL must be ${allowPrivate ? 'http or https' : 'https'}`);
  return url;
}

/** Resolves the URL's host and answers the address to connect to, or refuses it (422). */
export async function resolveWebhookTarget(raw: string, allowPrivate: boolean, timeoutMs = 5000): Promise<WebhookTarget> {
  const url = parseWebhookUrl(raw, allowPrivate);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: Array<{ address: string; family: number }>;
  let timer: NodeJS.Timeout | undefined;
  try {
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timed out')), timeoutMs);
    });
    addresses = await Promise.race([lookup(host, { all: true, verbatim: true }), deadline]);
  } catch (error) {
    return refuse(`the host ${host} does not resolve (${error instanceof Error ? error.message : String(error)})`);
  } finally {
    clearTimeout(timer);
  }
  if (addresses.length === 0) refuse(`the host ${host} does not resolve`);
  if (!allowPrivate) {
    const bad = addresses.find((a) => !isPublicAddress(a.address));
    if (bad) refuse(`the host ${host} resolves to ${bad.address}, a loopback, private, link-local or unspecified address`);
  }
  const [first] = addresses;
  return { url, address: first!.address, family: first!.family === 6 ? 6 : 4 };
}
