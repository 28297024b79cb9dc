import { fork, type ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';
import type { Logger } from 'pino';
import type { MetricObjectWithValues, MetricValue } from 'prom-client';
import { SUPERVISED_ENV, type FromWorker, type ToWorker } from './worker-messages.js';

/** A restart after a crash waits this long at first, doubling up to RESTART_MAX_MS; a worker that ran RESTART_RESET_MS starts over at the first. */
const RESTART_FIRST_MS = 500;
const RESTART_MAX_MS = 30_000;
const RESTART_RESET_MS = 60_000;
/** How long a scrape waits for the worker's counts before it answers without them. */
const METRICS_WAIT_MS = 2_000;

export interface WorkerSupervisorOptions {
  /** The `mailroom` command to run `worker` with (process.argv[1] for the running one). */
  command: string;
  /** Node's options of this process (e.g. tsx's loader when run from the sources). */
  execArgv: string[];
  env: NodeJS.ProcessEnv;
  /** The worker's nice value (WORKER_NICE): 0 is the API's own priority, 19 the lowest. */
  nice: number;
  /** serve's SHUTDOWN_GRACE_MS: the worker process gets a share of it (its own SHUTDOWN_GRACE_MS), and is killed past that. */
  shutdownGraceMs: number;
  log: Logger;
}

/**
 * The worker process's own SHUTDOWN_GRACE_MS, and how long serve waits for it before SIGKILL: both inside
 * serve's grace, so that serve still ends in time (and exits 0) whatever the worker process does.
 */
export function workerGrace(shutdownGraceMs: number): { graceMs: number; killAfterMs: number } {
  return { graceMs: Math.max(1000, Math.floor(shutdownGraceMs * 0.8)), killAfterMs: Math.floor(shutdownGraceMs * 0.9) };
}

export interface WorkerSupervisor {
  /** Tells the worker a send was accepted (coalesced: one message per turn of the event loop, however many sends). */
  wake(): void;
  /** The counts the worker process keeps (deliveries, provider errors, webhook posts, retention), for this process's scrape. */
  metrics(): Promise<MetricObjectWithValues<MetricValue<string>>[]>;
  /**
   * SIGTERM to the worker (its own stop: deliveries in flight finish or are given back), then its exit; SIGKILL
   * if it has not ended within its share of the grace (what it held is taken over once its leases run out).
   * No restart after. Called again, the same stop.
   */
  stop(): Promise<void>;
}

/**
 * `serve`'s delivery worker, in a process of its own (`mailroom worker`,
 * forked with an IPC channel) at a lower OS priority: on SQLite its claims
 * and outcome writes then never wait for the write lock on the thread that
 * answers HTTP, its MIME building and signing never take that thread's CPU,
 * and under a burst the kernel gives accepting sends the CPU first. A worker
 * that exits on its own is started again (after RESTART_FIRST_MS, doubling);
 * should this process die, the worker sees its channel close and stops as on
 * SIGTERM.
 */
export function startWorkerSupervisor(options: WorkerSupervisorOptions): WorkerSupervisor {
  let child: ChildProcess | undefined;
  let stopping = false;
  let restartDelay = RESTART_FIRST_MS;
  let restartTimer: NodeJS.Timeout | undefined;
  let wakePending = false;
  let nextRequest = 0;
  const pendingMetrics = new Map<number, (metrics: MetricObjectWithValues<MetricValue<string>>[]) => void>();
  let exited: Promise<void> = Promise.resolve();
  let stopped: Promise<void> | undefined;
  const grace = workerGrace(options.shutdownGraceMs);

  function send(message: ToWorker): void {
    if (child?.connected) child.send(message, (error) => error && options.log.debug({ err: error }, 'message to the worker process not delivered'));
  }

  function spawnWorker(): void {
    const started = Date.now();
    const worker = fork(options.command, ['worker'], {
      execArgv: options.execArgv,
      env: { ...options.env, [SUPERVISED_ENV]: '1', SHUTDOWN_GRACE_MS: String(grace.graceMs) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child = worker;
    try {
      if (worker.pid !== undefined) setPriority(worker.pid, options.nice);
    } catch (error) {
      // Lowering a priority needs no privilege; should it fail anyway, the worker runs at the API's.
      options.log.warn({ err: error, nice: options.nice }, 'could not lower the worker process priority (WORKER_NICE)');
    }
    worker.on('message', (message: FromWorker) => {
      if (message.type !== 'metrics') return;
      pendingMetrics.get(message.id)?.(message.metrics);
      pendingMetrics.delete(message.id);
    });
    exited = new Promise((resolve) => {
      worker.once('exit', (code, signal) => {
        if (child === worker) child = undefined;
        for (const [id, answer] of pendingMetrics) {
          pendingMetrics.delete(id);
          answer([]);
        }
        resolve();
        if (stopping) return;
        if (Date.now() - started >= RESTART_RESET_MS) restartDelay = RESTART_FIRST_MS;
        options.log.error({ code, signal, restartInMs: restartDelay }, 'the delivery worker process exited; starting it again');
        restartTimer = setTimeout(spawnWorker, restartDelay);
        restartDelay = Math.min(restartDelay * 2, RESTART_MAX_MS);
      });
    });
  }

  spawnWorker();

  return {
    wake() {
      if (wakePending) return;
      wakePending = true;
      setImmediate(() => {
        wakePending = false;
        send({ type: 'wake' });
      });
    },

    metrics() {
      if (!child?.connected) return Promise.resolve([]);
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
        const worker = child;
        if (!worker || worker.exitCode !== null || worker.signalCode !== null) return exited;
        worker.kill('SIGTERM');
        const timer = setTimeout(() => {
          options.log.warn({ pid: worker.pid, afterMs: grace.killAfterMs }, 'the worker process did not stop in time; killing it (its jobs are taken over once their leases run out)');
          worker.kill('SIGKILL');
        }, grace.killAfterMs);
        await exited;
        clearTimeout(timer);
      })();
      return stopped;
    },
  };
}
