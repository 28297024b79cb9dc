import { isIPv4, isIPv6 } from 'node:net';
import { ipv6Bytes } from './ipv6-bytes.js';

/**
 * What a client address is counted under by every per-client bound (the
 * inbound receiver's connections, the rate limits of requests without a
 * key, sign-in attempts and lock-outs): an IPv4 address as it is, an IPv6
 * address by its /64. One host is handed a whole /64 and may pick any source
 * address within it, so counting single IPv6 addresses would let it make
 * itself 2^64 clients.
 */
export function clientNetworkOf(address: string): string {
  if (!isIPv6(address)) return address;
  const bytes = ipv6Bytes(address);
  // An IPv4 client seen through an IPv6 socket (::ffff:192.0.2.1) is that IPv4 client.
  if (bytes.subarray(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff) return bytes.subarray(12).join('.');
  const prefix = Array.from({ length: 4 }, (_, i) => ((bytes[2 * i]! << 8) | bytes[2 * i + 1]!).toString(16));
  return `${prefix.join(':')}::/64`;
}

/**
 * A client address as tracking records it (docs/tracking.md#what-is-recorded): its network, not the
 * host: an IPv4 address's /24 (`203.0.113.0`), an IPv6 address's /48 (`2001:db8:85a3::`); an
 * IPv4-mapped IPv6 address counts as IPv4. Enough to tell a mailbox provider's proxy from an office.
 */
export function recordedNetworkOf(address: string | undefined): string | null {
  if (!address) return null;
  if (isIPv4(address)) return `${address.split('.').slice(0, 3).join('.')}.0`;
  if (!isIPv6(address)) return null;
  const bytes = ipv6Bytes(address);
  if (bytes.subarray(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff) return `${bytes.subarray(12, 15).join('.')}.0`;
  const network = Buffer.alloc(16);
  network.set(bytes.subarray(0, 6));
  const groups = Array.from({ length: 8 }, (_, i) => network.readUInt16BE(2 * i).toString(16));
  // Written canonically (RFC 5952) by the URL parser: `2001:db8::`, not `2001:db8:0:0:0:0:0:0`.
  return new URL(`http://[${groups.join(':')}]/`).hostname.slice(1, -1);
}
