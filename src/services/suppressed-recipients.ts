import type { AcceptedSend } from '../acceptance/accepted-sends.js';
import type { Repositories } from '../db/store.js';
import type { LogEntryRow } from '../repositories/logs-repository.js';
import { eventAbout, type MessageEvent } from '../events/message-event.js';
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

/**
 * Holds back the recipients of accepted sends that are on their workspace's
 * suppression list: their `send` entry is written `suppressed`, with a
 * `suppressed` event, and a send left with nobody to deliver to gets no
 * outbox row. `suppressedIn` is the list as the transaction writing the
 * sends read it, over the whole batch (addressesToLookUp), so the list is read
 * once per batch rather than once per request on the HTTP thread, and what is
 * written matches it. Returns the sends as they are to be written; those it
 * changes are copies.
 */
export function holdBackSuppressed(sends: AcceptedSend[], suppressedIn: Map<string, Map<string, string>>): AcceptedSend[] {
  if (![...suppressedIn.values()].some((listed) => listed.size > 0)) return sends;

  return sends.map((send) => {
    const listed = suppressedIn.get(send.message.workspace_id);
    const held: MessageEvent[] = [];
    const entries = send.entries.map((entry) => {
      const reason = entry.status === 'sent' ? listed?.get(normalizeAddress(entry.recipient)) : undefined;
      if (reason === undefined) return entry;
      held.push({ ...eventAbout(entry, 'suppressed', entry.created_at), reason });
      return { ...entry, status: 'suppressed' as const, error: suppressedError(reason) };
    });
    if (held.length === 0) return send;
    return { ...send, entries, events: [...send.events, ...held], job: entries.some((e) => e.status === 'sent') ? send.job : null };
  });
}
