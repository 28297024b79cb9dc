import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Store } from '../repositories/index.js';
import type { DeliveryJob } from '../repositories/delivery-jobs-repository.js';
import { attemptDelivery } from './delivery-attempt.js';
import { createOutcomeRecorder } from './outcome-recorder.js';
import type { Provider } from './provider.js';
import { sandboxSigningDomain } from './sandbox-provider.js';

/** How long a stopping worker waits for hand-overs in flight before giving their jobs back anyway. */
export const SHUTDOWN_GRACE_MS = 30_000;

export interface DeliveryWorkerOptions {
  store: Store;
  provider: Provider;
  config: Pick<Config, 'provider' | 'worker' | 'retry'>;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Unique per worker; by default host, process and a random part. */
  owner?: string;
}

export interface DeliveryWorker {
  readonly owner: string;
  start(): void;
  /** Looks for due work now rather than at the next poll (a send was just accepted in this process). */
  wake(): void;
  /** Stops claiming, lets hand-overs in flight finish (up to SHUTDOWN_GRACE_MS), gives back every job still held. */
  stop(): Promise<void>;
}

/**
 * The delivery worker (DESIGN.md §3): claims due jobs with a lease, up to
 * `WORKER_CONCURRENCY` at once, takes each through attemptDelivery and has the
 * outcome recorder write the result. Leases of jobs in flight are renewed, so
 * a slow relay does not let another worker take them over; a worker that dies
 * renews nothing, and its jobs are taken over once their leases run out.
 */
export function createDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { store, provider, config, logger } = options;
  const { concurrency, leaseMs, pollMs } = config.worker;
  const owner = options.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const recorder = createOutcomeRecorder(store, { owner, providerName: provider.name, retry: config.retry });
  const deps = {
    store,
    provider,
    config,
    sandboxDomain: sandboxSigningDomain,
    onProviderError: (error: unknown, job: DeliveryJob) => logger.error({ err: error, jobId: job.id }, 'provider threw; retrying later'),
  };

  const inFlight = new Map<string, Promise<void>>();
  let running = false;
  let loopDone: Promise<void> = Promise.resolve();
  let renewTimer: NodeJS.Timeout | undefined;
  // The last claim filled every free slot: more may be due, so a finished job should look again at once.
  let backlog = false;
  let woken = false;
  let interrupt: (() => void) | null = null;

  const leaseUntil = () => new Date(Date.now() + leaseMs).toISOString();

  function wake(): void {
    woken = true;
    interrupt?.();
  }

  /** Waits `ms`, or less if woken; a wake that came while busy ends the next wait at once. */
  async function pause(ms: number): Promise<void> {
    if (!woken) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        interrupt = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      interrupt = null;
    }
    woken = false;
  }

  function run(job: DeliveryJob): void {
    const done = attemptDelivery(job, deps)
      .then((result) => recorder.record(result))
      .catch((error: unknown) => logger.error({ err: error, jobId: job.id }, 'could not record a delivery attempt; the job is retried once its lease expires'))
      .finally(() => {
        inFlight.delete(job.id);
        if (backlog || !running) wake();
      });
    inFlight.set(job.id, done);
  }

  async function loop(): Promise<void> {
    while (running) {
      const free = concurrency - inFlight.size;
      if (free > 0) {
        let claimed: DeliveryJob[] = [];
        try {
          claimed = await store.deliveryJobs.claim({ owner, now: new Date().toISOString(), leaseUntil: leaseUntil(), limit: free });
        } catch (error) {
          logger.error({ err: error }, 'could not claim delivery jobs; trying again at the next poll');
        }
        if (!running) break; // stopped while claiming: stop() gives these back unstarted
        for (const job of claimed) run(job);
        backlog = claimed.length === free;
        if (backlog) continue;
      }
      await pause(pollMs);
    }
  }

  async function renewLeases(): Promise<void> {
    try {
      await store.deliveryJobs.renew(owner, [...inFlight.keys()], leaseUntil());
    } catch (error) {
      logger.warn({ err: error }, 'could not renew delivery leases');
    }
  }

  return {
    owner,
    start() {
      if (running) return;
      running = true;
      renewTimer = setInterval(() => void renewLeases(), Math.floor(leaseMs / 3));
      renewTimer.unref();
      loopDone = loop();
      logger.info({ owner, provider: provider.name, concurrency }, 'delivery worker started');
    },
    wake,
    async stop() {
      if (!running) return;
      running = false;
      wake();
      await loopDone;
      let graceTimer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<'timeout'>((resolve) => (graceTimer = setTimeout(() => resolve('timeout'), SHUTDOWN_GRACE_MS)));
      const finished = await Promise.race([Promise.allSettled(inFlight.values()).then(() => 'done' as const), graceOver]);
      clearTimeout(graceTimer);
      clearInterval(renewTimer);
      if (finished === 'timeout') logger.warn({ inFlight: inFlight.size }, 'hand-overs still in flight at shutdown; giving their jobs back');
      const released = await store.deliveryJobs.releaseAll(owner, new Date().toISOString());
      logger.info({ owner, released }, 'delivery worker stopped');
    },
  };
}
