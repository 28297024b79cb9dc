import type { Store } from '../db/store.js';
import { trackedLinksOf } from './message-tracking.js';

/** Messages whose links are kept in memory, and for how long: a campaign's clicks come in bursts on a few messages. */
const CACHED_MESSAGES = 1_000;
const CACHED_MS = 60_000;

/** A message's tracked links, link 1 first; empty for a message that is gone or whose content expired. */
export type LinksOf = (messageId: string) => Promise<string[]>;

/**
 * The original URLs of messages' tracked links, read from the stored HTML
 * (message-tracking.ts) and kept a minute for the next click on the same
 * message. A message whose content expired (retention) has no links any more:
 * its tracked addresses stop leading anywhere, as its body is gone.
 */
export function createTrackedLinks(store: Pick<Store, 'engagement'>): LinksOf {
  const cached = new Map<string, { links: string[]; until: number }>();
  return async (messageId) => {
    const now = Date.now();
    const hit = cached.get(messageId);
    if (hit && hit.until > now) return hit.links;
    const message = await store.engagement.linkSource(messageId);
    const links = message && message.content_expired_at === null ? trackedLinksOf(message) : [];
    cached.delete(messageId);
    if (cached.size >= CACHED_MESSAGES) cached.delete(cached.keys().next().value!);
    cached.set(messageId, { links, until: now + CACHED_MS });
    return links;
  };
}
