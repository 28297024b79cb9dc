import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Store } from '../db/store.js';
import type { DeliveryJob } from './delivery-jobs-repository.js';
import { loadClaimContext, type JobContext } from './claim-context.js';
import { attemptDelivery } from './delivery-attempt.js';
import { createOutcomeRecorder } from './outcome-recorder.js';
import type { Provider } from './provider.js';
import { BREAKER_RULE, createUpstreamBreaker, type UpstreamTransition } from './upstream-breaker.js';
import { serverUpstreamKey, type UpstreamRouter } from './upstream-router.js';
import { createProviderTrouble, type TroubleCount } from './provider-trouble.js';
import { sandboxSigningDomain } from './sandbox-provider.js';
import { createAttachmentLoader } from './attachment-loader.js';
import { buildInThread, type MessageBuilder } from './threaded-message-builder.js';
import { createWakeablePause } from '../lib/wakeable-pause.js';
import { createSecretBox, DKIM_PRIVATE_KEY } from '../lib/secret-box.js';
import { settleWithin, workGraceMs } from '../lib/settle-within.js';
import { writeWhileStoreAway } from '../db/store-failure.js';
import type { ReturnPathSigner } from '../inbound/index.js';
import type { Metrics } from '../observability/index.js';

/**
 * While the API is busy: at most this share of WORKER_CONCURRENCY at the provider, claimed in
 * batches of that size at most every YIELDING_CLAIM_EVERY_MS. Not nothing, so that mail still
 * moves through a long burst; small, so that the burst is what the machine works on.
 */
const YIELDING_SHARE = 1 / 4;
const YIELDING_CLAIM_EVERY_MS = 250;

export interface DeliveryWorkerOptions {
  store: Store;
  /** The upstreams a send goes through (upstream-router.ts); or one provider alone, for every send. */
  router: UpstreamRouter | Provider;
  /** Hears of an upstream going down or coming back, once across processes (the log, webhooks). */
  onUpstreamChange?: (transition: UpstreamTransition) => Promise<void>;
  config: Pick<Config, 'provider' | 'worker' | 'retry' | 'secretKey' | 'shutdownGraceMs' | 'upstreamDownMs' | 'publicOrigin' | 'port'>;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Unique per worker; by default host, process and a random part. */
  owner?: string;
  /** Where messages are composed and signed; by default on this thread. */
  build?: MessageBuilder;
  /** Signs each recipient's return path (the installation's key). */
  returnPaths: Pick<ReturnPathSigner, 'sign'>;
  /** Signs tracked addresses (tracking/tracking-token.ts); without it, messages go out untracked. */
  trackingKey?: Buffer;
  /** Counts each recipient's outcome once it is written. */
  metrics?: Pick<Metrics, 'deliveryOutcomes'> | undefined;
}

export interface DeliveryWorker {
  readonly owner: string;
  /** Provider failures that were not the recipients' fault, counted per provider, host and kind (for metrics). */
  troubleCounts(): TroubleCount[];
  start(): void;
  /** Looks for due work now rather than at the next poll (a send was just accepted in this process). */
  wake(): void;
  /**
   * The API beside this worker is busy (true) or calm again (false). While it is busy the worker
   * delivers at a trickle (see YIELDING_SHARE) rather than at full speed, so that accepting sends
   * keeps the CPU and the store; what it does not deliver meanwhile waits, leased to nobody, for the calm.
   */
  yieldToApi(busy: boolean): void;
  /** Stops claiming, lets hand-overs in flight finish and their outcomes be written (up to three quarters of SHUTDOWN_GRACE_MS), gives back every job still held. */
  stop(): Promise<void>;
}

/** A router that sends everything through one provider (tests, and `worker` runs with one): its only upstream. */
function routerOf(given: UpstreamRouter | Provider): UpstreamRouter {
  if (!('send' in given)) return given;
  const route = [{ key: serverUpstreamKey(given.name), provider: given }];
  return { routeFor: async () => route, close: () => given.close() };
}

/**
 * The delivery worker (DESIGN.md §3): claims due jobs with a lease, up to
 * `WORKER_CONCURRENCY` at once, takes each through attemptDelivery and has the
 * outcome recorder write the result. Leases of jobs in flight are renewed, so
 * a slow relay does not let another worker take them over; a worker that dies
 * renews nothing, and its jobs are taken over once their leases run out.
 */
export function createDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { store, config, logger } = options;
  const { concurrency, leaseMs, pollMs } = config.worker;
  const router = routerOf(options.router);
  const providerName = 'send' in options.router ? options.router.name : config.provider;
  const owner = options.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const recorder = createOutcomeRecorder(store, { owner, providerName, retry: config.retry });
  const trouble = createProviderTrouble(logger);
  const deps = {
    router,
    breaker: createUpstreamBreaker(store, options.onUpstreamChange ?? (async () => undefined), { ...BREAKER_RULE, downMs: config.upstreamDownMs }),
    trouble,
    returnPaths: options.returnPaths,
    build: options.build ?? buildInThread,
    sandboxDomain: sandboxSigningDomain,
    dkimKeys: createSecretBox(config.secretKey, DKIM_PRIVATE_KEY),
    attachments: createAttachmentLoader(store.attachments),
    maxAttempts: config.retry.maxAttempts,
    ...(options.trackingKey ? { tracking: { key: options.trackingKey, publicOrigin: config.publicOrigin, port: config.port } } : {}),
    onProviderError: (error: unknown, job: DeliveryJob) => logger.error({ err: error, messageId: job.message_id }, 'provider threw; retrying later'),
  };

  // A job is in one of three places while this worker holds it: claimed and waiting for a slot
  // (`ready`: claimed ahead, so a freed slot need not wait for a claim), at the provider
  // (`handing`, at most `concurrency`), or having its outcome written (`recording`: batched, so
  // the slot is free meanwhile).
  const ready: { job: DeliveryJob; context: JobContext }[] = [];
  const handing = new Map<string, Promise<void>>();
  const recording = new Map<string, Promise<void>>();
  const refillBelow = Math.ceil(concurrency / 2);
  const yieldingConcurrency = Math.ceil(concurrency * YIELDING_SHARE);
  let yielding = false;
  let lastYieldingClaim = 0;
  let running = false;
  let loopDone: Promise<void> = Promise.resolve();
  let renewTimer: NodeJS.Timeout | undefined;
  // The last claim took all it asked for: more may be due, so claim again once `ready` runs low.
  let backlog = false;

  const leaseUntil = () => new Date(Date.now() + leaseMs).toISOString();
  /** Until when the last renewal leased every job this worker held then (ms). */
  let renewedUntil = 0;

  const { wake, pause } = createWakeablePause();

  function startReady(): void {
    const limit = yielding ? yieldingConcurrency : concurrency;
    while (running && handing.size < limit && ready.length > 0) run(ready.shift()!);
    if (backlog && ready.length < refillBelow) wake();
  }

  function run({ job, context }: { job: DeliveryJob; context: JobContext }): void {
    const handedOver = attemptDelivery(job, context, deps).then(
      (result) => {
        // The message is with the provider now: should the store be away, its outcome waits for the store's
        // return (while the lease lasts, the claim's or the last renewal's) rather than its delivery being repeated.
        const written = writeWhileStoreAway(() => recorder.record(result), {
          deadline: Math.max(Date.parse(job.lease_expires_at ?? '') || 0, renewedUntil),
          wanted: () => running,
          onFirstFailure: (error) => logger.warn({ err: error, messageId: job.message_id }, 'could not record a delivery attempt; trying again while its lease lasts'),
        })
          .then(() => options.metrics?.deliveryOutcomes(providerName, result.results))
          .catch((error: unknown) => logger.error({ err: error, messageId: job.message_id }, 'could not record a delivery attempt; the job is retried once its lease expires'))
          .finally(() => {
            recording.delete(job.message_id);
            // The loop may be holding back claims until the writes catch up.
            if (backlog) wake();
          });
        recording.set(job.message_id, written);
      },
      (error: unknown) => logger.error({ err: error, messageId: job.message_id }, 'delivery attempt failed; the job is retried once its lease expires'),
    );
    handing.set(
      job.message_id,
      handedOver.finally(() => {
        handing.delete(job.message_id);
        startReady();
      }),
    );
  }

  async function loop(): Promise<void> {
    while (running) {
      if (yielding) {
        const wait = lastYieldingClaim + YIELDING_CLAIM_EVERY_MS - Date.now();
        if (wait > 0) {
          await pause(wait);
          continue;
        }
      }
      // Claim when the jobs claimed ahead run low, and not while outcomes pile up unwritten (a slow store).
      const room = yielding ? yieldingConcurrency - ready.length - handing.size : 2 * concurrency - ready.length - handing.size;
      if (ready.length < (yielding ? 1 : refillBelow) && recording.size < 4 * concurrency && room > 0) {
        if (yielding) lastYieldingClaim = Date.now();
        let claimed: DeliveryJob[] = [];
        try {
          claimed = await store.deliveryJobs.claim({ owner, now: new Date().toISOString(), leaseUntil: leaseUntil(), limit: room });
          const contexts = await loadClaimContext(store, config, claimed);
          ready.push(...claimed.map((job) => ({ job, context: contexts.get(job.message_id)! })));
        } catch (error) {
          logger.error({ err: error }, 'could not claim delivery jobs; trying again at the next poll');
          // Claimed but not read: given back uncounted (or, if even that fails, taken over once the lease runs out).
          const ids = claimed.map((j) => j.message_id);
          claimed = [];
          // While the store is away, given back once it returns: its lease would hold these jobs up to WORKER_LEASE_MS.
          const lease = { deadline: Date.now() + leaseMs, wanted: () => running };
          await writeWhileStoreAway(() => store.deliveryJobs.unclaim(ids, owner, new Date().toISOString()), lease).catch(() => undefined);
        }
        backlog = claimed.length === room;
        startReady();
        if (backlog && ready.length < refillBelow && !yielding) continue;
      }
      await pause(pollMs);
    }
  }

  async function renewLeases(): Promise<void> {
    try {
      const until = leaseUntil();
      await store.deliveryJobs.renew(owner, [...ready.map((r) => r.job.message_id), ...handing.keys(), ...recording.keys()], until);
      renewedUntil = Date.parse(until);
    } catch (error) {
      logger.warn({ err: error }, 'could not renew delivery leases');
    }
  }

  return {
    owner,
    troubleCounts: () => trouble.counts(),
    start() {
      if (running) return;
      running = true;
      renewTimer = setInterval(() => void renewLeases(), Math.floor(leaseMs / 3));
      renewTimer.unref();
      loopDone = loop();
      logger.info({ owner, provider: providerName, concurrency }, 'delivery worker started');
    },
    wake,
    yieldToApi(busy) {
      if (busy === yielding) return;
      yielding = busy;
      // Calm again: what waited is claimed and started now, not at the next poll.
      if (!busy) {
        startReady();
        wake();
      }
    },
    async stop() {
      if (!running) return;
      running = false;
      wake();
      await loopDone;
      // Claimed ahead but never started: given back at once, without counting an attempt.
      const returned = await store.deliveryJobs.unclaim(ready.splice(0).map((r) => r.job.message_id), owner, new Date().toISOString());
      const finished = await settleWithin(() => [...handing.values(), ...recording.values()], workGraceMs(config.shutdownGraceMs));
      clearInterval(renewTimer);
      if (finished === 'timeout') logger.warn({ inFlight: handing.size + recording.size }, 'hand-overs still in flight at shutdown; giving their jobs back');
      const released = await store.deliveryJobs.releaseAll(owner, new Date().toISOString());
      logger.info({ owner, released: returned + released }, 'delivery worker stopped');
    },
  };
}
