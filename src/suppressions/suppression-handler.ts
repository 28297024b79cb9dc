import { normalizeAddress } from '../lib/email-address.js';
import { HARD_BOUNCE_SUBTYPES, type EventHandler } from '../events/index.js';

/**
 * Puts the recipient of a hard bounce or a complaint on the workspace's
 * suppression list (with the reason and the message it came from), in the
 * transaction of the event: later sends to it are `suppressed` and never
 * reach a provider. An address already on the list keeps its first entry.
 */
export const suppressOnBounceOrComplaint: EventHandler = async (repos, events) => {
  for (const event of events) {
    const reason =
      event.type === 'complained' ? 'complaint' : event.type === 'bounced' && event.bounce && HARD_BOUNCE_SUBTYPES.has(event.bounce.subtype) ? 'hard_bounce' : null;
    if (!reason) continue;
    await repos.suppressions.add({
      workspace_id: event.workspace_id,
      email: normalizeAddress(event.recipient),
      reason,
      source_message_id: event.message_id,
      created_at: event.timestamp,
    });
  }
};
