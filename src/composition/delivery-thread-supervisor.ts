import type { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { MetricObjectWithValues, MetricValue } from 'prom-client';
import type { Config } from '../config.js';
import { startModuleThread } from '../lib/module-worker.js';
import type { DeliveryThreadData, FromWorker, ToWorker } from './delivery-thread-messages.js';
import { watchApiLoad } from './api-load.js';

/** A restart after a crash waits this long at first, doubling up to RESTART_MAX_MS; a thread that ran RESTART_RESET_MS starts over at the first. */
const RESTART_FIRST_MS = 500;
const RESTART_MAX_MS = 30_000;
const RESTART_RESET_MS = 60_000;
/** How long a scrape waits for the thread's counts before it answers without them. */
const METRICS_WAIT_MS = 2_000;

export interface DeliveryThreadOptions {
  /** serve's configuration, its secret key opened: the thread works with the very same settings. */
  config: Config;
  log: Logger;
  /** The thread's module; the delivery thread unless a test gives another. */
  entry?: URL;
}

/**
 * The delivery thread's own SHUTDOWN_GRACE_MS, and how long serve waits for it before ending it: both inside
 * serve's grace, so that serve still ends in time (and exits 0) whatever the thread does.
 */
export function workerGrace(shutdownGraceMs: number): { graceMs: number; killAfterMs: number } {
  return { graceMs: Math.max(1000, Math.floor(shutdownGraceMs * 0.8)), killAfterMs: Math.floor(shutdownGraceMs * 0.9) };
}

export interface DeliveryThread {
  /** Tells the worker a send was accepted (coalesced: one message per turn of the event loop, however many sends). */
  wake(): void;
  /** The counts the thread keeps (deliveries, provider errors, webhook posts, retention), for serve's scrape. */
  metrics(): Promise<MetricObjectWithValues<MetricValue<string>>[]>;
  /**
   * Asks the thread to stop (deliveries in flight finish or are given back, its store connection closes),
   * then waits for its end; terminates it if it has not ended within its share of the grace (what it held
   * is taken over once its leases run out). No restart after. Called again, the same stop.
   */
  stop(): Promise<void>;
}

/**
 * `serve`'s delivery worker, on a thread of its own (delivery-thread.ts) at a
 * lower OS priority: on SQLite its claims and outcome writes never wait for
 * the write lock on the thread that answers HTTP, its work never takes that
 * thread's time, and under a burst the kernel gives accepting sends the CPU
 * first. A thread rather than a process: it shares serve's memory for Node
 * itself (a second process cost some 80 MB idle; bench:start). A thread that
 * ends on its own (an uncaught error, its heap exhausted) is started again,
 * after RESTART_FIRST_MS, doubling.
 */
export function startDeliveryThread(options: DeliveryThreadOptions): DeliveryThread {
  const entry = options.entry ?? new URL('./delivery-thread.js', import.meta.url);
  const grace = workerGrace(options.config.shutdownGraceMs);
  const data: DeliveryThreadData = { config: { ...options.config, shutdownGraceMs: grace.graceMs }, nice: options.config.worker.nice };
  let thread: Worker | undefined;
  let stopping = false;
  let restartDelay = RESTART_FIRST_MS;
  let restartTimer: NodeJS.Timeout | undefined;
  let wakePending = false;
  let nextRequest = 0;
  const pendingMetrics = new Map<number, (metrics: MetricObjectWithValues<MetricValue<string>>[]) => void>();
  let exited: Promise<void> = Promise.resolve();
  let stopped: Promise<void> | undefined;

  function send(message: ToWorker): void {
    thread?.postMessage(message);
  }

  function startThread(): void {
    const started = Date.now();
    const worker = startModuleThread(entry, data);
    thread = worker;
    worker.on('message', (message: FromWorker) => {
      if (message.type === 'started') {
        options.log.info({ tid: message.tid, nice: message.nice }, 'delivery thread started');
        // A thread started (or started again) during a burst hears of it at once.
        if (apiLoad.busy()) send({ type: 'api-busy', busy: true });
      } else if (message.type === 'metrics') {
        pendingMetrics.get(message.id)?.(message.metrics);
        pendingMetrics.delete(message.id);
      }
    });
    worker.on('error', (error) => options.log.error({ err: error }, 'the delivery thread failed'));
    exited = new Promise((resolve) => {
      worker.once('exit', (code) => {
        if (thread === worker) thread = undefined;
        for (const [id, answer] of pendingMetrics) {
          pendingMetrics.delete(id);
          answer([]);
        }
        resolve();
        if (stopping) return;
        if (Date.now() - started >= RESTART_RESET_MS) restartDelay = RESTART_FIRST_MS;
        options.log.error({ code, restartInMs: restartDelay }, 'the delivery thread exited; starting it again');
        restartTimer = setTimeout(startThread, restartDelay);
        restartDelay = Math.min(restartDelay * 2, RESTART_MAX_MS);
      });
    });
  }

  // The OS priority gives the API the CPU first; it cannot keep the delivery thread's store writes and its
  // use of the CPU the API leaves idle between commits from slowing the API down. So under load the worker
  // is also told to deliver at a trickle, and to go full speed again once the load is gone.
  const apiLoad = watchApiLoad((busy) => send({ type: 'api-busy', busy }));
  startThread();

  return {
    wake() {
      // While the API is busy the worker claims on its own slow schedule, and a wake would only stir it.
      if (wakePending || apiLoad.busy()) return;
      wakePending = true;
      setImmediate(() => {
        wakePending = false;
        send({ type: 'wake' });
      });
    },

    metrics() {
      if (!thread) return Promise.resolve([]);
      const id = nextRequest++;
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          pendingMetrics.delete(id);
          resolve([]);
        }, METRICS_WAIT_MS);
        pendingMetrics.set(id, (metrics) => {
          clearTimeout(timer);
          resolve(metrics);
        });
        send({ type: 'metrics', id });
      });
    },

    stop() {
      stopped ??= (async () => {
        stopping = true;
        clearTimeout(restartTimer);
        apiLoad.stop();
        const worker = thread;
        if (!worker) return exited;
        worker.postMessage({ type: 'stop' } satisfies ToWorker);
        const timer = setTimeout(() => {
          options.log.warn({ afterMs: grace.killAfterMs }, 'the delivery thread did not stop in time; ending it (its jobs are taken over once their leases run out)');
          void worker.terminate();
        }, grace.killAfterMs);
        await exited;
        clearTimeout(timer);
      })();
      return stopped;
    },
  };
}
