import { rewriteHtml } from './html-rewriter.js';
import { trackingToken } from './tracking-token.js';

/** How one message is tracked: what applies, where tracked addresses point, and the key they are signed with. */
export interface MessageTracking {
  opens: boolean;
  clicks: boolean;
  /** The origin of tracked addresses: PUBLIC_URL's, or the domain's tracking domain with PUBLIC_URL's scheme. */
  baseUrl: string;
  /** The tracking key (tracking-token.ts), as bytes. */
  key: Uint8Array;
}

/** What of the message the rewrite reads: its id, HTML and the caller's headers (JSON [name, value] pairs, as stored). */
export interface TrackableMessage {
  id: string;
  html: string | null;
  headers: string | null;
}

/**
 * The List-Unsubscribe targets of the message's own headers: never rewritten,
 * since a mailbox provider calls them itself (RFC 8058) and an unsubscribe
 * through a tracked address would count as a click.
 */
function unsubscribeTargets(headers: string | null): Set<string> {
  const targets = new Set<string>();
  if (!headers) return targets;
  for (const [name, value] of JSON.parse(headers) as [string, string][]) {
    if (name.toLowerCase() !== 'list-unsubscribe') continue;
    // Each `<…>` in turn, by hand: a pattern would rescan to the end from every `<` of a value without `>`.
    for (let at = value.indexOf('<'); at !== -1; ) {
      const end = value.indexOf('>', at + 1);
      if (end === -1) break;
      targets.add(value.slice(at + 1, end).trim());
      at = value.indexOf('<', end + 1);
    }
  }
  return targets;
}

/**
 * The HTML one recipient of the message gets: its links lead through tracked
 * addresses and its open pixel is that recipient's. Null when there is no HTML.
 */
export function trackedHtmlFor(message: TrackableMessage, recipient: number, tracking: MessageTracking): string | null {
  if (message.html === null) return null;
  const key = Buffer.from(tracking.key);
  return rewriteHtml(message.html, {
    opens: tracking.opens,
    clicks: tracking.clicks,
    clickUrl: (link) => `${tracking.baseUrl}/t/c/${trackingToken(key, 'c', { messageId: message.id, recipient, link })}`,
    pixelUrl: `${tracking.baseUrl}/t/o/${trackingToken(key, 'o', { messageId: message.id, recipient, link: 0 })}`,
    untracked: unsubscribeTargets(message.headers),
  }).html;
}

/**
 * The original URLs of the message's tracked links, link 1 first: the rewrite
 * is deterministic, so reading the stored HTML again gives the links it
 * numbered, and no copy of them is kept beside the message.
 */
export function trackedLinksOf(message: TrackableMessage): string[] {
  if (message.html === null) return [];
  return rewriteHtml(message.html, { opens: false, clicks: true, clickUrl: () => '', pixelUrl: '', untracked: unsubscribeTargets(message.headers) }).links;
}

/** What decides where one message's tracked addresses point: the sender domain's tracking host, when its CNAME checks. */
export interface TrackingHost {
  tracking_domain: string | null;
  tracking_domain_status: string | null;
}

/**
 * The origin of a message's tracked addresses: the sender domain's verified
 * tracking domain, with PUBLIC_URL's scheme (whatever serves PUBLIC_URL's TLS
 * serves it too), else PUBLIC_URL's origin; without PUBLIC_URL, the listener's
 * own address on this machine, which only a local test reaches.
 */
export function trackingBaseUrl(publicOrigin: string | undefined, port: number, domain: TrackingHost | undefined): string {
  const origin = publicOrigin ?? `http://localhost:${port}`;
  if (domain?.tracking_domain && domain.tracking_domain_status === 'verified') return `${new URL(origin).protocol}//${domain.tracking_domain}`;
  return origin;
}
