import type { Logger } from 'pino';
import type { Store, Repositories } from '../db/store.js';
import { createBatchQueue } from '../db/batch-queue.js';
import { eventAbout, publishEvents, type MessageEvent } from '../events/index.js';
import { allRecipientsOf } from '../lib/message-recipients.js';
import { firstKey, hourOf, type EngagedMessage, type EngagementDelta } from './engagement-repository.js';
import { classifyClick, classifyOpen } from './machine-rules.js';
import type { TrackedTarget } from './tracking-token.js';
import { recordedNetworkOf } from '../lib/client-network.js';

/** One request for a tracked address whose token checked: what the recorder makes an event of. */
export interface EngagementHit {
  kind: 'open' | 'click';
  target: TrackedTarget;
  method: string;
  userAgent: string | undefined;
  /** The client's address as the listener read it (trusting proxies as TRUST_PROXY says). */
  address: string | undefined;
  /** When it came, ms since the epoch. */
  at: number;
  /** `click`: the link's original URL, how many tracked links the message has, and this recipient's clicks of the last seconds. */
  url?: string;
  linkCount?: number;
  earlier?: ReadonlyArray<{ at: number; link: number }>;
}

/** Hits held for the next write at most: beyond, new ones are dropped (and counted) rather than growing memory without bound. */
export const MAX_PENDING_HITS = 50_000;
/** How long the first hit of a batch waits for company, and the most one write takes. */
const LINGER_MS = 20;
const MAX_BATCH = 2_000;
/** Dropping is told at most this often. */
const DROP_WARNING_MS = 60_000;

export interface EngagementRecorder {
  /** Queues the hit for the next batched write; never waits on the store (the pixel and the redirect answer at once). */
  record(hit: EngagementHit): void;
  /** Hits dropped because the queue was full. */
  dropped(): number;
  /** Resolves once every hit queued so far is written (or failed to be). */
  flush(): Promise<void>;
}

/**
 * Writes opens and clicks in batches: one read of the batch's messages (and,
 * for clicks, when each recipient was handed over), then one transaction with
 * their events (published on the event path, so webhooks that name `opened` or
 * `clicked` get them), the first opens and clicks, and the hour's counters. A
 * hit whose message is gone, or whose content has expired (tracking data
 * follows the content's retention), is not recorded.
 */
export function createEngagementRecorder(
  store: Store,
  log: Pick<Logger, 'warn'>,
  /** Where batches are written: here by default; on SQLite, a thread of their own (threaded-engagement-writer.ts). */
  write: (hits: EngagementHit[]) => Promise<void> = (hits) => writeHits(store, hits),
): EngagementRecorder {
  let pending = 0;
  let droppedHits = 0;
  let warnedAt = -Infinity;
  let idle: Promise<void> = Promise.resolve();
  let settleIdle: (() => void) | undefined;

  const enqueue = createBatchQueue<EngagementHit>(
    async (batch) => {
      try {
        await write(batch);
      } finally {
        pending -= batch.length;
        if (pending === 0) settleIdle?.();
      }
    },
    (error, batch) => log.warn({ err: (error as Error).message, hits: batch.length }, 'could not record opens and clicks; they are lost'),
    { lingerMs: LINGER_MS, maxBatch: MAX_BATCH },
  );

  return {
    record(hit) {
      if (pending >= MAX_PENDING_HITS) {
        droppedHits++;
        if (Date.now() - warnedAt >= DROP_WARNING_MS) {
          warnedAt = Date.now();
          log.warn({ dropped: droppedHits }, `${MAX_PENDING_HITS} opens and clicks are waiting for the store: new ones are answered and not recorded`);
        }
        return;
      }
      if (pending === 0) idle = new Promise((resolve) => (settleIdle = resolve));
      pending++;
      enqueue(hit);
    },
    dropped: () => droppedHits,
    flush: () => idle,
  };
}

/** One batch: its messages read once, then its events, first opens and clicks and counters in one transaction. */
export async function writeHits(store: Store, hits: EngagementHit[]): Promise<void> {
  const messageIds = [...new Set(hits.map((h) => h.target.messageId))];
  const messages = new Map((await store.engagement.messagesFor(messageIds)).map((m) => [m.id, m]));
  const clicked = hits.some((h) => h.kind === 'click') ? await store.engagement.handedOverAt(messageIds.filter((id) => messages.has(id))) : new Map<string, string>();
  const made = hits.flatMap((hit) => {
    const message = messages.get(hit.target.messageId);
    if (!message || message.content_expired_at !== null) return [];
    const recipient = allRecipientsOf(message)[hit.target.recipient]?.address;
    if (recipient === undefined) return [];
    return [eventOf(hit, message, recipient, clicked.get(`${message.id}\0${recipient}`))];
  });
  if (made.length === 0) return;
  await store.transaction((repos) => writeEvents(repos, made));
}

interface MadeEvent {
  event: MessageEvent;
  hit: EngagementHit;
}

function eventOf(hit: EngagementHit, message: EngagedMessage, recipient: string, handedOverAt: string | undefined): MadeEvent {
  const entry = { workspace_id: message.workspace_id, message_id: message.id, recipient, from_email: message.from_address, subject: message.subject, tags: message.tags };
  const event = eventAbout(entry, hit.kind === 'open' ? 'opened' : 'clicked', new Date(hit.at).toISOString());
  const seen = { user_agent: hit.userAgent ?? null, ip: recordedNetworkOf(hit.address) };
  if (hit.kind === 'open') {
    const verdict = classifyOpen({ method: hit.method, userAgent: hit.userAgent });
    event.engagement = { ...seen, machine: verdict.machine, proxy: verdict.proxy, machine_rule: verdict.rule };
  } else {
    const verdict = classifyClick({
      method: hit.method,
      userAgent: hit.userAgent,
      sinceDeliveryMs: handedOverAt === undefined ? null : hit.at - Date.parse(handedOverAt),
      link: hit.target.link,
      linkCount: hit.linkCount ?? 0,
      earlier: hit.earlier ?? [],
      at: hit.at,
    });
    event.engagement = { url: hit.url ?? '', ...seen, machine: verdict.machine, machine_rule: verdict.rule };
  }
  return { event, hit };
}

async function writeEvents(repos: Repositories, made: MadeEvent[]): Promise<void> {
  // Only a person's open or click can be a unique one: a scanner's pre-click must not take a reader's first.
  const people = made.filter((m) => !m.event.engagement!.machine);
  const firsts = await repos.engagement.addFirsts(
    [...new Map(people.map((m) => {
      const kind = m.hit.kind;
      const key = firstKey(m.event.message_id, m.hit.target.recipient, kind);
      return [key, { message_id: m.event.message_id, recipient_index: m.hit.target.recipient, kind, at: m.event.timestamp }] as const;
    })).values()],
  );
  const deltas: EngagementDelta[] = made.map(({ event, hit }) => {
    const machine = event.engagement!.machine;
    const key = firstKey(event.message_id, hit.target.recipient, hit.kind);
    const unique = !machine && firsts.delete(key);
    const delta: EngagementDelta = { workspace_id: event.workspace_id, hour: hourOf(event.timestamp) };
    if (hit.kind === 'open') Object.assign(delta, machine ? { machine_opened: 1 } : { opened: 1, unique_opened: unique ? 1 : 0 });
    else Object.assign(delta, machine ? { machine_clicked: 1 } : { clicked: 1, unique_clicked: unique ? 1 : 0 });
    return delta;
  });
  await publishEvents(repos, made.map((m) => m.event));
  await repos.engagement.add(deltas);
}
