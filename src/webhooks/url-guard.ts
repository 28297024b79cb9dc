import { lookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { ValidationError } from '../lib/errors.js';
import { ipv6Bytes } from '../lib/ipv6-bytes.js';

/**
 * The SSRF rule for webhook targets (DESIGN.md §1, issue 6): a webhook may
 * only post to public addresses, unless WEBHOOK_ALLOW_PRIVATE=true. The host
 * is resolved and EVERY address it resolves to must be public; the check runs
 * when the endpoint is created and again at each delivery, and a delivery
 * connects only to the addresses vetted for it (`resolvePublicTarget` +
 * `pinnedLookup`), so a name that resolves elsewhere between the check and
 * the connection (DNS rebinding) cannot reach an internal address.
 */

/** Resolves a host name to its addresses; injectable for tests. */
export type HostResolver = (host: string) => Promise<string[]>;

/** How long resolving a webhook's host may take before the target counts as unresolvable. */
export const WEBHOOK_RESOLVE_TIMEOUT_MS = 5_000;

/** Why a URL is refused; the message is one sentence naming `url`, fit for the API caller and a delivery's `last_error`. */
export class WebhookTargetError extends ValidationError {
  constructor(
    message: string,
    readonly kind: 'invalid' | 'scheme' | 'credentials' | 'unresolvable' | 'not_public',
  ) {
    super(message);
  }
}

export interface VettedTarget {
  /** The parsed URL to post to. */
  url: URL;
  /** The host name as the URL has it (brackets removed from an IPv6 literal). */
  host: string;
  /** The addresses vetted for this delivery: connect to these and no others (`pinnedLookup`). */
  addresses: string[];
}

/** Address ranges a webhook may not reach, each with the name the error gives it. */
const RANGES: readonly [label: string, family: 'ipv4' | 'ipv6', network: string, prefix: number][] = [
  ['a cloud metadata address', 'ipv4', '169.254.169.254', 32],
  ['a cloud metadata address', 'ipv6', 'fd00:ec2::254', 128],
  ['a "this network" address', 'ipv4', '0.0.0.0', 8],
  ['a private address', 'ipv4', '10.0.0.0', 8],
  ['a shared (carrier-grade NAT) address', 'ipv4', '100.64.0.0', 10],
  ['a loopback address', 'ipv4', '127.0.0.0', 8],
  ['a link-local address', 'ipv4', '169.254.0.0', 16],
  ['a private address', 'ipv4', '172.16.0.0', 12],
  ['a reserved address', 'ipv4', '192.0.0.0', 24],
  ['a documentation address', 'ipv4', '192.0.2.0', 24],
  ['a reserved address', 'ipv4', '192.88.99.0', 24],
  ['a private address', 'ipv4', '192.168.0.0', 16],
  ['a reserved address', 'ipv4', '198.18.0.0', 15],
  ['a documentation address', 'ipv4', '198.51.100.0', 24],
  ['a documentation address', 'ipv4', '203.0.113.0', 24],
  ['a multicast address', 'ipv4', '224.0.0.0', 4],
  ['a reserved address', 'ipv4', '240.0.0.0', 4],
  ['the unspecified address', 'ipv6', '::', 128],
  ['a loopback address', 'ipv6', '::1', 128],
  ['a unique-local address', 'ipv6', 'fc00::', 7],
  ['a link-local address', 'ipv6', 'fe80::', 10],
  ['a site-local address', 'ipv6', 'fec0::', 10],
  ['a multicast address', 'ipv6', 'ff00::', 8],
  ['a documentation address', 'ipv6', '2001:db8::', 32],
  ['a reserved address', 'ipv6', '2001::', 23],
  ['a reserved address', 'ipv6', '100::', 64],
  ['a reserved address', 'ipv6', '64:ff9b:1::', 48],
];

const BLOCKED = RANGES.map(([label, family, network, prefix]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, family);
  return { label, family, list };
});

/** Global unicast IPv6 (2000::/3): anything outside it, and not an embedded IPv4 form, is not a public address. */
const GLOBAL_UNICAST_V6 = new BlockList();
GLOBAL_UNICAST_V6.addSubnet('2000::', 3, 'ipv6');

/**
 * IPv6 forms that carry an IPv4 address a packet may end up at: IPv4-mapped
 * (::ffff:a.b.c.d), NAT64 (64:ff9b::a.b.c.d) and 6to4 (2002:aabb:ccdd::/48).
 */
function embeddedIpv4(address: string): string | undefined {
  const b = ipv6Bytes(address);
  const zero = (from: number, to: number) => b.subarray(from, to).every((x) => x === 0);
  const quad = (at: number) => `${b[at]}.${b[at + 1]}.${b[at + 2]}.${b[at + 3]}`;
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return quad(12);
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zero(4, 12)) return quad(12);
  if (b[0] === 0x20 && b[1] === 0x02) return quad(2);
  return undefined;
}

/**
 * Why `address` is not a public address (`"a loopback address"`, …), or
 * undefined when it is one. IPv4 forms embedded in IPv6 are judged by their
 * IPv4 address.
 */
export function nonPublicReason(address: string): string | undefined {
  const family = isIP(address);
  if (family === 0) return 'not an IP address';
  if (family === 6) {
    const inner = embeddedIpv4(address);
    if (inner !== undefined) return nonPublicReason(inner);
  }
  const name = family === 4 ? 'ipv4' : 'ipv6';
  const blocked = BLOCKED.find((range) => range.family === name && range.list.check(address, name));
  if (blocked) return blocked.label;
  if (family === 6 && !GLOBAL_UNICAST_V6.check(address, 'ipv6')) return 'a reserved address';
  return undefined;
}

/** node:dns lookup of every address (A and AAAA), bounded in time. */
export const systemResolver: HostResolver = async (host) => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error('DNS lookup timed out'), { code: 'ETIMEOUT' })), WEBHOOK_RESOLVE_TIMEOUT_MS);
  });
  try {
    const found = await Promise.race([lookup(host, { all: true, verbatim: true }), timeout]);
    return found.map((a) => a.address);
  } finally {
    clearTimeout(timer);
  }
};

/** Parses and checks the form of a webhook URL: absolute, http or https, without credentials. */
export function parseWebhookUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookTargetError('url must be an absolute http or https URL', 'invalid');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new WebhookTargetError(`url must be an http or https URL (got ${url.protocol.slice(0, -1)})`, 'scheme');
  }
  if (url.username !== '' || url.password !== '') {
    throw new WebhookTargetError('url must not contain a user name or password', 'credentials');
  }
  if (url.hostname === '') throw new WebhookTargetError('url must name a host', 'invalid');
  return url;
}

/**
 * Parses `raw`, resolves its host (an IP literal stands for itself) and checks
 * every address; answers the addresses to connect to. Throws WebhookTargetError
 * when the URL is not http(s), carries credentials, does not resolve, or (unless
 * `allowPrivate`) any address is not public. Call it at every delivery attempt.
 */
export async function resolvePublicTarget(raw: string, allowPrivate: boolean, resolve: HostResolver = systemResolver): Promise<VettedTarget> {
  const url = parseWebhookUrl(raw);
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  let addresses: string[];
  if (isIP(host) !== 0) {
    addresses = [host];
  } else {
    try {
      addresses = await resolve(host);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      throw new WebhookTargetError(`url host ${host} could not be resolved${typeof code === 'string' ? ` (${code})` : ''}`, 'unresolvable');
    }
    if (addresses.length === 0) throw new WebhookTargetError(`url host ${host} could not be resolved (no addresses)`, 'unresolvable');
  }
  if (!allowPrivate) {
    for (const address of addresses) {
      const reason = nonPublicReason(address);
      if (reason === undefined) continue;
      const where = address === host ? `url points to ${address}` : `url host ${host} resolves to ${address}`;
      throw new WebhookTargetError(`${where}, ${reason}; webhooks may only be sent to public addresses, unless the server runs with WEBHOOK_ALLOW_PRIVATE=true`, 'not_public');
    }
  }
  return { url, host, addresses };
}

/** The creation-time check: throws WebhookTargetError (a 400) unless `raw` may be a webhook target. */
export async function assertPublicWebhookTarget(raw: string, allowPrivate: boolean, resolve: HostResolver = systemResolver): Promise<void> {
  await resolvePublicTarget(raw, allowPrivate, resolve);
}

/**
 * A `lookup` for node:http / node:https / node:net that answers the vetted
 * addresses instead of asking DNS again: `http.request(url, { lookup:
 * pinnedLookup(target.addresses) })`. TLS still verifies the certificate
 * against the URL's host name.
 */
export function pinnedLookup(addresses: readonly string[]): LookupFunction {
  const all: LookupAddress[] = addresses.map((address) => ({ address, family: isIP(address) }));
  return (_hostname, options, callback) => {
    const family = typeof options === 'object' && options ? options.family : undefined;
    const wanted = family === 4 || family === 6 ? all.filter((a) => a.family === family) : all;
    if (wanted.length === 0) {
      callback(Object.assign(new Error('No vetted address of the requested family'), { code: 'ENOTFOUND' }), '', 0);
      return;
    }
    if (typeof options === 'object' && options?.all) (callback as unknown as (err: null, addresses: LookupAddress[]) => void)(null, wanted);
    else callback(null, wanted[0]!.address, wanted[0]!.family);
  };
}
