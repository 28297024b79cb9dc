import type { Logger } from 'pino';
import { newId } from '../lib/ids.js';
import type { Store } from '../db/store.js';
import type { WebhookDelivery, WebhookSettlement } from './webhook-deliveries-repository.js';
import { createBatchQueue } from '../db/batch-queue.js';
import type { PostResult } from './webhook-poster.js';

/** Retries after the first attempt (SPEC.md §6.3): four attempts in all. */
export const WEBHOOK_MAX_RETRIES = 3;
/** The first post and its retries: no delivery is posted more often, whatever happens to the outcomes (webhook-dispatcher.ts). */
export const WEBHOOK_MAX_ATTEMPTS = WEBHOOK_MAX_RETRIES + 1;
/** How long a finished post's outcome waits for others to share its transaction. */
export const RECORD_LINGER_MS = 10;

/** What one attempt at a delivery came to. */
export interface WebhookOutcome {
  delivery: WebhookDelivery;
  result: PostResult;
  /** False when the endpoint is gone: no retry can help. */
  retryable: boolean;
}

/**
 * The wait before retry number `retry` (1 for the first): the base doubled
 * per retry, plus up to a quarter at random, so retries from a burst spread
 * out and every gap is longer than the one before.
 */
export function webhookRetryDelayMs(retry: number, baseMs: number, random: () => number = Math.random): number {
  return Math.round(baseMs * 2 ** (retry - 1) * (1 + random() / 4));
}

export interface OutcomeRecorderOptions {
  store: Store;
  /** The dispatcher whose leases the settled deliveries must still be. */
  owner: string;
  retryBaseMs: number;
  random: () => number;
  logger: Pick<Logger, 'warn'>;
}

/**
 * Records every attempt and settles its delivery: 2xx delivered; any other
 * answer, a timeout or a connection error pending again with backoff up to
 * WEBHOOK_MAX_RETRIES times, then failed. Resolves with the state written.
 *
 * Written in batches: posts finish one by one, and a transaction (on SQLite
 * an fsync) per post would cap the rate well below what receivers take. In a
 * batch the attempts go in together, and the deliveries settled alike (most
 * often: delivered, 200) in one UPDATE; on PostgreSQL, where each statement
 * is a round trip, both in one statement when the batch settles alike
 * (recordAndSettle). A batch that fails is written again one outcome at a
 * time, so a bad one fails alone.
 */
export function createOutcomeRecorder({ store, owner, retryBaseMs, random, logger }: OutcomeRecorderOptions): (outcome: WebhookOutcome) => Promise<WebhookSettlement['state']> {
  function settlement(outcome: WebhookOutcome, now: string): WebhookSettlement {
    const { delivery, result, retryable } = outcome;
    const attemptNumber = Number(delivery.attempts);
    const ok = result.status !== null && result.status >= 200 && result.status < 300;
    const lastError = ok ? null : (result.error ?? `HTTP ${result.status}`);
    if (ok) return { state: 'delivered' as const, lastStatus: result.status, lastError };
    if (retryable && attemptNumber <= WEBHOOK_MAX_RETRIES) {
      const availableAt = new Date(Date.parse(now) + webhookRetryDelayMs(attemptNumber, retryBaseMs, random)).toISOString();
      return { state: 'pending' as const, availableAt, lastStatus: result.status, lastError };
    }
    return { state: 'failed' as const, lastStatus: result.status, lastError };
  }

  interface Pending {
    outcome: WebhookOutcome;
    resolve(state: WebhookSettlement['state']): void;
    reject(error: unknown): void;
  }

  /** The items' deliveries grouped by what they settle (a retry's own time makes it a group of one). */
  function settledAlike(items: Pending[], now: string): { change: WebhookSettlement; items: Pending[] }[] {
    const groups = new Map<string, { change: WebhookSettlement; items: Pending[] }>();
    for (const item of items) {
      const change = settlement(item.outcome, now);
      const key = JSON.stringify(change);
      const group = groups.get(key) ?? { change, items: [] };
      group.items.push(item);
      groups.set(key, group);
    }
    return [...groups.values()];
  }

  /** Writes the items all or nothing; once written, each resolves with the state it settled. */
  async function write(items: Pending[], now: string): Promise<void> {
    const groups = settledAlike(items, now);
    const attempts = items.map(({ outcome: { delivery, result } }) => ({
      id: newId('wha'), delivery_id: delivery.id, attempt: Number(delivery.attempts), status_code: result.status,
      response_body: result.body, error: result.error, duration_ms: result.durationMs, created_at: now,
    }));
    const settlements = groups.map(({ change, items: alike }) => ({ change, ids: alike.map((item) => item.outcome.delivery.id) }));
    const settled = new Set(await store.webhookDeliveries.recordAndSettle(attempts, settlements, owner, now));
    // Its lease ran out (or a replay cleared it): another attempt may follow; the attempt above stays on record.
    for (const { outcome } of items) if (!settled.has(outcome.delivery.id)) logger.warn({ deliveryId: outcome.delivery.id }, 'webhook delivery was no longer leased when its outcome was written');
    for (const { change, items: alike } of groups) for (const item of alike) item.resolve(change.state);
  }

  const record = createBatchQueue<Pending>(
    async (batch) => {
      const now = new Date().toISOString();
      try {
        await write(batch, now);
      } catch {
        for (const item of batch) await write([item], now).catch(item.reject);
      }
    },
    (error, batch) => batch.forEach((item) => item.reject(error)),
    { lingerMs: RECORD_LINGER_MS, maxBatch: 64 },
  );

  return (outcome) => new Promise((resolve, reject) => record({ outcome, resolve, reject }));
}
