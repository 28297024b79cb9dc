import { eventAbout, type MessageEvent } from '../../events/index.js';
import { normalizeAddress } from '../../lib/email-address.js';
import { suppressedError } from '../../suppressions/index.js';
import type { AcceptedSend } from './accepted-send.js';

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
