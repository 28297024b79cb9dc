import { isIP } from 'node:net';
import type { FastifyServerOptions } from 'fastify';
import { ConfigError } from '../lib/config-error.js';

/**
 * TRUST_PROXY: whose word Mailroom takes for the client's address and scheme
 * (X-Forwarded-For, -Proto, -Host). `false`: nobody's, the connecting peer is
 * the client. `hops`: that many proxies stand in front of every request, so
 * the client is the address that many entries from the right of
 * X-Forwarded-For (the peer itself counting as the first). `proxies`: the
 * peer and each entry from the right are skipped while they are one of these
 * addresses or ranges; the first that is not is the client.
 */
export type TrustProxy = false | { hops: number } | { proxies: string[] };

/** proxy-addr's names for the ranges of RFC 5735/4291 (loopback), 3927/4291 (link-local) and 1918/4193 (unique local). */
const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

const REFUSED_TRUE =
  'Invalid configuration: TRUST_PROXY=true would take every X-Forwarded-For entry on trust, so any client could choose its own address ' +
  '(and with it its rate limits and sign-in lock-out): name the proxies instead, TRUST_PROXY=127.0.0.1 for nginx or Caddy on this machine ' +
  '(a comma-separated list of addresses and CIDR ranges), or give their number, TRUST_PROXY=1';

function isAddressOrRange(entry: string): boolean {
  if (RANGE_NAMES.has(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address!);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/** Reads TRUST_PROXY: `false`, a number of proxies, or a comma-separated list of their addresses and CIDR ranges; `true` is refused. */
export function parseTrustProxy(value: string): TrustProxy {
  const text = value.trim();
  if (/^true$/i.test(text)) throw new ConfigError(REFUSED_TRUE);
  if (/^(false|0)$/i.test(text)) return false;
  if (/^\d{1,2}$/.test(text)) return { hops: Number(text) };
  const proxies = text.split(',').map((entry) => entry.trim());
  const wrong = proxies.find((entry) => !isAddressOrRange(entry));
  if (wrong !== undefined) {
    throw new ConfigError(
      `Invalid configuration: TRUST_PROXY must be false, the number of proxies in front of Mailroom (1), or a comma-separated list of their addresses or CIDR ranges (127.0.0.1,10.0.0.0/8) (got ${JSON.stringify(value)})`,
    );
  }
  return { proxies };
}

/**
 * Fastify's `trustProxy` for it. A hop count goes in as a function: Fastify 5
 * takes a bare number for "trust nobody" (it cannot tell the proxy from a
 * client connecting directly). The function trusts any peer as the first
 * hop, so a hop count fits only where nothing but the proxies can connect;
 * the list of addresses checks the peer.
 */
export function fastifyTrustProxy(trust: TrustProxy): FastifyServerOptions['trustProxy'] {
  if (trust === false) return false;
  if ('hops' in trust) return (_address: string, hop: number) => hop < trust.hops;
  return trust.proxies;
}
