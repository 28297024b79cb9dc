import { clientNetworkOf } from '../lib/client-network.js';

/**
 * Connections counted per client (an IPv4 address, an IPv6 /64: see
 * client-network.ts), so that one client cannot hold the receiver's every
 * connection (INBOUND_MAX_CONNECTIONS) and lock the others out.
 */

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
      const client = clientNetworkOf(address);
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
