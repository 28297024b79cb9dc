/** What the delivery side keeps of its upstreams across processes (migration 0026); part of `Database` in schema.ts. */

/** An upstream that refused Mailroom's credentials, and in its words why (0026): what /readyz tells. */
export interface ProviderRefusalsTable {
  provider: string;
  reason: string;
  since: string;
}

/** A rate shared by every worker on the store (0026): the next free slot, ms since the epoch (PostgreSQL's bigint reads as a string). */
export interface SendSlotsTable {
  name: string;
  next_at: number | string;
}
