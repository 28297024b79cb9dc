import { isIPv6 } from 'node:net';
import { ipv6Bytes } from '../ipv6-bytes.js';

/**
 * Connections counted per client, so that one client cannot hold the
 * receiver's every connection (INBOUND_MAX_CONNECTIONS) and lock the others
 * out. A client is its IPv4 address, or the /64 of its IPv6 address: one
 * host is handed a whole /64, and picks any source address within it.
 */

/** What a connection from `address` is counted under (see the head of this file). */
export function clientOf(address: string): string {
  if (!isIPv6(address)) return address;
  const bytes = ipv6Bytes(address);
  // An IPv4 client seen through an IPv6 socket (::ffff:192.0.2.1) is that IPv4 client.
  if (bytes.subarray(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff) return bytes.subarray(12).join('.');
  const prefix = Array.from({ length: 4 }, (_, i) => ((bytes[2 * i]! << 8) | bytes[2 * i + 1]!).toString(16));
  return `${prefix.join(':')}::/64`;
}

export interface ClientConnections {
  /** Counts the connection in, unless its client has `limit` already: then false, and it is not counted. */
  admit(connectionId: string, address: string): boolean;
  /** Counts a connection out (one never admitted is ignored). */
  release(connectionId: string): void;
  /** Connections counted now. */
  size(): number;
}

export function countClientConnections(limit: number): ClientConnections {
  const perClient = new Map<string, number>();
  const clientOfConnection = new Map<string, string>();
  return {
    admit(connectionId, address) {
      const client = clientOf(address);
      const open = perClient.get(client) ?? 0;
      if (open >= limit) return false;
      perClient.set(client, open + 1);
      clientOfConnection.set(connectionId, client);
      return true;
    },
    release(connectionId) {
      const client = clientOfConnection.get(connectionId);
      if (client === undefined) return;
      clientOfConnection.delete(connectionId);
      const open = perClient.get(client)! - 1;
      if (open === 0) perClient.delete(client);
      else perClient.set(client, open);
    },
    size: () => clientOfConnection.size,
  };
}
