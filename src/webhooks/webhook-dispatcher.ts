import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Store } from '../db/store.js';
import type { WebhookDelivery } from './webhook-deliveries-repository.js';
import { writeWhileStoreAway } from '../db/store-failure.js';
import { settleWithin } from '../lib/settle-within.js';
import { WEBHOOK_RESOLVE_TIMEOUT_MS } from './url-guard.js';
import { createOutcomeRecorder, WEBHOOK_MAX_ATTEMPTS, type WebhookOutcome } from './webhook-outcomes.js';
import { postWebhook, WEBHOOK_SOCKETS_PER_ENDPOINT } from './webhook-poster.js';
import { createWakeablePause } from '../lib/wakeable-pause.js';
import type { Metrics } from '../observability/index.js';

/** Why a delivery claimed past the cap after a lost outcome is given up rather than posted (pastTheCap). */
export const UNRECORDED_GIVE_UP = 'Gave up: the outcome of the last attempt was never recorded, so it may have been delivered';

/** Longest a receiver may take to answer one post. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Posts in flight per process… */
export const WEBHOOK_CONCURRENCY = 64;
/** …and per endpoint, so a slow endpoint cannot take every slot from the others. */
export const WEBHOOK_CONCURRENCY_PER_ENDPOINT = WEBHOOK_SOCKETS_PER_ENDPOINT;
/**
 * Deliveries held at once (claimed, posting or waiting for a slot): twice the
 * posts in flight in all, four times per endpoint, so that a slot that comes
 * free is taken by a post already claimed rather than after a claim's round
 * trips. Four per endpoint because the claim is the dispatcher's dearest
 * statement: one endpoint's busy slots are then fed by a claim per 32 posts,
 * not per 16 (bench:webhooks on PostgreSQL: 650 claims of 10,000 deliveries
 * became 370; with outcomes written in one statement, the rate rose by 15 %).
 */
export const WEBHOOK_HELD = 2 * WEBHOOK_CONCURRENCY;
export const WEBHOOK_HELD_PER_ENDPOINT = 4 * WEBHOOK_CONCURRENCY_PER_ENDPOINT;
/**
 * A claimed delivery is this dispatcher's for this long: twice what an
 * attempt may take (the DNS check, then the post's deadline), so no renewal is
 * needed, and the deliveries of a dispatcher that died are posted by another
 * within half a minute. One that waited so long for a slow endpoint's slot
 * that its lease would run out before its post could end is given back
 * unposted instead (startWaiting).
 */
export const WEBHOOK_LEASE_MS = 2 * (WEBHOOK_RESOLVE_TIMEOUT_MS + WEBHOOK_TIMEOUT_MS);

/** Where and how to post to an endpoint: the URL, the vetted addresses to connect to, and the signing headers for a body. */
export interface PreparedEndpoint {
  url: URL;
  addresses: string[];
  headers(deliveryId: string, timestampSeconds: number, body: string): Record<string, string>;
}

export interface WebhookDispatcherOptions {
  store: Store;
  /** Counts what each post settled, once written. */
  metrics?: Pick<Metrics, 'webhookSettled'> | undefined;
  retryBaseMs: number;
  pollMs: number;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Checks the endpoint's URL again (SSRF, DNS rebinding) and readies its signing; throws when it may not be posted to. */
  prepare(endpoint: { id: string; url: string; secret: string }): Promise<PreparedEndpoint>;
  timeoutMs?: number;
  /** How long a claim leases its deliveries; WEBHOOK_LEASE_MS unless a test shortens it. */
  leaseMs?: number;
  /** How long stop() waits for posts in flight before giving them back (serve: three quarters of SHUTDOWN_GRACE_MS); by default a post's longest. */
  stopGraceMs?: number;
  random?: () => number;
}

export interface WebhookDispatcher {
  start(): void;
  /** Looks for due deliveries now rather than at the next poll. */
  wake(): void;
  /** Stops claiming, lets posts in flight finish and be recorded (up to stopGraceMs), gives back the rest. */
  stop(): Promise<void>;
}

/**
 * Posts webhook deliveries (written with their events by webhook-fanout.ts):
 * claims due ones with a lease, signs and posts each, records every attempt,
 * and settles it: 2xx delivered; any other answer, a timeout or a connection
 * error retried with backoff up to WEBHOOK_MAX_RETRIES times, then failed
 * (webhook-outcomes.ts writes the outcomes).
 */
export function createWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  const { store, retryBaseMs, pollMs, logger, prepare, timeoutMs = WEBHOOK_TIMEOUT_MS, leaseMs = WEBHOOK_LEASE_MS, random = Math.random } = options;
  /** The longest an attempt may take once started: its endpoint's DNS check (when the claim's is still under way), then the post. */
  const attemptMs = WEBHOOK_RESOLVE_TIMEOUT_MS + timeoutMs;
  const stopGraceMs = options.stopGraceMs ?? attemptMs;
  const owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}:webhooks`;
  /** Posts under way, by delivery. */
  const inFlight = new Map<string, Promise<void>>();
  const recording = new Map<string, Promise<void>>();
  /** Deliveries being given back unposted (giveBack). */
  const givingBack = new Set<Promise<void>>();
  /** Per endpoint: deliveries held (posting or waiting for a slot), and of them those posting. */
  const held = new Map<string, number>();
  const posting = new Map<string, number>();
  let heldInAll = 0;
  /** Per endpoint, the claimed deliveries waiting for a slot, oldest first. */
  const waiting = new Map<string, { delivery: WebhookDelivery; prepared: Promise<PreparedEndpoint | Error | undefined> }[]>();
  let running = false;
  // The last claim found work: more may be due once posts in flight make room.
  let backlog = false;
  let loopDone: Promise<void> = Promise.resolve();

  const { wake, pause } = createWakeablePause();

  const record = createOutcomeRecorder({ store, owner, retryBaseMs, random, logger });

  /**
   * Claimed more often than attempts are allowed, and the claim before this one has no attempt on record: its
   * outcome was never written (the write failed, or the process died during the post). Posting again would repeat
   * the event at each lease's end for as long as that lasts. A retry asked for by hand (retryDelivery) also claims
   * past the cap, but after an attempt on record; it is posted. Asked only past the cap, so seldom.
   */
  async function pastTheCap(delivery: WebhookDelivery): Promise<boolean> {
    const attempts = Number(delivery.attempts);
    if (attempts <= WEBHOOK_MAX_ATTEMPTS) return false;
    return !(await store.webhookDeliveries.hasAttempt(delivery.id, attempts - 1).catch(() => false));
  }

  async function attempt(delivery: WebhookDelivery, prepared: Promise<PreparedEndpoint | Error | undefined>): Promise<WebhookOutcome> {
    if (await pastTheCap(delivery)) return { delivery, result: { status: null, body: null, error: UNRECORDED_GIVE_UP, durationMs: 0 }, retryable: false };
    const endpoint = await prepared;
    if (endpoint === undefined) return { delivery, result: { status: null, body: null, error: 'The webhook was deleted', durationMs: 0 }, retryable: false };
    if (endpoint instanceof Error) return { delivery, result: { status: null, body: null, error: endpoint.message, durationMs: 0 }, retryable: true };
    const headers = endpoint.headers(delivery.id, Math.floor(Date.now() / 1000), delivery.payload);
    return { delivery, result: await postWebhook(delivery.webhook_id, endpoint.url, endpoint.addresses, headers, delivery.payload, timeoutMs), retryable: true };
  }

  const add = (counts: Map<string, number>, key: string, by: number) => {
    const n = (counts.get(key) ?? 0) + by;
    if (n === 0) counts.delete(key);
    else counts.set(key, n);
    return n;
  };

  /** A claimed delivery: posted once its endpoint, and the process, have a slot free. */
  function hold(delivery: WebhookDelivery, prepared: Promise<PreparedEndpoint | Error | undefined>): void {
    add(held, delivery.webhook_id, 1);
    heldInAll++;
    const queue = waiting.get(delivery.webhook_id) ?? [];
    queue.push({ delivery, prepared });
    waiting.set(delivery.webhook_id, queue);
  }

  /**
   * Starts the waiting posts there is room for (none once stopping: what waits is given back, still leased to no one).
   * A delivery whose lease would run out before its post could end (it waited behind a slow endpoint's posts) is
   * given back unposted rather than posted: once its lease ran out, another dispatcher could post it too.
   */
  function startWaiting(): void {
    const now = Date.now();
    const stale: WebhookDelivery[] = [];
    for (const [endpoint, queue] of waiting) {
      while (running && queue.length > 0 && inFlight.size < WEBHOOK_CONCURRENCY && (posting.get(endpoint) ?? 0) < WEBHOOK_CONCURRENCY_PER_ENDPOINT) {
        const next = queue.shift()!;
        if (Date.parse(next.delivery.lease_expires_at!) - now < attemptMs) stale.push(next.delivery);
        else post(next.delivery, next.prepared);
      }
      if (queue.length === 0) waiting.delete(endpoint);
    }
    if (stale.length > 0) giveBack(stale);
  }

  /** A held delivery no longer held (posted, or given back): answers what its endpoint still holds. */
  function unhold(delivery: WebhookDelivery): number {
    heldInAll--;
    return add(held, delivery.webhook_id, -1);
  }

  /** Gives back held deliveries never posted, due at once with the attempt their claim counted taken back; claimed again later. */
  function giveBack(deliveries: WebhookDelivery[]): Promise<void> {
    deliveries.forEach(unhold);
    const ids = deliveries.map((delivery) => delivery.id);
    const given: Promise<void> = store.webhookDeliveries
      .releaseUnattempted(ids, owner, new Date().toISOString())
      .catch((error: unknown) => logger.warn({ err: error, deliveries: ids.length }, 'could not give back webhook deliveries never posted; taken over once their leases run out'))
      .finally(() => givingBack.delete(given));
    givingBack.add(given);
    return given;
  }

  function post(delivery: WebhookDelivery, prepared: Promise<PreparedEndpoint | Error | undefined>): void {
    add(posting, delivery.webhook_id, 1);
    // The slot is free once the post ends; the delivery stays leased until its outcome is written.
    const posted = attempt(delivery, prepared).then((outcome) => {
      // Posted: should the store be away, the outcome waits for its return while the lease lasts, rather than the post being repeated.
      const written = writeWhileStoreAway(() => record(outcome), {
        deadline: Date.parse(delivery.lease_expires_at ?? '') || 0,
        wanted: () => running,
        onFirstFailure: (error) => logger.warn({ err: error, deliveryId: delivery.id }, 'could not record a webhook attempt; trying again while its lease lasts'),
      })
        .then((state) => options.metrics?.webhookSettled(state))
        .catch((error: unknown) => logger.error({ err: error, deliveryId: delivery.id }, 'could not record a webhook attempt; retried once the lease expires'))
        .finally(() => recording.delete(delivery.id));
      recording.set(delivery.id, written);
    });
    inFlight.set(
      delivery.id,
      posted.finally(() => {
        inFlight.delete(delivery.id);
        add(posting, delivery.webhook_id, -1);
        const left = unhold(delivery);
        startWaiting();
        // Claim again when half of what may be held has come free, not after every post: claims come in
        // batches, and what is still held keeps the slots busy meanwhile.
        if (backlog && (left === WEBHOOK_HELD_PER_ENDPOINT / 2 || heldInAll === WEBHOOK_HELD / 2 || heldInAll === 0)) wake();
      }),
    );
  }

  /** Each endpoint of a claim, read and readied once (its URL vetted again, its secret opened): undefined when deleted, an Error when it may not be posted to. */
  function prepareEndpoints(deliveries: WebhookDelivery[]): Map<string, Promise<PreparedEndpoint | Error | undefined>> {
    const prepared = new Map<string, Promise<PreparedEndpoint | Error | undefined>>();
    for (const { webhook_id: id } of deliveries) {
      if (prepared.has(id)) continue;
      prepared.set(
        id,
        store.webhookDeliveries.endpointOf(id).then(
          (endpoint) => (endpoint ? prepare(endpoint).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error)))) : undefined),
          (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
        ),
      );
    }
    return prepared;
  }

  /** Of the due deliveries, those this dispatcher has room to hold: WEBHOOK_HELD in all, WEBHOOK_HELD_PER_ENDPOINT each. */
  async function claimWithRoom(): Promise<WebhookDelivery[]> {
    const free = WEBHOOK_HELD - heldInAll;
    if (free <= 0) return [];
    const room = new Map([...held].map(([id, n]) => [id, WEBHOOK_HELD_PER_ENDPOINT - n]));
    const now = new Date();
    // Twice the room as candidates: some of the oldest may belong to endpoints with less room left than that.
    const claimRoom = { free, perEndpoint: WEBHOOK_HELD_PER_ENDPOINT, room, candidates: 2 * free };
    return store.webhookDeliveries.claimDue(claimRoom, owner, now.toISOString(), new Date(now.getTime() + leaseMs).toISOString());
  }

  async function loop(): Promise<void> {
    while (running) {
      let claimed: WebhookDelivery[] = [];
      try {
        claimed = await claimWithRoom();
      } catch (error) {
        logger.error({ err: error }, 'could not claim webhook deliveries; trying again at the next poll');
      }
      const prepared = prepareEndpoints(claimed);
      for (const delivery of claimed) hold(delivery, prepared.get(delivery.webhook_id)!);
      startWaiting();
      // More may be due: look again once posts in flight make room (a finished post wakes the loop).
      backlog = claimed.length > 0;
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
      // Claimed but never posted: given back with the attempt their claim counted taken back.
      const unposted = [...waiting.values()].flat().map(({ delivery }) => delivery);
      waiting.clear();
      await giveBack(unposted);
      const finished = await settleWithin(() => [...inFlight.values(), ...recording.values(), ...givingBack], stopGraceMs);
      // A post given back here may still reach its receiver: delivered again later, at least once (its id tells them apart).
      if (finished === 'timeout') logger.warn({ inFlight: inFlight.size + recording.size }, 'webhook posts still in flight at shutdown; giving them back');
      await store.webhookDeliveries.releaseAll(owner, new Date().toISOString());
    },
  };
}
