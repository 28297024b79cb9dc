import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Store } from '../db/store.js';
import { loadReturnPathKeys } from '../inbound/index.js';
import { clientNetworkOf } from '../lib/client-network.js';
import { RateLimitError } from '../lib/errors.js';
import type { RateLimiter } from '../lib/rate-limiter.js';
import { createEngagementRecorder, type EngagementRecorder } from './engagement-recorder.js';
import { createTrackedLinks } from './tracked-links.js';
import type { EngagementWriter } from './threaded-engagement-writer.js';
import { deriveTrackingKey, readTrackingToken } from './tracking-token.js';

/** A request for a tracked address, as the routes read it. */
export interface TrackingRequest {
  token: string;
  method: string;
  userAgent: string | undefined;
  /** The client's address (TRUST_PROXY applied). */
  address: string;
}

/** Clicks remembered per recipient for the "every link at once" rule (machine-rules.ts), and how many recipients at most. */
const RECENT_CLICKS_MS = 2_000;
const RECENT_RECIPIENTS = 10_000;

export interface TrackingService {
  /** Records an open when the token checks and the client is within its budget; the pixel is answered either way. */
  open(request: TrackingRequest): Promise<void>;
  /** The URL a click leads to, or null for a token that does not check or a link that is no more (never a URL from the request). */
  click(request: TrackingRequest): Promise<string | null>;
  recorder: EngagementRecorder;
}

/**
 * The tracked addresses' rules (docs/tracking.md): tokens checked against
 * the tracking key before anything is read; each client network within
 * RATE_LIMIT_TRACKING_PER_MIN (over it, an open is answered and not
 * recorded, a click refused with 429); the hit handed to the batched
 * recorder, so the answer never waits on a write.
 */
export function createTrackingService(
  store: Store,
  config: Pick<Config, 'secretKey' | 'rateLimits'>,
  deps: { rateLimiter: RateLimiter; log: Pick<Logger, 'warn'>; writer?: EngagementWriter },
): TrackingService {
  const recorder = createEngagementRecorder(store, deps.log, deps.writer ? (hits) => deps.writer!.write(hits) : undefined);
  const linksOf = createTrackedLinks(store);
  let key: Promise<Buffer> | undefined;
  // The same key the worker signs with (composition/store-runtime.ts), read at the first tracked request.
  const keyOf = () => {
    if (!config.secretKey) throw new Error('The secret key is opened (withSecretKey) before tracking');
    key ??= loadReturnPathKeys(store, config.secretKey).then((keys) => deriveTrackingKey(keys[0]!));
    key.catch(() => (key = undefined));
    return key;
  };
  const recent = new Map<string, { at: number; link: number }[]>();

  const budget = (address: string) => deps.rateLimiter.consume(`tracking:${clientNetworkOf(address)}`, config.rateLimits.trackingPerMinute);

  /** This recipient's clicks of the last moments, and this one added to them. */
  function clicksBefore(messageId: string, recipient: number, at: number, link: number): { at: number; link: number }[] {
    const id = `${messageId}\0${recipient}`;
    const earlier = (recent.get(id) ?? []).filter((c) => at - c.at < RECENT_CLICKS_MS);
    recent.delete(id);
    if (recent.size >= RECENT_RECIPIENTS) recent.delete(recent.keys().next().value!);
    recent.set(id, [...earlier, { at, link }]);
    return earlier;
  }

  return {
    recorder,
    async open(request) {
      try {
        const target = readTrackingToken(await keyOf(), 'o', request.token);
        if (!target || !(await budget(request.address)).allowed) return;
        recorder.record({ kind: 'open', target, method: request.method, userAgent: request.userAgent, address: request.address, at: Date.now() });
      } catch (error) {
        // The store or Redis away (the key, the budget): the pixel is answered all the same, the open not recorded.
        deps.log.warn({ err: (error as Error).message }, 'could not record an open');
      }
    },
    async click(request) {
      const target = readTrackingToken(await keyOf(), 'c', request.token);
      if (!target) return null;
      const decision = await budget(request.address);
      if (!decision.allowed) throw new RateLimitError(Math.max(1, decision.resetAt - Math.floor(Date.now() / 1000)));
      const links = await linksOf(target.messageId);
      const url = links[target.link - 1];
      if (url === undefined) return null;
      const at = Date.now();
      const earlier = clicksBefore(target.messageId, target.recipient, at, target.link);
      recorder.record({ kind: 'click', target, method: request.method, userAgent: request.userAgent, address: request.address, at, url, linkCount: links.length, earlier });
      return url;
    },
  };
}
