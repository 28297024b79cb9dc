import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { newId } from '../ids.js';
import type { Store } from '../repositories/index.js';
import type { WebhookDelivery } from '../repositories/webhook-deliveries-repository.js';
import { postWebhook, type PostResult } from './webhook-poster.js';
import { createWakeablePause } from '../wakeable-pause.js';

/** Longest a receiver may take to answer one post. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Retries after the first attempt (SPEC.md §6.3): four attempts in all. */
export const WEBHOOK_MAX_RETRIES = 3;
/** Posts in flight per process… */
export const WEBHOOK_CONCURRENCY = 32;
/** …and per endpoint, so a slow endpoint cannot take every slot from the others. */
export const WEBHOOK_CONCURRENCY_PER_ENDPOINT = 8;
/**
 * A claimed delivery is this dispatcher's for this long: a post ends within
 * WEBHOOK_TIMEOUT_MS, so no renewal is needed, and the deliveries of a
 * dispatcher that died are posted by another soon after.
 */
export const WEBHOOK_LEASE_MS = WEBHOOK_TIMEOUT_MS + 5_000;

/**
 * The wait before retry number `retry` (1 for the first): the base doubled
 * per retry, plus up to a quarter at random, so retries from a burst spread
 * out and every gap is longer than the one before.
 */
export function webhookRetryDelayMs(retry: number, baseMs: number, random: () => number = Math.random): number {
  return Math.round(baseMs * 2 ** (retry - 1) * (1 + random() / 4));
}

/** Where and how to post to an endpoint: the URL, the vetted addresses to connect to, and the signing headers for a body. */
export interface PreparedEndpoint {
  url: URL;
  addresses: string[];
  headers(deliveryId: string, timestampSeconds: number, body: string): Record<string, string>;
}

export interface WebhookDispatcherOptions {
  store: Store;
  retryBaseMs: number;
  pollMs: number;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Checks the endpoint's URL again (SSRF, DNS rebinding) and readies its signing; throws when it may not be posted to. */
  prepare(endpoint: { id: string; url: string; secret: string }): Promise<PreparedEndpoint>;
  timeoutMs?: number;
  random?: () => number;
}

export interface WebhookDispatcher {
  start(): void;
  /** Looks for due deliveries now rather than at the next poll. */
  wake(): void;
  /** Stops claiming, lets posts in flight finish (each bounded by the timeout), gives back the rest. */
  stop(): Promise<void>;
}

/**
 * Posts webhook deliveries (written with their events by webhook-fanout.ts):
 * claims due ones with a lease, signs and posts each, records every attempt,
 * and settles it: 2xx delivered; any other answer, a timeout or a connection
 * error retried with backoff up to WEBHOOK_MAX_RETRIES times, then failed.
 */
export function createWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  const { store, retryBaseMs, pollMs, logger, prepare, timeoutMs = WEBHOOK_TIMEOUT_MS, random = Math.random } = options;
  const owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}:webhooks`;
  const inFlight = new Map<string, Promise<void>>();
  const perEndpoint = new Map<string, number>();
  let running = false;
  let loopDone: Promise<void> = Promise.resolve();

  const { wake, pause } = createWakeablePause();

  async function attempt(delivery: WebhookDelivery): Promise<void> {
    const attemptNumber = Number(delivery.attempts);
    const endpoint = await store.webhookDeliveries.endpointOf(delivery.webhook_id);
    let result: PostResult;
    if (!endpoint) {
      result = { status: null, body: null, error: 'The webhook was deleted', durationMs: 0 };
    } else {
      try {
        const prepared = await prepare(endpoint);
        const headers = prepared.headers(delivery.id, Math.floor(Date.now() / 1000), delivery.payload);
        result = await postWebhook(prepared.url, prepared.addresses, headers, delivery.payload, timeoutMs);
      } catch (error) {
        result = { status: null, body: null, error: (error as Error).message, durationMs: 0 };
      }
    }
    const now = new Date().toISOString();
    const ok = result.status !== null && result.status >= 200 && result.status < 300;
    const retriesLeft = endpoint !== undefined && attemptNumber <= WEBHOOK_MAX_RETRIES;
    await store.transaction(async (repos) => {
      await repos.webhookDeliveries.recordAttempt({
        id: newId('wha'),
        delivery_id: delivery.id,
        attempt: attemptNumber,
        status_code: result.status,
        response_body: result.body,
        error: result.error,
        duration_ms: result.durationMs,
        created_at: now,
      });
      const lastError = ok ? null : (result.error ?? `HTTP ${result.status}`);
      await repos.webhookDeliveries.settle(
        delivery.id,
        owner,
        ok
          ? { state: 'delivered', lastStatus: result.status, lastError }
          : retriesLeft
            ? { state: 'pending', availableAt: new Date(Date.parse(now) + webhookRetryDelayMs(attemptNumber, retryBaseMs, random)).toISOString(), lastStatus: result.status, lastError }
            : { state: 'failed', lastStatus: result.status, lastError },
        now,
      );
    });
  }

  function run(delivery: WebhookDelivery): void {
    perEndpoint.set(delivery.webhook_id, (perEndpoint.get(delivery.webhook_id) ?? 0) + 1);
    const done = attempt(delivery)
      .catch((error: unknown) => logger.error({ err: error, deliveryId: delivery.id }, 'could not record a webhook attempt; retried once the lease expires'))
      .finally(() => {
        inFlight.delete(delivery.id);
        const left = (perEndpoint.get(delivery.webhook_id) ?? 1) - 1;
        if (left === 0) perEndpoint.delete(delivery.webhook_id);
        else perEndpoint.set(delivery.webhook_id, left);
        wake();
      });
    inFlight.set(delivery.id, done);
  }

  async function loop(): Promise<void> {
    while (running) {
      const free = WEBHOOK_CONCURRENCY - inFlight.size;
      let claimed: WebhookDelivery[] = [];
      if (free > 0) {
        const busy = [...perEndpoint].filter(([, n]) => n >= WEBHOOK_CONCURRENCY_PER_ENDPOINT).map(([id]) => id);
        try {
          const now = new Date();
          claimed = await store.webhookDeliveries.claim(owner, now.toISOString(), new Date(now.getTime() + WEBHOOK_LEASE_MS).toISOString(), free, busy);
        } catch (error) {
          logger.error({ err: error }, 'could not claim webhook deliveries; trying again at the next poll');
        }
        // An endpoint may get more than its share from one claim: the excess is given back, due at once.
        const excess: string[] = [];
        for (const delivery of claimed) {
          if ((perEndpoint.get(delivery.webhook_id) ?? 0) < WEBHOOK_CONCURRENCY_PER_ENDPOINT) run(delivery);
          else excess.push(delivery.id);
        }
        if (excess.length > 0) await store.webhookDeliveries.unclaim(excess, owner, new Date().toISOString()).catch(() => undefined);
      }
      if (running && claimed.length > 0 && claimed.length === free) continue;
      await pause(pollMs);
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      loopDone = loop();
    },
    wake,
    async stop() {
      if (!running) return;
      running = false;
      wake();
      await loopDone;
      await Promise.allSettled(inFlight.values());
      await store.webhookDeliveries.releaseAll(owner, new Date().toISOString());
    },
  };
}
