import type { Repositories } from '../db/store.js';
import type { LogEntryRow } from '../logs/index.js';
import { normalizeAddress } from '../lib/email-address.js';

/** The error detail of a recipient held back by the suppression list, at acceptance or at delivery. */
export const suppressedError = (reason: string) => `Recipient is on the suppression list (${reason})`;

/**
 * The addresses to look up on the suppression list: the recipients of `sent`
 * entries, lower-cased, per workspace.
 */
export function addressesToLookUp(entries: Pick<LogEntryRow, 'workspace_id' | 'recipient' | 'status'>[]): Map<string, string[]> {
  const addressesOf = new Map<string, Set<string>>();
  for (const entry of entries) {
    if (entry.status !== 'sent') continue;
    const addresses = addressesOf.get(entry.workspace_id) ?? new Set<string>();
    addresses.add(normalizeAddress(entry.recipient));
    addressesOf.set(entry.workspace_id, addresses);
  }
  return new Map([...addressesOf].map(([workspaceId, addresses]) => [workspaceId, [...addresses]]));
}

/**
 * Of the recipients of `sent` entries, those on their workspace's suppression
 * list (lower-cased address → reason), per workspace: one look-up per
 * workspace however many entries, for the worker's claims.
 */
export async function suppressedAmong(
  suppressions: Repositories['suppressions'],
  entries: Pick<LogEntryRow, 'workspace_id' | 'recipient' | 'status'>[],
): Promise<Map<string, Map<string, string>>> {
  const suppressedIn = new Map<string, Map<string, string>>();
  for (const [workspaceId, addresses] of addressesToLookUp(entries)) suppressedIn.set(workspaceId, await suppressions.findSuppressed(workspaceId, addresses));
  return suppressedIn;
}
